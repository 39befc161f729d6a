// Topology planning benchmarks on the largest TSP system (10,440 TSPs): build and freeze, all-pairs hop counts
// (TSP and node level), the whole `loom topo` report, and a Dragonfly of similar size.
#include <benchmark/benchmark.h>

#include "loom/topo/dragonfly.hpp"
#include "loom/topo/hop_counts.hpp"
#include "loom/topo/topology_report.hpp"
#include "loom/topo/tsp_topology.hpp"

namespace {

using namespace loom::topo;

TspTopologyConfig max_system(PortAssignment assignment) {
    TspTopologyConfig c;  // defaults: 145 racks x 9 nodes x 8 TSPs
    c.port_assignment = assignment;
    return c;
}

PortAssignment assignment_of(const benchmark::State& state) {
    return state.range(0) == 0 ? PortAssignment::RoundRobin : PortAssignment::Blocked;
}

void BM_BuildMax(benchmark::State& state) {
    const TspTopologyConfig c = max_system(assignment_of(state));
    for (auto _ : state) {
        FrozenTopology t = build_tsp_topology(c);
        benchmark::DoNotOptimize(t.num_channels());
    }
}
BENCHMARK(BM_BuildMax)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_AllPairsHopsMax(benchmark::State& state) {
    const FrozenTopology t = build_tsp_topology(max_system(assignment_of(state)));
    std::int32_t diameter = 0;
    for (auto _ : state) {
        const HopSummary h = vertex_hops(t);
        diameter = h.diameter;
        benchmark::DoNotOptimize(h.total_hops);
    }
    state.counters["diameter"] = diameter;
    state.counters["pairs_per_s"] = benchmark::Counter(10'440.0 * 10'439.0, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_AllPairsHopsMax)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_NodeHopsMax(benchmark::State& state) {
    const FrozenTopology t = build_tsp_topology(max_system(PortAssignment::RoundRobin));
    for (auto _ : state) benchmark::DoNotOptimize(node_hops(t).total_hops);
}
BENCHMARK(BM_NodeHopsMax)->Unit(benchmark::kMillisecond);

void BM_ReportMax(benchmark::State& state) {
    const FrozenTopology t = build_tsp_topology(max_system(assignment_of(state)));
    for (auto _ : state) {
        const TopologyReport r = make_topology_report(t, LinkClassTiming{}, ChipConfig{});
        benchmark::DoNotOptimize(r.latency.average_ns);
    }
}
BENCHMARK(BM_ReportMax)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_DragonflyHops(benchmark::State& state) {
    DragonflyConfig c;  // p = 8, a = 16, h = 8, g = 129: 2,064 routers, 16,512 terminals
    c.p = 8;
    c.a = 16;
    c.h = 8;
    const FrozenTopology t = build_dragonfly(c);
    for (auto _ : state) benchmark::DoNotOptimize(vertex_hops(t).total_hops);
}
BENCHMARK(BM_DragonflyHops)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
