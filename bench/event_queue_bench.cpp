// Event queue micro-benchmarks: the classic hold model (pop the least event, push one a random increment
// later) at a steady 1K, 64K and 1M pending events, for each EventQueue implementation; plus a burst of
// simultaneous events, which stresses tie-breaking instead of time ordering.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "loom/base/rng.hpp"
#include "loom/sim/calendar_queue.hpp"
#include "loom/sim/event.hpp"
#include "loom/sim/heap_queue.hpp"
#include "loom/sim/radix_queue.hpp"
#include "loom/sim/two_level_queue.hpp"

namespace {

using loom::sim::Event;

// Increments drawn once: 10 ns + Exp(100 ns), the PHOLD delay, so the benchmark times the queue only.
const std::vector<std::int64_t>& increments() {
    static const std::vector<std::int64_t> table = [] {
        std::vector<std::int64_t> t(1 << 16);
        loom::Rng rng(7);
        for (auto& x : t) x = 10'000 + static_cast<std::int64_t>(rng.exponential(100'000.0) + 0.5);
        return t;
    }();
    return table;
}

template <class Q>
void BM_Hold(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const auto& inc = increments();
    const std::size_t mask = inc.size() - 1;
    Q q;
    std::uint64_t counter = 0;
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; ++i) {
        q.push(Event{inc[k++ & mask] * static_cast<std::int64_t>(i % 7 + 1) / 4, counter++, 0, 0});
    }
    // Warm up to the steady state (and let the calendar tune itself) before timing.
    for (std::size_t i = 0; i < 4 * n; ++i) {
        const Event e = q.top();
        q.pop();
        q.push(Event{e.time + inc[k++ & mask], counter++, 0, 0});
    }
    std::size_t peak_bytes = q.bytes_held();
    for (auto _ : state) {
        const Event e = q.top();
        q.pop();
        q.push(Event{e.time + inc[k++ & mask], counter++, e.target, e.arg});
    }
    peak_bytes = std::max(peak_bytes, q.bytes_held());
    if constexpr (requires { q.peak_bytes(); }) peak_bytes = std::max(peak_bytes, q.peak_bytes());
    state.SetItemsProcessed(state.iterations());
    state.counters["bytes_per_event"] = static_cast<double>(peak_bytes) / static_cast<double>(n);
}

// `n` events at one time with shuffled keys, then drained: the order comes from the key alone.
template <class Q>
void BM_SameTimeBurst(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    std::vector<std::uint64_t> keys(n);
    loom::Rng rng(3);
    for (auto& key : keys) key = rng.next_u64();
    Q q;
    std::int64_t t = 0;
    for (auto _ : state) {
        for (std::uint64_t key : keys) q.push(Event{t, key, 0, 0});
        while (!q.empty()) {
            benchmark::DoNotOptimize(q.top());
            q.pop();
        }
        t += 1000;
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

BENCHMARK_TEMPLATE(BM_Hold, loom::sim::RadixQueue)->Arg(1 << 10)->Arg(1 << 16)->Arg(1 << 20);
BENCHMARK_TEMPLATE(BM_Hold, loom::sim::TwoLevelQueue)->Arg(1 << 10)->Arg(1 << 16)->Arg(1 << 20);
BENCHMARK_TEMPLATE(BM_Hold, loom::sim::CalendarQueue)->Arg(1 << 10)->Arg(1 << 16)->Arg(1 << 20);
BENCHMARK_TEMPLATE(BM_Hold, loom::sim::HeapQueue)->Arg(1 << 10)->Arg(1 << 16)->Arg(1 << 20);
BENCHMARK_TEMPLATE(BM_SameTimeBurst, loom::sim::RadixQueue)->Arg(1 << 10);
BENCHMARK_TEMPLATE(BM_SameTimeBurst, loom::sim::TwoLevelQueue)->Arg(1 << 10);
BENCHMARK_TEMPLATE(BM_SameTimeBurst, loom::sim::CalendarQueue)->Arg(1 << 10);
BENCHMARK_TEMPLATE(BM_SameTimeBurst, loom::sim::HeapQueue)->Arg(1 << 10);

}  // namespace

BENCHMARK_MAIN();
