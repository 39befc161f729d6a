// all_gather: every member fans its block out to every other member, one transfer each.
#include <cstdint>
#include <vector>

#include "collective_builder.hpp"

namespace loom::workload::detail {

void generate_all_gather(const CollectiveRequest& request, CollectiveLayout& layout, Builder& b,
                         CollectiveBuffers& buffers) {
    const auto member_count = static_cast<std::int64_t>(layout.members.size());
    const std::int64_t block = request.tensor_vectors;
    layout.block = block;
    buffers.region = member_count * block;
    for (std::int64_t r = 0; r < member_count; ++r) {
        std::vector<std::int64_t> dsts;
        for (std::int64_t d = 0; d < member_count; ++d)
            if (d != r) dsts.push_back(d);
        b.add(r, dsts, r * block, r * block, block, Combine::Store, {});
    }
}

}  // namespace loom::workload::detail
