// The "scheduler" config section: how the compile-time scheduler chooses paths (how many, whether non-minimal),
// how finely it spreads a tensor over them, whether it may stage vectors in an intermediate TSP's memory, and the
// slack it leaves for link jitter.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"

namespace loom::sched {

// Where non-minimal candidate paths turn.
enum class NonminimalVia {
    Auto,   // Node when the topology has more than one node, else Tsp
    Tsp,    // through one intermediate TSP (any TSP but the endpoints): 2-hop detours inside a node
    Node,   // through one intermediate node (topo::Via::Node)
    Group,  // through one intermediate group: a rack, or a node of the 264-TSP system (topo::Via::Group)
};

std::string_view nonminimal_via_name(NonminimalVia v);

struct SchedulerConfig {
    // The most paths one tensor's vectors are spread over. The candidates are the minimal paths (at most this
    // many), then, if allowed, non-minimal ones up to this many in all. Not published: 8 lets one tensor use most
    // of a TSP's 11 wired ports (7 local + 4 global) without evaluating every detour.
    std::int32_t max_paths = 8;
    // Paper: non-minimal paths are used for deterministic load balancing. A tensor uses them only when that lowers
    // its predicted completion (compared against a plan on minimal paths alone).
    bool allow_nonminimal = true;
    NonminimalVia nonminimal_via = NonminimalVia::Auto;
    // Store-and-forward through an intermediate TSP's memory (a Receive there, a Send later), used for a piece of a
    // point-to-point tensor only when it lowers that piece's predicted completion. Not described by the paper: off
    // by default.
    bool staging = false;
    // Memory at the top of every TSP set aside for staged vectors (allocated in order, never reused within one
    // schedule; staging stops when it is full). Transfers must not use it. Not published: 16 MiB of the 220 MiB.
    Bytes staging_bytes = Bytes(16LL << 20);
    // Slack for link jitter: every instruction that consumes a vector allows for it arriving up to this much later
    // than predicted (DESIGN "Scheduler figures"). Unset: the largest jitter of any link class.
    std::optional<Time> jitter_allowance;
    // Tensors are placed piece by piece, each piece on the path where it completes first; pieces shrink as the
    // tensor is placed (remaining / paths), but not below this many vectors (one vector takes 26.24 ns at
    // 100 Gbps). Consecutive pieces on one path merge into one train when the links allow.
    std::int32_t min_chunk_vectors = 8;
    // Longest train (vectors sent by one instruction); 0: no limit. Trains crossing links of different rates, or on
    // clocks whose edges have no short period (a clock offset), are limited to 256 vectors whatever this says.
    std::int64_t max_train_vectors = 0;
    // The static verifier (sched/verifier.hpp) checks every compiled schedule before it runs; off only when asked
    // (`--no-verify`), and the report then says so.
    bool verify = true;
};

config::Schema<SchedulerConfig> scheduler_schema();

}  // namespace loom::sched
