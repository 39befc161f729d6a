// all_reduce, "ring": one ring over the members, reduce-scatter then all-gather, 2 (N - 1) steps of one chunk each.
#include <cstdint>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "collective_builder.hpp"

namespace loom::workload::detail {

void generate_ring_all_reduce(const CollectiveRequest& request, CollectiveLayout& layout, Builder& b,
                              CollectiveBuffers& buffers) {
    const auto member_count = static_cast<std::int64_t>(layout.members.size());
    const std::int64_t chunk = ceil_div(request.tensor_vectors, member_count);
    buffers.region = member_count * chunk;
    layout.vectors = buffers.region;
    layout.block = chunk;
    auto mod = [member_count](std::int64_t x) { return ((x % member_count) + member_count) % member_count; };
    std::vector<TransferId> prev(static_cast<std::size_t>(member_count));
    std::vector<TransferId> cur(static_cast<std::size_t>(member_count));
    for (std::int64_t step = 0; step < member_count - 1; ++step) {  // reduce-scatter
        for (std::int64_t r = 0; r < member_count; ++r) {
            const std::int64_t slot = mod(r - step) * chunk;
            Deps deps;
            if (step > 0) deps.push_back(prev[static_cast<std::size_t>(mod(r - 1))]);
            cur[static_cast<std::size_t>(r)] = b.add(r, {mod(r + 1)}, slot, slot, chunk, Combine::Sum, deps);
        }
        std::swap(prev, cur);
    }
    for (std::int64_t step = 0; step < member_count - 1; ++step) {  // all-gather
        for (std::int64_t r = 0; r < member_count; ++r) {
            const std::int64_t slot = mod(r + 1 - step) * chunk;
            cur[static_cast<std::size_t>(r)] = b.add(r, {mod(r + 1)}, slot, slot, chunk, Combine::Store,
                                                     {prev[static_cast<std::size_t>(mod(r - 1))]});
        }
        std::swap(prev, cur);
    }
    layout.levels = fmt::format("ring {}", member_count);
}

}  // namespace loom::workload::detail
