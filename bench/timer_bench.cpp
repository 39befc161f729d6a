// Timer micro-benchmarks inside a running simulator: N live timers (up to 100,000+) that re-arm themselves
// on every expiry, with optional churn where each expiry also re-arms (supersedes) or arms-then-cancels
// another timer, so the cost of a superseded expiry (pushed, popped, discarded) is included.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "loom/sim/simulator.hpp"
#include "loom/sim/timer.hpp"

namespace {

using namespace loom;

enum class Churn { None, Rearm, ArmCancel };

// Each entry owns its timer and is the timer's handler object, so a handler knows which timer fired (the
// usual pattern for per-flow or per-request timers: the owner need not be a Component).
class TimerFarm : public sim::Component {
public:
    struct Entry {
        Entry(sim::Context& ctx, TimerFarm* owner) : timer(ctx, this, sim::handler<&Entry::on_timer>), farm(owner) {}
        void on_timer() { farm->fired(*this); }
        sim::Timer timer;
        TimerFarm* farm;
    };

    TimerFarm(sim::Context& ctx, std::size_t n, Churn churn) : sim::Component(ctx), churn_(churn) {
        entries_.reserve(n);
        for (std::size_t i = 0; i < n; ++i) entries_.push_back(std::make_unique<Entry>(ctx, this));
    }
    void init() override {
        for (auto& e : entries_) e->timer.arm_in(delay());
    }
    void fired(Entry& e) {
        e.timer.arm_in(delay());
        if (churn_ == Churn::None) return;
        sim::Timer& other = entries_[ctx().rng().uniform(entries_.size())]->timer;
        if (churn_ == Churn::Rearm) {
            other.arm_in(delay());  // supersedes its pending expiry, which is discarded when it comes up
        } else if (other.armed()) {
            other.cancel();  // cancel and re-arm: one stale expiry, the timer stays live
            other.arm_in(delay());
        }
    }

private:
    Time delay() { return Time::ps(1000 + static_cast<std::int64_t>(ctx().rng().uniform(1'000'000))); }

    Churn churn_;
    std::vector<std::unique_ptr<Entry>> entries_;
};

void run_farm(benchmark::State& state, Churn churn) {
    const auto n = static_cast<std::size_t>(state.range(0));
    sim::Simulator sim;
    sim.add<TimerFarm>("farm", n, churn);
    sim.init();
    sim.run(sim::RunLimits{Time::max(), 4 * n});  // warm-up
    std::uint64_t events = 0;
    for (auto _ : state) {
        events += sim.run(sim::RunLimits{Time::max(), 1 << 16}).events;
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(events));
    state.counters["discarded_frac"] =
        static_cast<double>(sim.timer_events_discarded()) / static_cast<double>(sim.events_handled());
    state.counters["pending"] = static_cast<double>(sim.pending());
}

void BM_TimerSelfRearm(benchmark::State& state) { run_farm(state, Churn::None); }
void BM_TimerSupersede(benchmark::State& state) { run_farm(state, Churn::Rearm); }
void BM_TimerArmCancel(benchmark::State& state) { run_farm(state, Churn::ArmCancel); }

BENCHMARK(BM_TimerSelfRearm)->Arg(1000)->Arg(100000);
BENCHMARK(BM_TimerSupersede)->Arg(1000)->Arg(100000);
BENCHMARK(BM_TimerArmCancel)->Arg(1000)->Arg(100000);

}  // namespace

BENCHMARK_MAIN();
