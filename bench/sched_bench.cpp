// Compile-time scheduler benchmarks: scheduler time and memory for random point-to-point traffic of 1K, 100K and
// 10M vectors (10M vectors = 3.2 GB of tensors) on the 264-TSP system, plus the static verifier on the middle size.
// Counters: vectors/s, trains and reservations (runs, not vectors), the schedule's own size, and the process's
// peak resident set (getrusage; it only grows, so run one size per process for a per-size figure:
// --benchmark_filter='BM_Compile/10000000').
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <algorithm>
#include <cstdint>

#include "loom/sched/scheduler.hpp"
#include "loom/sched/verifier.hpp"
#include "loom/topo/tsp_topology.hpp"
#include "loom/workload/transfer.hpp"

namespace {

using namespace loom;

topo::FrozenTopology system264() {
    topo::TspTopologyConfig c;
    c.kind = topo::TspKind::System264;
    return topo::build_tsp_topology(c);
}

// About `vectors` vectors in tensors of 1000 vectors (320 KB), at least 16 tensors.
workload::TransferSet random_traffic(const topo::FrozenTopology& t, std::int64_t vectors) {
    workload::TransferSetConfig c;
    c.random.count = std::max<std::int64_t>(16, vectors / 1000);
    c.random.bytes = Bytes(((vectors + c.random.count - 1) / c.random.count) * 320);
    c.random.seed = 1;
    return workload::make_transfer_set(c, t, topo::ChipConfig{});
}

double peak_rss_mib() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

double schedule_mib(const sched::Schedule& s) {
    std::size_t bytes = s.predicted.capacity() * sizeof(sched::PredictedRun) +
                        s.reservations.capacity() * sizeof(sched::Reservation) +
                        s.transfers.capacity() * sizeof(sched::TransferTiming);
    for (const auto& p : s.programs) bytes += sizeof(p) + p.instructions.capacity() * sizeof(sched::Instruction);
    return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

void BM_Compile(benchmark::State& state) {
    const topo::FrozenTopology t = system264();
    const workload::TransferSet set = random_traffic(t, state.range(0));
    const auto vectors = static_cast<double>(set.total_vectors());
    sched::Schedule s;
    for (auto _ : state) {
        s = sched::compile(t, topo::LinkClassTiming{}, topo::ChipConfig{}, set);
        benchmark::DoNotOptimize(s.makespan);
    }
    std::size_t instructions = 0;
    for (const auto& p : s.programs) instructions += p.instructions.size();
    state.counters["transfers"] = static_cast<double>(set.transfers.size());
    state.counters["vectors"] = vectors;
    state.counters["vectors_per_s"] = benchmark::Counter(vectors, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["reservations"] = static_cast<double>(s.reservations.size());
    state.counters["instructions"] = static_cast<double>(instructions);
    state.counters["makespan_us"] = s.makespan.to_us();
    state.counters["efficiency"] = s.efficiency();
    state.counters["schedule_mib"] = schedule_mib(s);
    state.counters["peak_rss_mib"] = peak_rss_mib();
}
BENCHMARK(BM_Compile)->Arg(1'000)->Arg(100'000)->Arg(10'000'000)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_Verify(benchmark::State& state) {
    const topo::FrozenTopology t = system264();
    const workload::TransferSet set = random_traffic(t, state.range(0));
    const sched::Schedule s = sched::compile(t, topo::LinkClassTiming{}, topo::ChipConfig{}, set);
    std::size_t problems = 0;
    for (auto _ : state) {
        problems = sched::verify(s, t, topo::LinkClassTiming{}, topo::ChipConfig{}, &set).size();
        benchmark::DoNotOptimize(problems);
    }
    state.counters["problems"] = static_cast<double>(problems);
    state.counters["vectors_per_s"] =
        benchmark::Counter(static_cast<double>(set.total_vectors()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Verify)->Arg(100'000)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

// One node, many transfers: `count` random 32 KiB transfers (103 vectors each, the workload.random default) between
// 8 TSPs, all ready at time 0, so list scheduling books every transfer into an ever more fragmented table (as
// configs/tsp/schedule-node-100k.json and -1m.json). Placement starts past the Send cycles earlier transfers found
// busy for the same route and train length, so the cost per transfer stays nearly flat (see bench/README.md,
// "Scheduling many transfers on one node"). 1M takes minutes and about 3 GiB: filter for it alone.
void BM_CompileNode(benchmark::State& state) {
    topo::TspTopologyConfig tc;
    tc.kind = topo::TspKind::Node;
    const topo::FrozenTopology t = topo::build_tsp_topology(tc);
    // Random transfers write disjoint regions of the upper half of each destination's memory, so 220 MiB TSPs take
    // at most about 28,000 of them: give the TSPs room for a million (the memory size changes addresses only, not
    // the timing the scheduler plans).
    topo::ChipConfig chip;
    chip.memory = Bytes(std::int64_t{16} << 30);
    workload::TransferSetConfig c;
    c.random.count = state.range(0);
    c.random.seed = 7;
    const workload::TransferSet set = workload::make_transfer_set(c, t, chip);
    sched::Schedule s;
    for (auto _ : state) {
        s = sched::compile(t, topo::LinkClassTiming{}, chip, set);
        benchmark::DoNotOptimize(s.makespan);
    }
    state.counters["transfers"] = static_cast<double>(set.transfers.size());
    state.counters["transfers_per_s"] =
        benchmark::Counter(static_cast<double>(set.transfers.size()), benchmark::Counter::kIsIterationInvariantRate);
    state.counters["reservations"] = static_cast<double>(s.reservations.size());
    state.counters["peak_rss_mib"] = peak_rss_mib();
}
BENCHMARK(BM_CompileNode)->Arg(1'000)->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(1);

BENCHMARK_MAIN();
