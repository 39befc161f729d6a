// What the terminals and routers of one fabric run count, and the measurement state the monitor drives: running
// totals (windows are differences of snapshots), the histograms of marked packets, and the warm-up / measure /
// drain phase with its window. Each router and terminal owns its own counters (and each terminal its marked-packet
// statistics); the monitor sums them at its sample boundaries and the model in finish.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>

#include "loom/net/clocked_link.hpp"
#include "loom/stats/histogram.hpp"
#include "loom/topo/link_class.hpp"

namespace loom::fabric {

// Channel kinds of the utilization statistics: the topology's link classes, then terminal injection and ejection.
inline constexpr std::size_t kInjectionChannel = topo::kLinkClassCount;
inline constexpr std::size_t kEjectionChannel = topo::kLinkClassCount + 1;
inline constexpr std::size_t kChannelKinds = topo::kLinkClassCount + 2;

// Running totals since the start of the run; never reset, so a window is the difference of two snapshots.
// All counts are exact integers. The input-buffer tallies give the exact time-average occupancy of the routers'
// input buffers over any window (area = in_count * t - in_cycles - out_count * t + out_cycles).
// The counts a router writes come first, together (a router touches them on every tick; Router places them
// beside its other hot members).
struct FabricCounters {
    std::int64_t flit_hops = 0;                                // flits through a router's switch
    std::int64_t buffer_in = 0, buffer_out = 0;                // flits written to / read from input buffers
    std::int64_t buffer_in_cycles = 0, buffer_out_cycles = 0;  // sums of the cycles they were written / read
    std::array<std::int64_t, kChannelKinds> channel_flits{};
    std::int64_t cycle = 0;  // when the snapshot was taken (end of that cycle)
    std::int64_t flits_generated = 0, packets_generated = 0;
    std::int64_t flits_injected = 0, packets_injected = 0;
    std::int64_t flits_ejected = 0, packets_ejected = 0;
    std::int64_t latency_cycles = 0;          // summed total latency of every ejected packet
    std::int64_t network_latency_cycles = 0;  // summed network latency of every ejected packet
    net::NoiseCounts flit_noise, credit_noise;  // noisy channels: units FEC corrected / sent again by retry

    // Adds another component's counts (the cycle is left alone).
    void add(const FabricCounters& o) {
        flits_generated += o.flits_generated;
        packets_generated += o.packets_generated;
        flits_injected += o.flits_injected;
        packets_injected += o.packets_injected;
        flits_ejected += o.flits_ejected;
        packets_ejected += o.packets_ejected;
        latency_cycles += o.latency_cycles;
        network_latency_cycles += o.network_latency_cycles;
        flit_hops += o.flit_hops;
        for (std::size_t k = 0; k < kChannelKinds; ++k) channel_flits[k] += o.channel_flits[k];
        buffer_in += o.buffer_in;
        buffer_out += o.buffer_out;
        buffer_in_cycles += o.buffer_in_cycles;
        buffer_out_cycles += o.buffer_out_cycles;
        flit_noise.corrected += o.flit_noise.corrected;
        flit_noise.retried += o.flit_noise.retried;
        credit_noise.corrected += o.credit_noise.corrected;
        credit_noise.retried += o.credit_noise.retried;
    }
};

// What one terminal records of the marked packets (generated inside the measurement window): generated at this
// terminal as their source, the rest as their destination.
struct MarkedStats {
    std::int64_t generated = 0;  // marked packets generated here
    std::int64_t ejected = 0;    // marked packets ejected here
    stats::Histogram packet_latency;   // cycles, creation to tail ejection
    stats::Histogram network_latency;  // cycles, head injection to tail ejection
    stats::Histogram hops;             // router-to-router hops
    std::int64_t marked_packets = 0, marked_flits = 0;
    std::int64_t minimal_packets = 0, nonminimal_packets = 0;
    std::int64_t local_hops = 0, global_hops = 0;  // summed over marked packets (global = group crossings)

    void add(const MarkedStats& o) {
        generated += o.generated;
        ejected += o.ejected;
        packet_latency.merge(o.packet_latency);
        network_latency.merge(o.network_latency);
        hops.merge(o.hops);
        marked_packets += o.marked_packets;
        marked_flits += o.marked_flits;
        minimal_packets += o.minimal_packets;
        nonminimal_packets += o.nonminimal_packets;
        local_hops += o.local_hops;
        global_hops += o.global_hops;
    }
};

enum class MeasurePhase : std::uint8_t { Warmup, Measure, Drain, Done };

// The monitor's: the phase, the window it announced to the terminals, and the outcome.
struct FabricStats {
    MeasurePhase phase = MeasurePhase::Warmup;
    // Packets generated in [measure_start, measure_end) are marked; both stay at max until the window is set.
    std::int64_t measure_start = std::numeric_limits<std::int64_t>::max();
    std::int64_t measure_end = std::numeric_limits<std::int64_t>::max();
    bool marks(std::int64_t created_cycle) const {
        return created_cycle >= measure_start && created_cycle < measure_end;
    }

    // Outcome, set by the monitor.
    bool saturated = false;
    std::string saturation_reason;
    FabricCounters window_start, window_end;  // snapshots at the start and end of the measurement window
    std::int64_t warmup_samples = 0;
    double last_accepted = 0;  // flits/cycle/terminal over the last samples (saturated runs report this)
    double last_offered = 0;
};

}  // namespace loom::fabric
