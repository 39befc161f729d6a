#include <catch2/catch.hpp>

#include "loom/ananta/health_prober.hpp"
#include "loom/ananta/mux.hpp"

using namespace loom;
using namespace loom::ananta;

namespace {
const IpAddr kHost = ip(10, 0, 0, 1);
const IpAddr kDip = ip(10, 0, 0, 10);
}  // namespace

TEST_CASE("A VM that stops answering is reported unhealthy at the timeout of its second failed probe") {
    HealthProber p(HealthProbeConfig{}, kHost);
    ProbeOutput out;
    p.add_vm(kDip, Time::zero(), out);
    REQUIRE(out.probes.size() == 1);
    CHECK(out.probes[0] == ProbeRequest{kDip, 1});
    p.on_reply(kDip, 1, Time::ms(2), out);  // answered
    out.clear();
    p.tick(Time::s(5) - Time::ps(1), out);
    CHECK(out.probes.empty());
    p.tick(Time::s(5), out);  // second probe, never answered
    REQUIRE(out.probes.size() == 1);
    p.tick(Time::s(10), out);  // its timeout passed (one failure); third probe
    CHECK(out.changes.empty());
    CHECK(p.healthy(kDip));
    CHECK(p.next_deadline() == Time::s(11));
    p.tick(Time::s(11) - Time::ps(1), out);
    CHECK(out.changes.empty());
    p.tick(Time::s(11), out);
    REQUIRE(out.changes.size() == 1);
    CHECK(out.changes[0] == HealthChange{kHost, kDip, false, Time::s(11)});
    CHECK_FALSE(p.healthy(kDip));
}

TEST_CASE("A reply one picosecond before the timeout counts and one at the timeout does not") {
    HealthProbeConfig c;
    c.unhealthy_threshold = 1;
    HealthProber p(c, kHost);
    ProbeOutput out;
    p.add_vm(kDip, Time::zero(), out);
    p.on_reply(kDip, 1, Time::s(1) - Time::ps(1), out);
    p.tick(Time::s(5), out);
    p.on_reply(kDip, 2, Time::s(6), out);  // late
    p.tick(Time::s(6), out);
    REQUIRE(out.changes.size() == 1);
    CHECK(out.changes[0] == HealthChange{kHost, kDip, false, Time::s(6)});
    // Two answered probes bring it back.
    out.clear();
    p.tick(Time::s(10), out);
    p.on_reply(kDip, 3, Time::s(10), out);
    p.tick(Time::s(15), out);
    CHECK(out.changes.empty());
    p.on_reply(kDip, 4, Time::s(15), out);
    REQUIRE(out.changes.size() == 1);
    CHECK(out.changes[0].healthy);
}

TEST_CASE("An unhealthy DIP gets no new connection while its existing connection keeps it") {
    const IpAddr vip = ip(100, 64, 0, 1);
    const Endpoint ep{vip, IpProto::Tcp, 80};
    const WeightedDip a{ip(10, 0, 0, 10), 8080, ip(10, 0, 0, 1), 1};
    const WeightedDip b{ip(10, 0, 1, 10), 8080, ip(10, 0, 1, 1), 1};
    Mux m(MuxConfig{}, ip(10, 1, 0, 1));
    MuxOutput out;
    m.handle(SetEndpoint{1, ep, {a, b}, 0}, Time::zero(), out);
    // A connection that hashes to DIP a, established before a turns unhealthy.
    std::uint16_t port = 40000;
    while (m.pick(FiveTuple{ip(203, 0, 113, 5), vip, port, 80, IpProto::Tcp})->dip != a.dip) ++port;
    const FiveTuple old_conn{ip(203, 0, 113, 5), vip, port, 80, IpProto::Tcp};
    m.handle(make_packet(old_conn, 0, tcp_flag::kSyn), Time::us(1), out);
    m.handle(SetDipHealth{1, a.dip, false}, Time::us(2), out);
    CHECK_FALSE(m.healthy(a.dip));
    out.clear();
    for (std::uint16_t p = 1000; p < 1100; ++p) {
        const FiveTuple t{ip(203, 0, 113, 6), vip, p, 80, IpProto::Tcp};
        m.handle(make_packet(t, 0, tcp_flag::kSyn), Time::us(10) + Time::ps(p), out);
    }
    REQUIRE(out.forwards.size() == 100);
    for (const MuxForward& f : out.forwards) CHECK(f.target.dip == b.dip);
    out.clear();
    m.handle(make_packet(old_conn, 100, tcp_flag::kAck), Time::ms(1), out);
    REQUIRE(out.forwards.size() == 1);
    CHECK(out.forwards[0].target.dip == a.dip);
    // With no healthy DIP left a new connection has nowhere to go.
    m.handle(SetDipHealth{1, b.dip, false}, Time::ms(2), out);
    out.clear();
    m.handle(make_packet(FiveTuple{ip(203, 0, 113, 7), vip, 1, 80, IpProto::Tcp}, 0, tcp_flag::kSyn), Time::ms(3), out);
    CHECK(out.forwards.empty());
    REQUIRE(out.drops.size() == 1);
    CHECK(out.drops[0].reason == DropReason::NoRoute);
    // Back to health: new connections spread over both again.
    m.handle(SetDipHealth{1, a.dip, true}, Time::ms(4), out);
    m.handle(SetDipHealth{1, b.dip, true}, Time::ms(4), out);
    CHECK(m.pick(old_conn)->dip == a.dip);
}
