// The "fabric" config section: the input-queued virtual-channel router (buffers, pipeline, allocators, speed-up)
// and the channels between routers and terminals (per-class latencies, flit size, router clock).
#pragma once

#include <array>
#include <cstdint>

#include "loom/base/link_timing.hpp"
#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"
#include "loom/fabric/allocator.hpp"
#include "loom/topo/link_class.hpp"

namespace loom::fabric {

// Defaults are the parameters of the reference 1,056-terminal Dragonfly of dynamically routed network studies
// (configs/dragonfly/reference-1056-ur.json): 10-cycle local and 100-cycle global channels, 2 VCs of 256
// flits, credit delay 2, pipeline 0/1/1/1, internal speed-up 2, separable input-first allocators with one
// iteration. Router clock, flit size and terminal channel latency are not part of that set: they are
// documented choices below. Every latency is in router cycles; a channel carries one flit per cycle.
struct FabricConfig {
    // Not given by the reference set-up (results are in cycles): 1 GHz, so a cycle is exactly 1000 ps.
    Frequency router_clock = Frequency::ghz(1);
    // Not given by the reference set-up (it counts flits): 16 bytes, a common flit width; converts trace
    // message sizes into flits and flits per cycle into bandwidth.
    Bytes flit_bytes{16};
    // Virtual channels per port (at most 16) and the depth of each VC's input buffer.
    std::int32_t vcs = 2;
    std::int32_t vc_buffer_flits = 256;
    // Cycles from a flit leaving an input buffer to its credit being sent upstream; the credit then takes the
    // channel's latency (credits travel as fast as flits).
    std::int64_t credit_delay_cycles = 2;
    // Router pipeline, each a number of cycles: routing computation, VC allocation, switch allocation, switch
    // traversal. A head flit arriving at cycle a leaves at a + routing + vc_alloc + sw_alloc + st at the
    // earliest; body flits skip routing and VC allocation but take the same time in the buffer.
    std::int64_t routing_cycles = 0;
    std::int64_t vc_alloc_cycles = 1;
    std::int64_t sw_alloc_cycles = 1;
    std::int64_t st_cycles = 1;
    // Switch allocation rounds per cycle: 2.0 runs the allocator and crossbar twice per channel cycle (an input
    // may forward two flits per cycle into output queues; each output channel still sends one per cycle).
    // Fractional values alternate (1.5: 1, 2, 1, 2, ... rounds).
    double internal_speedup = 2.0;
    AllocatorKind vc_allocator = AllocatorKind::SeparableInputFirst;
    AllocatorKind sw_allocator = AllocatorKind::SeparableInputFirst;
    std::int32_t alloc_iterations = 1;
    // Channel latencies by class, in cycles. Dragonfly local and global links; TSP-system topologies map
    // in-node and in-rack links to local and rack-to-rack links to global.
    std::int64_t local_latency_cycles = 10;
    std::int64_t global_latency_cycles = 100;
    // Terminal <-> router channels (injection and ejection): not given by the reference set-up; 1 cycle.
    std::int64_t terminal_latency_cycles = 1;
    // Optional noise on the router-to-router channels, off by default (every output unchanged); the reference
    // set-up has none. Each channel is a base::LinkTiming of one flit per cycle (channel_timing): a flit gets
    // an extra delay drawn uniformly in [0, link_jitter] (rounded up to a cycle edge), and its FEC outcome is
    // drawn from Binomial(flit bits, link_bit_error_rate) against link_fec_correctable_bits; a flit FEC cannot
    // correct is sent again by link-level retry, arriving link_replay_cycles later and holding the channel as
    // long (go-back-N: the flits behind it wait), so flits never overtake one another. Draws are counter-based
    // per channel and flit (net::LinkNoise on the channel's net::ClockedLink). The credits a router returns
    // beside its flits on the same channel get the same noise from draws of their own (a retried credit does
    // not hold the channel); terminal channels (injection, ejection) are not a link class and stay clean.
    Time link_jitter{};
    double link_bit_error_rate = 0.0;
    std::int32_t link_fec_correctable_bits = 0;
    // 0: twice the channel's latency plus one cycle (the error is reported back, then the flit resent).
    std::int64_t link_replay_cycles = 0;

    // Not a config key: an exact cycle period that replaces router_clock when positive (the TSP mapping derives
    // it from the link rate, tsp_fabric.hpp).
    Time cycle_period{};
    // Not a config key: per link class channel latency in cycles, replacing local/global where positive (the TSP
    // mapping sets each class from its own LinkTiming).
    std::array<std::int64_t, topo::kLinkClassCount> class_latency_cycles{};
    // Not a config key: routers run separable input-first allocation with one iteration in place on bit masks
    // (the reference configuration); false makes them call Allocator for it as for every other kind (tests
    // compare the two, which must agree exactly).
    bool allocate_in_place = true;

    std::int64_t pipeline_cycles() const { return routing_cycles + vc_alloc_cycles + sw_alloc_cycles + st_cycles; }
    std::int64_t latency_cycles(topo::LinkClass c) const;
    // Whether any noise is configured.
    bool noisy_links() const { return link_jitter > Time::zero() || link_bit_error_rate > 0.0; }
    // The cycles a retried flit loses on a channel of class c.
    std::int64_t replay_cycles(topo::LinkClass c) const {
        return link_replay_cycles > 0 ? link_replay_cycles : 2 * latency_cycles(c) + 1;
    }
    // A channel of class c as a LinkTiming: one flit of flit_bytes per cycle of `period`, the class's latency,
    // the noise above.
    LinkTiming channel_timing(topo::LinkClass c, Time period) const;
    // internal_speedup in thousandths (exact integer arithmetic for the rounds of each cycle).
    std::int64_t speedup_milli() const;
    // Switch allocation rounds in cycle `cycle`: floor((cycle + 1) s) - floor(cycle s).
    std::int32_t rounds_at(std::int64_t cycle) const;
};

config::Schema<FabricConfig> fabric_schema();

}  // namespace loom::fabric
