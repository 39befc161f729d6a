#include "loom/fabric/fabric_config.hpp"

#include <cmath>

namespace loom::fabric {

std::int64_t FabricConfig::latency_cycles(topo::LinkClass c) const {
    if (class_latency_cycles[topo::index_of(c)] > 0) return class_latency_cycles[topo::index_of(c)];
    switch (c) {
        case topo::LinkClass::InNode:
        case topo::LinkClass::InRack:
        case topo::LinkClass::Local: return local_latency_cycles;
        case topo::LinkClass::RackToRack:
        case topo::LinkClass::Global: return global_latency_cycles;
    }
    return local_latency_cycles;
}

LinkTiming FabricConfig::channel_timing(topo::LinkClass c, Time period) const {
    LinkTiming t;
    // One flit per cycle: flit_bytes * 8 bits per period.
    t.rate = Bandwidth::bps(static_cast<std::int64_t>(
        std::llround(static_cast<double>(flit_bytes.count()) * 8.0 * 1e12 / static_cast<double>(period.count()))));
    t.unit_payload = flit_bytes;
    t.unit_wire = flit_bytes;
    t.latency_parts = {{"channel", Time::ps(latency_cycles(c) * period.count())}};
    t.jitter = link_jitter;
    t.bit_error_rate = link_bit_error_rate;
    t.fec_correctable_bits = link_fec_correctable_bits;
    t.replay_latency = Time::ps(replay_cycles(c) * period.count());
    return t;
}

std::int64_t FabricConfig::speedup_milli() const { return std::llround(internal_speedup * 1000.0); }

std::int32_t FabricConfig::rounds_at(std::int64_t cycle) const {
    const std::int64_t s = speedup_milli();
    return static_cast<std::int32_t>((cycle + 1) * s / 1000 - cycle * s / 1000);
}

config::Schema<FabricConfig> fabric_schema() {
    using F = FabricConfig;
    const std::vector<std::pair<std::string, AllocatorKind>> allocators{
        {"separable_input_first", AllocatorKind::SeparableInputFirst}, {"islip", AllocatorKind::Islip}};
    config::Schema<F> s("Input-queued virtual-channel routers with credit flow control, and their channels. "
                        "Latencies are router cycles; a channel carries one flit per cycle.");
    s.field("router_clock", &F::router_clock, "Router and channel clock (one flit per channel per cycle).")
        .range(Frequency::hz(1'000), Frequency::ghz(100));
    s.field("flit_bytes", &F::flit_bytes, "Flit size: converts trace message bytes to flits.")
        .range(Bytes(1), Bytes(1 << 20));
    s.field("vcs", &F::vcs,
            "Virtual channels per port. Minimal routing needs 2 on a Dragonfly, Valiant and UGAL 3 (one per "
            "global hop taken); other topologies need one per hop of the longest route.")
        .range(1, 16);
    s.field("vc_buffer_flits", &F::vc_buffer_flits, "Input buffer depth of each virtual channel.")
        .range(1, 1 << 20);
    s.field("credit_delay_cycles", &F::credit_delay_cycles,
            "Cycles from a flit leaving an input buffer to its credit leaving upstream (then the channel latency).")
        .range(0, 1'000'000);
    s.field("routing_cycles", &F::routing_cycles, "Routing computation stage.").range(0, 1'000'000);
    s.field("vc_alloc_cycles", &F::vc_alloc_cycles, "VC allocation stage.").range(0, 1'000'000);
    s.field("sw_alloc_cycles", &F::sw_alloc_cycles, "Switch allocation stage.").range(0, 1'000'000);
    s.field("st_cycles", &F::st_cycles, "Switch traversal stage.").range(0, 1'000'000);
    s.field("internal_speedup", &F::internal_speedup,
            "Switch allocation rounds per cycle (fractions alternate); output channels still send one flit per cycle.")
        .range(1.0, 16.0);
    s.choice("vc_allocator", &F::vc_allocator, allocators, "VC allocator: separable input-first or iSLIP.");
    s.choice("sw_allocator", &F::sw_allocator, allocators, "Switch allocator: separable input-first or iSLIP.");
    s.field("alloc_iterations", &F::alloc_iterations, "Iterations of both allocators per round.").range(1, 16);
    s.field("local_latency_cycles", &F::local_latency_cycles,
            "Local channels (Dragonfly local; in-node and in-rack links), credits the same.")
        .range(1, 1'000'000);
    s.field("global_latency_cycles", &F::global_latency_cycles,
            "Global channels (Dragonfly global; rack-to-rack links), credits the same.")
        .range(1, 1'000'000);
    s.field("terminal_latency_cycles", &F::terminal_latency_cycles,
            "Terminal injection and ejection channels, credits the same.")
        .range(1, 1'000'000);
    s.field("link_jitter", &F::link_jitter,
            "Router-to-router channels: extra delay per flit, uniform in [0, jitter], rounded up to a cycle; flits "
            "never overtake. Default 0 (off; not in the reference set-up).")
        .at_least(Time::zero());
    s.field("link_bit_error_rate", &F::link_bit_error_rate,
            "Router-to-router channels: raw bit error rate of each flit's bits. Default 0 (off).")
        .range(0.0, 0.5);
    s.field("link_fec_correctable_bits", &F::link_fec_correctable_bits,
            "Bit errors per flit FEC corrects; a flit with more is resent by link-level retry (go-back-N, never "
            "reordering). Default 0.")
        .range(0, 1'000'000);
    s.field("link_replay_cycles", &F::link_replay_cycles,
            "Cycles a retried flit loses, holding its channel as long. Default 0: twice the channel's latency plus "
            "one (error reported back, flit resent).")
        .range(0, 1'000'000);
    return s;
}

}  // namespace loom::fabric
