#include "node_links.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace loom::workload::detail {

std::optional<NodeLinks> node_links(const std::vector<topo::VertexId>& m, const topo::FrozenTopology& t,
                                    const char* what, const std::string& pointer, config::Errors& errors) {
    NodeLinks nl;
    const auto n = static_cast<std::int64_t>(m.size());
    auto node_name = [&](std::int64_t r) { return t.vertex(m[static_cast<std::size_t>(r)]).node; };
    std::map<topo::VertexId, std::int64_t> rank_of;
    for (std::int64_t r = 0; r < n; ++r) rank_of[m[static_cast<std::size_t>(r)]] = r;
    std::map<std::int32_t, std::vector<std::int64_t>> by_node;
    for (std::int64_t r = 0; r < n; ++r) by_node[node_name(r)].push_back(r);
    for (const auto& [node, ranks] : by_node) nl.nodes.push_back(ranks);
    nl.node_count = static_cast<std::int64_t>(nl.nodes.size());
    nl.per_node = static_cast<std::int64_t>(nl.nodes.front().size());
    for (const auto& g : nl.nodes)
        if (static_cast<std::int64_t>(g.size()) != nl.per_node) {
            errors.add(config::child_pointer(pointer, "tsps"),
                       fmt::format("{} needs the same number of members in every node: node {} has {}, node {} has {}",
                                   what, node_name(nl.nodes.front()[0]), nl.per_node, node_name(g[0]), g.size()));
            return std::nullopt;
        }
    nl.node_of.resize(static_cast<std::size_t>(n));
    nl.index_in_node.resize(static_cast<std::size_t>(n));
    for (std::int64_t a = 0; a < nl.node_count; ++a)
        for (std::int64_t j = 0; j < nl.per_node; ++j) {
            const auto r = static_cast<std::size_t>(nl.nodes[static_cast<std::size_t>(a)][static_cast<std::size_t>(j)]);
            nl.node_of[r] = a;
            nl.index_in_node[r] = j;
        }
    nl.links.resize(static_cast<std::size_t>(nl.node_count * nl.node_count));
    for (std::int64_t r = 0; r < n; ++r) {
        for (topo::ChannelId c : t.out_channels(m[static_cast<std::size_t>(r)])) {
            const auto it = rank_of.find(t.channel(c).dst);
            if (it == rank_of.end()) continue;
            const std::int64_t a = nl.node_of[static_cast<std::size_t>(r)];
            const std::int64_t b = nl.node_of[static_cast<std::size_t>(it->second)];
            if (a < b) nl.links[static_cast<std::size_t>(a * nl.node_count + b)].emplace_back(r, it->second);
        }
    }
    nl.links_per_pair = nl.per_node;
    for (std::int64_t a = 0; a < nl.node_count; ++a)
        for (std::int64_t b = a + 1; b < nl.node_count; ++b) {
            const auto k = static_cast<std::int64_t>(nl.links[static_cast<std::size_t>(a * nl.node_count + b)].size());
            if (k == 0) {
                errors.add(config::child_pointer(pointer, "algorithm"),
                           fmt::format("{} needs a link between every two member nodes: nodes {} and {} have none",
                                       what, node_name(nl.nodes[static_cast<std::size_t>(a)][0]),
                                       node_name(nl.nodes[static_cast<std::size_t>(b)][0])));
                return std::nullopt;
            }
            nl.links_per_pair = std::min(nl.links_per_pair, k);
        }
    if (nl.node_count == 1) nl.links_per_pair = 1;
    while (nl.per_node % nl.links_per_pair != 0) --nl.links_per_pair;  // each link carries whole pieces
    return nl;
}

}  // namespace loom::workload::detail
