// The machine a TSP run executes on, shared read-only by every chip of the run: the frozen topology, each
// directed channel's LinkTiming and FEC/jitter stream, the chip parameters and the vector size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/base/clock_domain.hpp"
#include "loom/base/link_timing.hpp"
#include "loom/base/units.hpp"
#include "loom/topo/chip_config.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/topo/link_class_timing.hpp"
#include "loom/topo/tsp_topology_config.hpp"

namespace loom::tsp {

// The machine sections of a "tsp" config: "topology", "links", "chip" (topo's schemas).
struct MachineConfig {
    topo::TspTopologyConfig topology;
    topo::LinkClassTiming links;
    topo::ChipConfig chip;
};

class TspSystem {
public:
    // `seed` is the run seed: channel c's FEC and jitter draws use the stream derive(seed, channel_name(c)),
    // so they depend on the seed and the channel only (never on the execution mode or on event order).
    TspSystem(topo::FrozenTopology topology, const topo::LinkClassTiming& links, const topo::ChipConfig& chip,
              std::uint64_t seed);
    // Builds the topology the config describes (the config must have parsed without errors).
    TspSystem(const MachineConfig& config, std::uint64_t seed);

    const topo::FrozenTopology& topology() const { return topology_; }
    const topo::LinkClassTiming& links() const { return links_; }
    const topo::ChipConfig& chip() const { return chip_; }
    std::int32_t num_tsps() const { return topology_.num_vertices(); }

    // Timing of directed channel c (its link class's LinkTiming).
    const LinkTiming& timing(topo::ChannelId c) const {
        return class_timing_[topo::index_of(topology_.channel(c).link_class)];
    }
    std::uint64_t stream(topo::ChannelId c) const { return streams_[static_cast<std::size_t>(c)]; }
    // Channel leaving `tsp` on `port`, and arriving at `tsp` on `port` (kNoChannel if the port is not wired).
    topo::ChannelId out_channel(topo::VertexId tsp, std::int32_t port) const;
    topo::ChannelId in_channel(topo::VertexId tsp, std::int32_t port) const;

    // Payload bytes of a vector (links.unit_payload; 320 in the paper): memory addresses are multiples of it.
    std::int64_t vector_bytes() const { return links_.unit_payload.count(); }
    // Vector slots of one TSP's memory (chip.memory / vector_bytes, rounded down).
    std::int64_t memory_vectors() const { return chip_.memory.count() / vector_bytes(); }

    // "sys.node0.tsp3": the chip component's path (names stats, logs, errors, RNG streams).
    std::string tsp_path(topo::VertexId v) const;
    // "sys.node0.tsp3.port5": the channel's sending port, which names the link in reports.
    std::string channel_name(topo::ChannelId c) const;
    // The same name from the sending chip's path and port (for callers that name many ports of one chip).
    static std::string port_name(const std::string& tsp_path, std::int32_t port);

private:
    topo::FrozenTopology topology_;
    topo::LinkClassTiming links_;
    topo::ChipConfig chip_;
    std::vector<LinkTiming> class_timing_;  // by index_of(LinkClass)
    std::vector<std::uint64_t> streams_;    // by channel
};

}  // namespace loom::tsp
