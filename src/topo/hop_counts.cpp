#include "loom/topo/hop_counts.hpp"

#include <algorithm>
#include <array>
#include <bit>

#include "batched_bfs.hpp"

namespace loom::topo {
HopSummary all_pairs_hops(const Adjacency& graph, const std::vector<bool>& endpoint) {
    const std::size_t n = static_cast<std::size_t>(graph.size());
    auto is_endpoint = [&](std::size_t v) { return endpoint.empty() || endpoint[v]; };
    std::vector<std::int32_t> sources;
    for (std::size_t v = 0; v < n; ++v)
        if (is_endpoint(v)) sources.push_back(static_cast<std::int32_t>(v));

    HopSummary out;
    out.histogram.assign(1, 0);
    const auto ne = static_cast<std::int64_t>(sources.size());
    out.pairs = ne * (ne - 1);
    if (ne < 2) {
        out.diameter = ne == 1 ? 0 : -1;
        return out;
    }

    std::vector<std::uint64_t> visited;
    for (std::size_t first = 0; first < sources.size(); first += detail::kBfsBatch) {
        const std::size_t count = std::min(detail::kBfsBatch, sources.size() - first);
        detail::batched_bfs(graph, std::span<const std::int32_t>(sources).subspan(first, count), visited,
                            [&](std::size_t level, std::size_t v, const detail::BfsBits& fresh) {
                                if (!is_endpoint(v)) return;
                                std::int64_t reached = 0;
                                for (std::uint64_t w : fresh) reached += std::popcount(w);
                                if (out.histogram.size() <= level) out.histogram.resize(level + 1, 0);
                                out.histogram[level] += reached;
                                out.total_hops += reached * static_cast<std::int64_t>(level);
                            });
        for (std::size_t v = 0; v < n && out.connected; ++v) {
            if (!is_endpoint(v)) continue;
            for (std::size_t i = 0; i < count; ++i)
                if ((visited[v * detail::kBfsWords + i / 64] >> (i % 64) & 1) == 0) out.connected = false;
        }
    }
    for (std::size_t h = out.histogram.size(); h-- > 1;)
        if (out.histogram[h] > 0) {
            out.diameter = static_cast<std::int32_t>(h);
            break;
        }
    std::int64_t reached_pairs = 0;
    for (std::int64_t c : out.histogram) reached_pairs += c;
    if (reached_pairs > 0) out.average = static_cast<double>(out.total_hops) / static_cast<double>(reached_pairs);
    return out;
}

std::vector<std::int32_t> hops_from(const Adjacency& graph, std::int32_t source) {
    std::vector<std::int32_t> dist(static_cast<std::size_t>(graph.size()), -1);
    std::vector<std::int32_t> queue;
    queue.reserve(dist.size());
    dist[static_cast<std::size_t>(source)] = 0;
    queue.push_back(source);
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const std::int32_t u = queue[head];
        for (std::int32_t v : graph.neighbors(u))
            if (dist[static_cast<std::size_t>(v)] < 0) {
                dist[static_cast<std::size_t>(v)] = dist[static_cast<std::size_t>(u)] + 1;
                queue.push_back(v);
            }
    }
    return dist;
}

HopSummary vertex_hops(const FrozenTopology& t) {
    std::vector<bool> endpoint(static_cast<std::size_t>(t.num_vertices()));
    for (VertexId v = 0; v < t.num_vertices(); ++v) endpoint[static_cast<std::size_t>(v)] = t.vertex(v).terminals > 0;
    return all_pairs_hops(t.adjacency(), endpoint);
}

HopSummary node_hops(const FrozenTopology& t) {
    std::vector<bool> endpoint(static_cast<std::size_t>(t.num_nodes()));
    for (VertexId v = 0; v < t.num_vertices(); ++v)
        if (t.vertex(v).terminals > 0) endpoint[static_cast<std::size_t>(t.vertex(v).node)] = true;
    return all_pairs_hops(t.node_adjacency(), endpoint);
}

}  // namespace loom::topo
