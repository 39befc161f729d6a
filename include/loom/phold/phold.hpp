// PHOLD, the standard synthetic benchmark of discrete-event kernels: N logical processes on one any-to-any
// channel, each event handled by scheduling one new event at a uniformly chosen process after
// lookahead + Exp(mean_delay). Loom's kernel benchmark and its first demo model.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"
#include "loom/sim/channel.hpp"
#include "loom/sim/registry.hpp"
#include "loom/sim/simulator.hpp"

namespace loom::phold {

class LogicalProcess;

// The "phold" config section. Defaults are the classic PHOLD set-up used by the kernel benchmark
// (configs/bench/phold.json): 1024 LPs, 16 events each, 10 ns lookahead, 100 ns mean exponential delay.
struct PholdConfig {
    std::int64_t lps = 1024;
    std::int64_t population = 16;
    Time lookahead = Time::ns(10);
    Time mean_delay = Time::ns(100);
};
inline constexpr std::int64_t kMaxInFlight = std::int64_t{1} << 27;  // lps * population (queue memory bound)

config::Schema<PholdConfig> phold_schema();

// A built PHOLD run: the channel "phold.net" and the processes "phold.lp<i>". finish() writes the "phold"
// stats group and checks conservation: events in flight stay lps * population (ModelError otherwise).
class PholdModel : public sim::ModelInstance {
public:
    PholdModel(sim::Simulator& sim, const PholdConfig& config, sim::Channel& channel,
               std::vector<const LogicalProcess*> lps);
    void finish() override;
    std::string perf_fields() const override;
    // events_handled and in_flight (avg, final, expected), read during the run (phold_stats.cpp).
    std::vector<sim::Probe> probes(const std::string& key) const override;

private:
    sim::Simulator& sim_;
    PholdConfig config_;
    sim::Channel& channel_;
    std::vector<const LogicalProcess*> lps_;
    sim::Probes probes_;
    void add_probes();
};

// Creates and wires the model in `sim` (before sim.init()).
std::unique_ptr<PholdModel> build(const PholdConfig& config, sim::Simulator& sim);
// The registry's build function: parses "/phold" (absent: all defaults) and builds if it parsed.
std::unique_ptr<sim::ModelInstance> build(const config::Json& root, sim::Simulator& sim, config::Errors& errors);

void register_components(sim::Registry& registry);

}  // namespace loom::phold
