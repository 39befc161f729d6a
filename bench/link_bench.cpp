// Link micro-benchmark: tokens bouncing between two components over a pair of point-to-point links
// (1 ns minimum latency): each iteration is one hop = one send, one queue round trip, one delivery.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "loom/sim/port.hpp"
#include "loom/sim/simulator.hpp"

namespace {

using namespace loom;

class Bouncer : public sim::Component {
public:
    Bouncer(sim::Context& ctx, std::uint32_t tokens)
        : sim::Component(ctx), in(ctx, "in", this, sim::handler<&Bouncer::on_token>), out(ctx, "out"),
          tokens_(tokens) {}
    void init() override {
        for (std::uint32_t i = 0; i < tokens_; ++i) out.send(i, out.latency() + Time::ps(i));
    }
    sim::InPort in;
    sim::OutPort out;

private:
    void on_token(std::uint32_t token) { out.send(token); }
    std::uint32_t tokens_;
};

void BM_LinkHop(benchmark::State& state) {
    const auto tokens = static_cast<std::uint32_t>(state.range(0));
    sim::Simulator sim;
    auto& a = sim.add<Bouncer>("a", tokens);
    auto& b = sim.add<Bouncer>("b", 0u);
    sim.connect(a.out, b.in, Time::ns(1));
    sim.connect(b.out, a.in, Time::ns(1));
    sim.init();
    std::uint64_t hops = 0;
    for (auto _ : state) hops += sim.run(sim::RunLimits{Time::max(), 1 << 16}).events;
    state.SetItemsProcessed(static_cast<std::int64_t>(hops));
}

BENCHMARK(BM_LinkHop)->Arg(1)->Arg(1024);

}  // namespace

BENCHMARK_MAIN();
