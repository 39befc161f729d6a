#include <catch2/catch.hpp>

#include <vector>

#include "loom/ananta/bgp.hpp"

using namespace loom;
using namespace loom::ananta;

namespace {
const IpAddr kRouter = ip(10, 255, 0, 1);
const IpAddr kMuxA = ip(10, 1, 0, 1);
const IpAddr kMuxB = ip(10, 1, 0, 2);
const IpAddr kMuxC = ip(10, 1, 0, 3);
const Prefix kVip{ip(100, 64, 0, 1), 32};

// Delivers every message to the router at `now` (zero latency: the adapter adds the link's).
void deliver(BgpRouter& r, const std::vector<BgpMessage>& msgs, Time now, BgpRouterOutput& out) {
    for (const BgpMessage& m : msgs) r.handle(m, now, out);
}

// Three Muxes up and announcing kVip at time 0.
BgpRouter three_muxes(const BgpConfig& c, std::vector<BgpSpeaker>& speakers) {
    BgpRouter r(c, EcmpConfig{}, kRouter);
    BgpRouterOutput out;
    for (IpAddr m : {kMuxA, kMuxB, kMuxC}) {
        speakers.emplace_back(c, m, std::vector<IpAddr>{kRouter});
        std::vector<BgpMessage> msgs;
        speakers.back().announce(kVip, Time::zero(), msgs);
        speakers.back().start(Time::zero(), msgs);
        speakers.back().state_installed(Time::zero(), msgs);
        deliver(r, msgs, Time::zero(), out);
    }
    return r;
}
}  // namespace

TEST_CASE("A Mux sends its first keepalive at the keepalive interval, not one picosecond before") {
    BgpConfig c;
    BgpSpeaker s(c, kMuxA, {kRouter});
    std::vector<BgpMessage> out;
    s.start(Time::s(2), out);
    REQUIRE(out.size() == 1);
    CHECK(out[0] == BgpMessage{BgpKind::Open, kMuxA, kRouter, Prefix{}, false});
    out.clear();
    CHECK(s.next_deadline() == Time::s(12));
    s.tick(Time::s(12) - Time::ps(1), out);
    CHECK(out.empty());
    s.tick(Time::s(12), out);
    REQUIRE(out.size() == 1);
    CHECK(out[0].kind == BgpKind::Keepalive);
    CHECK_FALSE(out[0].control);
    CHECK(s.next_deadline() == Time::s(22));
}

TEST_CASE("Keepalives are marked for the control queue when one is configured") {
    BgpConfig c;
    c.control_queue = true;
    BgpSpeaker s(c, kMuxA, {kRouter});
    std::vector<BgpMessage> out;
    s.start(Time::zero(), out);
    s.tick(Time::s(10), out);
    REQUIRE(out.size() == 2);
    CHECK(out[1].kind == BgpKind::Keepalive);
    CHECK(out[1].control);
    CHECK(wire_bytes(out[1]) == 59);
}

TEST_CASE("A router holds a silent Mux until the hold time and drops it exactly at the hold time") {
    BgpConfig c;
    std::vector<BgpSpeaker> sp;
    BgpRouter r = three_muxes(c, sp);
    CHECK(r.next_hops(kVip.addr) == std::vector<NextHop>{kMuxA, kMuxB, kMuxC});
    // Mux B dies silently at 5 s; A and C keep their keepalives (every 10 s; the one at 30 s would itself
    // make the router notice, so the test stops feeding them at 20 s).
    sp[1].go_silent();
    BgpRouterOutput out;
    for (Time t = Time::s(10); t <= Time::s(20); t += Time::s(10)) {
        for (std::size_t i : {std::size_t{0}, std::size_t{2}}) {
            std::vector<BgpMessage> msgs;
            sp[i].tick(t, msgs);
            deliver(r, msgs, t, out);
        }
    }
    r.tick(Time::s(30) - Time::ps(1), out);
    CHECK(out.down.empty());
    CHECK(r.session_up(kMuxB));
    CHECK(r.next_deadline() == Time::s(30));
    r.tick(Time::s(30), out);
    REQUIRE(out.down.size() == 1);
    CHECK(out.down[0].peer == kMuxB);
    CHECK(out.down[0].reason == SessionEnd::HoldExpired);
    CHECK(out.down[0].at == Time::s(30));
    // The ECMP next-hop set after hold expiry: A and C, a third of the flows moved (resilient ECMP).
    CHECK(r.next_hops(kVip.addr) == std::vector<NextHop>{kMuxA, kMuxC});
    REQUIRE(out.changes.size() == 1);
    CHECK(out.changes[0].hops == std::vector<NextHop>{kMuxA, kMuxC});
    CHECK(out.changes[0].share_moved == Approx(1.0 / 3).margin(0.06));
    for (std::uint64_t h = 0; h < 64; ++h) CHECK(r.select(kVip.addr, h) != kMuxB);
}

TEST_CASE("Fast detection drops a silent Mux after the multiplier times the hello interval") {
    BgpConfig c;
    c.fast_detection = true;
    std::vector<BgpSpeaker> sp;
    BgpRouter r = three_muxes(c, sp);
    BgpRouterOutput out;
    // Hellos at 100 ms and 200 ms reach the router from all three; B then goes silent.
    for (Time t : {Time::ms(100), Time::ms(200)}) {
        for (auto& s : sp) {
            std::vector<BgpMessage> msgs;
            s.tick(t, msgs);
            REQUIRE(msgs.size() == 1);
            CHECK(msgs[0].kind == BgpKind::Hello);
            deliver(r, msgs, t, out);
        }
    }
    sp[1].go_silent();
    for (Time t : {Time::ms(300), Time::ms(400)}) {
        for (std::size_t i : {std::size_t{0}, std::size_t{2}}) {
            std::vector<BgpMessage> msgs;
            sp[i].tick(t, msgs);
            deliver(r, msgs, t, out);
        }
    }
    r.tick(Time::ms(500) - Time::ps(1), out);
    CHECK(out.down.empty());
    r.tick(Time::ms(500), out);  // last hello at 200 ms + 3 x 100 ms
    REQUIRE(out.down.size() == 1);
    CHECK(out.down[0].peer == kMuxB);
    CHECK(out.down[0].reason == SessionEnd::FastDetection);
    CHECK(r.next_hops(kVip.addr) == std::vector<NextHop>{kMuxA, kMuxC});
}

TEST_CASE("A graceful shutdown withdraws the VIP first and then closes the session") {
    BgpConfig c;
    std::vector<BgpSpeaker> sp;
    BgpRouter r = three_muxes(c, sp);
    std::vector<BgpMessage> msgs;
    sp[0].shutdown(Time::s(1), msgs);
    REQUIRE(msgs.size() == 2);
    CHECK(msgs[0] == BgpMessage{BgpKind::Withdraw, kMuxA, kRouter, kVip, false});
    CHECK(msgs[1].kind == BgpKind::Notification);
    BgpRouterOutput out;
    r.handle(msgs[0], Time::s(1), out);
    // The ECMP next-hop set after the withdrawal, before the session closes.
    CHECK(r.next_hops(kVip.addr) == std::vector<NextHop>{kMuxB, kMuxC});
    CHECK(r.session_up(kMuxA));
    r.handle(msgs[1], Time::s(1), out);
    CHECK_FALSE(r.session_up(kMuxA));
    REQUIRE(out.down.size() == 1);
    CHECK(out.down[0].reason == SessionEnd::Notification);
    CHECK(out.changes.size() == 1);  // the close changed nothing more
    msgs.clear();
    sp[0].tick(Time::s(100), msgs);
    CHECK(msgs.empty());
}

TEST_CASE("A recovering Mux keeps its session alive but announces only once its state is installed") {
    BgpConfig c;
    BgpRouter r(c, EcmpConfig{}, kRouter);
    BgpSpeaker s(c, kMuxA, {kRouter});
    BgpRouterOutput out;
    std::vector<BgpMessage> msgs;
    s.announce(kVip, Time::zero(), msgs);
    s.start(Time::zero(), msgs);
    s.tick(Time::s(10), msgs);
    deliver(r, msgs, Time::s(10), out);
    CHECK(r.session_up(kMuxA));
    CHECK(r.next_hops(kVip.addr).empty());
    msgs.clear();
    s.state_installed(Time::s(11), msgs);
    REQUIRE(msgs.size() == 1);
    CHECK(msgs[0].kind == BgpKind::Update);
    deliver(r, msgs, Time::s(11), out);
    CHECK(r.next_hops(kVip.addr) == std::vector<NextHop>{kMuxA});
}

TEST_CASE("Routers match the longest announced prefix and keep a subnet route beside a VIP route") {
    BgpConfig c;
    BgpRouter r(c, EcmpConfig{}, kRouter);
    BgpRouterOutput out;
    r.handle(BgpMessage{BgpKind::Open, kMuxA, kRouter, {}, false}, Time::zero(), out);
    r.handle(BgpMessage{BgpKind::Open, kMuxB, kRouter, {}, false}, Time::zero(), out);
    r.handle(BgpMessage{BgpKind::Update, kMuxA, kRouter, Prefix{ip(100, 64, 0, 0), 24}, false}, Time::zero(), out);
    r.handle(BgpMessage{BgpKind::Update, kMuxB, kRouter, kVip, false}, Time::zero(), out);
    CHECK(r.next_hops(ip(100, 64, 0, 7)) == std::vector<NextHop>{kMuxA});
    CHECK(r.next_hops(kVip.addr) == std::vector<NextHop>{kMuxB});
    CHECK(r.next_hops(ip(100, 65, 0, 1)).empty());
    CHECK_FALSE(r.select(ip(100, 65, 0, 1), 1).has_value());
}

TEST_CASE("BGP parameters default to a 30 s hold time and a 300 ms fast detection") {
    const BgpConfig c;
    CHECK(c.hold_time == Time::s(30));
    CHECK(c.fast_interval * c.fast_multiplier == Time::ms(300));
    CHECK_FALSE(c.fast_detection);
    CHECK(bgp_schema().defaults()["hold_time"] == "30s");
}

TEST_CASE("A router closing a session makes the speaker re-open it after connect_retry, with its announcements") {
    BgpConfig c;
    c.connect_retry = Time::s(5);
    BgpSpeaker s(c, kMuxA, {kRouter});
    std::vector<BgpMessage> out;
    s.announce(kVip, Time::zero(), out);
    s.start(Time::zero(), out);
    s.state_installed(Time::zero(), out);
    out.clear();
    s.handle(BgpMessage{BgpKind::Notification, kRouter, kMuxA, Prefix{}, false}, Time::s(1));
    CHECK(s.closed_sessions() == 1);
    CHECK(s.next_deadline() == Time::s(6));
    s.tick(Time::s(6) - Time::ps(1), out);
    CHECK(out.empty());  // the keepalive due at 10 s is not sent to a closed session either
    s.tick(Time::s(6), out);
    REQUIRE(out.size() == 2);
    CHECK(out[0].kind == BgpKind::Open);
    CHECK(out[1] == BgpMessage{BgpKind::Update, kMuxA, kRouter, kVip, false});
    CHECK(s.reopens() == 1);
}

TEST_CASE("A router answers a keepalive on a session it does not have, and a hold expiry, with a Notification") {
    BgpConfig c;
    BgpRouter r(c, EcmpConfig{}, kRouter);
    BgpRouterOutput out;
    r.handle(BgpMessage{BgpKind::Keepalive, kMuxA, kRouter, Prefix{}, false}, Time::s(1), out);
    REQUIRE(out.replies.size() == 1);
    CHECK(out.replies[0] == BgpMessage{BgpKind::Notification, kRouter, kMuxA, Prefix{}, false});
    out.clear();
    r.handle(BgpMessage{BgpKind::Open, kMuxB, kRouter, Prefix{}, false}, Time::s(1), out);
    r.tick(Time::s(31) - Time::ps(1), out);
    CHECK(out.replies.empty());
    r.tick(Time::s(31), out);
    REQUIRE(out.replies.size() == 1);
    CHECK(out.replies[0].to == kMuxB);
}
