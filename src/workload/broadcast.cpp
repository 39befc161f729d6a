// broadcast: one fan-out transfer of the root's block to every other member.
#include <cstdint>
#include <vector>

#include "collective_builder.hpp"

namespace loom::workload::detail {

void generate_broadcast(const CollectiveRequest& request, CollectiveLayout& layout, Builder& b,
                        CollectiveBuffers& buffers) {
    const auto member_count = static_cast<std::int64_t>(layout.members.size());
    layout.block = request.tensor_vectors;
    buffers.region = request.tensor_vectors;
    std::vector<std::int64_t> dsts;
    for (std::int64_t r = 0; r < member_count; ++r)
        if (r != layout.root) dsts.push_back(r);
    b.add(layout.root, dsts, 0, 0, request.tensor_vectors, Combine::Store, {});
}

}  // namespace loom::workload::detail
