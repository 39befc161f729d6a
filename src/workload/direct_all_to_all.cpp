// all_to_all, "direct": over whole nodes joined pairwise by links, every block relayed through the two ends of its
// node pair's link.
#include <optional>

#include <fmt/format.h>

#include "collective_builder.hpp"
#include "node_links.hpp"

namespace loom::workload::detail {

// All-to-all over whole nodes joined pairwise by links ("direct"): a block between TSPs of one node goes straight
// there; a block from (a, i) to (b, j) is relayed (i) to the TSP of node a holding link j mod K to node b (K links
// used per pair), (ii) across that link, (iii) to j, each a one-link transfer stored in the relays' working space
// (blocks of a relay's own or for itself skip a step). Every transfer crosses one link, so no block takes a path through a third node and the
// in-node links carry each block at most twice. Working space (scratch) follows the output.
void generate_direct_all_to_all(const CollectiveRequest& request, CollectiveLayout& layout, Builder& b,
                                CollectiveBuffers& buffers) {
    const auto& m = layout.members;
    const auto member_count = static_cast<std::int64_t>(m.size());
    layout.block = ceil_div(request.tensor_vectors, member_count);
    buffers.region = member_count * layout.block;
    layout.out_address = request.config.address + buffers.region * request.vector_bytes;
    const std::int64_t block = layout.block;
    const std::int64_t out_address = layout.out_address;
    std::int64_t& scratch = buffers.scratch;
    const std::optional<NodeLinks> nl =
        node_links(m, request.topology, "direct all-to-all", request.pointer, request.errors);
    if (!nl) return;  // request.errors says why
    const std::int64_t node_count = nl->node_count;
    const std::int64_t per_node = nl->per_node;
    const std::int64_t relay_in = 2 * member_count * block;  // relay (i): slot of block (dst rank d, source index i)
    // Relay (iii): slot of block (src rank r, dst index j).
    const std::int64_t relay_out = relay_in + member_count * per_node * block;
    scratch = node_count > 1 ? 2 * member_count * per_node * block : 0;
    auto rank = [&](std::int64_t a, std::int64_t i) {
        return nl->nodes[static_cast<std::size_t>(a)][static_cast<std::size_t>(i)];
    };
    for (std::int64_t a = 0; a < node_count; ++a)  // inside nodes: small, first
        for (std::int64_t i = 0; i < per_node; ++i)
            for (std::int64_t s = 1; s < per_node; ++s) {
                const std::int64_t r = rank(a, i);
                const std::int64_t d = rank(a, (i + s) % per_node);
                b.add(r, {d}, d * block, r * block, block, Combine::Store, {}, out_address);
            }
    // Across nodes in T x T rounds; round (p, w) moves block (i, j) = ((p + w) mod T, w) between every two nodes, so
    // that consecutive rounds change both the source and the destination index: the relays' in-node links (source
    // to holder, far holder to destination) get work evenly over the run instead of one destination at the end.
    for (std::int64_t p = 0; p < per_node; ++p)
        for (std::int64_t w = 0; w < per_node; ++w)
            for (std::int64_t s = 1; s < node_count; ++s)
                for (std::int64_t a = 0; a < node_count; ++a) {
                    const std::int64_t i = (p + w) % per_node;
                    const std::int64_t j = w;
                    const std::int64_t bn = (a + s) % node_count;
                    const std::int64_t l = j % nl->links_per_pair;
                    const std::int64_t r = rank(a, i);
                    const std::int64_t d = rank(bn, j);
                    const std::int64_t u = nl->holder(a, bn, l);
                    const std::int64_t q = nl->holder(bn, a, l);
                    std::int64_t from = d * block;
                    Deps deps;
                    if (u != r) {
                        from = relay_in + (d * per_node + i) * block;
                        deps = {b.add(r, {u}, d * block, from, block, Combine::Store, {})};
                    }
                    if (q == d) {
                        b.add(u, {q}, from, r * block, block, Combine::Store, deps, out_address);
                    } else {
                        const std::int64_t at = relay_out + (r * per_node + j) * block;
                        const TransferId across = b.add(u, {q}, from, at, block, Combine::Store, deps);
                        b.add(q, {d}, at, r * block, block, Combine::Store, {across}, out_address);
                    }
                }
    layout.levels = fmt::format("direct: {} x {} node{} ({} link{} per pair)", per_node, node_count,
                                node_count > 1 ? "s" : "", nl->links_per_pair, nl->links_per_pair > 1 ? "s" : "");
}

}  // namespace loom::workload::detail
