// What travels between TSP chips: a run of consecutive vectors of one transfer on one channel (a single vector
// in per-vector mode, a whole train segment in train mode), described so that the receiver can time each of
// its vectors exactly from the train it belongs to. A run lives in the storage of the link that carries it (the
// sending chip's out port, a net::ScheduledPort) and its event carries a 32-bit handle into that storage.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/base/units.hpp"
#include "loom/net/link_store.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/tsp/timed_memory.hpp"

namespace loom::tsp {

// A run of `count` consecutive vectors (first_vector, first_vector + 1, ...) of `transfer` on `channel`. They
// are units position .. position + count - 1 (1-based) of the train that started at `train_start` on that
// channel, whose unit 1 has the link-wide index `first_index`; `floor` is the arrival of the unit just before
// the run's first (arrivals never overtake). net::ScheduledLink::unit_arrival turns that into arrival times.
struct VectorRun {
    std::uint32_t transfer = 0;
    std::uint32_t first_vector = 0;
    std::uint32_t count = 1;
    topo::ChannelId channel = 0;
    Time train_start;
    std::int64_t position = 1;
    std::uint64_t first_index = 0;
    Time floor;
    // Where these vectors were first put on a wire (the channel, train start and position of their first hop),
    // for end-to-end latency: the first bit of vector k left at origin_start + serialization(origin_position
    // + k - 1) on origin_channel.
    topo::ChannelId origin_channel = 0;
    Time origin_start;
    std::int64_t origin_position = 1;
};

// What a link's storage holds per run: the run and its values (sparse). The sender fills an entry of its out
// port's WireStore; the receiver reads the run, swaps the values into its own buffer (handing its old buffer's
// capacity back to the slot) and pops it.
struct WireEntry {
    VectorRun run;
    SparseValues values;
};
using WireStore = net::LinkStore<WireEntry>;

// The event argument of a run: the receiving port (bits 31..27) and the entry's handle modulo 2^27.
struct WireArg {
    static constexpr std::uint32_t kPortBits = 5;
    static constexpr std::uint32_t kMaxPorts = std::uint32_t{1} << kPortBits;
    static constexpr std::uint32_t kHandleMask = (std::uint32_t{1} << (32 - kPortBits)) - 1;
    static constexpr std::uint32_t encode(std::int32_t port, std::uint32_t handle) {
        return (static_cast<std::uint32_t>(port) << (32 - kPortBits)) | (handle & kHandleMask);
    }
    static constexpr std::int32_t port_of(std::uint32_t arg) { return static_cast<std::int32_t>(arg >> (32 - kPortBits)); }
};

}  // namespace loom::tsp
