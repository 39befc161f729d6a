// all_reduce, "hierarchical": node -> rack -> system, reduce-scatter down the levels, a tree all-reduce where a share
// no longer covers a level, all-gather back up.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "collective_builder.hpp"

namespace loom::workload::detail {
namespace {

// Each level's name and its groups of ranks.
using Levels = std::vector<std::pair<std::string, std::vector<std::vector<std::int64_t>>>>;

// The levels of a hierarchical all-reduce: groups of ranks sharing a shard at each level (node, then the same
// position in the other nodes of the rack, then the same position in the other racks), levels of one member left
// out. Nodes must hold equally many members, and racks equally many such nodes, so that shards line up.
Levels hierarchy(
    const std::vector<topo::VertexId>& m, const topo::FrozenTopology& t, const std::string& pointer,
    config::Errors& errors) {
    const auto n = static_cast<std::int64_t>(m.size());
    std::map<std::int32_t, std::vector<std::int64_t>> by_node;
    for (std::int64_t r = 0; r < n; ++r) by_node[t.vertex(m[static_cast<std::size_t>(r)]).node].push_back(r);
    std::vector<std::int64_t> index(static_cast<std::size_t>(n)), node_rank(static_cast<std::size_t>(n));
    std::map<std::int32_t, std::vector<std::int32_t>> nodes_of_rack;
    std::size_t per_node = by_node.begin()->second.size();
    for (const auto& [node, ranks] : by_node) {
        if (ranks.size() != per_node)
            errors.add(config::child_pointer(pointer, "tsps"),
                       fmt::format("hierarchical all-reduce needs the same number of members in every node: node {} "
                                   "has {}, node {} has {}",
                                   by_node.begin()->first, per_node, node, ranks.size()));
        for (std::size_t i = 0; i < ranks.size(); ++i) index[static_cast<std::size_t>(ranks[i])] = static_cast<std::int64_t>(i);
        nodes_of_rack[t.vertex(m[static_cast<std::size_t>(ranks[0])]).rack].push_back(node);
    }
    const std::size_t per_rack = nodes_of_rack.begin()->second.size();
    std::map<std::int32_t, std::int64_t> rack_rank;
    for (const auto& [rack, nodes] : nodes_of_rack) {
        if (nodes.size() != per_rack)
            errors.add(config::child_pointer(pointer, "tsps"),
                       fmt::format("hierarchical all-reduce needs the same number of member nodes in every rack: "
                                   "rack {} has {}, rack {} has {}",
                                   nodes_of_rack.begin()->first, per_rack, rack, nodes.size()));
        for (std::size_t i = 0; i < nodes.size(); ++i)
            for (std::int64_t r : by_node[nodes[i]]) node_rank[static_cast<std::size_t>(r)] = static_cast<std::int64_t>(i);
        rack_rank.emplace(rack, static_cast<std::int64_t>(rack_rank.size()));
    }
    std::map<std::int64_t, std::vector<std::int64_t>> l1, l2, l3;
    for (std::int64_t r = 0; r < n; ++r) {
        const topo::VertexInfo& info = t.vertex(m[static_cast<std::size_t>(r)]);
        const auto ri = static_cast<std::size_t>(r);
        l1[info.node].push_back(r);
        l2[rack_rank[info.rack] * n + index[ri]].push_back(r);
        l3[index[ri] * n + node_rank[ri]].push_back(r);
    }
    Levels levels;
    auto push = [&](const char* name, const std::map<std::int64_t, std::vector<std::int64_t>>& groups) {
        if (groups.begin()->second.size() < 2) return;
        std::vector<std::vector<std::int64_t>> gs;
        for (const auto& [key, ranks] : groups) gs.push_back(ranks);
        levels.emplace_back(name, std::move(gs));
    };
    const bool racked = nodes_of_rack.size() > 1 || nodes_of_rack.begin()->first >= 0;
    push("node", l1);
    push(racked ? "rack" : "system", l2);
    if (nodes_of_rack.size() > 1) push("system", l3);
    return levels;
}

}  // namespace

void generate_hierarchical_all_reduce(const CollectiveRequest& request, CollectiveLayout& layout, Builder& b,
                                      CollectiveBuffers& buffers) {
    const std::int64_t tensor_vectors = request.tensor_vectors;
    const auto member_count = static_cast<std::int64_t>(layout.members.size());
    auto levels = hierarchy(layout.members, request.topology, request.pointer, request.errors);
    request.errors.throw_if_any();
    // Top-down: a level whose share is at least its group size is reduce-scattered; the first one that is
    // not (and every level under it) is all-reduced by a tree over every member holding that share.
    std::int64_t share = tensor_vectors;
    std::size_t scatter_levels = 0;
    for (const auto& level : levels) {
        const auto group_size = static_cast<std::int64_t>(level.second.front().size());
        if (share < group_size) break;
        share = ceil_div(share, group_size);
        ++scatter_levels;
    }
    // Bottom-up: whole chunks at every level (the padding).
    std::vector<std::int64_t> chunk(scatter_levels + 1);
    chunk[scatter_levels] = share;
    for (std::size_t l = scatter_levels; l-- > 0;)
        chunk[l] = static_cast<std::int64_t>(levels[l].second.front().size()) * chunk[l + 1];
    buffers.region = chunk[0];
    layout.vectors = buffers.region;
    layout.block = share;
    std::vector<std::int64_t> offset(static_cast<std::size_t>(member_count), 0);  // each member's region, by level
    std::vector<std::vector<std::int64_t>> offsets;                    // before each scatter level
    std::vector<Deps> ready(static_cast<std::size_t>(member_count));
    std::vector<std::int64_t> position(static_cast<std::size_t>(member_count), 0);  // tree key: ranks at levels
    for (std::size_t l = 0; l < scatter_levels; ++l) {
        offsets.push_back(offset);
        for (const auto& g : levels[l].second) {
            reduce_scatter_group(b, g, offset[static_cast<std::size_t>(g[0])], chunk[l + 1], request.config.pieces,
                                 ready);
            for (std::size_t i = 0; i < g.size(); ++i) {
                offset[static_cast<std::size_t>(g[i])] += static_cast<std::int64_t>(i) * chunk[l + 1];
                position[static_cast<std::size_t>(g[i])] =
                    position[static_cast<std::size_t>(g[i])] * member_count + static_cast<std::int64_t>(i);
            }
        }
    }
    std::string tree;
    if (scatter_levels < levels.size()) {
        std::map<std::int64_t, std::vector<std::int64_t>> groups;
        for (std::int64_t r = 0; r < member_count; ++r) groups[position[static_cast<std::size_t>(r)]].push_back(r);
        std::int64_t k = 0;
        for (const auto& [key, g] : groups) {
            const auto group_size = static_cast<std::int64_t>(g.size());
            tree_all_reduce_group(b, g, k++ % group_size, offset[static_cast<std::size_t>(g[0])], share, ready);
            tree = fmt::format(" x tree {}", group_size);
        }
    }
    for (std::size_t l = scatter_levels; l-- > 0;) {
        for (const auto& g : levels[l].second)
            all_gather_group(b, g, offsets[l][static_cast<std::size_t>(g[0])], chunk[l + 1], ready);
    }
    for (std::size_t l = 0; l < scatter_levels; ++l)
        layout.levels += fmt::format("{}{} {}", l > 0 ? " x " : "", levels[l].first, levels[l].second.front().size());
    layout.levels += scatter_levels > 0 ? tree : tree.substr(3);
}

}  // namespace loom::workload::detail
