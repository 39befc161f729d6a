// HopTable: exact hop counts between every two vertices, kept for a whole run so that code asking about many
// pairs (the scheduler's candidate paths) never searches the graph per pair.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/topo/frozen_topology.hpp"

namespace loom::topo {

// What is stored: one row of V bytes per source vertex (hop count to every vertex; the graph is undirected, so
// it is also the column of hop counts to that vertex). Rows are computed 256 at a time (sources 256b ..
// 256b+255) by one bit-parallel breadth-first search, when a row of that batch is first asked for, and kept:
// a run that touches every vertex of the 10,440-TSP system holds 109 MB and pays about 41 searches of 256
// sources each, where one search per pair was the cost before. Hop counts above 254 are not supported (a TSP
// system's diameter is a few hops).
//
// Answers never depend on which rows are present, but queries fill the table: not thread-safe.
class HopTable {
public:
    static constexpr std::uint8_t kUnreachable = 255;

    explicit HopTable(const FrozenTopology& t);

    // Hop counts from `source` to every vertex (kUnreachable where there is no path).
    std::span<const std::uint8_t> row(VertexId source);
    // Fewest hops from `a` to `b`, -1 if unreachable.
    std::int32_t hops(VertexId a, VertexId b);

    std::int64_t stored_bytes() const;
    std::int32_t batches_computed() const { return computed_; }

private:
    void compute_batch(std::size_t batch);

    const FrozenTopology& topo_;
    std::size_t n_ = 0;
    std::vector<std::vector<std::uint8_t>> batches_;  // batch -> 256 rows of n_ bytes (empty until computed)
    std::int32_t computed_ = 0;
};

}  // namespace loom::topo
