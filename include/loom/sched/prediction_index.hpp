// Looks up the scheduler's predicted arrival of one vector of one transfer at one TSP, from the runs a Schedule
// stores, so that an executor can compare every actual arrival with its prediction.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "loom/base/link_timing.hpp"
#include "loom/base/units.hpp"
#include "loom/sched/schedule.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/topo/link_class_timing.hpp"

namespace loom::sched {

// Predicted arrival of vector j (0-based within the run) of run `r` on a channel timed by `t`: the last bit in,
// without jitter, at train_start + serialization(offset + j + 1) + latency.
Time predicted_arrival(const PredictedRun& r, std::uint32_t j, const LinkTiming& t);

// An index over a Schedule's predicted runs (the Schedule must outlive it). Memory: one 32-bit entry per run.
class PredictionIndex {
public:
    PredictionIndex(const Schedule& schedule, const topo::FrozenTopology& topology, const topo::LinkClassTiming& links);

    // The run holding vector `vector` (transfer-wide index) of `transfer` arriving at `tsp` over directed channel
    // `channel`; nullptr if the schedule has none.
    const PredictedRun* find(std::uint32_t transfer, std::uint32_t vector, std::uint32_t tsp,
                             std::uint32_t channel) const;
    // Its predicted arrival (last bit in, without jitter).
    std::optional<Time> arrival(std::uint32_t transfer, std::uint32_t vector, std::uint32_t tsp,
                                std::uint32_t channel) const;
    // The earliest predicted arrival of that vector at `tsp` over any channel (a vector reaches a TSP once per
    // route through it; fan-out over several trees can bring it twice).
    std::optional<Time> arrival(std::uint32_t transfer, std::uint32_t vector, std::uint32_t tsp) const;
    // The same for an arrival on the TSP's network port `port` (the channel that ends there).
    std::optional<Time> arrival_on_port(std::uint32_t transfer, std::uint32_t vector, std::uint32_t tsp,
                                        std::int32_t port) const;

    const LinkTiming& timing(std::uint32_t channel) const;
    std::size_t size() const { return order_.size(); }

private:
    const Schedule& schedule_;
    const topo::FrozenTopology& topology_;
    std::vector<LinkTiming> timings_;  // by link class
    std::vector<std::uint32_t> order_;  // runs by (transfer, tsp, channel, first_vector)
};

}  // namespace loom::sched
