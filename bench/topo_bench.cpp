// Topology planning benchmarks on the largest TSP system (10,440 TSPs): build and freeze, all-pairs hop counts
// (TSP and node level), the whole `loom topo` report, a Dragonfly of similar size, and the scheduler's non-minimal
// candidate search for the pairs an all-reduce sends between.
#include <benchmark/benchmark.h>

#include "loom/topo/dragonfly.hpp"
#include "loom/topo/hop_counts.hpp"
#include "loom/topo/hop_table.hpp"
#include "loom/topo/paths.hpp"
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

// The non-minimal candidates (through one other node, at most 8) of the pairs a hierarchical all-reduce sends
// between, from a hop table filled beforehand: every ordered pair inside nodes 0-9, between the same TSP index of
// two nodes of racks 0-1, and between the same node and TSP of racks r and r + 1, r + 72 (r < 72). Arg: 0 in-node
// pairs, 1 in-rack, 2 rack to rack.
void BM_NonminimalMax(benchmark::State& state) {
    const FrozenTopology t = build_tsp_topology(max_system(PortAssignment::RoundRobin));
    HopTable hops(t);
    std::vector<std::pair<VertexId, VertexId>> pairs;
    const auto v = [](int rack, int node, int tsp) { return (rack * 9 + node) * 8 + tsp; };
    if (state.range(0) == 0) {
        for (int n = 0; n < 10; ++n)
            for (int a = 0; a < 8; ++a)
                for (int b = 0; b < 8; ++b)
                    if (a != b) pairs.emplace_back(n * 8 + a, n * 8 + b);
    } else if (state.range(0) == 1) {
        for (int r = 0; r < 2; ++r)
            for (int i = 0; i < 8; ++i)
                for (int a = 0; a < 9; ++a)
                    for (int b = 0; b < 9; ++b)
                        if (a != b) pairs.emplace_back(v(r, a, i), v(r, b, i));
    } else {
        for (int r = 0; r < 72; ++r) {
            pairs.emplace_back(v(r, r % 9, r % 8), v(r + 1, r % 9, r % 8));
            pairs.emplace_back(v(r, r % 9, r % 8), v(r + 72, r % 9, r % 8));
        }
    }
    for (const auto& [s, d] : pairs) benchmark::DoNotOptimize(hops.row(s).size() + hops.row(d).size());
    std::size_t found = 0;
    for (auto _ : state) {
        for (const auto& [s, d] : pairs) found += nonminimal_paths(t, hops, s, d, Via::Node, 8).size();
    }
    benchmark::DoNotOptimize(found);
    state.counters["pairs_per_s"] =
        benchmark::Counter(static_cast<double>(pairs.size()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_NonminimalMax)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
