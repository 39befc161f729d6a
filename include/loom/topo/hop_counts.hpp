// All-pairs hop counts on a CSR graph: exact diameter, average and histogram, for TSP-to-TSP and
// node-to-node graphs. Bit-parallel BFS (256 sources per sweep), so the 10,440-TSP system takes well under
// a second and a few MB.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/topo/frozen_topology.hpp"

namespace loom::topo {

struct HopSummary {
    // Largest hop count between two endpoints (0 with a single endpoint, -1 with none).
    std::int32_t diameter = -1;
    // Mean hop count over ordered pairs of distinct endpoints (0 when there are none).
    double average = 0.0;
    std::int64_t pairs = 0;                 // ordered pairs of distinct endpoints
    std::int64_t total_hops = 0;            // sum of the hop counts over those pairs
    std::vector<std::int64_t> histogram;    // histogram[h]: ordered pairs at h hops (h >= 1; [0] is 0)
    bool connected = true;                  // every endpoint reaches every other
};

// Hop counts between every two endpoints of an undirected graph (every edge present in both rows); paths
// may pass through any vertex. `endpoint` has one flag per vertex; empty means every vertex.
HopSummary all_pairs_hops(const Adjacency& graph, const std::vector<bool>& endpoint = {});

// Hop count from `source` to every vertex (-1 where unreachable).
std::vector<std::int32_t> hops_from(const Adjacency& graph, std::int32_t source);

// TSP-to-TSP hop counts between compute vertices (terminals > 0); spares may forward.
HopSummary vertex_hops(const FrozenTopology& t);
// Node-to-node hop counts on node_adjacency(), between nodes that hold a compute vertex.
HopSummary node_hops(const FrozenTopology& t);

}  // namespace loom::topo
