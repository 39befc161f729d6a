#include <catch2/catch.hpp>

#include <vector>

#include "loom/ananta/mux_lifecycle.hpp"

using namespace loom;
using namespace loom::ananta;

namespace {
const IpAddr kRouter = ip(10, 255, 0, 1);
const IpAddr kMuxA = ip(10, 1, 0, 1);
const IpAddr kMuxB = ip(10, 1, 0, 2);
const IpAddr kVip = ip(100, 64, 0, 1);
const Endpoint kWeb{kVip, IpProto::Tcp, 80};
const WeightedDip kDip{ip(10, 0, 0, 10), 8080, ip(10, 0, 0, 1), 1};

void to_router(BgpRouter& r, MuxLifecycleOutput& out, Time now, BgpRouterOutput& rout) {
    for (const BgpMessage& m : out.bgp) r.handle(m, now, rout);
    out.bgp.clear();
}

// Boots `m`, installs its endpoint (the manager's job; static here) and announces the VIP.
void bring_up(MuxLifecycle& m, BgpRouter& r, Time now) {
    MuxLifecycleOutput out;
    BgpRouterOutput rout;
    m.add_prefix(Prefix{kVip, 32}, now, out);
    m.boot(now, out);
    CHECK(m.state() == MuxState::AwaitingState);
    m.handle(SetEndpoint{1, kWeb, {kDip}, 0}, now, out);
    to_router(r, out, now, rout);
    m.state_installed(now, out);
    CHECK(m.state() == MuxState::Serving);
    to_router(r, out, now, rout);
}

IpPacket syn(std::uint16_t port) {
    return make_packet(FiveTuple{ip(203, 0, 113, 5), kVip, port, 80, IpProto::Tcp}, 0, tcp_flag::kSyn);
}
}  // namespace

TEST_CASE("A graceful Mux removal withdraws the VIP before it closes its session and then forwards nothing") {
    const BgpConfig c;
    BgpRouter r(c, EcmpConfig{}, kRouter);
    MuxLifecycle a(MuxConfig{}, c, kMuxA, {kRouter});
    MuxLifecycle b(MuxConfig{}, c, kMuxB, {kRouter});
    bring_up(a, r, Time::zero());
    bring_up(b, r, Time::zero());
    CHECK(r.next_hops(kVip) == std::vector<NextHop>{kMuxA, kMuxB});
    MuxLifecycleOutput out;
    a.drain(Time::s(1), out);
    REQUIRE(out.bgp.size() == 1);
    CHECK(out.bgp[0].kind == BgpKind::Withdraw);
    a.handle(syn(1), Time::s(1), out);  // still forwards while draining
    CHECK(out.mux.forwards.size() == 1);
    BgpRouterOutput rout;
    to_router(r, out, Time::s(1), rout);
    CHECK(r.next_hops(kVip) == std::vector<NextHop>{kMuxB});
    out.clear();
    a.shutdown(Time::s(2), out);
    REQUIRE(out.bgp.size() == 1);
    CHECK(out.bgp[0].kind == BgpKind::Notification);
    to_router(r, out, Time::s(2), rout);
    CHECK_FALSE(r.session_up(kMuxA));
    CHECK(a.state() == MuxState::Off);
    a.handle(syn(2), Time::s(3), out);
    REQUIRE(out.mux.drops.size() == 1);
    CHECK(out.mux.drops[0].reason == DropReason::MuxDown);
    CHECK(a.lost_packets() == 1);
}

TEST_CASE("A Mux that dies silently black-holes its share until the hold timer, or until fast detection") {
    for (bool fast : {false, true}) {
        BgpConfig c;
        c.fast_detection = fast;
        BgpRouter r(c, EcmpConfig{}, kRouter);
        MuxLifecycle a(MuxConfig{}, c, kMuxA, {kRouter});
        bring_up(a, r, Time::zero());
        MuxLifecycleOutput out;
        BgpRouterOutput rout;
        a.fail_silent(Time::ms(50));
        CHECK(a.state() == MuxState::Silent);
        a.tick(Time::s(20), out);  // no keepalive, no hello
        CHECK(out.bgp.empty());
        a.handle(syn(1), Time::ms(60), out);
        REQUIRE(out.mux.drops.size() == 1);
        CHECK(out.mux.drops[0].reason == DropReason::MuxDown);
        CHECK(out.mux.forwards.empty());
        // Routers still send to it until: 30 s after the Open (hold), or 3 hellos' worth after the Open (fast).
        const Time detect = fast ? Time::ms(300) : Time::s(30);
        CHECK(r.next_deadline() == detect);
        r.tick(detect - Time::ps(1), rout);
        CHECK(r.next_hops(kVip) == std::vector<NextHop>{kMuxA});
        r.tick(detect, rout);
        CHECK(r.next_hops(kVip).empty());
        REQUIRE(rout.down.size() == 1);
        CHECK(rout.down[0].reason == (fast ? SessionEnd::FastDetection : SessionEnd::HoldExpired));
    }
}

TEST_CASE("A recovering Mux starts empty and announces only after its state is installed") {
    const BgpConfig c;
    BgpRouter r(c, EcmpConfig{}, kRouter);
    MuxLifecycle a(MuxConfig{}, c, kMuxA, {kRouter});
    bring_up(a, r, Time::zero());
    MuxLifecycleOutput out;
    a.handle(syn(1), Time::s(1), out);
    CHECK(a.mux().flows().size() == 1);
    a.fail_silent(Time::s(2));
    a.handle(SetEndpoint{1, kWeb, {kDip}, 0}, Time::s(3), out);  // lost: the Mux is dead
    CHECK(a.lost_commands() == 1);
    BgpRouterOutput rout;
    r.tick(Time::s(30), rout);
    CHECK(r.next_hops(kVip).empty());

    out.clear();
    a.boot(Time::s(40), out);
    CHECK(a.boots() == 2);
    CHECK(a.mux().flows().size() == 0);
    REQUIRE(out.bgp.size() == 1);
    CHECK(out.bgp[0].kind == BgpKind::Open);
    to_router(r, out, Time::s(40), rout);
    CHECK(r.session_up(kMuxA));
    CHECK(r.next_hops(kVip).empty());
    // Without its endpoints it could only drop; it stays unannounced while the state arrives.
    a.handle(syn(2), Time::s(41), out);
    CHECK(out.mux.drops.size() == 1);
    a.tick(Time::s(50), out);
    REQUIRE(out.bgp.size() == 1);
    CHECK(out.bgp[0].kind == BgpKind::Keepalive);
    to_router(r, out, Time::s(50), rout);
    a.handle(SetEndpoint{1, kWeb, {kDip}, 0}, Time::s(51), out);
    a.state_installed(Time::s(52), out);
    REQUIRE(out.bgp.size() == 1);
    CHECK(out.bgp[0] == BgpMessage{BgpKind::Update, kMuxA, kRouter, Prefix{kVip, 32}, false});
    to_router(r, out, Time::s(52), rout);
    CHECK(r.next_hops(kVip) == std::vector<NextHop>{kMuxA});
}
