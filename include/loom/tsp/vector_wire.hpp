// What travels between TSP chips: a run of consecutive vectors of one transfer on one channel (a single vector
// in per-vector mode, a whole train segment in train mode), described so that the receiver can time each of
// its vectors exactly from the train it belongs to. Runs live in a pool and travel as 32-bit handles.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/base/units.hpp"
#include "loom/net/packet.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/tsp/timed_memory.hpp"

namespace loom::tsp {

// A run of `count` consecutive vectors (first_vector, first_vector + 1, ...) of `transfer` on `channel`. They
// are units position .. position + count - 1 (1-based) of the train that started at `train_start` on that
// channel, whose unit 1 has the link-wide index `first_index`; `floor` is the arrival of the unit just before
// the run's first (arrivals never overtake). net::Transmitter::unit_arrival turns that into arrival times.
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

// The pool of runs in flight, owned by the model and shared by its chips (as a wire is shared by its two
// ends: the sender fills a run, the receiver reads and releases it). Values ride beside the run, sparse.
class VectorWire {
public:
    net::PacketHandle make(const VectorRun& run) {
        const net::PacketHandle h = pool_.allocate();
        pool_[h].payload = run;
        if (values_.size() < pool_.capacity()) values_.resize(pool_.capacity());
        values_[h.index].clear();
        return h;
    }
    VectorRun& run(net::PacketHandle h) { return pool_[h].payload; }
    SparseValues& values(net::PacketHandle h) { return values_[h.index]; }
    void release(net::PacketHandle h) { pool_.release(h); }

    std::uint64_t live() const { return pool_.live(); }
    std::uint64_t made() const { return pool_.allocated_total(); }

private:
    net::PacketPool<VectorRun> pool_;
    std::vector<SparseValues> values_;  // by handle index; capacities are kept for reuse
};

}  // namespace loom::tsp
