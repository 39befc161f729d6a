// Destinations of synthetic traffic on any frozen topology: the terminals (endpoints) numbered router by router,
// their groups (VertexInfo::group), and the choice of a destination for each packet a terminal generates.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/base/rng.hpp"
#include "loom/config/schema.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/workload/traffic_config.hpp"

namespace loom::workload {

// Terminal numbering: vertex v holds VertexInfo::terminals terminals (0 for a spare), numbered consecutively in
// vertex order, so terminal t sits on router_of(t) as its local terminal t - first_terminal(router_of(t)).
// Immutable after construction: every component of a run may share one.
class TrafficPattern {
public:
    // `seed` draws the permutation of Permutation traffic (nothing else is drawn here). Call validate() first:
    // the constructor assumes a valid config (InternalError otherwise).
    TrafficPattern(const TrafficConfig& config, const topo::FrozenTopology& topology, std::uint64_t seed);

    // Problems of `config` on this topology (hotspot ids out of range, a pattern that needs two terminals or two
    // groups), reported under `pointer` ("/traffic").
    static void validate(const TrafficConfig& config, const topo::FrozenTopology& topology,
                         const std::string& pointer, config::Errors& errors);

    TrafficPatternKind kind() const { return kind_; }
    std::int32_t terminals() const { return static_cast<std::int32_t>(router_.size()); }
    topo::VertexId router_of(std::int32_t terminal) const { return router_[static_cast<std::size_t>(terminal)]; }
    std::int32_t first_terminal(topo::VertexId v) const { return first_[static_cast<std::size_t>(v)]; }
    std::int32_t group_of(std::int32_t terminal) const { return group_[static_cast<std::size_t>(terminal)]; }
    // Groups are 0 .. groups()-1 (the largest VertexInfo::group of a vertex with terminals, plus one).
    std::int32_t groups() const { return static_cast<std::int32_t>(group_members_.size()); }

    // Destination of the next packet of terminal `src`, never `src` itself. Uniform, GroupShift and Hotspot draw
    // from `rng` (the source terminal's own stream); Permutation draws nothing. Not for Trace (InternalError).
    std::int32_t destination(std::int32_t src, Rng& rng) const;

private:
    std::int32_t uniform_other(std::int32_t src, Rng& rng) const;

    TrafficPatternKind kind_;
    std::int32_t shift_;
    double hotspot_fraction_;
    std::vector<topo::VertexId> router_;  // per terminal
    std::vector<std::int32_t> group_;     // per terminal
    std::vector<std::int32_t> first_;     // per vertex, size V + 1
    std::vector<std::vector<std::int32_t>> group_members_;  // terminals of each group, ascending
    std::vector<std::int32_t> permutation_;                 // Permutation: destination of each terminal
    std::vector<std::int32_t> hotspots_;
};

}  // namespace loom::workload
