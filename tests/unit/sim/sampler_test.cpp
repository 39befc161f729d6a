// Simulator::set_sampler: samples at 0, interval, 2*interval, ... see the state at the end of each instant, add
// no event, and leave the run's results unchanged.
#include <catch2/catch.hpp>

#include <tuple>
#include <utility>
#include <vector>

#include "loom/sim/kernel_stats.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/sim/timer.hpp"

using namespace loom;
using namespace loom::sim;
using namespace loom::literals;

namespace {

// Ticks every `period` (first at `period`) until `last`.
class SampledTicker : public Component {
public:
    SampledTicker(Context& ctx, Time period, Time last)
        : Component(ctx), timer(ctx, this, handler<&SampledTicker::on_tick>), period_(period), last_(last) {}
    void init() override { timer.arm_in(period_); }
    Timer timer;
    std::uint64_t ticks = 0;

private:
    void on_tick() {
        ++ticks;
        if (now() + period_ <= last_) timer.arm_in(period_);
    }
    Time period_, last_;
};

using Samples = std::vector<std::pair<std::int64_t, std::uint64_t>>;  // (time ps, ticks then)

}  // namespace

TEST_CASE("A sample at t sees every event at t and none after", "[sim][sampler]") {
    Simulator sim;
    auto& t = sim.add<SampledTicker>("t", 10_ns, Time::max());
    sim.init();
    Samples got;
    sim.set_sampler(25_ns, [&](Time at) { got.emplace_back(at.count(), t.ticks); });
    const RunResult r = sim.run({100_ns});
    CHECK(r.reason == StopReason::EndTime);
    // Ticks at 10, 20, ...: at 0 none, at 25 ns two, at 50 ns five (the tick at 50 included), ...
    CHECK(got == Samples{{0, 0}, {25'000, 2}, {50'000, 5}, {75'000, 7}, {100'000, 10}});
}

TEST_CASE("A run that goes quiet samples up to its last event's time", "[sim][sampler]") {
    Simulator sim;
    auto& t = sim.add<SampledTicker>("t", 10_ns, 45_ns);  // ticks at 10..40 ns
    sim.init();
    Samples got;
    sim.set_sampler(20_ns, [&](Time at) { got.emplace_back(at.count(), t.ticks); });
    const RunResult r = sim.run();
    CHECK(r.reason == StopReason::Quiescent);
    CHECK(sim.now() == 40_ns);
    CHECK(got == Samples{{0, 0}, {20'000, 2}, {40'000, 4}});
}

TEST_CASE("Sampling adds no event and changes nothing a run reports", "[sim][sampler]") {
    const auto run = [](bool sampled) {
        Simulator sim;
        auto& t = sim.add<SampledTicker>("t", 7_ns, Time::max());
        sim.init();
        std::uint64_t samples = 0;
        if (sampled) sim.set_sampler(3_ns, [&](Time) { ++samples; });
        const RunResult r = sim.run({1_us});
        sim.finish();
        CHECK(samples == (sampled ? 1'000 / 3 + 1 : 0));
        return std::make_tuple(r.events, t.ticks, sim.now(), sim.peak_pending(), sim.stats().to_json(sim.now()).dump());
    };
    CHECK(run(true) == run(false));
}

TEST_CASE("A run continued after an end time goes on sampling where it stopped", "[sim][sampler]") {
    Simulator sim;
    auto& t = sim.add<SampledTicker>("t", 10_ns, Time::max());
    sim.init();
    Samples got;
    sim.set_sampler(30_ns, [&](Time at) { got.emplace_back(at.count(), t.ticks); });
    sim.run({40_ns});
    sim.run({90_ns});
    CHECK(got == Samples{{0, 0}, {30'000, 3}, {60'000, 6}, {90'000, 9}});
}

TEST_CASE("The kernel's statistics can be read while the run goes on", "[sim][sampler]") {
    Simulator sim;
    sim.add<SampledTicker>("t", 10_ns, Time::max());
    sim.init();
    const Probes probes = kernel_probes(sim);
    const std::vector<Probe> handled = probes.select("/stats/kernel/events_handled");
    REQUIRE(handled.size() == 1);
    std::vector<stats::Json> got;
    sim.set_sampler(50_ns, [&](Time at) { got.push_back(handled[0].read(at)); });
    sim.run({100_ns});
    CHECK(got == std::vector<stats::Json>{0, 5, 10});
    CHECK(probes.select("/stats/kernel/*").size() == 5);
    CHECK(kernel_stat_declarations().problems().empty());
}
