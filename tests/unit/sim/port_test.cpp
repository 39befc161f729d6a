#include <catch2/catch.hpp>

#include <string>

#include "loom/base/error.hpp"
#include "loom/sim/port.hpp"
#include "test_components.hpp"

using namespace loom;
using namespace loom::sim;
using namespace loom::literals;
using loom::sim::test::Journal;
using loom::sim::test::Node;
using loom::sim::test::Relay;
using loom::sim::test::Sink;
using loom::sim::test::Source;

TEST_CASE("A link delivers at send time plus latency and not a picosecond earlier") {
    Journal journal;
    Simulator sim;
    auto& src = sim.add<Source>("src", 100_ns);
    auto& relay = sim.add<Relay>("relay", 5_ns);
    auto& sink = sim.add<Sink>("sink", &journal);
    sim.connect(src.out, relay.in, 100_ns);
    sim.connect(relay.out, sink.in, 5_ns);
    sim.init();
    // Sent at 100 ns (when the relay got it) with latency 5 ns: not there at 105 ns - 1 ps ...
    RunResult r = sim.run({Time::ps(105'000 - 1)});
    CHECK(r.reason == StopReason::EndTime);
    CHECK(journal.empty());
    CHECK(sim.now() == Time::ps(104'999));
    // ... and handled at exactly 105 ns.
    r = sim.run({105_ns});
    REQUIRE(journal.size() == 1);
    CHECK(journal[0].time == 105'000);
    CHECK(journal[0].who == "sink");
    CHECK(r.events == 1);
}

TEST_CASE("A send may take longer than the link latency but not less") {
    Journal journal;
    SECTION("longer is fine") {
        Simulator sim;
        auto& src = sim.add<Source>("src", 30_ns);
        auto& sink = sim.add<Sink>("sink", &journal);
        sim.connect(src.out, sink.in, 10_ns);
        sim.init();
        sim.run();
        REQUIRE(journal.size() == 1);
        CHECK(journal[0].time == 30'000);
    }
    SECTION("shorter is rejected naming the port") {
        Simulator sim;
        auto& src = sim.add<Source>("sys.src", Time::ps(9'999));
        auto& sink = sim.add<Sink>("sink", &journal);
        sim.connect(src.out, sink.in, 10_ns);
        try {
            sim.init();
            FAIL("a send below the minimum latency was accepted");
        } catch (const InternalError& e) {
            const std::string what = e.what();
            CHECK(what.find("sys.src.out") != std::string::npos);
            CHECK(what.find("minimum latency") != std::string::npos);
        }
    }
}

TEST_CASE("A link needs a latency of at least one picosecond") {
    Journal journal;
    Simulator sim;
    auto& src = sim.add<Source>("src", 1_ns);
    auto& sink = sim.add<Sink>("sink", &journal);
    CHECK_THROWS_AS(sim.connect(src.out, sink.in, Time::zero()), InternalError);
    CHECK_NOTHROW(sim.connect(src.out, sink.in, Time::ps(1)));
}

TEST_CASE("An unbound port is a setup error that names the port") {
    Journal journal;
    Simulator sim;
    auto& a = sim.add<Node>("rack3.node2", &journal);
    auto& b = sim.add<Node>("rack3.node5", &journal);
    sim.connect(a.out, b.in, 1_ns);  // b.out and a.in stay unbound
    try {
        sim.init();
        FAIL("init accepted unbound ports");
    } catch (const InternalError& e) {
        const std::string what = e.what();
        CHECK(what.find("rack3.node2.in") != std::string::npos);
        CHECK(what.find("not connected") != std::string::npos);
    }
}

TEST_CASE("A port is connected at most once") {
    Journal journal;
    Simulator sim;
    auto& src = sim.add<Source>("src", 1_ns);
    auto& s1 = sim.add<Sink>("s1", &journal);
    auto& s2 = sim.add<Sink>("s2", &journal);
    sim.connect(src.out, s1.in, 1_ns);
    CHECK_THROWS_AS(sim.connect(src.out, s2.in, 1_ns), InternalError);
    CHECK(src.out.peer() == "s1.in");
    CHECK(src.out.latency() == 1_ns);
}

TEST_CASE("Ports count what they send and receive") {
    Journal journal;
    Simulator sim;
    auto& src = sim.add<Source>("src", 2_ns, 5u);
    auto& sink = sim.add<Sink>("sink", &journal);
    sim.connect(src.out, sink.in, 2_ns);
    sim.init();
    CHECK(src.out.sent().count == 5);
    sim.run({Time::ps(1999)});
    CHECK(sink.in.received().count == 0);
    CHECK(occupancy(src.out.sent(), sink.in.received(), sim.now()).in_flight == 5);
    sim.run();
    CHECK(sink.in.received().count == 5);
    CHECK(occupancy(src.out.sent(), sink.in.received(), sim.now()).in_flight == 0);
    // Five events in flight for 2 ns of the 2 ns elapsed.
    CHECK(occupancy(src.out.sent(), sink.in.received(), sim.now()).average == Approx(5.0));
}
