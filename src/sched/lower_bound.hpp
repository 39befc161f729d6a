// Bounds from below for the compile-time scheduler (DESIGN "Scheduler figures"): the shortest time one transfer's
// vectors can take over its candidate routes, and a schedule's lower bound — the largest of terms that depend only
// on the workload and the machine: per-TSP bandwidth, node, rack and balanced-cut boundaries, dependency chain.
#pragma once

#include <cstdint>
#include <span>
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
// The same bound from each destination's fastest path latency (`latency[i]` for x.dsts[i], Time::max() where no
// candidate reaches it), for callers that keep those latencies (a point-to-point pair's are the same every time).
Time transfer_duration_bound(const Network& net, const workload::Transfer& x, std::int64_t vectors,
                             std::span<const Time> latency);
// The least single-vector latency to `d` over `candidates`' leaves (Time::max(): no candidate reaches it).
Time fastest_latency(const std::vector<Route>& candidates, topo::VertexId d);

// Sets `s.bound` and `s.lower_bound` for a schedule of `set`: every term of LowerBoundParts (the longest chain
// with each transfer taking at least its `duration_bounds` entry, by position in `set`), the binding one, the
// collective's algorithm bound, and (not a bound) the busiest channel's reserved time in `s`.
void set_lower_bound(const Network& net, const workload::TransferSet& set, Bytes unit,
                     const std::vector<Time>& duration_bounds, Schedule& s);

}  // namespace loom::sched::detail
