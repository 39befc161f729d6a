#include <catch2/catch.hpp>

#include <vector>

#include "loom/ananta/fastpath.hpp"
#include "loom/ananta/host_agent.hpp"
#include "loom/ananta/mux.hpp"

using namespace loom;
using namespace loom::ananta;

namespace {
// Service 1 (VIP1, one VM DIP1 on host 1) opens a connection to service 2 (VIP2:80 -> DIP2:8080 on host 2).
const IpAddr kVip1 = ip(100, 64, 0, 1);
const IpAddr kVip2 = ip(100, 64, 0, 2);
const IpAddr kHost1 = ip(10, 0, 0, 1);
const IpAddr kDip1 = ip(10, 0, 0, 10);
const IpAddr kHost2 = ip(10, 0, 1, 1);
const IpAddr kDip2 = ip(10, 0, 1, 10);
const IpAddr kMuxA = ip(10, 1, 0, 1);
const IpAddr kMuxB = ip(10, 1, 0, 2);
const Endpoint kWeb2{kVip2, IpProto::Tcp, 80};
const std::vector<IpAddr> kAnanta{kMuxA, kMuxB};

// Client side inside VM1, server side inside VM2, and the connection as the network sees it.
const FiveTuple kVm1Out{kDip1, kVip2, 5000, 80, IpProto::Tcp};
const FiveTuple kVm2Out{kDip2, kVip1, 8080, 1024, IpProto::Tcp};
const FiveTuple kWire{kVip1, kVip2, 1024, 80, IpProto::Tcp};

struct World {
    Mux mux_a{MuxConfig{}, kMuxA};  // the connection's forward packets reach A, the return packets B (ECMP)
    Mux mux_b{MuxConfig{}, kMuxB};
    MuxFastpath fp_a{FastpathConfig{}, kMuxA, kAnanta};
    MuxFastpath fp_b{FastpathConfig{}, kMuxB, kAnanta};
    HostAgent host1{HostAgentConfig{}, kHost1};
    HostAgent host2{HostAgentConfig{}, kHost2};

    World() {
        MuxOutput mo;
        for (Mux* m : {&mux_a, &mux_b}) {
            m->handle(SetEndpoint{1, kWeb2, {WeightedDip{kDip2, 8080, kHost2, 1}}, 0}, Time::zero(), mo);
            m->handle(SetSnatRange{1, kVip1, IpProto::Tcp, 1024, 8, FlowTarget{kDip1, 0, kHost1}, 0, false},
                      Time::zero(), mo);
        }
        for (MuxFastpath* f : {&fp_a, &fp_b}) {
            f->set_enabled(kVip1, true);
            f->set_enabled(kVip2, true);
        }
        HostOutput ho;
        host1.handle(AddVm{1, kDip1}, Time::zero(), ho);
        host1.handle(SetSnatVip{1, kDip1, kVip1}, Time::zero(), ho);
        host1.handle(SnatGrant{1, kDip1, kVip1, 1024, 8}, Time::zero(), ho);
        host2.handle(AddVm{1, kDip2}, Time::zero(), ho);
        host2.handle(SetNatRule{1, kWeb2, kDip2, 8080, false}, Time::zero(), ho);
        host1.set_ananta_addresses(kAnanta);
        host2.set_ananta_addresses(kAnanta);
    }

    // VM1 -> host 1 -> Mux A (-> its Fastpath half) -> host 2 -> VM2. Returns what VM2 got.
    IpPacket forward(std::uint8_t flags, std::uint32_t payload, Time now, std::vector<FastpathRedirect>& redirects) {
        HostOutput h1;
        host1.from_vm(make_packet(kVm1Out, payload, flags), now, h1);
        REQUIRE(h1.to_router.size() == 1);
        CHECK(h1.to_router[0].inner == kWire);
        CHECK_FALSE(h1.to_router[0].encapsulated());
        MuxOutput mo;
        mux_a.handle(h1.to_router[0], now, mo);
        REQUIRE(mo.forwards.size() == 1);
        fp_a.observe(h1.to_router[0], mo.forwards[0].target, now, redirects);
        HostOutput h2;
        host2.from_network(mo.forwards[0].packet, now, h2);
        REQUIRE(h2.to_vm.size() == 1);
        return h2.to_vm[0].packet;
    }
    // VM2 -> host 2 (direct server return) -> Mux B (SNAT mapping) -> host 1 -> VM1.
    IpPacket reverse(std::uint8_t flags, Time now) {
        HostOutput h2;
        host2.from_vm(make_packet(kVm2Out, 0, flags), now, h2);
        REQUIRE(h2.to_router.size() == 1);
        CHECK(h2.to_router[0].inner == kWire.reversed());
        MuxOutput mo;
        mux_b.handle(h2.to_router[0], now, mo);
        REQUIRE(mo.forwards.size() == 1);
        HostOutput h1;
        host1.from_network(mo.forwards[0].packet, now, h1);
        REQUIRE(h1.to_vm.size() == 1);
        return h1.to_vm[0].packet;
    }
};
}  // namespace

TEST_CASE("Walk-through: Fastpath redirects a VIP-to-VIP connection after its handshake and it goes host to host") {
    World w;
    std::vector<FastpathRedirect> stage1;
    // Handshake through the Muxes; no redirect until the client's ACK completes it.
    CHECK(w.forward(tcp_flag::kSyn, 0, Time::us(1), stage1).inner == FiveTuple{kVip1, kDip2, 1024, 8080, IpProto::Tcp});
    CHECK(stage1.empty());
    CHECK(w.fp_a.pending() == 1);
    CHECK(w.reverse(tcp_flag::kSyn | tcp_flag::kAck, Time::us(2)).inner ==
          FiveTuple{kVip2, kDip1, 80, 5000, IpProto::Tcp});
    w.forward(tcp_flag::kAck, 0, Time::us(3), stage1);
    // Stage 1: the destination VIP's Mux redirects toward the source VIP, naming the DIP it chose.
    REQUIRE(stage1.size() == 1);
    CHECK(stage1[0] == FastpathRedirect{kMuxA, kVip1, kWire, FlowTarget{}, FlowTarget{kDip2, 8080, kHost2}});
    CHECK(w.fp_a.pending() == 0);
    // Stage 2: a Mux of VIP1 (ECMP picked B) resolves port 1024 to DIP1 and redirects both hosts.
    std::vector<FastpathRedirect> stage2;
    w.fp_b.handle(stage1[0], w.mux_b, Time::us(4), stage2);
    REQUIRE(stage2.size() == 2);
    const FlowTarget src{kDip1, 0, kHost1};
    const FlowTarget dst{kDip2, 8080, kHost2};
    CHECK(stage2[0] == FastpathRedirect{kMuxB, kHost1, kWire, src, dst});
    CHECK(stage2[1] == FastpathRedirect{kMuxB, kHost2, kWire, src, dst});
    CHECK(w.host1.handle_redirect(stage2[0], Time::us(5)));
    CHECK(w.host2.handle_redirect(stage2[1], Time::us(5)));

    const std::uint64_t mux_a_before = w.mux_a.counters().received;
    const std::uint64_t mux_b_before = w.mux_b.counters().received;
    // Data VM1 -> VM2 now leaves host 1 wrapped host 1 -> DIP2 with the VIP-to-VIP tuple inside.
    HostOutput h1;
    w.host1.from_vm(make_packet(kVm1Out, 100, tcp_flag::kAck | tcp_flag::kPsh), Time::us(6), h1);
    REQUIRE(h1.to_router.size() == 1);
    const IpPacket& p = h1.to_router[0];
    CHECK(p.depth == 1);
    CHECK(p.outer[0] == OuterHeader{kHost1, kDip2, kDefaultTtl});
    CHECK(p.inner == kWire);
    CHECK(p.size_bytes == 20 + 20 + 20 + 100);
    CHECK(p.wire_dst() == kDip2);
    HostOutput h2;
    w.host2.from_network(p, Time::us(7), h2);
    REQUIRE(h2.to_vm.size() == 1);
    CHECK(h2.to_vm[0].packet.inner == FiveTuple{kVip1, kDip2, 1024, 8080, IpProto::Tcp});
    CHECK_FALSE(h2.to_vm[0].packet.encapsulated());
    CHECK(h2.to_vm[0].packet.size_bytes == 140);
    // And back: host 2 -> DIP1, no Mux and no router-bound DSR.
    h2.clear();
    w.host2.from_vm(make_packet(kVm2Out, 50, tcp_flag::kAck), Time::us(8), h2);
    REQUIRE(h2.to_router.size() == 1);
    const IpPacket& q = h2.to_router[0];
    CHECK(q.outer[0] == OuterHeader{kHost2, kDip1, kDefaultTtl});
    CHECK(q.inner == kWire.reversed());
    CHECK(q.size_bytes == 20 + 20 + 20 + 50);
    h1.clear();
    w.host1.from_network(q, Time::us(9), h1);
    REQUIRE(h1.to_vm.size() == 1);
    CHECK(h1.to_vm[0].packet.inner == FiveTuple{kVip2, kDip1, 80, 5000, IpProto::Tcp});
    CHECK(w.mux_a.counters().received == mux_a_before);
    CHECK(w.mux_b.counters().received == mux_b_before);
    CHECK(w.host1.counters().fastpath_sent == 1);
    CHECK(w.host2.counters().fastpath_sent == 1);
}

TEST_CASE("A spoofed Fastpath redirect is refused and the connection keeps going through the Muxes") {
    World w;
    const FastpathRedirect spoofed{ip(10, 0, 0, 99), kHost1, kWire, FlowTarget{kDip1, 0, kHost1},
                                   FlowTarget{ip(10, 9, 9, 9), 80, ip(10, 9, 9, 1)}};
    CHECK_FALSE(w.host1.handle_redirect(spoofed, Time::us(1)));
    CHECK(w.host1.counters().redirects_refused == 1);
    // From an Ananta address but naming neither end on this host: refused too.
    FastpathRedirect elsewhere = spoofed;
    elsewhere.from = kMuxA;
    elsewhere.source.host = ip(10, 0, 7, 1);
    CHECK_FALSE(w.host1.handle_redirect(elsewhere, Time::us(1)));
    // A spoofed stage-1 redirect reaching a Mux is refused as well.
    std::vector<FastpathRedirect> out;
    w.fp_b.handle(FastpathRedirect{ip(10, 0, 0, 99), kVip1, kWire, {}, FlowTarget{kDip2, 8080, kHost2}}, w.mux_b,
                  Time::us(1), out);
    CHECK(out.empty());
    CHECK(w.fp_b.counters().refused == 1);
    std::vector<FastpathRedirect> stage1;
    w.forward(tcp_flag::kSyn, 0, Time::us(2), stage1);
    HostOutput h1;
    w.host1.from_vm(make_packet(kVm1Out, 10, tcp_flag::kAck), Time::us(3), h1);
    REQUIRE(h1.to_router.size() == 1);
    CHECK_FALSE(h1.to_router[0].encapsulated());
    CHECK(w.host1.counters().fastpath_sent == 0);
}

TEST_CASE("Fastpath off for either VIP sends no redirect") {
    World w;
    w.fp_a.set_enabled(kVip1, false);
    std::vector<FastpathRedirect> stage1;
    w.forward(tcp_flag::kSyn, 0, Time::us(1), stage1);
    w.reverse(tcp_flag::kSyn | tcp_flag::kAck, Time::us(2));
    w.forward(tcp_flag::kAck, 0, Time::us(3), stage1);
    CHECK(stage1.empty());
    CHECK(w.fp_a.pending() == 0);
}

TEST_CASE("A handshake that completes after the handshake timeout is not redirected") {
    World w;
    std::vector<FastpathRedirect> stage1;
    w.forward(tcp_flag::kSyn, 0, Time::zero(), stage1);
    w.forward(tcp_flag::kAck, 0, Time::s(10), stage1);
    CHECK(stage1.empty());
}

TEST_CASE("A Mux forgets handshakes that never complete once the handshake timeout has passed") {
    std::vector<FastpathRedirect> out;
    FastpathConfig c;
    c.handshake_timeout = Time::s(1);
    MuxFastpath fp{c, kMuxA, kAnanta};
    fp.set_enabled(kVip1, true);
    fp.set_enabled(kVip2, true);
    const FlowTarget target{kDip2, 8080, kHost2};
    IpPacket syn = make_packet(kWire, 0, tcp_flag::kSyn);
    fp.observe(syn, target, Time::zero(), out);
    CHECK(fp.pending() == 1);
    // Another connection's SYN a timeout later sweeps the first one away.
    syn.inner.src_port = 1025;
    fp.observe(syn, target, Time::s(1), out);
    CHECK(fp.pending() == 1);
    CHECK(out.empty());
}
