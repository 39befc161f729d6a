// Table-driven minimal routing for any frozen topology: the hop distance and the next-hop candidates on
// minimal paths for each (vertex, destination).
#pragma once

#include <cstdint>
#include <vector>

#include "loom/topo/frozen_topology.hpp"

namespace loom::topo {

// What is stored: one distance column per destination d (dist(v, d) for every v, one byte each, V bytes),
// computed by one BFS from d when first needed and kept in a cache of at most `max_columns` columns
// (least recently used evicted). Next-hop candidates are derived from the column on each query: the
// out-channels of v whose far end is one hop closer to d (v's degree in work, no storage). All V^2 columns
// would take 109 MB at 10,440 TSPs; the default cache of 1,024 columns takes 10.7 MB there and holds every
// column of systems up to 1,024 vertices.
//
// Answers never depend on the cache's state, but queries mutate it: a RouteTable is not thread-safe (use one
// per thread or process; each holds only derived data).
class RouteTable {
public:
    explicit RouteTable(const FrozenTopology& t, std::int32_t max_columns = 1024);

    // Fewest hops from `from` to `to` (graphs are undirected, so also to -> from).
    std::int32_t hops(VertexId from, VertexId to);
    // Appends to `out` the out-channels of `at` that lie on a minimal path to `dest`, in port order (none when
    // at == dest).
    void minimal_next(VertexId at, VertexId dest, std::vector<ChannelId>& out);
    // The same as a bit mask of src ports (bit p = port p); requires num_ports(at) <= 64.
    std::uint64_t minimal_port_mask(VertexId at, VertexId dest);

    std::int64_t stored_bytes() const;
    std::int64_t column_computations() const { return computed_; }

private:
    const std::vector<std::uint8_t>& column(VertexId dest);

    const FrozenTopology& topo_;
    std::int32_t max_columns_;
    std::vector<std::vector<std::uint8_t>> columns_;  // slot -> distances
    std::vector<VertexId> slot_dest_;                // slot -> destination
    std::vector<std::int64_t> slot_used_;            // slot -> last use (query counter)
    std::vector<std::int32_t> dest_slot_;            // destination -> slot, -1 if not cached
    std::vector<VertexId> queue_;                    // BFS scratch
    std::int64_t clock_ = 0;
    std::int64_t computed_ = 0;
};

}  // namespace loom::topo
