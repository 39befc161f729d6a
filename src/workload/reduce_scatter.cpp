// reduce_scatter: one group of every member (reduce_scatter_group): rank r ends with the sum of chunk r.
#include <cstdint>
#include <vector>

#include "collective_builder.hpp"

namespace loom::workload::detail {

void generate_reduce_scatter(const CollectiveRequest& request, CollectiveLayout& layout, Builder& b,
                             CollectiveBuffers& buffers) {
    const auto member_count = static_cast<std::int64_t>(layout.members.size());
    layout.block = ceil_div(request.tensor_vectors, member_count);
    buffers.region = member_count * layout.block;
    layout.vectors = buffers.region;
    std::vector<std::int64_t> everyone(static_cast<std::size_t>(member_count));
    for (std::int64_t r = 0; r < member_count; ++r) everyone[static_cast<std::size_t>(r)] = r;
    std::vector<Deps> ready(static_cast<std::size_t>(member_count));
    reduce_scatter_group(b, everyone, 0, layout.block, request.config.pieces, ready);
}

}  // namespace loom::workload::detail
