#include "loom/topo/hop_table.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <string>

#include "loom/base/assert.hpp"
#include "loom/base/error.hpp"

namespace loom::topo {
namespace {

// Sources per batch: 4 words of 64 bits per vertex, as all_pairs_hops (hop_counts.cpp) uses.
constexpr std::size_t kWords = 4;
constexpr std::size_t kBatch = 64 * kWords;

}  // namespace

HopTable::HopTable(const FrozenTopology& t)
    : topo_(t), n_(static_cast<std::size_t>(t.num_vertices())), batches_((n_ + kBatch - 1) / kBatch) {}

std::span<const std::uint8_t> HopTable::row(VertexId source) {
    if (source < 0 || static_cast<std::size_t>(source) >= n_)
        throw InputError("hop table: vertex " + std::to_string(source) + " is not in the topology");
    const auto s = static_cast<std::size_t>(source);
    const std::size_t b = s / kBatch;
    if (batches_[b].empty()) compute_batch(b);
    return {batches_[b].data() + (s % kBatch) * n_, n_};
}

std::int32_t HopTable::hops(VertexId a, VertexId b) {
    const auto r = row(a);
    if (b < 0 || static_cast<std::size_t>(b) >= n_)
        throw InputError("hop table: vertex " + std::to_string(b) + " is not in the topology");
    const std::uint8_t d = r[static_cast<std::size_t>(b)];
    return d == kUnreachable ? -1 : d;
}

// Level-synchronous search from up to 256 sources at once: bit i of a vertex's words stands for source
// first + i. A vertex's fresh bits at level L are the sources whose row gets L at that vertex.
void HopTable::compute_batch(std::size_t batch) {
    const Adjacency& graph = topo_.adjacency();
    const std::size_t first = batch * kBatch;
    const std::size_t count = std::min(kBatch, n_ - first);
    std::vector<std::uint8_t>& rows = batches_[batch];
    rows.assign(count * n_, kUnreachable);
    std::vector<std::uint64_t> visited(n_ * kWords, 0), frontier(n_ * kWords, 0), next(n_ * kWords, 0);
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t s = first + i;
        frontier[s * kWords + i / 64] |= std::uint64_t{1} << (i % 64);
        visited[s * kWords + i / 64] |= std::uint64_t{1} << (i % 64);
        rows[i * n_ + s] = 0;
    }
    std::array<std::uint64_t, kWords> full{};
    for (std::size_t i = 0; i < count; ++i) full[i / 64] |= std::uint64_t{1} << (i % 64);
    for (std::size_t level = 1;; ++level) {
        std::uint64_t any = 0;
        for (std::size_t v = 0; v < n_; ++v) {
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
            for (std::size_t w = 0; w < kWords; ++w) {
                std::uint64_t nw = acc[w] & ~vis[w];
                nx[w] = nw;
                vis[w] |= nw;
                any |= nw;
                while (nw != 0) {
                    const auto i = w * 64 + static_cast<std::size_t>(std::countr_zero(nw));
                    nw &= nw - 1;
                    LOOM_ASSERT(level < kUnreachable, "hop table: hop counts above 254 are not supported");
                    rows[i * n_ + v] = static_cast<std::uint8_t>(level);
                }
            }
        }
        if (any == 0) break;
        frontier.swap(next);
    }
    ++computed_;
}

std::int64_t HopTable::stored_bytes() const {
    std::int64_t bytes = 0;
    for (const auto& b : batches_) bytes += static_cast<std::int64_t>(b.capacity());
    return bytes;
}

}  // namespace loom::topo
