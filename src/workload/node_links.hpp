// Member TSPs grouped by node and the links joining every two member nodes: what the direct collectives (all-reduce,
// all-to-all) route over, every transfer crossing one link.
#pragma once

#include <cstdint>
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "loom/config/schema.hpp"
#include "loom/topo/frozen_topology.hpp"

namespace loom::workload::detail {

// Members grouped by node, and the links joining every two member nodes (both ends members): what the direct
// collectives route over. Errors (nodes with different numbers of members, a node pair without a link) go to
// `errors` under `pointer`, naming `what`.
struct NodeLinks {
    std::int64_t node_count = 0;  // member nodes
    std::int64_t per_node = 0;  // members per node
    // Links used per node pair: the fewest any pair has, lowered until it divides per_node.
    std::int64_t links_per_pair = 1;
    std::vector<std::vector<std::int64_t>> nodes;  // node index -> ranks, ascending
    std::vector<std::int64_t> node_of, index_in_node;  // by rank
    std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> links;  // (a < b) -> (end in a, end in b)

    // Rank in node a at its end of link l (0..links_per_pair-1) to node b.
    std::int64_t holder(std::int64_t a, std::int64_t b, std::int64_t l) const {
        const auto& e =
            links[static_cast<std::size_t>(std::min(a, b) * node_count + std::max(a, b))][static_cast<std::size_t>(l)];
        return a < b ? e.first : e.second;
    }
};

std::optional<NodeLinks> node_links(const std::vector<topo::VertexId>& m, const topo::FrozenTopology& t,
                                    const char* what, const std::string& pointer, config::Errors& errors);

}  // namespace loom::workload::detail
