// The measurement driver of a fabric run: samples the running totals at the end of every sample period, decides
// when warm-up has reached steady state, opens and closes the measurement window, watches the drain of the
// marked packets and stops the run, reporting saturation instead of numbers when steady state is never reached.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "loom/fabric/network_context.hpp"
#include "loom/sim/component.hpp"
#include "loom/sim/timer.hpp"

namespace loom::fabric {

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
class Monitor : public sim::Component {
public:
    static constexpr std::string_view kSubsystem = "fabric";

    Monitor(sim::Context& ctx, NetworkContext& net);

    void init() override;
    const std::vector<Sample>& samples() const { return samples_; }
    double wall_start() const { return wall_start_; }

private:
    void on_sample();
    void saturate(std::string reason);
    void finish_run();
    bool steady(const Sample& a, const Sample& b) const;

    NetworkContext& net_;
    sim::Timer timer_;
    std::vector<Sample> samples_;
    FabricCounters last_;  // totals at the end of the previous sample
    std::int64_t idle_cycles_ = 0;  // consecutive cycles of samples that ejected nothing with flits in flight
    double wall_start_ = 0;
};

}  // namespace loom::fabric
