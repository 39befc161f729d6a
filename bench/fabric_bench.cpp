// Dynamically routed network benchmarks: the separable and iSLIP allocators at a router's radix, and whole runs
// of the 1,056-terminal reference Dragonfly (uniform random, 0.5 flit/cycle/terminal) and of the 16,512-terminal
// Dragonfly, timed over a window after warm-up. Counters: flit_hops (flits through a router switch) per CPU
// second, simulated cycles per second, and the process's peak resident memory.
#include <sys/resource.h>

#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "loom/base/rng.hpp"
#include "loom/fabric/allocator.hpp"
#include "loom/fabric/fabric.hpp"
#include "loom/sim/simulator.hpp"

namespace {

using namespace loom;
using namespace loom::fabric;

// A switch allocation round of a 15-port router with 3 VCs per port, each VC requesting a random output with
// probability 1/2 (the reference router under heavy load).
void BM_SwitchAllocator(benchmark::State& state) {
    const auto kind = static_cast<AllocatorKind>(state.range(0));
    constexpr int kPorts = 15, kVcs = 3;
    Allocator a(kind, kPorts, kVcs, kPorts, static_cast<std::int32_t>(state.range(1)), kVcs);
    Rng rng(1);
    std::vector<std::int32_t> requests;  // (input, line, output) triples, 64 rounds' worth
    std::vector<std::size_t> starts;
    for (int round = 0; round < 64; ++round) {
        starts.push_back(requests.size());
        for (int i = 0; i < kPorts; ++i)
            for (int v = 0; v < kVcs; ++v)
                if (rng.bernoulli(0.5)) {
                    requests.push_back(i);
                    requests.push_back(v);
                    requests.push_back(static_cast<std::int32_t>(rng.uniform(kPorts)));
                }
    }
    starts.push_back(requests.size());
    std::size_t round = 0;
    std::int64_t grants = 0;
    for (auto _ : state) {
        a.clear();
        for (std::size_t k = starts[round]; k < starts[round + 1]; k += 3) a.request(requests[k], requests[k + 1], requests[k + 2]);
        a.allocate();
        grants += static_cast<std::int64_t>(a.granted().size());
        round = (round + 1) % 64;
    }
    state.counters["grants_per_round"] = benchmark::Counter(static_cast<double>(grants), benchmark::Counter::kAvgIterations);
    state.SetLabel(std::string(allocator_name(kind)));
}
BENCHMARK(BM_SwitchAllocator)->Args({0, 1})->Args({1, 1})->Args({1, 3});

double peak_rss_mib() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// A whole network under uniform random traffic with minimal routing and the reference router (the defaults of
// FabricConfig): built and warmed up untimed, then `window` cycles timed.
void run_network(benchmark::State& state, topo::DragonflyConfig shape, double rate, std::int64_t warmup,
                 std::int64_t window) {
    std::int64_t hops = 0, cycles = 0;
    for (auto _ : state) {
        state.PauseTiming();
        FabricModelConfig c;
        c.topology = shape;
        c.traffic.rate = rate;
        c.traffic.measurement.warmup_threshold = 0.0;  // never steady: the monitor lets the run go on
        c.traffic.measurement.max_warmup_samples = 1'000'000;
        auto sim = std::make_unique<sim::Simulator>();
        config::Errors errors;
        auto model = build(c, *sim, errors);
        errors.throw_if_any();
        sim->init();
        sim::RunLimits limits;
        limits.end = Time::ns(warmup);  // 1 GHz: a cycle is 1 ns
        sim->run(limits);
        const std::int64_t before = model->totals().flit_hops;
        state.ResumeTiming();
        limits.end = Time::ns(warmup + window);
        sim->run(limits);
        state.PauseTiming();
        hops += model->totals().flit_hops - before;
        cycles += window;
        model.reset();
        sim.reset();
        state.ResumeTiming();
    }
    state.counters["flit_hops_per_s"] = benchmark::Counter(static_cast<double>(hops), benchmark::Counter::kIsRate);
    state.counters["cycles_per_s"] = benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
    state.counters["flit_hops_per_cycle"] = static_cast<double>(hops) / static_cast<double>(cycles);
    state.counters["peak_rss_MiB"] = peak_rss_mib();
}

// 1,056 terminals (p=4, a=8, h=4, g=33), 0.5 flit/cycle/terminal.
void BM_Reference1056(benchmark::State& state) {
    run_network(state, topo::DragonflyConfig{4, 8, 4, 33, topo::GlobalArrangement::Absolute}, 0.5, 2'000, 5'000);
}
BENCHMARK(BM_Reference1056)->Unit(benchmark::kSecond)->Iterations(1);

// 16,512 terminals (p=8, a=16, h=8, g=129), 0.3 flit/cycle/terminal.
void BM_Large16512(benchmark::State& state) {
    run_network(state, topo::DragonflyConfig{8, 16, 8, 0, topo::GlobalArrangement::Absolute}, 0.3, 1'000, 1'000);
}
BENCHMARK(BM_Large16512)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
