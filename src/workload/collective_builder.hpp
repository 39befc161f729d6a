// What the collective generators share: the Builder that appends transfers with consecutive ids, the request each
// generator gets, the buffers it reports, and the group steps several algorithms are made of (reduce-scatter,
// all-gather and tree all-reduce inside one group of ranks). One file per algorithm implements a generator;
// collective.cpp picks one from a table by (kind, algorithm).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "loom/config/schema.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/workload/collective_config.hpp"
#include "loom/workload/transfer.hpp"

namespace loom::workload::detail {

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

using Deps = std::vector<TransferId>;

// Adds `more` to `into`, keeping it sorted and without repeats.
void merge_into(Deps& into, const Deps& more);

// Appends transfers with consecutive ids; regions are vector slots counted from the collective's buffer.
class Builder {
public:
    Builder(const CollectiveLayout& layout, std::int64_t vector_bytes) : layout_(layout), vector_bytes_(vector_bytes) {}

    TransferId add(std::int64_t src_rank, std::vector<std::int64_t> dst_ranks, std::int64_t src_slot,
                   std::int64_t dst_slot, std::int64_t vectors, Combine combine, Deps deps,
                   std::int64_t dst_base = -1, Deps after = {});
    // Refuses (InputError at `pointer`) to go on once the transfers added so far would take more than `bytes` to
    // schedule and run (transfer_memory_bytes each): an oversized collective stops early, before it is built whole.
    void limit_memory(std::int64_t bytes, std::string pointer) {
        budget_ = bytes;
        pointer_ = std::move(pointer);
    }
    // The transfers, without the spare capacity growth left (the list and each transfer's lists): the set lives
    // through the compile and the verifier, and at 10,440 TSPs the list alone doubled to 2M transfers' room.
    std::vector<Transfer> take();
    TransferId next_id() const { return static_cast<TransferId>(out_.size()); }
    topo::VertexId src_of(TransferId id) const { return out_[static_cast<std::size_t>(id)].src; }
    // Makes an emitted transfer also wait, for pacing only (Transfer::paced_by), for `more` (which may be
    // emitted later).
    void add_pacing(TransferId id, const Deps& more) { merge_into(out_[static_cast<std::size_t>(id)].paced_by, more); }

private:
    topo::VertexId member(std::int64_t rank) const { return layout_.members[static_cast<std::size_t>(rank)]; }

    const CollectiveLayout& layout_;
    std::int64_t vector_bytes_;
    std::vector<Transfer> out_;
    std::int64_t budget_ = -1;  // none
    std::int64_t used_ = 0;
    std::string pointer_;
};

// What a generator is asked for.
struct CollectiveRequest {
    const CollectiveConfig& config;
    const topo::FrozenTopology& topology;
    std::int64_t tensor_vectors = 0;  // the tensor or block (CollectiveConfig::bytes) in whole vectors
    std::int64_t vector_bytes = 0;
    const std::string& pointer;  // of the collective section, for errors
    config::Errors& errors;
};

// What a generator reports of its memory use, in vectors from the collective's address.
struct CollectiveBuffers {
    std::int64_t region = 0;   // the buffer in every member (the root's for gather, scatter)
    std::int64_t scratch = 0;  // working space after it
};

// Emits the transfers of one collective and fills its layout's block, vectors, out_address and levels as they apply.
using CollectiveGenerator = void (*)(const CollectiveRequest& request, CollectiveLayout& layout, Builder& builder,
                                     CollectiveBuffers& buffers);

// The generators, one file each.
void generate_broadcast(const CollectiveRequest&, CollectiveLayout&, Builder&, CollectiveBuffers&);
void generate_gather_scatter(const CollectiveRequest&, CollectiveLayout&, Builder&, CollectiveBuffers&);
void generate_all_gather(const CollectiveRequest&, CollectiveLayout&, Builder&, CollectiveBuffers&);
void generate_shifted_all_to_all(const CollectiveRequest&, CollectiveLayout&, Builder&, CollectiveBuffers&);
void generate_direct_all_to_all(const CollectiveRequest&, CollectiveLayout&, Builder&, CollectiveBuffers&);
void generate_reduce_scatter(const CollectiveRequest&, CollectiveLayout&, Builder&, CollectiveBuffers&);
void generate_ring_all_reduce(const CollectiveRequest&, CollectiveLayout&, Builder&, CollectiveBuffers&);
void generate_direct_all_reduce(const CollectiveRequest&, CollectiveLayout&, Builder&, CollectiveBuffers&);
void generate_hierarchical_all_reduce(const CollectiveRequest&, CollectiveLayout&, Builder&, CollectiveBuffers&);

// Group steps (collective_groups.cpp). A group is a list of ranks; `ready` (by rank) lists what must precede any
// access to a member's region and is updated with what the step wrote.

// Reduce-scatter inside one group (ranks g[0..G-1], all holding region [first, first + G x chunk)): member i ends
// with the sum of chunk i. Each chunk is cut into q = min(pieces (G-1), chunk) sub-chunks, each reduced into the
// owner by the G-1 other members one after another (a storing Reduce reads its operands at issue, so sums into
// one slot must not overlap); the order is rotated so that in round k source s sends sub-chunk (s' - k) of every
// chunk it contributes to, and each link carries one sub-chunk at a time. `ready` (by rank) lists what must
// precede any access to a member's region and becomes, for each owner, the last reduction of each sub-chunk.
// (Each sum waits for the previous one into its slot to complete: chaining them with `after` instead, as the
// direct all-reduce does, measured worse here on 72 and 264 TSPs, 0.36 and 0.31 against 0.41 and 0.51, because
// all rounds become ready at once and list scheduling then places one owner's chains before the next.)
void reduce_scatter_group(Builder& b, const std::vector<std::int64_t>& g, std::int64_t first, std::int64_t chunk,
                          std::int64_t pieces, std::vector<Deps>& ready);

// All-gather inside one group after reduce_scatter_group: member i sends chunk i to every other member (one fan-out
// transfer). Each member's `ready` gains the fan-outs into it.
void all_gather_group(Builder& b, const std::vector<std::int64_t>& g, std::int64_t first, std::int64_t chunk,
                      std::vector<Deps>& ready);

// All-reduce of region [first, first + vectors) inside one group by a binomial tree into g[root] (relative rank x
// sends to x - 2^k in round k = x's lowest set bit; the sums into one member follow one another) and a fan-out
// of the result from the root.
void tree_all_reduce_group(Builder& b, const std::vector<std::int64_t>& g, std::int64_t root, std::int64_t first,
                           std::int64_t vectors, std::vector<Deps>& ready);

}  // namespace loom::workload::detail
