#include <catch2/catch.hpp>

#include "loom/ananta/ip_packet.hpp"

using namespace loom::ananta;

namespace {
const FiveTuple kTuple{ip(203, 0, 113, 5), ip(100, 64, 0, 1), 40000, 80, IpProto::Tcp};
}

TEST_CASE("A TCP packet is sized with its IP and TCP headers and a UDP one with its UDP header") {
    CHECK(make_packet(kTuple, 0, tcp_flag::kSyn).size_bytes == 40);
    CHECK(make_packet(kTuple, 1440).size_bytes == 1480);
    FiveTuple udp = kTuple;
    udp.proto = IpProto::Udp;
    CHECK(make_packet(udp, 100).size_bytes == 128);
    CHECK(make_packet(kTuple, 0, tcp_flag::kSyn).is_syn());
    CHECK_FALSE(make_packet(kTuple, 0, tcp_flag::kAck).is_syn());
}

TEST_CASE("IP-in-IP adds a 20-byte outer header that decapsulation removes exactly") {
    const IpPacket p = make_packet(kTuple, 100, tcp_flag::kAck);
    IpPacket q = p;
    q.encapsulate(ip(10, 1, 0, 1), ip(10, 0, 0, 10));
    CHECK(q.size_bytes == p.size_bytes + 20);
    CHECK(q.depth == 1);
    CHECK(q.wire_src() == ip(10, 1, 0, 1));
    CHECK(q.wire_dst() == ip(10, 0, 0, 10));
    CHECK(q.inner == p.inner);
    q.encapsulate(ip(1, 1, 1, 1), ip(2, 2, 2, 2));
    CHECK(q.size_bytes == p.size_bytes + 40);
    CHECK(q.wire_dst() == ip(2, 2, 2, 2));
    q.decapsulate();
    CHECK(q.wire_dst() == ip(10, 0, 0, 10));
    q.decapsulate();
    CHECK(q == p);
    CHECK(q.wire_dst() == kTuple.dst);
}

TEST_CASE("A packet over the MTU is dropped with or without DF and one at the MTU passes") {
    IpPacket p = make_packet(kTuple, 1460);  // 1500 bytes
    CHECK(check_mtu(p, 1500) == MtuVerdict::Fits);
    p.encapsulate(ip(10, 1, 0, 1), ip(10, 0, 0, 10));  // 1520
    CHECK(check_mtu(p, 1500) == MtuVerdict::DropNoFragmentation);
    p.df = true;
    CHECK(check_mtu(p, 1500) == MtuVerdict::DropDf);
    CHECK(check_mtu(p, 1520) == MtuVerdict::Fits);
}

TEST_CASE("TTL decrements on the outermost header and expires at zero") {
    IpPacket p = make_packet(kTuple, 0);
    p.ttl = 2;
    CHECK(p.decrement_ttl());
    CHECK(p.ttl == 1);
    CHECK_FALSE(p.decrement_ttl());
    IpPacket q = make_packet(kTuple, 0);
    q.encapsulate(1, 2);
    CHECK(q.decrement_ttl());
    CHECK(q.outer[0].ttl == kDefaultTtl - 1);
    CHECK(q.ttl == kDefaultTtl);
}

TEST_CASE("The tuple hash depends on the seed and on the direction") {
    CHECK(tuple_hash(kTuple, 1) == tuple_hash(kTuple, 1));
    CHECK(tuple_hash(kTuple, 1) != tuple_hash(kTuple, 2));
    CHECK(tuple_hash(kTuple, 1) != tuple_hash(kTuple.reversed(), 1));
    CHECK(kTuple.reversed().reversed() == kTuple);
}
