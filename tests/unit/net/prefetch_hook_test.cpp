#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "loom/net/input_port.hpp"
#include "loom/net/output_port.hpp"
#include "loom/sim/simulator.hpp"

using namespace loom;
using namespace loom::literals;
using namespace loom::net;

namespace {

struct Payload {
    std::uint32_t value;
};

LinkTiming timing(Time latency) {
    LinkTiming t;
    t.rate = Bandwidth::gbps(8);
    t.unit_payload = Bytes(100);
    t.unit_wire = Bytes(100);
    t.latency_parts = {{"cable", latency}};
    return t;
}

PortConfig one_queue() {
    PortConfig c;
    c.queues = {QueueConfig{1000, Bytes(0), 1}};
    return c;
}

class Sender : public sim::Component {
public:
    Sender(sim::Context& ctx, Time latency, std::uint32_t value)
        : sim::Component(ctx), out(ctx, "out", timing(latency), one_queue()), value_(value) {}
    OutputPort<Payload> out;
    void init() override {
        Packet<Payload> p{};
        p.header.bytes = 100;
        p.payload.value = value_;
        out.send(p, 0);
    }

private:
    std::uint32_t value_;
};

// One input port per sender; with `hook`, the ports call prefetch_packet, which records what it was shown (and
// when, in arrivals so far): a real component would only prefetch.
class Receiver : public sim::Component {
public:
    Receiver(sim::Context& ctx, std::uint32_t ports, bool hook) : sim::Component(ctx) {
        for (std::uint32_t i = 0; i < ports; ++i) {
            const std::string n = std::to_string(i);  // (a temporary's concatenation trips g++ 12's -Wrestrict)
            ins.push_back(std::make_unique<InputPort<Payload>>(ctx, "in" + n, this,
                                                               sim::handler<&Receiver::on_packet>));
            if (hook) ins.back()->enable_prefetch<Receiver>();
        }
    }
    std::vector<std::unique_ptr<InputPort<Payload>>> ins;
    std::vector<std::uint32_t> got;
    struct Shown {
        std::uint32_t value;
        std::size_t arrivals_before;
    };
    mutable std::vector<Shown> shown;
    void prefetch_packet(const Packet<Payload>& p) const { shown.push_back({p.payload.value, got.size()}); }

private:
    void on_packet(const Packet<Payload>& p) { got.push_back(p.payload.value); }
};

struct Run {
    std::vector<std::uint32_t> got;
    std::vector<Receiver::Shown> shown;
    bool hooks = false;
};

// Eight senders, each one packet at time 0 over links of the same latency: eight arrivals at one time, pending at
// once (in one bucket of any queue, so the loop's guess of the next event is right).
Run run(sim::QueueKind kind, bool hook) {
    sim::SimulatorOptions o;
    o.queue = kind;
    sim::Simulator sim(o);
    constexpr std::uint32_t kSenders = 8;
    std::vector<Sender*> senders;
    for (std::uint32_t i = 0; i < kSenders; ++i) {
        const std::string n = std::to_string(i);
        senders.push_back(&sim.add<Sender>("s" + n, Time::ns(50), 100 + i));
    }
    auto& r = sim.add<Receiver>("r", kSenders, hook);
    for (std::uint32_t i = 0; i < kSenders; ++i) connect(sim, senders[i]->out, *r.ins[i]);
    sim.init();
    sim.run();
    return Run{r.got, r.shown, sim.prefetch_hooks()};
}

}  // namespace

TEST_CASE("An input port's prefetch hook is shown the next arrival's packet before the current one runs") {
    for (sim::QueueKind kind : {sim::QueueKind::Calendar, sim::QueueKind::Radix}) {
        CAPTURE(sim::to_string(kind));
        const Run plain = run(kind, false);
        const Run hooked = run(kind, true);
        REQUIRE(plain.got.size() == 8);
        CHECK_FALSE(plain.hooks);
        CHECK(plain.shown.empty());
        CHECK(hooked.hooks);
        // The hook changes nothing the run does.
        CHECK(hooked.got == plain.got);
        // Every arrival but the first was shown while the one before it was about to run (the guess is right
        // when the events are all pending); extra calls (stale guesses past the last event) are harmless.
        for (std::size_t k = 1; k < plain.got.size(); ++k) {
            CAPTURE(k);
            bool found = false;
            for (const Receiver::Shown& s : hooked.shown)
                found = found || (s.value == plain.got[k] && s.arrivals_before == k - 1);
            CHECK(found);
        }
    }
}
