// The dynamically routed network on a TSP system, for comparing it with the scheduled one: the "fabric" and
// "routing" sections a "tsp" config may carry, and the mapping of the machine (topology, each link class's
// LinkTiming, the chip's forwarding latency) to router and channel parameters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"
#include "loom/fabric/allocator.hpp"
#include "loom/fabric/fabric_config.hpp"
#include "loom/fabric/routing_function.hpp"
#include "loom/fabric/transfer_book.hpp"
#include "loom/topo/chip_config.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/topo/link_class_timing.hpp"

namespace loom::fabric {

// The "fabric" section of a "tsp" config. Clock, channel latencies and the router pipeline are not here: they
// follow from the machine (map_tsp_system). The rest are router choices the TSP system does not have, with
// defaults chosen for it.
struct TspFabricConfig {
    // 0: as many as the routing function needs on this topology (one class per hop of its longest route).
    std::int32_t vcs = 0;
    // 64 flits cover a channel's credit round trip at the default links (2 x 20 cycles of latency + the
    // pipeline), so a single VC can stream at the full channel rate.
    std::int32_t vc_buffer_flits = 64;
    // 1 cycle: the credit leaves in the cycle after the flit leaves the buffer (the reference set-up's 2 cycles
    // are for a 1 GHz router; here a cycle is a whole flit time, 26.24 ns at the default links).
    std::int64_t credit_delay_cycles = 1;
    double internal_speedup = 2.0;  // as the reference Dragonfly router
    AllocatorKind vc_allocator = AllocatorKind::SeparableInputFirst;
    AllocatorKind sw_allocator = AllocatorKind::SeparableInputFirst;
    std::int32_t alloc_iterations = 1;
    // 0: one vector per flit (links.unit_payload, 320 bytes).
    Bytes flit_bytes{0};
    // 10 flits (3,200 bytes): the reference Dragonfly packet, close to a 4 KiB network MTU.
    std::int32_t packet_flits = 10;
    // Random: an endpoint serving several transfers picks the next packet's transfer at random. Which ready
    // queue a real endpoint serves next depends on timing the model does not have; drawing it from the seed
    // shows the spread a real machine has (round_robin gives a deterministic order).
    InjectionOrder injection_order = InjectionOrder::Random;
    // Dynamic runs per routing function for `loom schedule --compare dynamic`, with seeds seed, seed + 1, ...
    std::int32_t seeds = 5;
};

config::Schema<TspFabricConfig> tsp_fabric_schema();

// The "routing" section of a "tsp" config: the routing functions compared, and UGAL-L's bias.
struct TspRoutingConfig {
    std::string functions = "minimal,valiant,ugal_l";
    std::int64_t ugal_threshold_flits = 0;
};

config::Schema<TspRoutingConfig> tsp_routing_schema();

// "minimal,valiant,ugal_l" (also "min" and "ugal") -> the routing functions, in order and without repeats; an
// error message naming the bad entry otherwise.
std::optional<std::vector<RoutingKind>> parse_routing_list(const std::string& text, std::string* error);

// How the machine became a dynamic network.
struct TspFabricMapping {
    topo::FrozenTopology topology;  // the machine's, with one terminal per wired port on every compute TSP
    FabricConfig fabric;
    TransferOptions transfer;
    Time cycle;                      // router cycle: one flit on the fastest link class
    Bandwidth rate;                  // that class's line rate
    bool rates_differ = false;       // some link class in use is slower than `rate`
    std::int64_t forward_cycles = 0; // the router pipeline (the chip's forwarding latency in cycles)
};

// The mapping, for a routing function that needs `vcs_needed` VC classes on this topology:
//  - clock: a cycle is the time one flit (flit_bytes of payload, framed as the links frame a vector) takes on
//    the fastest link class in use, so that channel moves one flit per cycle. A slower class also moves one
//    flit per cycle (the router has no slower channel), which favours the dynamic network: `rates_differ`
//    says so, and the comparison reports it. With the default links every class runs 4 x 25 Gbps;
//  - channel latency of each class: its LinkTiming latency (SerDes and FEC, cable, clock crossing) rounded up to
//    whole cycles; the flit's own cycle on the channel stands for its serialization;
//  - router pipeline: the chip's forwarding latency (chip.forward_cycles at the core clock) rounded up to whole
//    cycles, split as routing 0, VC allocation 1, switch allocation 1 and switch traversal the rest (at least
//    1), so a head flit spends at zero load about what a vector spends forwarding through a TSP. Unlike a TSP,
//    the router's pipeline is also paid at the source and destination (one vector to a neighbour: 1 + 8 + 19 +
//    8 + 1 = 37 cycles, 971 ns, against 524 ns scheduled);
//  - endpoints: a TSP sends from memory on all of its links at once, so every compute TSP gets one terminal per
//    wired port (injection and ejection bandwidth equal to its link bandwidth), each on a 1-cycle channel; spare
//    TSPs get none (they route but never inject);
//  - groups for Valiant and UGAL: VertexInfo::group (the rack; the node on the 264-TSP system).
TspFabricMapping map_tsp_system(const topo::FrozenTopology& topology, const topo::LinkClassTiming& links,
                                const topo::ChipConfig& chip, const TspFabricConfig& config, std::int32_t vcs_needed);

// VC classes `kind` needs on `topology` (RoutingTables of the topology with any terminals).
std::int32_t classes_needed(const topo::FrozenTopology& topology, RoutingKind kind);

}  // namespace loom::fabric
