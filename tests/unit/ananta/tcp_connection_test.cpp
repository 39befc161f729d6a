#include <catch2/catch.hpp>

#include "loom/ananta/tcp_connection.hpp"

using namespace loom;
using namespace loom::ananta;

namespace {
const FiveTuple kTuple{ip(203, 0, 113, 5), ip(100, 64, 0, 1), 40000, 80, IpProto::Tcp};

// 1440-byte segments at 11.52 Mbps: exactly one segment per millisecond.
TcpConfig paced() {
    TcpConfig c;
    c.segment_bytes = 1440;
    c.data_rate = Bandwidth::bps(11'520'000);
    return c;
}
}  // namespace

TEST_CASE("A SYN without answer is resent at T not T-1 with doubling timeouts and fails after the retries") {
    TcpConfig config;
    config.max_retries = 3;
    TcpConnection c = TcpConnection::client(config, 1, kTuple, 1000);
    TcpOutput out;
    c.open(Time::zero(), out);
    REQUIRE(out.send.size() == 1);
    CHECK(out.send[0].tcp_flags == tcp_flag::kSyn);
    CHECK(out.send[0].mss == 1460);
    // Resends at 1 s, 3 s, 7 s (timeouts 1, 2, 4 s); failure when the 8 s timeout expires at 15 s.
    for (const Time t : {Time::s(1), Time::s(3), Time::s(7)}) {
        CHECK(c.next_timer() == t);
        out.clear();
        c.on_timer(t - Time::ps(1), out);
        CHECK(out.send.empty());
        c.on_timer(t, out);
        REQUIRE(out.send.size() == 1);
        CHECK(out.send[0].tcp_flags == tcp_flag::kSyn);
    }
    CHECK(c.next_timer() == Time::s(15));
    c.on_timer(Time::s(15) - Time::ps(1), out);
    CHECK(c.state() == TcpState::SynSent);
    c.on_timer(Time::s(15), out);
    CHECK(c.state() == TcpState::Failed);
    CHECK(c.record().outcome == ConnectionOutcome::Failed);
    CHECK(c.record().finished == Time::s(15));
    CHECK(c.record().retransmissions == 3);
    CHECK(c.next_timer() == kNever);
}

TEST_CASE("The backed-off timeout is capped at max_rto") {
    TcpConfig config;
    config.max_rto = Time::s(4);
    TcpConnection c = TcpConnection::client(config, 1, kTuple, 0);
    TcpOutput out;
    c.open(Time::zero(), out);
    Time t = Time::zero();
    std::vector<Time> resends;
    for (int i = 0; i < 5; ++i) {
        t = c.next_timer();
        c.on_timer(t, out);
        resends.push_back(t);
    }
    CHECK(resends == std::vector<Time>{Time::s(1), Time::s(3), Time::s(7), Time::s(11), Time::s(15)});
}

TEST_CASE("A connection completes handshake, paced data with cumulative ACKs and FIN") {
    const TcpConfig config = paced();
    TcpConnection client = TcpConnection::client(config, 9, kTuple, 3 * 1440 + 100);
    TcpConnection server = TcpConnection::server(config, 9, kTuple);
    TcpOutput c_out, s_out;
    client.open(Time::zero(), c_out);
    server.receive(c_out.send[0], Time::us(50), s_out);
    REQUIRE(s_out.send.size() == 1);
    CHECK(s_out.send[0].tcp_flags == (tcp_flag::kSyn | tcp_flag::kAck));
    CHECK(s_out.send[0].inner == kTuple.reversed());
    c_out.clear();
    client.receive(s_out.send[0], Time::us(100), c_out);
    CHECK(client.state() == TcpState::Established);
    CHECK(client.record().setup_latency() == Time::us(100));
    CHECK(client.total_segments() == 4);
    // The ACK and segment 0 leave at once; segments 1..3 at 1, 2, 3 ms after establishment.
    REQUIRE(c_out.send.size() == 2);
    CHECK(c_out.send[0].tcp_flags == tcp_flag::kAck);
    CHECK(c_out.send[1].seq == 0);
    CHECK(c_out.send[1].payload_bytes == 1440);
    CHECK(client.next_timer() == Time::us(1100));
    std::vector<IpPacket> wire = c_out.send;
    for (int k = 1; k <= 3; ++k) {
        const Time t = Time::us(100) + Time::ms(k);
        c_out.clear();
        client.on_timer(t - Time::ps(1), c_out);
        CHECK(c_out.send.empty());
        client.on_timer(t, c_out);
        REQUIRE(c_out.send.size() == 1);
        CHECK(c_out.send[0].seq == static_cast<std::uint32_t>(k));
        wire.push_back(c_out.send[0]);
    }
    CHECK(wire.back().payload_bytes == 100);
    // The server ACKs every segment cumulatively.
    s_out.clear();
    for (const IpPacket& p : wire) server.receive(p, Time::ms(5), s_out);
    CHECK(server.state() == TcpState::Established);
    REQUIRE(s_out.send.size() == 4);
    for (std::uint32_t k = 0; k < 4; ++k) CHECK(s_out.send[k].ack == k + 1);
    c_out.clear();
    for (const IpPacket& a : s_out.send) client.receive(a, Time::ms(6), c_out);
    REQUIRE(c_out.send.size() == 1);
    CHECK(c_out.send[0].has(tcp_flag::kFin));
    CHECK(client.state() == TcpState::FinWait);
    CHECK(client.record().bytes_delivered == 3 * 1440 + 100);
    s_out.clear();
    server.receive(c_out.send[0], Time::ms(7), s_out);
    CHECK(server.state() == TcpState::Done);
    CHECK(server.record().bytes_delivered == 3 * 1440 + 100);
    c_out.clear();
    client.receive(s_out.send[0], Time::ms(8), c_out);
    CHECK(client.state() == TcpState::Done);
    CHECK(client.record().outcome == ConnectionOutcome::Completed);
    CHECK(client.record().finished == Time::ms(8));
    CHECK(client.record().retransmissions == 0);
}

TEST_CASE("A lost segment is resent at its timeout and the cumulative ACK then covers the gap") {
    const TcpConfig config = paced();
    TcpConnection client = TcpConnection::client(config, 1, kTuple, 3 * 1440);
    TcpConnection server = TcpConnection::server(config, 1, kTuple);
    TcpOutput c_out, s_out;
    client.open(Time::zero(), c_out);
    server.receive(c_out.send[0], Time::zero(), s_out);
    c_out.clear();
    client.receive(s_out.send[0], Time::zero(), c_out);
    server.receive(c_out.send[0], Time::zero(), s_out);  // the ACK
    const IpPacket seg0 = c_out.send[1];
    c_out.clear();
    client.on_timer(Time::ms(1), c_out);  // segment 1: lost
    client.on_timer(Time::ms(2), c_out);  // segment 2
    REQUIRE(c_out.send.size() == 2);
    s_out.clear();
    server.receive(seg0, Time::ms(2), s_out);
    server.receive(c_out.send[1], Time::ms(2), s_out);
    REQUIRE(s_out.send.size() == 2);
    CHECK(s_out.send[0].ack == 1);
    CHECK(s_out.send[1].ack == 1);  // duplicate: segment 1 is missing
    c_out.clear();
    for (const IpPacket& a : s_out.send) client.receive(a, Time::ms(3), c_out);
    // Progress at 3 ms restarted the timer: segment 1 goes again at 3 ms + 1 s.
    CHECK(client.next_timer() == Time::ms(3) + Time::s(1));
    client.on_timer(Time::ms(3) + Time::s(1), c_out);
    REQUIRE(c_out.send.size() == 1);
    CHECK(c_out.send[0].seq == 1);
    s_out.clear();
    server.receive(c_out.send[0], Time::s(2), s_out);
    CHECK(s_out.send[0].ack == 3);
    CHECK(client.record().retransmissions == 1);
    // Three new data segments and one resend; the server received three (segment 1 only as the resend).
    CHECK(client.record().segments_sent == 4);
    CHECK(server.record().segments_received == 3);
    CHECK(server.record().segments_sent == 0);
    // One segment acknowledged at 3 ms (ACK 1), all three once the resend's ACK 3 arrives.
    c_out.clear();
    client.receive(s_out.send[0], Time::s(2), c_out);
    CHECK(client.record().bytes_delivered == 3 * 1440);
    CHECK(server.record().bytes_delivered == 3 * 1440);
}

TEST_CASE("A UDP pseudo-connection sends on schedule and ends after its idle timeout") {
    const FiveTuple udp{ip(203, 0, 113, 5), ip(100, 64, 0, 1), 5353, 53, IpProto::Udp};
    UdpFlowSpec spec;
    spec.datagrams = 3;
    spec.bytes = 100;
    spec.interval = Time::ms(1);
    spec.idle_timeout = Time::s(2);
    UdpFlow sender(1, udp, spec);
    UdpFlow receiver(1, udp, spec);
    TcpOutput out;
    sender.start(Time::zero(), out);
    CHECK(out.send.size() == 1);
    CHECK(sender.next_timer() == Time::ms(1));
    sender.on_timer(Time::ms(2), out);
    CHECK(out.send.size() == 3);
    CHECK(out.send[2].seq == 2);
    CHECK(out.send[2].size_bytes == 128);
    CHECK(sender.record().outcome == ConnectionOutcome::Completed);
    CHECK(sender.next_timer() == kNever);
    for (const IpPacket& p : out.send) receiver.receive(p, Time::ms(3));
    CHECK(receiver.record().segments_received == 3);
    CHECK_FALSE(receiver.ended(Time::ms(3) + Time::s(2) - Time::ps(1)));
    CHECK(receiver.ended(Time::ms(3) + Time::s(2)));
}
