// TSP executor throughput: every one of a node's 28 links streams vectors in both directions (56 channels), as
// back-to-back trains of `train` vectors, received at the far end; optionally relayed through a third TSP
// (forward). Reports events/s and vector hops/s of the run phase, in train mode and in vector mode.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "loom/sim/simulator.hpp"
#include "loom/tsp/tsp_model.hpp"

namespace {

using namespace loom;

tsp::MachineConfig node() {
    tsp::MachineConfig m;
    m.topology.kind = topo::TspKind::Node;
    return m;
}

// Every TSP sends `per_channel` vectors to every other TSP over their direct link, `train` vectors per Send,
// each train starting when the previous one has left; the receiver issues each Receive at the first core edge
// that has every vector of its train available in time (one core period after the first arrival).
tsp::Program all_links(const tsp::TspSystem& sys, std::int64_t per_channel, std::int64_t train) {
    const topo::FrozenTopology& t = sys.topology();
    const ClockDomain clk = sys.chip().clock();
    const Time period = clk.period_ceil();
    tsp::Program p;
    std::vector<sched::TspProgram> progs(static_cast<std::size_t>(t.num_vertices()));
    for (topo::ChannelId c = 0; c < t.num_channels(); ++c) {
        const topo::Channel& ch = t.channel(c);
        const LinkTiming& lt = sys.timing(c);
        Time free = Time::zero();
        std::uint32_t first = 0;
        for (std::int64_t sent = 0; sent < per_channel; sent += train) {
            const auto n = static_cast<std::uint32_t>(std::min(train, per_channel - sent));
            const std::int64_t cycle = clk.edge_at_or_after(free);
            const Time start = clk.edge(cycle);
            sched::Instruction send;
            send.cycle = cycle;
            send.op = sched::Op::Send;
            send.out_ports = static_cast<sched::PortMask>(1u << ch.src_port);
            send.transfer = static_cast<std::uint32_t>(c);
            send.first_vector = first;
            send.count = n;
            send.address = 0;
            progs[static_cast<std::size_t>(ch.src)].instructions.push_back(send);
            sched::Instruction recv;
            recv.cycle = clk.edge_at_or_after(lt.unit_arrival(start, 1) + period);
            recv.op = sched::Op::Receive;
            recv.in_port = static_cast<std::uint8_t>(ch.dst_port);
            recv.transfer = static_cast<std::uint32_t>(c);
            recv.first_vector = first;
            recv.count = n;
            recv.address = 0;
            progs[static_cast<std::size_t>(ch.dst)].instructions.push_back(recv);
            free = start + lt.serialization(n);
            first += n;
        }
    }
    for (std::size_t v = 0; v < progs.size(); ++v) {
        progs[v].tsp = static_cast<std::uint32_t>(v);
        std::stable_sort(progs[v].instructions.begin(), progs[v].instructions.end(),
                         [](const sched::Instruction& a, const sched::Instruction& b) { return a.cycle < b.cycle; });
        p.schedule.programs.push_back(std::move(progs[v]));
    }
    return p;
}

void run(benchmark::State& state, tsp::ExecutionMode mode) {
    const std::int64_t per_channel = state.range(0);
    const std::int64_t train = state.range(1);
    std::uint64_t events = 0;
    std::int64_t hops = 0;
    for (auto _ : state) {
        state.PauseTiming();
        sim::Simulator sim;
        auto system = std::make_unique<tsp::TspSystem>(node(), 1);
        tsp::Program program = all_links(*system, per_channel, train);
        tsp::ExecutorConfig exec;
        exec.mode = mode;
        exec.record_limit = 0;
        auto model = tsp::build(std::move(system), exec, std::move(program), sim);
        sim.init();
        state.ResumeTiming();
        const sim::RunResult r = sim.run();
        state.PauseTiming();
        sim.finish();
        model->finish();  // throws if any check failed
        events += r.events;
        hops += model->vector_hops();
        state.ResumeTiming();
    }
    state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
    state.counters["vectors_per_s"] = benchmark::Counter(static_cast<double>(hops), benchmark::Counter::kIsRate);
    state.counters["vector_hops"] = static_cast<double>(hops) / static_cast<double>(state.iterations());
    state.counters["events"] = static_cast<double>(events) / static_cast<double>(state.iterations());
}

void BM_TspNodeTrain(benchmark::State& state) { run(state, tsp::ExecutionMode::Train); }
void BM_TspNodeVector(benchmark::State& state) { run(state, tsp::ExecutionMode::Vector); }

// (vectors per channel, vectors per train): 56 channels x 10^5 vectors = 5.6M vector hops.
BENCHMARK(BM_TspNodeTrain)
    ->Args({100'000, 100'000})
    ->Args({100'000, 1'000})
    ->Args({100'000, 64})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_TspNodeVector)
    ->Args({100'000, 100'000})
    ->Args({100'000, 1'000})
    ->Args({100'000, 64})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
