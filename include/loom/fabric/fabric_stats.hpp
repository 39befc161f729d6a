// What the terminals and routers of one fabric run count, and the measurement state the monitor drives: running
// totals (windows are differences of snapshots), the histograms of marked packets, and the warm-up / measure /
// drain phase with its window.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>

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
struct FabricCounters {
    std::int64_t cycle = 0;  // when the snapshot was taken (end of that cycle)
    std::int64_t flits_generated = 0, packets_generated = 0;
    std::int64_t flits_injected = 0, packets_injected = 0;
    std::int64_t flits_ejected = 0, packets_ejected = 0;
    std::int64_t latency_cycles = 0;          // summed total latency of every ejected packet
    std::int64_t network_latency_cycles = 0;  // summed network latency of every ejected packet
    std::int64_t flit_hops = 0;               // flits through a router's switch
    std::array<std::int64_t, kChannelKinds> channel_flits{};
    std::int64_t buffer_in = 0, buffer_out = 0;              // flits written to / read from input buffers
    std::int64_t buffer_in_cycles = 0, buffer_out_cycles = 0;  // sums of the cycles they were written / read
};

enum class MeasurePhase : std::uint8_t { Warmup, Measure, Drain, Done };

// Shared by the components of one run (one per partition of a partitioned run: the counters are sums and the
// histograms merge, so partitions would combine them at the end; the phase and window would be agreed at
// sample boundaries, which are synchronization points). Only the monitor writes the phase and window.
struct FabricStats {
    FabricCounters totals;

    MeasurePhase phase = MeasurePhase::Warmup;
    // Packets generated in [measure_start, measure_end) are marked; both stay at max until the window is set.
    std::int64_t measure_start = std::numeric_limits<std::int64_t>::max();
    std::int64_t measure_end = std::numeric_limits<std::int64_t>::max();
    bool marks(std::int64_t created_cycle) const {
        return created_cycle >= measure_start && created_cycle < measure_end;
    }
    std::int64_t marked_outstanding = 0;  // marked packets generated and not yet ejected

    // Marked packets only.
    stats::Histogram packet_latency;   // cycles, creation to tail ejection
    stats::Histogram network_latency;  // cycles, head injection to tail ejection
    stats::Histogram hops;             // router-to-router hops
    std::int64_t marked_packets = 0, marked_flits = 0;
    std::int64_t minimal_packets = 0, nonminimal_packets = 0;
    std::int64_t local_hops = 0, global_hops = 0;  // summed over marked packets (global = group crossings)

    // Outcome, set by the monitor.
    bool saturated = false;
    std::string saturation_reason;
    FabricCounters window_start, window_end;  // snapshots at the start and end of the measurement window
    std::int64_t warmup_samples = 0;
    double last_accepted = 0;  // flits/cycle/terminal over the last samples (saturated runs report this)
    double last_offered = 0;
};

}  // namespace loom::fabric
