// A packet hop through net::OutputPort / net::InputPort: packets bouncing between two components over a pair of
// 100 Gbit/s links (1 ns latency), each hop = one send into the port's storage, one arrival event, one copy out.
// With one packet in flight the ports are idle (one event per hop); with many, packets queue and each hop adds
// the port's wake-up. BM_RawLinkHop is the same bounce over bare sim::OutPort/InPort, for the layer's cost.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "loom/net/input_port.hpp"
#include "loom/net/output_port.hpp"
#include "loom/sim/port.hpp"
#include "loom/sim/simulator.hpp"

namespace {

using namespace loom;

struct Payload {
    std::uint64_t token;
    std::uint64_t hops;
};

LinkTiming timing() {
    LinkTiming t;
    t.rate = Bandwidth::gbps(100);
    t.unit_payload = Bytes(64);
    t.unit_wire = Bytes(66);
    t.latency_parts = {{"cable", Time::ns(1)}};
    return t;
}

class Bouncer : public sim::Component {
public:
    Bouncer(sim::Context& ctx, std::uint32_t tokens, const net::PortConfig& config)
        : sim::Component(ctx), out(ctx, "out", timing(), config), in(ctx, "in", this, sim::handler<&Bouncer::on_packet>),
          tokens_(tokens) {}
    void init() override {
        for (std::uint32_t i = 0; i < tokens_; ++i) {
            net::Packet<Payload> p{};
            p.header.bytes = 256;
            p.payload.token = i;
            out.send(p);
        }
    }
    net::OutputPort<Payload> out;
    net::InputPort<Payload> in;

private:
    void on_packet(const net::Packet<Payload>& p, const net::Delivery&) {
        net::Packet<Payload> next = p;
        ++next.payload.hops;
        out.send(next);
    }
    std::uint32_t tokens_;
};

void BM_PortHop(benchmark::State& state) {
    const auto tokens = static_cast<std::uint32_t>(state.range(0));
    net::PortConfig config;
    config.queues = {net::QueueConfig{0, Bytes(0), 1}};
    if (state.range(1) != 0) {
        // Draws on every packet, no loss (a lost token would end the bounce).
        config.faults.delay = Time::ns(5);
        config.faults.reorder_window = Time::ns(10);
    }
    sim::Simulator sim;
    auto& a = sim.add<Bouncer>("a", tokens, config);
    auto& b = sim.add<Bouncer>("b", 0u, config);
    net::connect(sim, a.out, b.in);
    net::connect(sim, b.out, a.in);
    sim.init();
    std::uint64_t events = 0;
    for (auto _ : state) events += sim.run(sim::RunLimits{Time::max(), 1 << 16}).events;
    const std::uint64_t hops = a.in.received() + b.in.received();
    state.SetItemsProcessed(static_cast<std::int64_t>(hops));
    state.counters["events_per_hop"] = static_cast<double>(events) / static_cast<double>(hops);
}

class RawBouncer : public sim::Component {
public:
    RawBouncer(sim::Context& ctx, std::uint32_t tokens)
        : sim::Component(ctx), in(ctx, "in", this, sim::handler<&RawBouncer::on_token>), out(ctx, "out"),
          tokens_(tokens) {}
    void init() override {
        for (std::uint32_t i = 0; i < tokens_; ++i) out.send(i);
    }
    sim::InPort in;
    sim::OutPort out;

private:
    void on_token(std::uint32_t token) { out.send(token, Time::ps(22'120)); }  // 256 B = 4 x 66 B at 100G, + 1 ns
    std::uint32_t tokens_;
};

void BM_RawLinkHop(benchmark::State& state) {
    sim::Simulator sim;
    auto& a = sim.add<RawBouncer>("a", 1u);
    auto& b = sim.add<RawBouncer>("b", 0u);
    sim.connect(a.out, b.in, Time::ns(1));
    sim.connect(b.out, a.in, Time::ns(1));
    sim.init();
    std::uint64_t hops = 0;
    for (auto _ : state) hops += sim.run(sim::RunLimits{Time::max(), 1 << 16}).events;
    state.SetItemsProcessed(static_cast<std::int64_t>(hops));
}

// Args: packets in flight, faults on (added delay and a reordering window).
BENCHMARK(BM_PortHop)->Args({1, 0})->Args({1, 1})->Args({64, 0});
BENCHMARK(BM_RawLinkHop);

}  // namespace

BENCHMARK_MAIN();
