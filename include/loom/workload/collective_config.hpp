// The "collective" part of the "workload" section — which collective, over which TSPs, how many bytes per TSP —
// and the layout a generated collective leaves behind (members, buffers, padding), which reports and the
// end-of-run data-flow check read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"
#include "loom/topo/frozen_topology.hpp"

namespace loom::workload {

enum class CollectiveKind { None, AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast, Gather, Scatter };
std::string_view collective_kind_name(CollectiveKind k);  // "none", "all_reduce", ...

enum class CollectiveAlgorithm {
    Ring,          // all_reduce: one ring over the members, reduce-scatter then all-gather, 2(N-1) steps
    Hierarchical,  // all_reduce: node -> rack -> system, reduce-scatter down the levels, all-gather back up
    Direct,        // over nodes joined pairwise by links, every transfer crossing one link: all_reduce sums each
                   // node's share for another node at the TSP holding their link and sends it across; all_to_all
                   // relays each block through the two ends of the node pair's link
};
std::string_view collective_algorithm_name(CollectiveAlgorithm a);  // "ring", "hierarchical", "direct"

struct CollectiveConfig {
    CollectiveKind kind = CollectiveKind::None;
    // Used by all_reduce (all three) and all_to_all (direct; anything else: phased by shift). Hierarchical keeps
    // most traffic on a node's 7 local links and sends only shards between nodes, the decomposition the paper's
    // all-reduce analysis assumes; direct needs a link between every two member nodes.
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::Hierarchical;
    Bytes bytes = Bytes(1 << 20);     // per TSP: its tensor (all_reduce, reduce_scatter, all_to_all, broadcast) or
                                      // its block (all_gather, gather, scatter)
    std::int64_t root = 0;            // broadcast, gather, scatter: vertex id of the root, a member
    std::vector<std::int64_t> tsps;   // member vertex ids; empty ("compute" in JSON): every compute TSP
    std::int64_t address = 0;         // byte offset of the collective's buffer in every member's memory
    // Hierarchical and reduce_scatter: every owner's chunk is cut into pieces x (group size - 1) sub-chunks, each
    // reduced by one source after another (sums into one memory slot must not overlap in time: a storing Reduce
    // reads its operands at issue), rotated so that every link carries one sub-chunk at a time. Not published:
    // measured on a node (1 MiB all-reduce), efficiency is 0.79 with 1, 0.87 with 2 and 0.91 with 4 (smaller
    // pieces let the next round start while a link still sends); more pieces mean more transfers to schedule.
    // Direct all_reduce: each piece summed across nodes is cut into this many sub-chunks (measured on 264 TSPs,
    // 1 MiB: efficiency 0.78 with 1, 0.82 with 2, 0.83 with 4, 0.84 with 8).
    std::int64_t pieces = 4;
};

// Accepts "tsps": "compute" as well as a list (the schema itself knows only the list).
config::Schema<CollectiveConfig> collective_schema();
// Rewrites a "workload" JSON object so that the schema can parse it: "collective"/"tsps": "compute" becomes an
// absent key; any other string is an error at its pointer.
config::Json normalize_collective(const config::Json& workload, const std::string& pointer, config::Errors& errors);

// How a generated collective sits in memory (vector slots counted from `address`, 320 bytes each):
//   all_reduce       buffer [0, vectors): every member's tensor in, the sum over members out (in place)
//   reduce_scatter   buffer [0, members x chunk): tensors in; rank r ends with the sum of chunk r
//   all_gather       buffer [0, members x block): rank r brings block r, every member ends with all blocks
//   all_to_all       input [0, members x block) at address, output at out_address: block d of rank r goes to
//                    rank d's output block r (a member's own block stays in its input)
//   broadcast        buffer [0, block): the root's block reaches every member
//   gather, scatter  a global-memory region of members x block vectors, block r living on rank r: gather
//                    pushes every block to the root's copy of the region, scatter the root's blocks out
struct CollectiveLayout {
    CollectiveKind kind = CollectiveKind::None;
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::Hierarchical;
    std::vector<topo::VertexId> members;  // rank -> vertex id, ascending
    std::int64_t root = 0;                // rank of the root (broadcast, gather, scatter)
    std::int64_t address = 0;             // bytes
    std::int64_t out_address = 0;         // bytes (all_to_all)
    std::int64_t vectors = 0;             // all_reduce, reduce_scatter: padded tensor in vectors
    std::int64_t block = 0;               // vectors per block (chunk for reduce_scatter)
    Bytes bytes_per_tsp{0};
    Bytes padding_bytes{0};               // per member: bytes moved or reserved beyond bytes_per_tsp
    std::int64_t transfers = 0;
    std::string levels;                   // hierarchical: "node 8 x rack 9 x system 145 (tree)"
};

}  // namespace loom::workload
