// The measurement driver of a fabric run: samples the running totals at the end of every sample period, decides
// when warm-up has reached steady state, opens and closes the measurement window, watches the drain of the
// marked packets and stops the run, reporting saturation instead of numbers when steady state is never reached.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "loom/fabric/fabric_setup.hpp"
#include "loom/fabric/fabric_stats.hpp"
#include "loom/sim/channel.hpp"
#include "loom/sim/component.hpp"
#include "loom/sim/timer.hpp"

namespace loom::fabric {

class Terminal;

// One sample period, as the monitor saw it.
struct Sample {
    std::int64_t end_cycle = 0;  // last cycle of the sample
    std::int64_t flits_generated = 0, packets_generated = 0;
    std::int64_t flits_ejected = 0, packets_ejected = 0;
    double mean_latency = 0;  // cycles, packets ejected in the sample (0 when none)
    std::int64_t backlog = 0;  // flits generated and not yet ejected, at the end of the sample
};

// Runs in Phase::Report of the last cycle of each sample (after every arrival, timer and router tick of that
// cycle), so a phase change takes effect from the next cycle. The rules are MeasurementConfig's. Trace traffic
// has no warm-up: every packet is marked and the run ends when the trace is delivered (the simulator runs out
// of events). The wall clock is read once here (init) for the --perf figure only; it never affects the run.
// What it reads and says: at each sample boundary it sums the counters every router and terminal owns (a
// reduction at a synchronization point: the sample boundary; a partitioned run would all-reduce them there). It
// opens the measurement window by a message to every terminal over the "fabric.measure" channel (sent at the end
// of cycle c, delivered at c + 1 before anything else of that cycle, so packets generated from c + 1 on are
// marked). Once the window has closed a terminal tells it of every marked packet it ejects (a message timed at
// the next cycle); the monitor stops the run when the last marked packet is out.
// Endpoints of "fabric.measure": terminal id for each terminal, terminals() for the monitor.
class Monitor : public sim::Component {
public:
    static constexpr std::string_view kSubsystem = "fabric";

    Monitor(sim::Context& ctx, const FabricSetup& net);

    // What the sample boundaries sum (the builder registers every router's and terminal's).
    void watch(const FabricCounters& counters) { counters_.push_back(&counters); }
    // A terminal's marked-packet statistics (Terminal::marked(), made at its first marked packet).
    void watch_marked(const Terminal& terminal) { marked_.push_back(&terminal); }
    sim::ChannelPort& measure_port() { return measure_; }

    void init() override;
    const FabricStats& stats() const { return stats_; }
    // The sum of every watched component's counters now.
    FabricCounters totals() const;
    const std::vector<Sample>& samples() const { return samples_; }
    double wall_start() const { return wall_start_; }

private:
    void on_sample();
    void on_notice(std::uint32_t ejected_cycle);
    std::int64_t marked_outstanding() const;
    void saturate(std::string reason);
    void finish_run();
    bool steady(const Sample& a, const Sample& b) const;

    const FabricSetup& net_;
    FabricStats stats_;
    std::vector<const FabricCounters*> counters_;
    std::vector<const Terminal*> marked_;
    sim::ChannelPort measure_;
    sim::Timer timer_;
    std::int64_t drain_from_ = 0;      // Drain: notices of ejections after this cycle count
    std::int64_t outstanding_ = 0;     // Drain: marked packets not yet ejected
    std::vector<Sample> samples_;
    FabricCounters last_;  // totals at the end of the previous sample
    std::int64_t idle_cycles_ = 0;  // consecutive cycles of samples that ejected nothing with flits in flight
    double wall_start_ = 0;
};

}  // namespace loom::fabric
