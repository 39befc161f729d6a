#include <catch2/catch.hpp>

#include <string>

#include "loom/base/error.hpp"
#include "loom/sim/channel.hpp"
#include "test_components.hpp"

using namespace loom;
using namespace loom::sim;
using namespace loom::literals;
using loom::sim::test::Journal;
using loom::sim::test::Member;

namespace {

// Sends one payload to every member (itself included) at init, each `delay` later.
class Broadcaster : public Component {
public:
    Broadcaster(Context& ctx, Time delay) : Component(ctx), port(ctx, "ch", this, handler<&Broadcaster::on_arrival>), delay_(delay) {}
    void init() override {
        for (std::uint32_t to = 0; to < port.channel_size(); ++to) port.send(to, 100 + to, delay_);
    }
    ChannelPort port;
    int arrivals = 0;

private:
    void on_arrival(std::uint32_t) { ++arrivals; }
    Time delay_;
};

}  // namespace

TEST_CASE("A channel delivers from any endpoint to any endpoint after its minimum latency") {
    Journal journal;
    Simulator sim;
    Channel& ch = sim.add_channel("net", 3, 10_ns);
    auto& b = sim.add<Broadcaster>("b", 10_ns);
    auto& m1 = sim.add<Member>("m1", &journal);
    auto& m2 = sim.add<Member>("m2", &journal);
    b.port.attach(ch, 0);
    m1.port.attach(ch, 1);
    m2.port.attach(ch, 2);
    CHECK(ch.min_latency() == 10_ns);
    CHECK(b.port.min_latency() == 10_ns);
    sim.init();
    sim.run({Time::ps(9'999)});
    CHECK(journal.empty());
    sim.run({10_ns});
    REQUIRE(journal.size() == 2);
    // Same time, same source: the send counter orders them (m1 was sent to first).
    CHECK(journal[0].who == "m1");
    CHECK(journal[0].arg == 101);
    CHECK(journal[1].who == "m2");
    CHECK(journal[1].arg == 102);
    CHECK(b.arrivals == 1);
    CHECK(ch.sent().count == 3);
    CHECK(ch.received().count == 3);
    CHECK(ch.occupancy(sim.now()).in_flight == 0);
}

TEST_CASE("A channel send below the minimum latency or to a missing endpoint is rejected") {
    Journal journal;
    SECTION("too early") {
        Simulator sim;
        Channel& ch = sim.add_channel("net", 1, 10_ns);
        auto& b = sim.add<Broadcaster>("lp0", Time::ps(9'999));
        b.port.attach(ch, 0);
        try {
            sim.init();
            FAIL("accepted");
        } catch (const InternalError& e) {
            CHECK(std::string(e.what()).find("lp0.ch") != std::string::npos);
            CHECK(std::string(e.what()).find("minimum latency") != std::string::npos);
        }
    }
    SECTION("out of range") {
        Simulator sim;
        Channel& ch = sim.add_channel("net", 2, 1_ns);
        auto& m0 = sim.add<Member>("m0", &journal);
        auto& m1 = sim.add<Member>("m1", &journal);
        m0.port.attach(ch, 0);
        m1.port.attach(ch, 1);
        sim.init();
        CHECK_THROWS_AS(m0.port.send(2, 0, 1_ns), InternalError);
        CHECK_NOTHROW(m0.port.send(1, 0, 1_ns));
    }
}

TEST_CASE("A channel endpoint left without a port is a setup error naming the channel") {
    Journal journal;
    Simulator sim;
    Channel& ch = sim.add_channel("sys.fabric", 3, 1_ns);
    auto& m0 = sim.add<Member>("m0", &journal);
    m0.port.attach(ch, 0);
    try {
        sim.init();
        FAIL("accepted");
    } catch (const InternalError& e) {
        CHECK(std::string(e.what()).find("sys.fabric") != std::string::npos);
        CHECK(std::string(e.what()).find("endpoint 1") != std::string::npos);
    }
}

TEST_CASE("An unattached channel port is a setup error naming the port") {
    Journal journal;
    Simulator sim;
    sim.add<Member>("lonely", &journal);
    try {
        sim.init();
        FAIL("accepted");
    } catch (const InternalError& e) {
        CHECK(std::string(e.what()).find("lonely.ch") != std::string::npos);
    }
}

TEST_CASE("Channel endpoints are attached once each") {
    Journal journal;
    Simulator sim;
    Channel& ch = sim.add_channel("net", 2, 1_ns);
    auto& m0 = sim.add<Member>("m0", &journal);
    auto& m1 = sim.add<Member>("m1", &journal);
    m0.port.attach(ch, 0);
    CHECK_THROWS_AS(m1.port.attach(ch, 0), InternalError);
    CHECK_THROWS_AS(m1.port.attach(ch, 2), InternalError);
    CHECK_THROWS_AS(m0.port.attach(ch, 1), InternalError);
    CHECK(ch.endpoint(0) == &m0.port);
    CHECK(ch.endpoint(1) == nullptr);
}

TEST_CASE("The simulator's lookahead is the smallest link or channel latency") {
    Journal journal;
    Simulator sim;
    CHECK(sim.lookahead() == Time::max());
    sim.add_channel("net", 1, 10_ns);
    CHECK(sim.lookahead() == 10_ns);
    auto& a = sim.add<test::Node>("a", &journal);
    sim.connect(a.out, a.in, 3_ns);
    CHECK(sim.lookahead() == 3_ns);
}

TEST_CASE("A channel needs endpoints and a latency of at least one picosecond") {
    Simulator sim;
    CHECK_THROWS_AS(sim.add_channel("a", 0, 1_ns), InternalError);
    CHECK_THROWS_AS(sim.add_channel("b", 4, Time::zero()), InternalError);
    CHECK(sim.add_channel("c", 4, Time::ps(1)).size() == 4);
}
