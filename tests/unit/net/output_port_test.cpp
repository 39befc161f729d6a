#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "loom/base/rng.hpp"
#include "loom/net/input_port.hpp"
#include "loom/net/output_port.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/stats/group.hpp"

using namespace loom;
using namespace loom::literals;
using namespace loom::net;

namespace {

struct Payload {
    std::uint32_t value;
    char text[12];
};

// 8 Gbit/s: one wire byte per ns. Units of 100 payload bytes, 110 on the wire; 50 ns of latency.
LinkTiming test_timing() {
    LinkTiming t;
    t.rate = Bandwidth::gbps(8);
    t.unit_payload = Bytes(100);
    t.unit_wire = Bytes(110);
    t.latency_parts = {{"cable", 50_ns}};
    return t;
}

class Sender : public sim::Component {
public:
    Sender(sim::Context& ctx, const LinkTiming& timing, const PortConfig& config)
        : sim::Component(ctx), out(ctx, "out", timing, config) {}
    OutputPort<Payload> out;
    SendResult send(std::uint32_t value, std::int64_t bytes, std::uint32_t queue = 0) {
        Packet<Payload> p{};
        p.header.bytes = bytes;
        p.header.seq = value;
        p.payload.value = value;
        return out.send(p, queue);
    }
};

struct Got {
    std::int64_t time;
    std::uint32_t value;
    Delivery delivery;
};

class Receiver : public sim::Component {
public:
    explicit Receiver(sim::Context& ctx) : sim::Component(ctx), in(ctx, "in", this, sim::handler<&Receiver::on_packet>) {}
    InputPort<Payload> in;
    std::vector<Got> got;
    std::vector<Packet<Payload>> kept;

private:
    void on_packet(const Packet<Payload>& p, const Delivery& d) {
        got.push_back({now().count(), p.payload.value, d});
        kept.push_back(p);
    }
};

// Moves the simulation's clock: a timer at the time asked for, so the clock gets there even with nothing else
// pending (a run with no events leaves the clock where it was).
class Ticker : public sim::Component {
public:
    explicit Ticker(sim::Context& ctx) : sim::Component(ctx), timer(ctx, this, sim::handler<&Ticker::on_tick>) {}
    sim::Timer timer;

private:
    void on_tick() {}
};

sim::SimulatorOptions options(std::uint64_t seed) {
    sim::SimulatorOptions o;
    o.seed = seed;
    return o;
}

// A sender and a receiver over one link.
struct Pair {
    explicit Pair(const PortConfig& config, const LinkTiming& timing = test_timing(), std::uint64_t seed = 1)
        : sim(options(seed)),
          a(sim.add<Sender>("a", timing, config)),
          b(sim.add<Receiver>("b")),
          ticker(sim.add<Ticker>("ticker")) {
        connect(sim, a.out, b.in);
        sim.init();
    }
    sim::Simulator sim;
    Sender& a;
    Receiver& b;
    Ticker& ticker;
    // Runs until `t` inclusive and leaves the clock at `t`.
    void advance(Time t) {
        if (t > sim.now()) ticker.timer.arm_at(t);
        sim.run({t});
    }
    const PortEngine& port() const { return a.out.engine(); }
};

PortConfig one_queue(std::int64_t max_packets = 1000, Bytes max_bytes = Bytes(0)) {
    PortConfig c;
    c.queues = {QueueConfig{max_packets, max_bytes, 1}};
    return c;
}

}  // namespace

TEST_CASE("A packet arrives after its units' serialization and the latency, not a picosecond earlier") {
    Pair p(one_queue());
    // 250 bytes = 3 units = 330 wire bytes = 330 ns at 8 Gbit/s, then 50 ns.
    CHECK(p.a.send(7, 250) == SendResult::Sent);
    CHECK(p.port().free_at() == 330_ns);
    p.advance(Time::ps(379'999));
    CHECK(p.b.got.empty());
    p.advance(380_ns);
    REQUIRE(p.b.got.size() == 1);
    CHECK(p.b.got[0].time == 380'000);
    CHECK(p.b.got[0].value == 7);
    CHECK(p.b.got[0].delivery.units == 3);
    CHECK(p.b.got[0].delivery.start == Time::zero());
}

TEST_CASE("Per-packet framing adds to the packet's bytes before it is cut into units") {
    PortConfig c = one_queue();
    c.packet_overhead = Bytes(60);
    Pair p(c);
    CHECK(p.port().units_of(250) == 4);  // 310 bytes -> 4 units
    CHECK(p.port().units_of(0) == 1);
    p.a.send(1, 250);
    p.sim.run();
    CHECK(p.b.got.at(0).time == (440_ns + 50_ns).count());
}

TEST_CASE("Packets sent back to back form one train timed exactly from its start") {
    // A rate where a unit is not a whole number of ps: 110 bytes at 3 Gbit/s = 293,333.3 ps.
    LinkTiming t = test_timing();
    t.rate = Bandwidth::gbps(3);
    Pair p(one_queue(), t);
    for (std::uint32_t i = 0; i < 3; ++i) p.a.send(i, 100);
    p.sim.run();
    REQUIRE(p.b.got.size() == 3);
    for (std::int64_t k = 1; k <= 3; ++k)
        CHECK(p.b.got[static_cast<std::size_t>(k - 1)].time == (t.unit_sent(Time::zero(), k) + 50_ns).count());
    CHECK(p.b.got[2].time == 880'000 + 50'000);  // ceil(3 * 880 bits / 3 Gbit/s), not 3 x a rounded unit
}

TEST_CASE("An idle port costs one event per packet and a busy one adds one wake-up per queued packet") {
    Pair p(one_queue());
    p.a.send(1, 100);
    CHECK(p.sim.run().events == 1);
    p.a.send(2, 100);
    p.a.send(3, 100);
    p.a.send(4, 100);
    CHECK(p.sim.run().events == 3 + 2);
}

TEST_CASE("A full queue drops by packet limit and by byte limit, and the counts are by reason") {
    SECTION("packets") {
        Pair p(one_queue(2));
        for (std::uint32_t i = 0; i < 5; ++i) p.a.send(i, 100);  // one on the wire, two queued, two dropped
        CHECK(p.port().drops()[DropReason::QueueFull] == 2);
        CHECK(p.port().queued() == 2);
        p.sim.run();
        CHECK(p.b.got.size() == 3);
    }
    SECTION("bytes") {
        Pair p(one_queue(0, Bytes(250)));
        p.a.send(0, 100);  // on the wire
        CHECK(p.a.send(1, 200) == SendResult::Queued);
        CHECK(p.a.send(2, 51) == SendResult::Dropped);
        CHECK(p.a.send(3, 50) == SendResult::Queued);  // 250 bytes: at the limit
        CHECK(p.port().queued_bytes(0) == 250);
        CHECK(p.port().drops()[DropReason::QueueFull] == 1);
        p.sim.run();
        CHECK(p.b.got.size() == 3);
        CHECK(p.port().conservation());
    }
}

TEST_CASE("Strict priority serves the highest queue first, weighted round robin by weights") {
    PortConfig c;
    c.queues = {QueueConfig{1000, Bytes(0), 2}, QueueConfig{1000, Bytes(0), 1}};
    std::vector<std::uint32_t> order;
    SECTION("strict priority") {
        c.scheduling = Scheduling::StrictPriority;
        Pair p(c);
        p.a.send(100, 100, 1);  // on the wire at once
        for (std::uint32_t i = 0; i < 3; ++i) p.a.send(10 + i, 100, 1);
        for (std::uint32_t i = 0; i < 3; ++i) p.a.send(i, 100, 0);
        p.sim.run();
        for (const Got& g : p.b.got) order.push_back(g.value);
        CHECK(order == std::vector<std::uint32_t>{100, 0, 1, 2, 10, 11, 12});
    }
    SECTION("weighted round robin") {
        c.scheduling = Scheduling::WeightedRoundRobin;
        Pair p(c);
        p.a.send(100, 100, 1);  // on the wire at once (takes queue 0's first turn? no: sent without queueing)
        for (std::uint32_t i = 0; i < 4; ++i) p.a.send(10 + i, 100, 1);
        for (std::uint32_t i = 0; i < 4; ++i) p.a.send(i, 100, 0);
        p.sim.run();
        for (const Got& g : p.b.got) order.push_back(g.value);
        CHECK(order == std::vector<std::uint32_t>{100, 0, 1, 10, 2, 3, 11, 12, 13});
    }
}

TEST_CASE("A queueless port reports a collision when sent to while busy and starts each send as its own train") {
    PortConfig c;
    c.scheduling = Scheduling::None;
    c.queues.clear();
    Pair p(c);
    CHECK(p.a.send(1, 100) == SendResult::Sent);  // busy until 110 ns
    p.advance(Time::ps(109'999));
    CHECK(p.a.send(2, 100) == SendResult::Collision);
    CHECK(p.port().drops()[DropReason::Collision] == 1);
    p.advance(110_ns);
    CHECK(p.a.send(3, 100) == SendResult::Sent);
    p.sim.run();
    REQUIRE(p.b.got.size() == 2);
    CHECK(p.b.got[1].value == 3);
    CHECK(p.b.got[1].delivery.start == 110_ns);
    CHECK(p.b.got[1].time == (220_ns + 50_ns).count());
    CHECK(p.port().conservation());
}

TEST_CASE("The receiver gets a copy: changing the sender's packet after the send changes nothing that arrives") {
    Pair p(one_queue());
    Packet<Payload> mine{};
    mine.header.bytes = 100;
    mine.payload.value = 41;
    std::copy_n("hello", 6, mine.payload.text);
    p.a.out.send(mine);
    p.a.out.send(mine);  // queued: its slot is filled now, too
    mine.payload.value = 99;
    mine.payload.text[0] = 'J';
    p.sim.run();
    REQUIRE(p.b.kept.size() == 2);
    for (const auto& k : p.b.kept) {
        CHECK(k.payload.value == 41);
        CHECK(std::string(k.payload.text) == "hello");
    }
}

TEST_CASE("Slots are reused once their packets have arrived, so storage stays at the packets in flight") {
    Pair p(one_queue());
    for (int round = 0; round < 100; ++round) {
        p.a.send(static_cast<std::uint32_t>(round), 100);
        p.sim.run();
        p.advance(p.sim.now() + 1_ns);
    }
    CHECK(p.port().slots() <= 2);
    CHECK(p.b.got.size() == 100);
}

TEST_CASE("Loss drops packets on the wire at the configured rate within a statistical bound") {
    PortConfig c = one_queue(0);
    c.faults.loss = 0.1;
    Pair p(c);
    constexpr int n = 10'000;
    for (int i = 0; i < n; ++i) p.a.send(static_cast<std::uint32_t>(i), 100);
    p.sim.run();
    const auto lost = static_cast<double>(p.port().drops()[DropReason::FaultLoss]);
    // sigma = sqrt(n p (1-p)) = 30: five sigma.
    CHECK(std::abs(lost - 1000.0) < 150.0);
    CHECK(p.b.got.size() == n - static_cast<std::size_t>(lost));
    CHECK(p.port().conservation());
    // A lost packet still occupied the wire.
    CHECK(p.port().units_sent() == static_cast<std::uint64_t>(n));
}

TEST_CASE("Added delay shifts every arrival by exactly that much") {
    PortConfig c = one_queue();
    c.faults.delay = 1_us;
    Pair p(c);
    p.a.send(1, 100);
    p.advance(Time::ps(1'160'000 - 1));
    CHECK(p.b.got.empty());
    p.sim.run();
    CHECK(p.b.got.at(0).time == 1'160'000);
}

TEST_CASE("Duplication delivers a second copy at the same time and conservation counts it") {
    PortConfig c = one_queue(0);
    c.faults.duplicate = 0.25;
    Pair p(c);
    for (int i = 0; i < 2000; ++i) p.a.send(static_cast<std::uint32_t>(i), 100);
    p.sim.run();
    const std::uint64_t dup = p.port().duplicated();
    CHECK(dup > 400);
    CHECK(dup < 600);
    CHECK(p.b.got.size() == 2000 + dup);
    std::size_t copies = 0;
    for (std::size_t i = 0; i < p.b.got.size(); ++i) {
        if (!p.b.got[i].delivery.duplicate) continue;
        ++copies;
        REQUIRE(i > 0);
        CHECK(p.b.got[i - 1].value == p.b.got[i].value);
        CHECK(p.b.got[i - 1].time == p.b.got[i].time);
    }
    CHECK(copies == dup);
    CHECK(p.port().conservation());
}

TEST_CASE("Reordering happens, and only within the window") {
    PortConfig c = one_queue(0);
    c.faults.reorder_window = 500_ns;  // about 4.5 packet times
    Pair p(c);
    constexpr std::uint32_t n = 2000;
    for (std::uint32_t i = 0; i < n; ++i) p.a.send(i, 100);
    p.sim.run();
    REQUIRE(p.b.got.size() == n);
    std::vector<std::int64_t> at(n);
    for (const Got& g : p.b.got) at[g.value] = g.time;
    int overtaken = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        // In-order arrival of packet i is (i + 1) x 110 ns + 50 ns; the window adds at most 500 ns.
        const std::int64_t base = (static_cast<std::int64_t>(i) + 1) * 110'000 + 50'000;
        CHECK(at[i] >= base);
        CHECK(at[i] <= base + 500'000);
        for (std::uint32_t j = i + 1; j < std::min(n, i + 10); ++j)
            if (at[j] < at[i]) {
                ++overtaken;
                CHECK(at[i] - at[j] <= 500'000);
            }
    }
    CHECK(overtaken > 0);
}

TEST_CASE("A link down from a time until another drops what starts or flies in that time, at T-1 and T") {
    PortConfig c = one_queue();
    c.faults.down = {{1_us, 2_us}};
    Pair p(c);
    // Starts at 1 us - 161 ns: last bit in at 1 us - 1 ps... shifted so it arrives just before the link goes.
    p.advance(Time::ps(1'000'000 - 160'001));
    p.a.send(1, 100);  // arrives at 1 us - 1 ps: survives
    p.advance(Time::ps(1'000'000 - 160'000));
    p.a.send(2, 100);  // would arrive at 1 us - 1 ps + 1 ps... but queued behind 1: starts later, flies into it
    p.advance(Time::ps(1'999'999));
    p.a.send(3, 100);  // starts at 2 us - 1 ps: down
    p.advance(2_us);
    p.a.send(4, 100);  // starts at 2 us: up again
    p.sim.run();
    std::vector<std::uint32_t> values;
    for (const Got& g : p.b.got) values.push_back(g.value);
    CHECK(values == std::vector<std::uint32_t>{1, 4});
    CHECK(p.b.got[0].time == 1'000'000 - 1);
    CHECK(p.port().drops()[DropReason::LinkDown] == 2);
    CHECK(p.port().conservation());
}

TEST_CASE("A partition takes down every link under its path prefixes") {
    Partition part{"dc.rack3, dc.mux1.out", 1_us, 2_us};
    CHECK(part.covers("dc.rack3"));
    CHECK(part.covers("dc.rack3.host1.out"));
    CHECK_FALSE(part.covers("dc.rack30.host1.out"));
    CHECK(part.covers("dc.mux1.out"));
    CHECK_FALSE(part.covers("dc.mux1.out2"));
    PortConfig c = one_queue();
    apply_partitions(c, "dc.rack3.host1.out", {part, Partition{"dc.rack4", 0_us, 5_us}});
    REQUIRE(c.faults.down.size() == 1);
    CHECK(c.faults.down[0].from == 1_us);
}

TEST_CASE("Taking a port down drops its queue and later sends, and bringing it up restores it") {
    Pair p(one_queue());
    p.a.send(1, 100);
    p.a.send(2, 100);
    p.a.send(3, 100);
    p.a.out.engine().set_down(true);
    CHECK(p.port().drops()[DropReason::LinkDown] == 2);
    CHECK(p.a.send(4, 100) == SendResult::Dropped);
    p.sim.run();
    p.a.out.engine().set_down(false);
    CHECK(p.a.send(5, 100) == SendResult::Sent);
    p.sim.run();
    REQUIRE(p.b.got.size() == 2);  // 1 was already on the wire
    CHECK(p.b.got[1].value == 5);
    CHECK(p.port().conservation());
}

TEST_CASE("Uncorrectable units drop their packet without retry and are replayed in order with it") {
    LinkTiming t = test_timing();
    t.bit_error_rate = 2e-4;  // about 16% of 880-bit units hit, FEC corrects 1 bit: ~1.3% uncorrectable
    t.fec_correctable_bits = 1;
    constexpr std::uint32_t n = 3000;
    SECTION("no retry: dropped") {
        Pair p(one_queue(0), t);
        for (std::uint32_t i = 0; i < n; ++i) p.a.send(i, 250);
        p.sim.run();
        const std::uint64_t bad = p.port().drops()[DropReason::FecUncorrectable];
        CHECK(bad > 0);
        CHECK(p.b.got.size() == n - bad);
        CHECK(p.port().conservation());
    }
    SECTION("retry: all delivered, in order, the replays late by at least the replay latency") {
        PortConfig c = one_queue(0);
        c.link_retry = true;
        c.replay_latency = 200_ns;
        Pair p(c, t);
        for (std::uint32_t i = 0; i < n; ++i) p.a.send(i, 250);
        p.sim.run();
        REQUIRE(p.b.got.size() == n);
        CHECK(p.port().retries() > 0);
        CHECK(p.port().drops().total() == 0);
        for (std::uint32_t i = 0; i < n; ++i) CHECK(p.b.got[i].value == i);
        for (std::uint32_t i = 1; i < n; ++i) CHECK(p.b.got[i].time >= p.b.got[i - 1].time);
        // No retry -> back to back: the last arrival is n x 330 ns + 50 ns; each replay adds 200 ns or more.
        CHECK(p.b.got.back().time >= static_cast<std::int64_t>(n) * 330'000 + 50'000 +
                                         static_cast<std::int64_t>(p.port().retries()) * 200'000);
        for (const Got& g : p.b.got)
            if (g.delivery.attempts > 1) CHECK(g.delivery.units <= 3);
    }
}

TEST_CASE("Sent equals delivered plus dropped by reason with every fault on at once") {
    LinkTiming t = test_timing();
    t.bit_error_rate = 1e-4;
    t.jitter = 30_ns;
    PortConfig c = one_queue(20);
    c.faults = FaultConfig{0.05, 10_ns, 0.05, 300_ns, {{50_us, 60_us}}};
    Pair p(c, t);
    Rng rng(3);
    for (int step = 0; step < 200; ++step) {
        const auto burst = static_cast<int>(rng.uniform(30));
        for (int i = 0; i < burst; ++i) p.a.send(static_cast<std::uint32_t>(step * 100 + i), 1 + static_cast<std::int64_t>(rng.uniform(400)));
        p.advance(p.sim.now() + Time::ns(static_cast<std::int64_t>(rng.uniform(1500))));
        CHECK(p.port().conservation());
    }
    p.sim.run();
    const PortEngine& e = p.port();
    CHECK(e.sent() + e.duplicated() == e.delivered() + e.drops().total());
    CHECK(p.b.got.size() == e.delivered());
    CHECK(e.drops()[DropReason::QueueFull] > 0);
    CHECK(e.drops()[DropReason::FaultLoss] > 0);
    CHECK(e.drops()[DropReason::LinkDown] > 0);
    CHECK(e.drops()[DropReason::FecUncorrectable] > 0);
}

TEST_CASE("Arrivals are the same for the same seed and path and differ for another seed") {
    auto run = [](std::uint64_t seed) {
        LinkTiming t = test_timing();
        t.jitter = 40_ns;
        PortConfig c = one_queue(0);
        c.faults.loss = 0.2;
        c.faults.reorder_window = 200_ns;
        Pair p(c, t, seed);
        for (std::uint32_t i = 0; i < 500; ++i) p.a.send(i, 100);
        p.sim.run();
        std::vector<std::pair<std::int64_t, std::uint32_t>> out;
        for (const Got& g : p.b.got) out.emplace_back(g.time, g.value);
        return out;
    };
    CHECK(run(5) == run(5));
    CHECK(run(5) != run(6));
}

TEST_CASE("Models add their own drop reasons and the port writes them by name") {
    DropReasons reasons;
    const DropReason mux_overload = reasons.add("mux_overload");
    CHECK(mux_overload.id == kBuiltinDropReasons);
    CHECK(reasons.find("mux_overload") == mux_overload);
    CHECK(reasons.name(DropReason::QueueFull) == "queue_full");
    sim::Simulator sim;
    auto& r = sim.add<Receiver>("b");
    struct Owner : sim::Component {
        Owner(sim::Context& ctx, const DropReasons* reasons)
            : sim::Component(ctx), out(ctx, "out", test_timing(), one_queue(), 0, reasons) {}
        OutputPort<Payload> out;
    };
    auto& a = sim.add<Owner>("a", &reasons);
    connect(sim, a.out, r.in);
    sim.init();
    a.out.refuse(mux_overload);
    a.out.refuse(mux_overload);
    CHECK(a.out.engine().conservation());
    stats::Group g("a");
    a.out.engine().write_stats(g);
    const auto j = g.to_json(sim.now());
    CHECK(j.at("out").at("sent") == 2);
    CHECK(j.at("out").at("dropped").at("mux_overload") == 2);
}

// ---- plain ports: the port's own train arithmetic against the general (Transmitter) path ----

namespace {

// 1-byte units at `mbps` Mbit/s with 2 us of latency (the Ananta model's link shape).
LinkTiming byte_timing(std::int64_t mbps) {
    LinkTiming t;
    t.rate = Bandwidth::bps(mbps * 1'000'000);
    t.unit_payload = Bytes(1);
    t.unit_wire = Bytes(1);
    t.latency_parts = {{"cable", 2_us}};
    return t;
}

// Sends the same random packets at the same random times through `p`: bursts that queue and gaps that idle.
void random_traffic(Pair& p, std::uint64_t seed) {
    Rng rng(seed);
    Time at = Time::zero();
    for (std::uint32_t i = 0; i < 400; ++i) {
        at += Time::ps(static_cast<std::int64_t>(rng.uniform(3)) == 0 ? rng.uniform_int(0, 4'000'000) : 0);
        p.advance(at);
        p.a.send(i, rng.uniform_int(40, 1500));
    }
    p.sim.run();
}

}  // namespace

TEST_CASE("A plain port delivers exactly what the general transmit path delivers") {
    // 10 Gbit/s divides a byte's bits into whole picoseconds (a plain port); 7 Gbit/s does not (the port takes
    // the Transmitter: the two ports are then the same path); the test timing's 110-byte units at 8 Gbit/s
    // again does.
    const std::pair<LinkTiming, bool> timings[] = {
        {byte_timing(10'000), true}, {byte_timing(7'000), false}, {test_timing(), true}};
    for (const auto& [timing, exact] : timings) {
        for (std::uint64_t seed = 1; seed <= 5; ++seed) {
            PortConfig plain = one_queue(50);
            plain.packet_overhead = Bytes(24);
            // A down time long after the traffic: no packet is affected, but the port takes the general path.
            PortConfig general = plain;
            general.faults.down = {DownInterval{Time::ms(500), Time::ms(501)}};
            Pair a(plain, timing, seed);
            Pair b(general, timing, seed);
            REQUIRE(a.port().plain() == exact);
            REQUIRE_FALSE(b.port().plain());
            random_traffic(a, seed);
            random_traffic(b, seed);
            REQUIRE(a.b.got.size() == b.b.got.size());
            CHECK(a.b.got.size() + a.port().drops().total() == 400);
            for (std::size_t i = 0; i < a.b.got.size(); ++i) {
                INFO("seed " << seed << " packet " << i);
                CHECK(a.b.got[i].time == b.b.got[i].time);
                CHECK(a.b.got[i].value == b.b.got[i].value);
                CHECK(a.b.got[i].delivery.seq == b.b.got[i].delivery.seq);
                CHECK(a.b.got[i].delivery.start == b.b.got[i].delivery.start);
                CHECK(a.b.got[i].delivery.first_unit == b.b.got[i].delivery.first_unit);
                CHECK(a.b.got[i].delivery.units == b.b.got[i].delivery.units);
                CHECK(a.b.got[i].delivery.attempts == b.b.got[i].delivery.attempts);
            }
            CHECK(a.port().units_sent() == b.port().units_sent());
            CHECK(a.port().busy_time() == b.port().busy_time());
            CHECK(a.port().free_at() == b.port().free_at());
            CHECK(a.port().drops().total() == b.port().drops().total());
        }
    }
}

TEST_CASE("A slot is reused only once its packet has arrived, and storage stays at the packets on the wire") {
    // Bursts (queued, back to back) and gaps of 0-6 us on a 2 us link: the most recent packet's slot, the
    // ring's and new ones are all taken in turn. A slot reused while its packet flies would hand the receiver
    // another packet's value.
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        Pair p(one_queue(1000), byte_timing(10'000), seed);
        REQUIRE(p.port().plain());
        Rng rng(seed);
        Time at = Time::zero();
        std::uint32_t sent = 0;
        std::uint64_t most_outstanding = 0;
        for (int burst = 0; burst < 300; ++burst) {
            at += Time::ps(rng.uniform_int(0, 6'000'000));
            p.advance(at);
            const auto n = static_cast<std::uint32_t>(rng.uniform_int(1, 6));
            for (std::uint32_t k = 0; k < n; ++k) p.a.send(sent++, rng.uniform_int(40, 1500));
            // Packets holding a slot: queued or on the wire (not yet arrived).
            most_outstanding =
                std::max(most_outstanding, p.port().delivered() + p.port().queued() - p.b.in.received());
        }
        p.sim.run();
        REQUIRE(p.b.got.size() == sent);
        for (std::uint32_t i = 0; i < sent; ++i) {
            INFO("seed " << seed << " packet " << i);
            CHECK(p.b.got[i].value == i);
            CHECK(p.b.kept[i].header.seq == i);
        }
        // Sends at a time when a packet arrives may not take its slot yet (strictly past): one more.
        CHECK(p.port().slots() <= most_outstanding + 1);
        CHECK(p.port().conservation());
    }
}

namespace {

// A receiver that takes no Delivery: the port need not keep one per slot.
class BareReceiver : public sim::Component {
public:
    explicit BareReceiver(sim::Context& ctx)
        : sim::Component(ctx), in(ctx, "in", this, sim::handler<&BareReceiver::on_packet>) {}
    InputPort<Payload> in;
    std::vector<std::pair<std::int64_t, std::uint32_t>> got;

private:
    void on_packet(const Packet<Payload>& p) { got.emplace_back(now().count(), p.payload.value); }
};

// A 64-byte payload that is its own whole record (NoHeader), looped back to its own component: every arrival
// below kHops sends the packet on again through the same port, so the port's slots grow inside the handler.
struct Line {
    std::uint32_t value;
    std::uint32_t hops;
    std::uint8_t fill[56];
};

class Looper : public sim::Component {
public:
    explicit Looper(sim::Context& ctx)
        : sim::Component(ctx), out(ctx, "out", test_timing(), one_queue()),
          in(ctx, "in", this, sim::handler<&Looper::on_packet>) {}
    OutputPort<Line, NoHeader> out;
    InputPort<Line, NoHeader> in;
    std::vector<Line> got;
    static constexpr std::uint32_t kHops = 3;

    void start(std::uint32_t n) {
        for (std::uint32_t i = 0; i < n; ++i) {
            Packet<Line, NoHeader> p{};
            p.payload.value = i;
            std::fill(std::begin(p.payload.fill), std::end(p.payload.fill), static_cast<std::uint8_t>(i));
            out.send(p, 64 + i, 0);
        }
    }

private:
    void on_packet(const Packet<Line, NoHeader>& p) {
        if (p.payload.hops < kHops) {
            // Several sends: the slots (and the vector holding the packet being handled) may move.
            for (int k = 0; k < 3; ++k) {
                Packet<Line, NoHeader> next = p;
                ++next.payload.hops;
                next.payload.fill[0] = static_cast<std::uint8_t>(k);
                out.send(next, 64, 0);
            }
        }
        got.push_back(p.payload);
    }
};

}  // namespace

TEST_CASE("A receiver without the Delivery gets the same packets at the same times") {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const PortConfig config = one_queue(50);
        const LinkTiming timing = byte_timing(10'000);
        Pair with(config, timing, seed);
        sim::Simulator sim(options(seed));
        auto& a = sim.add<Sender>("a", timing, config);
        auto& b = sim.add<BareReceiver>("b");
        auto& ticker = sim.add<Ticker>("ticker");
        connect(sim, a.out, b.in);
        sim.init();
        random_traffic(with, seed);
        Rng rng(seed);
        Time at = Time::zero();
        for (std::uint32_t i = 0; i < 400; ++i) {
            at += Time::ps(static_cast<std::int64_t>(rng.uniform(3)) == 0 ? rng.uniform_int(0, 4'000'000) : 0);
            if (at > sim.now()) ticker.timer.arm_at(at);
            sim.run({at});
            a.send(i, rng.uniform_int(40, 1500));
        }
        sim.run();
        REQUIRE(b.got.size() == with.b.got.size());
        for (std::size_t i = 0; i < b.got.size(); ++i) {
            CHECK(b.got[i].first == with.b.got[i].time);
            CHECK(b.got[i].second == with.b.got[i].value);
        }
    }
}

TEST_CASE("A NoHeader packet's slot is its payload, and a port feeding its own component hands a stable copy") {
    STATIC_REQUIRE(sizeof(Packet<Line, NoHeader>) == 64);
    sim::Simulator sim(options(1));
    auto& l = sim.add<Looper>("l");
    connect(sim, l.out, l.in);
    sim.init();
    l.start(4);
    sim.run();
    // 4 packets, each arrival below kHops sending 3: 4 * (1 + 3 + 9 + 27).
    REQUIRE(l.got.size() == 160);
    for (const Line& x : l.got) {
        CHECK(x.hops <= Looper::kHops);
        // The fill survives every hop but byte 0 (set by the handler that sent it on).
        CHECK(std::all_of(std::begin(x.fill) + 1, std::end(x.fill),
                          [&](std::uint8_t v) { return v == static_cast<std::uint8_t>(x.value); }));
    }
    CHECK(l.out.engine().conservation());
}

TEST_CASE("A port's engine starts the port, and its wire starts the engine's second cache line") {
    // The send path of a fast port reads the engine's first line and the wire's hot fields only.
    sim::Simulator sim(options(1));
    auto& a = sim.add<Sender>("a", test_timing(), PortConfig{});
    const auto port = reinterpret_cast<std::uintptr_t>(&a.out);
    const auto engine = reinterpret_cast<std::uintptr_t>(&a.out.engine());
    const auto wire = reinterpret_cast<std::uintptr_t>(&a.out.engine().wire());
    CHECK(port % 64 == 0);
    CHECK(engine == port);
    CHECK(wire - engine == 64);
}
