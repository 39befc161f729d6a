// Breadth-first search from up to 256 sources at once, one bit per source: the level-synchronous sweep that
// all_pairs_hops (hop_counts.cpp) and HopTable (hop_table.cpp) share.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "loom/base/assert.hpp"
#include "loom/topo/frozen_topology.hpp"

namespace loom::topo::detail {

// Sources per sweep: 4 words of 64 bits per vertex keep the per-vertex work vectorizable and the three bit
// arrays at 96 bytes per vertex (1 MB at 10,440 vertices).
inline constexpr std::size_t kBfsWords = 4;
inline constexpr std::size_t kBfsBatch = 64 * kBfsWords;
using BfsBits = std::array<std::uint64_t, kBfsWords>;

// Searches from `sources` (at most kBfsBatch; bit i stands for sources[i]) and calls on_fresh(level, v, fresh)
// for every level >= 1 and vertex v that some sources reach first at that level (fresh: their bits). Each
// vertex pulls from its neighbours' frontiers (the graph is undirected). On return `visited` holds, per vertex,
// kBfsWords words of the sources that reach it.
template <class OnFresh>
void batched_bfs(const Adjacency& graph, std::span<const std::int32_t> sources, std::vector<std::uint64_t>& visited,
                 OnFresh&& on_fresh) {
    LOOM_ASSERT(sources.size() <= kBfsBatch, "a batched search takes at most 256 sources");
    const std::size_t n = static_cast<std::size_t>(graph.size());
    visited.assign(n * kBfsWords, 0);
    std::vector<std::uint64_t> frontier(n * kBfsWords, 0), next(n * kBfsWords, 0);
    BfsBits full{};
    for (std::size_t i = 0; i < sources.size(); ++i) {
        const std::size_t s = static_cast<std::size_t>(sources[i]);
        const std::uint64_t bit = std::uint64_t{1} << (i % 64);
        frontier[s * kBfsWords + i / 64] |= bit;
        visited[s * kBfsWords + i / 64] |= bit;
        full[i / 64] |= bit;
    }
    for (std::size_t level = 1;; ++level) {
        std::uint64_t any = 0;
        for (std::size_t v = 0; v < n; ++v) {
            std::uint64_t* vis = &visited[v * kBfsWords];
            std::uint64_t* nx = &next[v * kBfsWords];
            bool done = true;
            for (std::size_t w = 0; w < kBfsWords; ++w) done = done && vis[w] == full[w];
            if (done) {
                std::fill(nx, nx + kBfsWords, 0);
                continue;
            }
            BfsBits acc{};
            for (std::int32_t u : graph.neighbors(static_cast<std::int32_t>(v))) {
                const std::uint64_t* f = &frontier[static_cast<std::size_t>(u) * kBfsWords];
                for (std::size_t w = 0; w < kBfsWords; ++w) acc[w] |= f[w];
            }
            std::uint64_t fresh_any = 0;
            for (std::size_t w = 0; w < kBfsWords; ++w) {
                const std::uint64_t nw = acc[w] & ~vis[w];
                nx[w] = nw;
                vis[w] |= nw;
                fresh_any |= nw;
                acc[w] = nw;
            }
            if (fresh_any != 0) on_fresh(level, v, static_cast<const BfsBits&>(acc));
            any |= fresh_any;
        }
        if (any == 0) break;
        frontier.swap(next);
    }
}

}  // namespace loom::topo::detail
