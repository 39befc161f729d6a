#include "loom/topo/hop_table.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <string>

#include "loom/base/assert.hpp"
#include "loom/base/error.hpp"

#include "batched_bfs.hpp"

namespace loom::topo {
HopTable::HopTable(const FrozenTopology& t)
    : topo_(t), n_(static_cast<std::size_t>(t.num_vertices())), batches_((n_ + detail::kBfsBatch - 1) / detail::kBfsBatch) {}

std::span<const std::uint8_t> HopTable::row(VertexId source) {
    if (source < 0 || static_cast<std::size_t>(source) >= n_)
        throw InputError("hop table: vertex " + std::to_string(source) + " is not in the topology");
    const auto s = static_cast<std::size_t>(source);
    const std::size_t b = s / detail::kBfsBatch;
    if (batches_[b].empty()) compute_batch(b);
    return {batches_[b].data() + (s % detail::kBfsBatch) * n_, n_};
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
    const std::size_t first = batch * detail::kBfsBatch;
    const std::size_t count = std::min(detail::kBfsBatch, n_ - first);
    std::vector<std::uint8_t>& rows = batches_[batch];
    rows.assign(count * n_, kUnreachable);
    std::vector<std::int32_t> sources(count);
    for (std::size_t i = 0; i < count; ++i) sources[i] = static_cast<std::int32_t>(first + i);
    for (std::size_t i = 0; i < count; ++i) rows[i * n_ + first + i] = 0;
    std::vector<std::uint64_t> visited;
    detail::batched_bfs(topo_.adjacency(), sources, visited,
                        [&](std::size_t level, std::size_t v, const detail::BfsBits& fresh) {
                            LOOM_ASSERT(level < kUnreachable, "hop table: hop counts above 254 are not supported");
                            for (std::size_t w = 0; w < detail::kBfsWords; ++w)
                                for (std::uint64_t bits = fresh[w]; bits != 0; bits &= bits - 1) {
                                    const auto i = w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
                                    rows[i * n_ + v] = static_cast<std::uint8_t>(level);
                                }
                        });
    ++computed_;
}

std::int64_t HopTable::stored_bytes() const {
    std::int64_t bytes = 0;
    for (const auto& b : batches_) bytes += static_cast<std::int64_t>(b.capacity());
    return bytes;
}

}  // namespace loom::topo
