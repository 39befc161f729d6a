// all_to_all, phased by shift (any algorithm but "direct"): in phase s every member sends to the member s ranks on,
// so that each phase is a permutation and no TSP is the target of everyone at once.
#include <cstdint>

#include "collective_builder.hpp"

namespace loom::workload::detail {

void generate_shifted_all_to_all(const CollectiveRequest& request, CollectiveLayout& layout, Builder& b,
                                 CollectiveBuffers& buffers) {
    const auto member_count = static_cast<std::int64_t>(layout.members.size());
    layout.block = ceil_div(request.tensor_vectors, member_count);
    buffers.region = member_count * layout.block;
    layout.out_address = request.config.address + buffers.region * request.vector_bytes;
    for (std::int64_t shift = 1; shift < member_count; ++shift)
        for (std::int64_t r = 0; r < member_count; ++r) {
            const std::int64_t d = (r + shift) % member_count;
            b.add(r, {d}, d * layout.block, r * layout.block, layout.block, Combine::Store, {}, layout.out_address);
        }
}

}  // namespace loom::workload::detail
