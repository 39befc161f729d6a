#include <catch2/catch.hpp>

#include <vector>

#include "loom/ananta/mux.hpp"

using namespace loom;
using namespace loom::ananta;

namespace {
const IpAddr kVip = ip(100, 64, 0, 1);
const IpAddr kClient = ip(203, 0, 113, 5);
const Endpoint kWeb{kVip, IpProto::Tcp, 80};
const WeightedDip kDipA{ip(10, 0, 0, 10), 8080, ip(10, 0, 0, 1), 1};
const WeightedDip kDipB{ip(10, 0, 1, 10), 8080, ip(10, 0, 1, 1), 2};

FiveTuple client_tuple(std::uint16_t port) { return FiveTuple{kClient, kVip, port, 80, IpProto::Tcp}; }

Mux configured_mux(const MuxConfig& config, IpAddr self, Epoch epoch = 1) {
    Mux m(config, self);
    MuxOutput out;
    m.handle(SetEndpoint{epoch, kWeb, {kDipA, kDipB}, 0}, Time::zero(), out);
    REQUIRE(out.rejected.empty());
    return m;
}
}  // namespace

TEST_CASE("Walk-through: a client SYN leaves the Mux IP-in-IP encapsulated toward the chosen DIP") {
    const IpAddr self = ip(10, 1, 0, 1);
    Mux m = configured_mux(MuxConfig{}, self);
    IpPacket syn = make_packet(client_tuple(40000), 0, tcp_flag::kSyn);
    syn.mss = 1460;
    MuxOutput out;
    m.handle(syn, Time::us(5), out);
    REQUIRE(out.forwards.size() == 1);
    CHECK(out.drops.empty());
    const MuxForward& f = out.forwards[0];
    const WeightedDip* dip = m.pick(syn.inner);
    REQUIRE(dip != nullptr);
    // Exact headers: outer Mux -> DIP, inner untouched, 20 bytes more.
    CHECK(f.packet.depth == 1);
    CHECK(f.packet.outer[0].src == self);
    CHECK(f.packet.outer[0].dst == dip->dip);
    CHECK(f.packet.outer[0].ttl == kDefaultTtl);
    CHECK(f.packet.inner == syn.inner);
    CHECK(f.packet.size_bytes == 60);
    CHECK(f.packet.mss == 1460);
    CHECK(f.packet.tcp_flags == tcp_flag::kSyn);
    CHECK(f.target == FlowTarget{dip->dip, 8080, dip->host});
    // Leaves when its core has served it: a small packet takes 1/220000 s.
    CHECK(f.depart == Time::us(5) + Time::ps(4'545'455));
    CHECK_FALSE(f.stateless);
    CHECK(m.flows().class_of(syn.inner) == FlowClass::Untrusted);
    CHECK(m.counters().new_connections == 1);
}

TEST_CASE("The Ananta hash expands the DIP list by weight") {
    AnantaHash h;
    const std::vector<WeightedDip> dips{kDipA, kDipB};
    CHECK(h.build(dips) == std::vector<std::uint32_t>{0, 1, 1});
}

TEST_CASE("Every Mux of a pool picks the same DIP for a connection") {
    MuxConfig config;
    config.hash_seed = 12345;
    std::vector<Mux> pool;
    for (std::uint32_t i = 0; i < 8; ++i) pool.push_back(configured_mux(config, ip(10, 1, 0, 1 + i)));
    int to_b = 0;
    for (std::uint16_t port = 1000; port < 3000; ++port) {
        const FiveTuple t = client_tuple(port);
        const IpAddr first = pool[0].pick(t)->dip;
        for (auto& m : pool) {
            MuxOutput out;
            m.handle(make_packet(t, 0, tcp_flag::kSyn), Time::ms(port), out);
            REQUIRE(out.forwards.size() == 1);
            CHECK(out.forwards[0].target.dip == first);
        }
        to_b += first == kDipB.dip ? 1 : 0;
    }
    // Weight 2 of 3: about two thirds of the connections go to DIP B.
    CHECK(to_b == Approx(2000 * 2 / 3.0).margin(100));
    // Another seed changes some choices (the seed is part of the function).
    MuxConfig other = config;
    other.hash_seed = 54321;
    Mux m2 = configured_mux(other, ip(10, 1, 0, 99));
    int differ = 0;
    for (std::uint16_t port = 1000; port < 1100; ++port)
        differ += m2.pick(client_tuple(port))->dip != pool[0].pick(client_tuple(port))->dip ? 1 : 0;
    CHECK(differ > 0);
}

TEST_CASE("A connection keeps its DIP after the DIP list changes while new SYNs are re-hashed") {
    Mux m = configured_mux(MuxConfig{}, ip(10, 1, 0, 1));
    MuxOutput out;
    const FiveTuple t = client_tuple(40000);
    m.handle(make_packet(t, 0, tcp_flag::kSyn), Time::zero(), out);
    const FlowTarget first = out.forwards[0].target;
    // Only the other DIP remains.
    const WeightedDip other = first.dip == kDipA.dip ? kDipB : kDipA;
    m.handle(SetEndpoint{1, kWeb, {other}, 0}, Time::us(1), out);
    out.clear();
    m.handle(make_packet(t, 100, tcp_flag::kAck), Time::us(2), out);
    REQUIRE(out.forwards.size() == 1);
    CHECK(out.forwards[0].target == first);
    CHECK(m.flows().class_of(t) == FlowClass::Trusted);
    CHECK(m.counters().flow_hits == 1);
    out.clear();
    m.handle(make_packet(t, 0, tcp_flag::kSyn), Time::us(3), out);
    CHECK(out.forwards[0].target.dip == other.dip);
}

TEST_CASE("A non-SYN packet that misses the flow table is a new connection") {
    Mux m = configured_mux(MuxConfig{}, ip(10, 1, 0, 1));
    MuxOutput out;
    const FiveTuple t = client_tuple(40001);
    m.handle(make_packet(t, 100, tcp_flag::kAck), Time::zero(), out);
    REQUIRE(out.forwards.size() == 1);
    CHECK(out.forwards[0].target.dip == m.pick(t)->dip);
    CHECK(m.counters().new_connections == 1);
    CHECK(m.flows().class_of(t) == FlowClass::Untrusted);
}

TEST_CASE("A Mux whose untrusted quota is full forwards by hash alone") {
    MuxConfig config;
    config.untrusted_quota = 1;
    Mux m = configured_mux(config, ip(10, 1, 0, 1));
    MuxOutput out;
    m.handle(make_packet(client_tuple(1), 0, tcp_flag::kSyn), Time::zero(), out);
    m.handle(make_packet(client_tuple(2), 0, tcp_flag::kSyn), Time::us(1), out);
    REQUIRE(out.forwards.size() == 2);
    CHECK_FALSE(out.forwards[0].stateless);
    CHECK(out.forwards[1].stateless);
    CHECK(out.forwards[1].target.dip == m.pick(client_tuple(2))->dip);
    CHECK(m.counters().stateless_fallbacks == 1);
    CHECK_FALSE(m.flows().class_of(client_tuple(2)).has_value());
    // Once the first flow's untrusted entry idles out, state is created again.
    out.clear();
    m.handle(make_packet(client_tuple(3), 0, tcp_flag::kSyn), config.untrusted_idle_timeout, out);
    CHECK_FALSE(out.forwards[0].stateless);
}

TEST_CASE("A command with an older epoch is rejected, reported and changes nothing") {
    Mux m = configured_mux(MuxConfig{}, ip(10, 1, 0, 1), 5);
    MuxOutput out;
    m.handle(RemoveEndpoint{4, kWeb}, Time::s(1), out);
    REQUIRE(out.rejected.size() == 1);
    CHECK(out.rejected[0] == CommandRejected{4, 5});
    CHECK(m.counters().commands_rejected == 1);
    CHECK(m.pick(client_tuple(1)) != nullptr);
    out.clear();
    m.handle(WithdrawVip{5, kVip, true}, Time::s(2), out);  // the same epoch is accepted
    CHECK(out.rejected.empty());
    m.handle(WithdrawVip{6, kVip, false}, Time::s(3), out);
    m.handle(WithdrawVip{5, kVip, true}, Time::s(4), out);
    CHECK(out.rejected.size() == 1);
    CHECK(m.epoch() == 6);
}

TEST_CASE("A withdrawn VIP is black-holed and an unknown destination has no route") {
    Mux m = configured_mux(MuxConfig{}, ip(10, 1, 0, 1));
    MuxOutput out;
    m.handle(WithdrawVip{1, kVip, true}, Time::zero(), out);
    m.handle(make_packet(client_tuple(1), 0, tcp_flag::kSyn), Time::us(1), out);
    FiveTuple stranger = client_tuple(1);
    stranger.dst = ip(100, 64, 0, 9);
    m.handle(make_packet(stranger, 0, tcp_flag::kSyn), Time::us(2), out);
    REQUIRE(out.drops.size() == 2);
    CHECK(out.drops[0].reason == DropReason::BlackHoled);
    CHECK(out.drops[1].reason == DropReason::NoRoute);
    CHECK(m.counters().drops[static_cast<std::size_t>(DropReason::BlackHoled)] == 1);
    CHECK(out.forwards.empty());
}

TEST_CASE("A packet that exceeds the MTU after encapsulation is dropped with or without DF") {
    Mux m = configured_mux(MuxConfig{}, ip(10, 1, 0, 1));
    MuxOutput out;
    IpPacket fits = make_packet(client_tuple(1), 1440, tcp_flag::kAck);  // 1480 + 20 = 1500
    IpPacket big = make_packet(client_tuple(2), 1441, tcp_flag::kAck);   // 1481 + 20 = 1501
    IpPacket big_df = big;
    big_df.df = true;
    m.handle(fits, Time::zero(), out);
    m.handle(big, Time::us(100), out);
    m.handle(big_df, Time::us(200), out);
    CHECK(out.forwards.size() == 1);
    REQUIRE(out.drops.size() == 2);
    CHECK(out.drops[0].reason == DropReason::Mtu);
    CHECK(out.drops[1].reason == DropReason::Mtu);
    CHECK(out.drops[0].packet.size_bytes == 1501);
}

TEST_CASE("SNAT return traffic maps its VIP port to the DIP statelessly") {
    Mux m = configured_mux(MuxConfig{}, ip(10, 1, 0, 1));
    MuxOutput out;
    const FlowTarget owner{kDipA.dip, 0, kDipA.host};
    m.handle(SetSnatRange{1, kVip, IpProto::Tcp, 1024, 8, owner, 0, false}, Time::zero(), out);
    const FiveTuple back{ip(198, 51, 100, 7), kVip, 443, 1027, IpProto::Tcp};
    m.handle(make_packet(back, 0, tcp_flag::kSyn | tcp_flag::kAck), Time::us(1), out);
    REQUIRE(out.forwards.size() == 1);
    CHECK(out.forwards[0].stateless);
    CHECK(out.forwards[0].packet.wire_dst() == kDipA.dip);
    CHECK(out.forwards[0].packet.inner == back);
    CHECK(m.flows().size() == 0);
    FiveTuple outside = back;
    outside.dst_port = 1032;
    m.handle(make_packet(outside, 0, tcp_flag::kAck), Time::us(2), out);
    REQUIRE(out.drops.size() == 1);
    CHECK(out.drops[0].reason == DropReason::NoRoute);
}

TEST_CASE("A Mux core over capacity drops and the next window reports the top talker") {
    MuxConfig config;
    config.cores = 1;
    config.core_queue_packets = 0;
    Mux m = configured_mux(config, ip(10, 1, 0, 1));
    MuxOutput out;
    m.handle(make_packet(client_tuple(1), 0, tcp_flag::kSyn), Time::zero(), out);
    m.handle(make_packet(client_tuple(2), 0, tcp_flag::kSyn), Time::ps(4'545'455) - Time::ps(1), out);
    m.handle(make_packet(client_tuple(3), 0, tcp_flag::kSyn), Time::ps(4'545'455), out);
    CHECK(out.forwards.size() == 2);
    REQUIRE(out.drops.size() == 1);
    CHECK(out.drops[0].reason == DropReason::MuxOverload);
    CHECK(out.drops[0].packet.inner == client_tuple(2));
    out.clear();
    m.tick(config.overload_window, out);
    REQUIRE(out.reports.size() == 1);
    CHECK(out.reports[0].overload_drops == 1);
    CHECK(out.reports[0].top == std::vector<TopTalker>{{kVip, 3}});
}

TEST_CASE("An overloaded Mux drops by tenant weight") {
    MuxConfig config;
    config.cores = 1;
    config.core_pps = 100'000;  // 100 packets per 1 ms fair window
    config.core_bandwidth = Bandwidth::bps(1'000'000'000'000);
    Mux m(config, ip(10, 1, 0, 1));
    MuxOutput out;
    const Endpoint small{ip(100, 64, 0, 2), IpProto::Udp, 53};
    const Endpoint large{ip(100, 64, 0, 3), IpProto::Udp, 53};
    m.handle(SetEndpoint{1, small, {kDipA}, 0}, Time::zero(), out);
    m.handle(SetEndpoint{1, large, {kDipB}, 1}, Time::zero(), out);
    m.handle(SetTenantWeight{1, 0, 1}, Time::zero(), out);
    m.handle(SetTenantWeight{1, 1, 3}, Time::zero(), out);
    std::uint64_t forwarded[2] = {0, 0};
    for (int w = 0; w < 6; ++w) {
        for (int i = 0; i < 400; ++i) {
            const Endpoint& e = i % 2 == 0 ? small : large;
            const FiveTuple t{kClient, e.vip, static_cast<std::uint16_t>(i), 53, IpProto::Udp};
            out.clear();
            m.handle(make_packet(t, 10), Time::ms(w) + Time::ns(2'500) * i, out);
            if (w > 0 && !out.forwards.empty()) ++forwarded[i % 2];
        }
    }
    // After the first window, 25 and 75 of every 100 packets of capacity.
    CHECK(forwarded[0] == 5 * 25);
    CHECK(forwarded[1] == 5 * 75);
    CHECK(m.counters().drops[static_cast<std::size_t>(DropReason::FairShare)] > 0);
}

TEST_CASE("Packets find an endpoint by VIP, protocol and port until it is removed, and again once it is set anew") {
    Mux m = configured_mux(MuxConfig{}, ip(10, 1, 0, 1));
    std::vector<Mux> moved;
    moved.push_back(std::move(m));  // the endpoint index survives a move of the Mux
    Mux& mux = moved.back();
    const Endpoint other{kVip, IpProto::Udp, 80};
    MuxOutput out;
    mux.handle(SetEndpoint{2, other, {kDipB}, 0}, Time::zero(), out);
    CHECK(mux.pick(client_tuple(1000)) != nullptr);
    FiveTuple udp = client_tuple(1000);
    udp.proto = IpProto::Udp;
    REQUIRE(mux.pick(udp) != nullptr);
    CHECK(mux.pick(udp)->dip == kDipB.dip);
    mux.handle(RemoveEndpoint{3, kWeb}, Time::zero(), out);
    CHECK(mux.pick(client_tuple(1000)) == nullptr);
    CHECK(mux.pick(udp) != nullptr);
    mux.handle(make_packet(client_tuple(1001), 0, tcp_flag::kSyn), Time::ms(1), out);
    REQUIRE(out.drops.size() == 1);
    CHECK(out.drops[0].reason == DropReason::NoRoute);
    out.clear();
    mux.handle(SetEndpoint{4, kWeb, {kDipA}, 0}, Time::ms(2), out);
    REQUIRE(mux.pick(client_tuple(1000)) != nullptr);
    CHECK(mux.pick(client_tuple(1000))->dip == kDipA.dip);
    mux.handle(make_packet(client_tuple(1002), 0, tcp_flag::kSyn), Time::ms(3), out);
    REQUIRE(out.forwards.size() == 1);
    CHECK(out.forwards[0].target.dip == kDipA.dip);
}
