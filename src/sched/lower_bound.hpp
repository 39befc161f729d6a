// Bounds from below for the compile-time scheduler (DESIGN "Scheduler figures"): the shortest time one transfer's
// vectors can take over its candidate routes, and a schedule's lower bound — the largest of the busiest link, the
// busiest TSP's bandwidth and the longest dependency chain.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/base/units.hpp"
#include "loom/sched/schedule.hpp"
#include "loom/workload/transfer.hpp"
#include "route.hpp"

namespace loom::sched::detail {

// No schedule can deliver `vectors` vectors of `x` over `candidates` (its routes) faster than this, from its first
// Send to its last arrival: by the fastest path latency to each destination, and by the ports of its source and of
// each destination at the fastest link rate. Zero when no candidate reaches a destination.
Time transfer_duration_bound(const Network& net, const workload::Transfer& x, std::int64_t vectors,
                             const std::vector<Route>& candidates);

// Sets `s.bound` and `s.lower_bound` for a schedule of `set` whose reservations are in `s`: the busiest channel's
// reserved time, the busiest TSP's larger of sent and received vectors at its total link rate, and the longest
// chain of dependencies, each transfer taking at least its `duration_bounds` entry (by position in `set`).
void set_lower_bound(const Network& net, const workload::TransferSet& set, Bytes unit,
                     const std::vector<Time>& duration_bounds, Schedule& s);

}  // namespace loom::sched::detail
