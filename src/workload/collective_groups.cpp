#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "collective_builder.hpp"
#include "loom/base/error.hpp"
#include "loom/base/memory.hpp"

namespace loom::workload::detail {

void merge_into(Deps& into, const Deps& more) {
    into.insert(into.end(), more.begin(), more.end());
    std::sort(into.begin(), into.end());
    into.erase(std::unique(into.begin(), into.end()), into.end());
}

std::vector<Transfer> Builder::take() {
    for (Transfer& x : out_) {
        x.dsts.shrink_to_fit();
        x.deps.shrink_to_fit();
        x.after.shrink_to_fit();
        x.paced_by.shrink_to_fit();
    }
    out_.shrink_to_fit();
    return std::move(out_);
}

TransferId Builder::add(std::int64_t src_rank, std::vector<std::int64_t> dst_ranks, std::int64_t src_slot,
                        std::int64_t dst_slot, std::int64_t vectors, Combine combine, Deps deps, std::int64_t dst_base,
                        Deps after) {
    Transfer x;
    x.id = static_cast<TransferId>(out_.size());
    x.src = member(src_rank);
    for (std::int64_t d : dst_ranks) x.dsts.push_back(member(d));
    x.bytes = Bytes(vectors * vector_bytes_);
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    x.deps = std::move(deps);
    std::sort(after.begin(), after.end());
    after.erase(std::unique(after.begin(), after.end()), after.end());
    std::erase_if(after, [&](TransferId a) { return std::binary_search(x.deps.begin(), x.deps.end(), a); });
    x.after = std::move(after);
    x.src_address = layout_.address + src_slot * vector_bytes_;
    x.dst_address = (dst_base >= 0 ? dst_base : layout_.address) + dst_slot * vector_bytes_;
    x.combine = combine;
    used_ += transfer_memory_bytes(vectors, static_cast<std::int64_t>(x.dsts.size()));
    if (budget_ >= 0 && used_ > budget_)
        throw InputError(fmt::format("{}: this workload needs more than the {} of memory available (refused after "
                                     "generating {} of its transfers)",
                                     pointer_, format_bytes(budget_), out_.size()));
    out_.push_back(std::move(x));
    return out_.back().id;
}

void reduce_scatter_group(Builder& b, const std::vector<std::int64_t>& g, std::int64_t first, std::int64_t chunk,
                          std::int64_t pieces, std::vector<Deps>& ready) {
    const auto group_size = static_cast<std::int64_t>(g.size());
    if (group_size < 2) return;
    const std::int64_t sub_chunks = std::min((group_size - 1) * pieces, chunk);
    std::vector<std::vector<TransferId>> last(static_cast<std::size_t>(group_size), std::vector<TransferId>());
    for (std::int64_t k = 0; k < group_size - 1; ++k) {
        for (std::int64_t o = 0; o < group_size; ++o) {
            auto& chain = last[static_cast<std::size_t>(o)];
            chain.resize(static_cast<std::size_t>(sub_chunks));
            const std::int64_t owner = g[static_cast<std::size_t>(o)];
            for (std::int64_t j = 0; j < sub_chunks; ++j) {
                const std::int64_t s = g[static_cast<std::size_t>((o + 1 + (j + k) % (group_size - 1)) % group_size)];
                const std::int64_t lo = j * chunk / sub_chunks;
                const std::int64_t hi = (j + 1) * chunk / sub_chunks;
                const std::int64_t slot = first + o * chunk + lo;
                Deps deps = ready[static_cast<std::size_t>(s)];
                if (k == 0) {
                    merge_into(deps, ready[static_cast<std::size_t>(owner)]);
                } else {
                    deps.push_back(chain[static_cast<std::size_t>(j)]);
                }
                chain[static_cast<std::size_t>(j)] = b.add(s, {owner}, slot, slot, hi - lo, Combine::Sum, deps);
            }
        }
    }
    for (std::int64_t o = 0; o < group_size; ++o) {
        auto& r = ready[static_cast<std::size_t>(g[static_cast<std::size_t>(o)])];
        merge_into(r, last[static_cast<std::size_t>(o)]);
    }
}

void all_gather_group(Builder& b, const std::vector<std::int64_t>& g, std::int64_t first, std::int64_t chunk,
                      std::vector<Deps>& ready) {
    const auto group_size = static_cast<std::int64_t>(g.size());
    if (group_size < 2) return;
    std::vector<TransferId> ids;
    for (std::int64_t o = 0; o < group_size; ++o) {
        std::vector<std::int64_t> dsts;
        for (std::int64_t x : g)
            if (x != g[static_cast<std::size_t>(o)]) dsts.push_back(x);
        const std::int64_t slot = first + o * chunk;
        ids.push_back(b.add(g[static_cast<std::size_t>(o)], dsts, slot, slot, chunk, Combine::Store,
                            ready[static_cast<std::size_t>(g[static_cast<std::size_t>(o)])]));
    }
    for (std::int64_t o = 0; o < group_size; ++o) {
        for (std::int64_t p = 0; p < group_size; ++p)
            if (p != o) ready[static_cast<std::size_t>(g[static_cast<std::size_t>(o)])].push_back(ids[static_cast<std::size_t>(p)]);
    }
}

void tree_all_reduce_group(Builder& b, const std::vector<std::int64_t>& g, std::int64_t root, std::int64_t first,
                           std::int64_t vectors, std::vector<Deps>& ready) {
    const auto group_size = static_cast<std::int64_t>(g.size());
    if (group_size < 2) return;
    auto at = [&](std::int64_t x) { return g[static_cast<std::size_t>((root + x) % group_size)]; };
    std::vector<Deps> written(static_cast<std::size_t>(group_size));  // the last sum into relative rank x
    for (std::int64_t k = 0; (std::int64_t{1} << k) < group_size; ++k) {
        const std::int64_t step = std::int64_t{1} << k;
        for (std::int64_t x = step; x < group_size; x += 2 * step) {
            const std::int64_t y = x - step;
            Deps deps = ready[static_cast<std::size_t>(at(x))];
            merge_into(deps, ready[static_cast<std::size_t>(at(y))]);
            merge_into(deps, written[static_cast<std::size_t>(x)]);
            merge_into(deps, written[static_cast<std::size_t>(y)]);
            const TransferId id = b.add(at(x), {at(y)}, first, first, vectors, Combine::Sum, deps);
            written[static_cast<std::size_t>(y)] = {id};
        }
    }
    Deps deps = ready[static_cast<std::size_t>(at(0))];
    merge_into(deps, written[0]);
    std::vector<std::int64_t> dsts;
    for (std::int64_t x = 1; x < group_size; ++x) dsts.push_back(at(x));
    std::sort(dsts.begin(), dsts.end());
    const TransferId bcast = b.add(at(0), dsts, first, first, vectors, Combine::Store, deps);
    ready[static_cast<std::size_t>(at(0))] = deps;
    for (std::int64_t x = 1; x < group_size; ++x) ready[static_cast<std::size_t>(at(x))] = {bcast};
}

}  // namespace loom::workload::detail
