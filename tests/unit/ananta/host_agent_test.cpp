#include <catch2/catch.hpp>

#include "loom/ananta/host_agent.hpp"
#include "loom/ananta/mux.hpp"
#include "loom/ananta/snat_port_source.hpp"

using namespace loom;
using namespace loom::ananta;

namespace {
const IpAddr kVip = ip(100, 64, 0, 1);
const IpAddr kClient = ip(203, 0, 113, 5);
const IpAddr kRemote = ip(198, 51, 100, 7);
const IpAddr kHost = ip(10, 0, 0, 1);
const IpAddr kDip = ip(10, 0, 0, 10);
const IpAddr kMux = ip(10, 1, 0, 1);
const Endpoint kWeb{kVip, IpProto::Tcp, 80};

HostAgent configured_agent(Epoch epoch = 1) {
    HostAgent h(HostAgentConfig{}, kHost);
    HostOutput out;
    h.handle(AddVm{epoch, kDip}, Time::zero(), out);
    h.handle(SetNatRule{epoch, kWeb, kDip, 8080, false}, Time::zero(), out);
    h.handle(SetSnatVip{epoch, kDip, kVip}, Time::zero(), out);
    REQUIRE(out.rejected.empty());
    return h;
}

IpPacket from_mux(const FiveTuple& t, std::uint8_t flags, std::uint32_t payload = 0) {
    IpPacket p = make_packet(t, payload, flags);
    p.encapsulate(kMux, kDip);
    return p;
}
}  // namespace

TEST_CASE("Walk-through: the Host Agent decapsulates, NATs to the DIP and clamps the MSS") {
    HostAgent h = configured_agent();
    const FiveTuple t{kClient, kVip, 40000, 80, IpProto::Tcp};
    IpPacket syn = from_mux(t, tcp_flag::kSyn);
    syn.mss = 1460;
    HostOutput out;
    h.from_network(syn, Time::us(10), out);
    REQUIRE(out.to_vm.size() == 1);
    const IpPacket& got = out.to_vm[0].packet;
    CHECK(out.to_vm[0].dip == kDip);
    CHECK(got.depth == 0);
    CHECK(got.inner == FiveTuple{kClient, kDip, 40000, 8080, IpProto::Tcp});
    CHECK(got.size_bytes == 40);
    CHECK(got.mss == 1440);
    CHECK(got.tcp_flags == tcp_flag::kSyn);
    CHECK(h.counters().mss_clamped == 1);
    CHECK(h.bindings() == 1);
}

TEST_CASE("Walk-through: the reply is reverse-NATed and sent by DSR to the router with the VIP as source") {
    HostAgent h = configured_agent();
    const FiveTuple t{kClient, kVip, 40000, 80, IpProto::Tcp};
    HostOutput out;
    h.from_network(from_mux(t, tcp_flag::kSyn), Time::us(10), out);
    IpPacket synack = make_packet(FiveTuple{kDip, kClient, 8080, 40000, IpProto::Tcp}, 0,
                                  tcp_flag::kSyn | tcp_flag::kAck);
    synack.mss = 1460;
    out.clear();
    h.from_vm(synack, Time::us(20), out);
    REQUIRE(out.to_router.size() == 1);
    const IpPacket& r = out.to_router[0];
    CHECK(r.inner == FiveTuple{kVip, kClient, 80, 40000, IpProto::Tcp});
    CHECK(r.depth == 0);  // not encapsulated: straight to the router, never to a Mux
    CHECK(r.wire_dst() == kClient);
    CHECK(r.wire_src() == kVip);
    CHECK(r.mss == 1440);
    CHECK(r.size_bytes == 40);
    // Later packets of the connection use the binding both ways.
    out.clear();
    h.from_network(from_mux(t, tcp_flag::kAck, 100), Time::us(30), out);
    REQUIRE(out.to_vm.size() == 1);
    CHECK(out.to_vm[0].packet.inner.dst_port == 8080);
    CHECK(out.to_vm[0].packet.size_bytes == 140);
}

TEST_CASE("A mid-connection packet without a flow is a wrong-DIP drop and an unknown VM has no route") {
    HostAgent h = configured_agent();
    HostOutput out;
    h.from_network(from_mux(FiveTuple{kClient, kVip, 40000, 80, IpProto::Tcp}, tcp_flag::kAck, 100), Time::zero(), out);
    IpPacket elsewhere = make_packet(FiveTuple{kClient, kVip, 40001, 80, IpProto::Tcp}, 0, tcp_flag::kSyn);
    elsewhere.encapsulate(kMux, ip(10, 0, 0, 11));
    h.from_network(elsewhere, Time::zero(), out);
    REQUIRE(out.drops.size() == 2);
    CHECK(out.drops[0].reason == DropReason::NoFlow);
    CHECK(out.drops[1].reason == DropReason::NoRoute);
    CHECK(out.to_vm.empty());
}

TEST_CASE("NAT state is live at its idle timeout minus 1 ps and gone at the timeout") {
    HostAgent h = configured_agent();
    HostOutput out;
    const FiveTuple a{kClient, kVip, 40000, 80, IpProto::Tcp};
    const FiveTuple b{kClient, kVip, 40001, 80, IpProto::Tcp};
    h.from_network(from_mux(a, tcp_flag::kSyn), Time::zero(), out);
    h.from_network(from_mux(b, tcp_flag::kSyn), Time::zero(), out);
    out.clear();
    const Time timeout = HostAgentConfig{}.flow_idle_timeout;
    h.from_network(from_mux(a, tcp_flag::kAck, 10), timeout - Time::ps(1), out);
    h.from_network(from_mux(b, tcp_flag::kAck, 10), timeout, out);
    CHECK(out.to_vm.size() == 1);
    REQUIRE(out.drops.size() == 1);
    CHECK(out.drops[0].reason == DropReason::NoFlow);
    h.expire(timeout * 3);
    CHECK(h.bindings() == 0);
}

TEST_CASE("SNAT holds the first packets, asks once per DIP, then rewrites to the VIP and reuses ports") {
    HostAgent h = configured_agent();
    HostOutput out;
    const FiveTuple c1{kDip, kRemote, 5000, 443, IpProto::Tcp};
    const FiveTuple c2{kDip, kRemote, 5001, 443, IpProto::Tcp};
    h.from_vm(make_packet(c1, 0, tcp_flag::kSyn), Time::zero(), out);
    h.from_vm(make_packet(c2, 0, tcp_flag::kSyn), Time::us(1), out);
    CHECK(out.to_router.empty());
    REQUIRE(out.snat_requests.size() == 1);
    CHECK(out.snat_requests[0] == SnatRequest{kDip, kVip});
    CHECK(h.held(kDip) == 2);
    CHECK(h.request_outstanding(kDip));

    StaticPortSource source(1024, 2047, 8, 1);
    const auto grant = source.allocate(kDip, kVip, Time::us(5));
    REQUIRE(grant.has_value());
    CHECK(*grant == SnatGrant{1, kDip, kVip, 1024, 8});
    out.clear();
    h.handle(HostCommand{*grant}, Time::us(5), out);
    REQUIRE(out.to_router.size() == 2);
    CHECK(out.to_router[0].inner == FiveTuple{kVip, kRemote, 1024, 443, IpProto::Tcp});
    CHECK(out.to_router[1].inner == FiveTuple{kVip, kRemote, 1025, 443, IpProto::Tcp});
    CHECK(h.held(kDip) == 0);
    CHECK_FALSE(h.request_outstanding(kDip));

    // A connection to another remote end reuses port 1024: the 5-tuple stays unique.
    out.clear();
    const FiveTuple c3{kDip, ip(198, 51, 100, 8), 5002, 443, IpProto::Tcp};
    h.from_vm(make_packet(c3, 0, tcp_flag::kSyn), Time::us(6), out);
    REQUIRE(out.to_router.size() == 1);
    CHECK(out.to_router[0].inner.src_port == 1024);

    // Return traffic through a Mux's stateless mapping reaches the VM's own port.
    Mux mux(MuxConfig{}, kMux);
    MuxOutput mout;
    mux.handle(SetSnatRange{0, kVip, IpProto::Tcp, grant->first, grant->count, FlowTarget{kDip, 0, kHost}, 0, false},
               Time::zero(), mout);
    mux.handle(make_packet(FiveTuple{kRemote, kVip, 443, 1025, IpProto::Tcp}, 0, tcp_flag::kSyn | tcp_flag::kAck),
               Time::us(7), mout);
    REQUIRE(mout.forwards.size() == 1);
    out.clear();
    h.from_network(mout.forwards[0].packet, Time::us(8), out);
    REQUIRE(out.to_vm.size() == 1);
    CHECK(out.to_vm[0].packet.inner == c2.reversed());
}

TEST_CASE("The static port source hands out aligned ranges of eight and reuses released ones") {
    StaticPortSource s(1024, 1047);
    CHECK(s.allocate(1, kVip, Time::zero())->first == 1024);
    const auto second = s.allocate(2, kVip, Time::zero());
    CHECK(second->first == 1032);
    CHECK(s.allocate(3, kVip, Time::zero())->first == 1040);
    CHECK_FALSE(s.allocate(4, kVip, Time::zero()).has_value());
    CHECK(s.allocate(4, ip(100, 64, 0, 2), Time::zero())->first == 1024);  // another VIP's space
    s.release(*second);
    CHECK(s.allocate(5, kVip, Time::zero())->first == 1032);
}

TEST_CASE("A Host Agent rejects and reports a command with an older epoch") {
    HostAgent h = configured_agent(7);
    HostOutput out;
    h.handle(SetNatRule{6, kWeb, kDip, 8080, true}, Time::s(1), out);
    REQUIRE(out.rejected.size() == 1);
    CHECK(out.rejected[0] == CommandRejected{6, 7});
    CHECK(h.counters().commands_rejected == 1);
    // The rule is still there.
    out.clear();
    h.from_network(from_mux(FiveTuple{kClient, kVip, 1, 80, IpProto::Tcp}, tcp_flag::kSyn), Time::s(2), out);
    CHECK(out.to_vm.size() == 1);
}

TEST_CASE("A delivery names its binding and carries the server slot remembered in it, reset by a new binding") {
    HostAgent h = configured_agent();
    const FiveTuple t{kClient, kVip, 40000, 80, IpProto::Tcp};
    HostOutput out;
    h.from_network(from_mux(t, tcp_flag::kSyn), Time::us(10), out);
    REQUIRE(out.to_vm.size() == 1);
    const std::uint32_t binding = out.to_vm[0].binding;
    CHECK(binding != HostDelivery::kNoBinding);
    CHECK(out.to_vm[0].server_hint == HostDelivery::kNoServerHint);
    h.set_server_hint(binding, 7);
    h.set_server_hint(binding + 100, 3);  // not a binding: ignored
    out.clear();
    h.from_network(from_mux(t, tcp_flag::kAck, 100), Time::us(20), out);
    REQUIRE(out.to_vm.size() == 1);
    CHECK(out.to_vm[0].binding == binding);
    CHECK(out.to_vm[0].server_hint == 7);
    // Slots beyond 16 bits are not remembered.
    h.set_server_hint(binding, 0x1'0000);
    out.clear();
    h.from_network(from_mux(t, tcp_flag::kAck, 100), Time::us(30), out);
    REQUIRE(out.to_vm.size() == 1);
    CHECK(out.to_vm[0].server_hint == HostDelivery::kNoServerHint);
    // After the idle timeout the binding is made anew, without the old hint.
    h.set_server_hint(binding, 5);
    out.clear();
    h.from_network(from_mux(t, tcp_flag::kSyn), Time::us(30) + HostAgentConfig{}.flow_idle_timeout, out);
    REQUIRE(out.to_vm.size() == 1);
    CHECK(out.to_vm[0].server_hint == HostDelivery::kNoServerHint);
}

TEST_CASE("The VM's reply reuses the binding its index names and, once idle too long, is not NATed by it") {
    HostAgent h = configured_agent();
    const FiveTuple t{kClient, kVip, 40000, 80, IpProto::Tcp};
    HostOutput out;
    h.from_network(from_mux(t, tcp_flag::kSyn), Time::us(10), out);
    const IpPacket synack = make_packet(FiveTuple{kDip, kClient, 8080, 40000, IpProto::Tcp}, 0,
                                        tcp_flag::kSyn | tcp_flag::kAck);
    out.clear();
    h.from_vm(synack, Time::us(10) + HostAgentConfig{}.flow_idle_timeout - Time::ps(1), out);
    REQUIRE(out.to_router.size() == 1);
    CHECK(out.to_router[0].inner == FiveTuple{kVip, kClient, 80, 40000, IpProto::Tcp});
    CHECK(h.bindings() == 1);
    // Idle from the reply's time on: expired, removed, and the reply goes the SNAT way (held for ports here).
    out.clear();
    h.from_vm(synack, Time::us(10) + HostAgentConfig{}.flow_idle_timeout * 2, out);
    CHECK(out.to_router.empty());
    CHECK(h.bindings() == 0);
    CHECK(out.snat_requests.size() == 1);
}
