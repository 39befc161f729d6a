// Many deadlines in one component: sim::TimerSet (one kernel timer over an indexed heap) against one sim::Timer
// per deadline (one kernel event per arming, superseded expiries left in the queue). N deadlines, each
// re-armed when it fires; with churn, each firing also pushes `churn` other deadlines later (an ACK restarting
// a retransmission timer), the case that leaves a stale kernel entry per re-arm with per-deadline timers.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "loom/base/rng.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/sim/timer.hpp"
#include "loom/sim/timer_set.hpp"

namespace {

using namespace loom;

// Deadlines between 1 us and 2 us ahead, as for retransmission timers on a short path.
Time draw_delay(Rng& rng) { return Time::ps(1'000'000 + static_cast<std::int64_t>(rng.uniform(1'000'000))); }

class SetFarm : public sim::Component {
public:
    SetFarm(sim::Context& ctx, std::uint32_t n, int churn)
        : sim::Component(ctx), timers(ctx, this, sim::handler<&SetFarm::on_expiry>), n_(n), churn_(churn) {
        timers.reserve(n);
    }
    void init() override {
        for (std::uint32_t i = 0; i < n_; ++i) timers.arm_in(i, draw_delay(ctx().rng()));
    }
    sim::TimerSet timers;
    std::uint64_t fired = 0;

private:
    void on_expiry(std::uint32_t id) {
        ++fired;
        timers.arm_in(id, draw_delay(ctx().rng()));
        for (int c = 0; c < churn_; ++c)
            timers.arm_in(static_cast<std::uint32_t>(ctx().rng().uniform(n_)), draw_delay(ctx().rng()));
    }
    std::uint32_t n_;
    int churn_;
};

class NaiveFarm : public sim::Component {
public:
    struct Entry {
        Entry(sim::Context& ctx, NaiveFarm* owner) : timer(ctx, this, sim::handler<&Entry::on_timer>), farm(owner) {}
        void on_timer() { farm->expired(*this); }
        sim::Timer timer;
        NaiveFarm* farm;
    };
    NaiveFarm(sim::Context& ctx, std::uint32_t n, int churn) : sim::Component(ctx), churn_(churn) {
        entries_.reserve(n);
        for (std::uint32_t i = 0; i < n; ++i) entries_.push_back(std::make_unique<Entry>(ctx, this));
    }
    void init() override {
        for (auto& e : entries_) e->timer.arm_in(draw_delay(ctx().rng()));
    }
    void expired(Entry& e) {
        ++fired;
        e.timer.arm_in(draw_delay(ctx().rng()));
        for (int c = 0; c < churn_; ++c)
            entries_[ctx().rng().uniform(entries_.size())]->timer.arm_in(draw_delay(ctx().rng()));
    }
    std::uint64_t fired = 0;

private:
    int churn_;
    std::vector<std::unique_ptr<Entry>> entries_;
};

template <class Farm>
void run_farm(benchmark::State& state) {
    const auto n = static_cast<std::uint32_t>(state.range(0));
    const auto churn = static_cast<int>(state.range(1));
    sim::Simulator sim;
    auto& farm = sim.add<Farm>("farm", n, churn);
    sim.init();
    // About n/1.5 firings per simulated microsecond: step 100 ns of simulated time per iteration.
    Time t = Time::us(4);
    sim.run({t});  // warm-up: every deadline has fired at least once
    const std::uint64_t fired0 = farm.fired;
    const std::uint64_t events0 = sim.events_handled();
    std::size_t peak = 0;
    for (auto _ : state) {
        t += Time::ns(100);
        sim.run({t});
        peak = std::max(peak, sim.pending());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(farm.fired - fired0));
    state.counters["kernel_events_per_firing"] =
        static_cast<double>(sim.events_handled() - events0) / static_cast<double>(farm.fired - fired0);
    state.counters["pending"] = static_cast<double>(peak);
    state.counters["stale_frac"] =
        static_cast<double>(sim.timer_events_discarded()) / static_cast<double>(sim.events_handled());
}

void BM_TimerSet(benchmark::State& state) { run_farm<SetFarm>(state); }
void BM_TimerPerDeadline(benchmark::State& state) { run_farm<NaiveFarm>(state); }

// Args: deadlines, re-arms of other deadlines per firing.
BENCHMARK(BM_TimerSet)->Args({100'000, 0})->Args({100'000, 4})->Args({1'000'000, 4});
BENCHMARK(BM_TimerPerDeadline)->Args({100'000, 0})->Args({100'000, 4})->Args({1'000'000, 4});

}  // namespace

BENCHMARK_MAIN();
