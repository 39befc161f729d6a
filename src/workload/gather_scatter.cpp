// gather and scatter: one transfer per member between its block of the region and the root's copy of that block
// (to the root for gather, from it for scatter).
#include <cstdint>

#include "collective_builder.hpp"

namespace loom::workload::detail {

void generate_gather_scatter(const CollectiveRequest& request, CollectiveLayout& layout, Builder& b,
                             CollectiveBuffers& buffers) {
    const auto member_count = static_cast<std::int64_t>(layout.members.size());
    const std::int64_t block = request.tensor_vectors;
    layout.block = block;
    buffers.region = member_count * block;
    const bool gather = request.config.kind == CollectiveKind::Gather;
    for (std::int64_t r = 0; r < member_count; ++r) {
        if (r == layout.root) continue;
        if (gather)
            b.add(r, {layout.root}, r * block, r * block, block, Combine::Store, {});
        else
            b.add(layout.root, {r}, r * block, r * block, block, Combine::Store, {});
    }
}

}  // namespace loom::workload::detail
