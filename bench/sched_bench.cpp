// Compile-time scheduler benchmarks: scheduler time and memory for random point-to-point traffic of 1K, 100K and
// 10M vectors (10M vectors = 3.2 GB of tensors) on the 264-TSP system, plus the static verifier on the middle size.
// Counters: vectors/s, trains and reservations (runs, not vectors), the schedule's own size, and the process's
// peak resident set (getrusage; it only grows, so run one size per process for a per-size figure:
// --benchmark_filter='BM_Compile/10000000').
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>

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
BENCHMARK(BM_CompileNode)->Arg(1'000)->Arg(10'000)->Arg(100'000)->Arg(300'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(1);

namespace {

// FNV-1a over every field of a schedule: instructions, reservations, predicted runs, per-transfer timings and the
// figures. Two binaries that print the same digest compiled the same schedule (bench/README.md, "Scheduling many
// transfers on one node").
struct Digest {
    std::uint64_t h = 1469598103934665603ULL;
    void add(std::int64_t v) {
        auto u = static_cast<std::uint64_t>(v);
        for (int i = 0; i < 8; ++i) {
            h ^= (u >> (8 * i)) & 0xFF;
            h *= 1099511628211ULL;
        }
    }
};

std::uint64_t schedule_digest(const sched::Schedule& s) {
    Digest d;
    for (const auto& p : s.programs) {
        d.add(p.tsp);
        d.add(static_cast<std::int64_t>(p.instructions.size()));
        for (const auto& i : p.instructions) {
            d.add(i.cycle);
            d.add(static_cast<std::int64_t>(i.op));
            d.add(i.in_port);
            d.add(i.out_ports);
            d.add(i.transfer);
            d.add(i.first_vector);
            d.add(i.count);
            d.add(i.address);
        }
    }
    for (const auto& r : s.reservations) {
        d.add(r.channel);
        d.add(r.start.count());
        d.add(r.end.count());
        d.add(r.transfer);
        d.add(r.first_vector);
        d.add(r.count);
    }
    for (const auto& r : s.predicted) {
        d.add(r.transfer);
        d.add(r.tsp);
        d.add(r.channel);
        d.add(r.first_vector);
        d.add(r.count);
        d.add(r.offset);
        d.add(r.train_start.count());
        d.add(r.final_destination ? 1 : 0);
    }
    for (const auto& t : s.transfers) {
        d.add(t.transfer);
        d.add(t.ready.count());
        d.add(t.first_issue.count());
        d.add(t.last_arrival.count());
        d.add(t.completion.count());
        d.add(t.vectors);
        d.add(t.trains);
        d.add(t.paths);
        d.add(t.nonminimal_vectors);
        d.add(t.staged_vectors);
    }
    d.add(s.makespan.count());
    d.add(s.lower_bound.count());
    d.add(s.jitter_allowance.count());
    return d.h;
}

// Prints the digest of the schedule of `count` random node transfers (as BM_CompileNode; arg 1: staging on) or, for
// count 0, of the 264-TSP system with fan-out 2, dependencies and staging. Compare old and new binaries:
//   sched_bench --benchmark_filter=BM_ScheduleDigest 2>&1 | grep digest
void BM_ScheduleDigest(benchmark::State& state) {
    topo::TspTopologyConfig tc;
    tc.kind = state.range(0) == 0 ? topo::TspKind::System264 : topo::TspKind::Node;
    const topo::FrozenTopology t = topo::build_tsp_topology(tc);
    topo::ChipConfig chip;
    chip.memory = Bytes(std::int64_t{16} << 30);
    workload::TransferSetConfig c;
    sched::SchedulerConfig sc;
    sc.staging = state.range(1) != 0;
    if (state.range(0) == 0) {
        c.random.count = 3000;
        c.random.seed = 11;
        c.random.fanout = 2;
        c.random.dependency_probability = 0.3;
    } else {
        c.random.count = state.range(0);
        c.random.seed = 7;
    }
    const workload::TransferSet set = workload::make_transfer_set(c, t, chip);
    std::uint64_t h = 0;
    for (auto _ : state) {
        const sched::Schedule s = sched::compile(t, topo::LinkClassTiming{}, chip, set, sc);
        h = schedule_digest(s);
        if (state.range(0) == 0) {
            // Point-to-point with dependencies and staging on the same system.
            workload::TransferSetConfig c2;
            c2.random.count = 3000;
            c2.random.seed = 13;
            c2.random.dependency_probability = 0.3;
            const workload::TransferSet set2 = workload::make_transfer_set(c2, t, chip);
            h ^= schedule_digest(sched::compile(t, topo::LinkClassTiming{}, chip, set2, sc)) * 31;
        }
    }
    std::fprintf(stderr, "digest %s/%lld/%lld %016llx\n", "BM_ScheduleDigest", static_cast<long long>(state.range(0)),
                 static_cast<long long>(state.range(1)), static_cast<unsigned long long>(h));
}
BENCHMARK(BM_ScheduleDigest)
    ->Args({0, 0})->Args({0, 1})->Args({1'000, 0})->Args({1'000, 1})->Args({3'000, 0})->Args({10'000, 0})
    ->Args({10'000, 1})->Args({30'000, 0})->Args({100'000, 0})
    ->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
