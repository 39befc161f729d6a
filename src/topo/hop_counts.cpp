#include "loom/topo/hop_counts.hpp"

#include <algorithm>
#include <array>
#include <bit>

namespace loom::topo {
namespace {

// Sources per sweep: W 64-bit words per vertex. 4 words keep the per-vertex work vectorizable and the three
// bit arrays at 96 bytes per vertex (1 MB at 10,440 vertices).
constexpr std::size_t kWords = 4;
constexpr std::size_t kBatch = 64 * kWords;

}  // namespace

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

    std::vector<std::uint64_t> visited(n * kWords), frontier(n * kWords), next(n * kWords);
    for (std::size_t first = 0; first < sources.size(); first += kBatch) {
        const std::size_t count = std::min(kBatch, sources.size() - first);
        std::array<std::uint64_t, kWords> full{};
        for (std::size_t i = 0; i < count; ++i) full[i / 64] |= std::uint64_t{1} << (i % 64);
        std::fill(visited.begin(), visited.end(), 0);
        std::fill(frontier.begin(), frontier.end(), 0);
        for (std::size_t i = 0; i < count; ++i) {
            const std::size_t s = static_cast<std::size_t>(sources[first + i]);
            frontier[s * kWords + i / 64] |= std::uint64_t{1} << (i % 64);
            visited[s * kWords + i / 64] |= std::uint64_t{1} << (i % 64);
        }
        for (std::size_t level = 1;; ++level) {
            // Pull: v's new sources are those in a neighbour's frontier it has not seen yet.
            std::int64_t reached = 0;
            std::uint64_t any = 0;
            for (std::size_t v = 0; v < n; ++v) {
                std::uint64_t* vis = &visited[v * kWords];
                std::uint64_t* nx = &next[v * kWords];
                bool done = true;
                for (std::size_t w = 0; w < kWords; ++w) done = done && vis[w] == full[w];
                if (done) {
                    for (std::size_t w = 0; w < kWords; ++w) nx[w] = 0;
                    continue;
                }
                std::array<std::uint64_t, kWords> acc{};
                for (std::int32_t u : graph.neighbors(static_cast<std::int32_t>(v))) {
                    const std::uint64_t* f = &frontier[static_cast<std::size_t>(u) * kWords];
                    for (std::size_t w = 0; w < kWords; ++w) acc[w] |= f[w];
                }
                std::int64_t fresh = 0;
                for (std::size_t w = 0; w < kWords; ++w) {
                    const std::uint64_t nw = acc[w] & ~vis[w];
                    nx[w] = nw;
                    vis[w] |= nw;
                    any |= nw;
                    fresh += std::popcount(nw);
                }
                if (is_endpoint(v)) reached += fresh;
            }
            if (any == 0) break;
            if (reached > 0) {
                if (out.histogram.size() <= level) out.histogram.resize(level + 1, 0);
                out.histogram[level] += reached;
                out.total_hops += reached * static_cast<std::int64_t>(level);
            }
            frontier.swap(next);
        }
        for (std::size_t v = 0; v < n && out.connected; ++v) {
            if (!is_endpoint(v)) continue;
            for (std::size_t w = 0; w < kWords; ++w)
                if (visited[v * kWords + w] != full[w]) out.connected = false;
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
