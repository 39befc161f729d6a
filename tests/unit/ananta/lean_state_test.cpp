// The compact per-connection state: TcpServer behaves exactly as TcpConnection's server side, chunked storage
// keeps elements in place and counts whole chunks, and a sighting log gives back what was added.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "loom/ananta/chunked_vector.hpp"
#include "loom/ananta/dc_node.hpp"
#include "loom/ananta/tcp_connection.hpp"

using namespace loom;
using namespace loom::ananta;

namespace {
const FiveTuple kTuple{ip(203, 0, 113, 5), ip(100, 64, 0, 1), 40000, 80, IpProto::Tcp};

// A client-side segment toward the server: flags, segment number and payload drawn from small ranges so that
// handshakes, in-order and out-of-order data, duplicates and FINs at the right and wrong place all occur.
IpPacket random_segment(std::mt19937_64& rng) {
    std::uniform_int_distribution<int> kind(0, 9), seq(0, 6), mss(0, 3);
    IpPacket p = make_packet(kTuple, 0, tcp_flag::kAck);
    switch (kind(rng)) {
        case 0:
        case 1:
            p = make_packet(kTuple, 0, tcp_flag::kSyn);
            p.mss = static_cast<std::uint16_t>(mss(rng) * 500);  // 0: no option
            break;
        case 2: break;  // a bare ACK
        case 3:
        case 4:
        case 5:
        case 6:
            p = make_packet(kTuple, 1000, tcp_flag::kAck | tcp_flag::kPsh);
            p.seq = static_cast<std::uint32_t>(seq(rng));
            break;
        default:
            p = make_packet(kTuple, 0, tcp_flag::kFin | tcp_flag::kAck);
            p.seq = static_cast<std::uint32_t>(seq(rng));
            break;
    }
    return p;
}
}  // namespace

TEST_CASE("TcpServer answers, times out and finishes exactly as TcpConnection's server side") {
    TcpConfig config;
    config.max_retries = 3;
    config.max_rto = Time::s(3);  // reached by the back-off: the cap is exercised
    std::mt19937_64 rng(20261206);
    std::uniform_int_distribution<int> what(0, 3);
    std::uniform_int_distribution<std::int64_t> gap_ms(0, 2500);
    bool seen_gap = false;
    for (int run = 0; run < 300; ++run) {
        TcpConnection reference = TcpConnection::server(config, 0, kTuple);
        TcpServer lean(config, kTuple);
        HeldSegments held;
        REQUIRE(lean.live());
        TcpOutput a, b;
        Time now = Time::zero();
        // The first SYN creates the server (as Servers does), then random traffic and timer calls.
        const IpPacket syn = make_packet(kTuple, 0, tcp_flag::kSyn);
        reference.receive(syn, now, a);
        lean.receive(config, syn, now, b, held, 7);
        for (int step = 0; step < 60; ++step) {
            REQUIRE(a.send == b.send);
            REQUIRE(reference.state() == lean.state());
            if (reference.state() == TcpState::Done) {
                CHECK(reference.next_timer() == kNever);
                CHECK(lean.next_timer() == kNever);
            } else {
                REQUIRE(reference.next_timer() == lean.next_timer());
                CHECK(reference.rto() == lean.rto(config));
            }
            a.clear();
            b.clear();
            const int w = what(rng);
            if (w == 0 && lean.next_timer() != kNever) {
                now = std::max(now, lean.next_timer());  // at the deadline
                reference.on_timer(now, a);
                lean.on_timer(config, now, b);
            } else if (w == 1) {
                now += Time::ms(gap_ms(rng));
                reference.on_timer(now, a);
                lean.on_timer(config, now, b);
            } else {
                now += Time::ms(gap_ms(rng) / 100);
                const IpPacket p = random_segment(rng);
                const std::uint64_t before = reference.record().bytes_delivered;
                const std::uint32_t got = lean.receive(config, p, now, b, held, 7);
                seen_gap = seen_gap || lean.holding();
                reference.receive(p, now, a);
                REQUIRE(reference.record().bytes_delivered - before == got);
            }
        }
        if (reference.state() == TcpState::Done) CHECK(lean.done_at() == reference.record().finished);
        // The held set lives outside the server, only while it holds one, and goes when the connection completes.
        CHECK(held.size() == (lean.holding() ? 1U : 0U));
        if (lean.state() == TcpState::Done) CHECK(held.size() == 0);
        if (lean.holding()) CHECK(held.of(7) != nullptr);
    }
    CHECK(seen_gap);  // segments beyond a gap occurred
}

TEST_CASE("A default TcpServer is a free slot and a created one is 32 bytes") {
    CHECK_FALSE(TcpServer().live());
    CHECK(sizeof(TcpServer) == 32);
}

TEST_CASE("A chunked vector keeps elements in place and counts whole chunks") {
    ChunkedVector<std::uint64_t, 4> v;
    CHECK(v.bytes() == 0);
    v.push_back(7);
    const std::uint64_t* first = &v[0];
    for (std::uint64_t i = 1; i < 9; ++i) v.push_back(7 + i);
    CHECK(&v[0] == first);
    REQUIRE(v.size() == 9);
    for (std::size_t i = 0; i < v.size(); ++i) CHECK(v[i] == 7 + i);
    std::uint64_t sum = 0;
    for (const std::uint64_t x : v) sum += x;
    CHECK(sum == 7 * 9 + 36);
    // Three chunks of 4 (the third holds one) plus the chunk table.
    CHECK(v.bytes() >= 3 * 4 * sizeof(std::uint64_t));
    CHECK(v.bytes() < 4 * 4 * sizeof(std::uint64_t) + 16 * sizeof(void*));
}

TEST_CASE("A chunked vector's chunks start on a cache line: a 32-byte element never straddles two") {
    ChunkedVector<std::array<char, 32>, 4> v;
    std::vector<std::unique_ptr<std::array<char, 3>>> small;  // small allocations between the chunks
    for (int i = 0; i < 40; ++i) {
        v.emplace_back();
        small.push_back(std::make_unique<std::array<char, 3>>());
        CHECK(reinterpret_cast<std::uintptr_t>(&v[static_cast<std::size_t>(i)]) % 32 == 0);
        CHECK((reinterpret_cast<std::uintptr_t>(&v[static_cast<std::size_t>(i / 4 * 4)]) % 64) == 0);
    }
}

TEST_CASE("A sighting log gives back each sighting as added") {
    SightingLog log;
    const FiveTuple other{ip(10, 0, 0, 1), ip(100, 64, 0, 2), 1234, 443, IpProto::Udp};
    for (int i = 0; i < 40; ++i)
        log.add(i % 2 == 0 ? kTuple : other, Time::us(i), i % 3 == 0 ? ip(20, 0, 1, 1) : ip(20, 1, 1, 1));
    const std::vector<Sighting> all = log.all();
    REQUIRE(all.size() == 40);
    for (int i = 0; i < 40; ++i) {
        CHECK(all[static_cast<std::size_t>(i)].outside == (i % 2 == 0 ? kTuple : other));
        CHECK(all[static_cast<std::size_t>(i)].at == Time::us(i));
        CHECK(all[static_cast<std::size_t>(i)].who == (i % 3 == 0 ? ip(20, 0, 1, 1) : ip(20, 1, 1, 1)));
    }
}

TEST_CASE("Servers use a slot hint only when its server is live with the packet's tuple") {
    TcpConfig config;
    Servers servers(config);
    TcpOutput out;
    FiveTuple a = kTuple;
    FiveTuple b = kTuple;
    b.src_port = 40001;
    const auto sa = servers.receive(make_packet(a, 0, tcp_flag::kSyn), Time::us(1), out);
    const auto sb = servers.receive(make_packet(b, 0, tcp_flag::kSyn), Time::us(1), out, 12345);  // no such slot
    REQUIRE(sa.has_value());
    REQUIRE(sb.has_value());
    CHECK(*sa != *sb);
    // Right, wrong (another live server), out of range: the packet reaches its own server every time.
    for (std::uint32_t hint : {*sb, *sa, 99U, TupleIndex::kNone}) {
        const auto s = servers.receive(make_packet(b, 0, tcp_flag::kAck), Time::us(2), out, hint);
        REQUIRE(s.has_value());
        CHECK(*s == *sb);
    }
    // A hinted slot whose server is gone does not take a stray segment; a SYN then opens a server anew.
    FiveTuple c = kTuple;
    c.src_port = 40002;
    CHECK_FALSE(servers.receive(make_packet(c, 0, tcp_flag::kAck), Time::us(3), out, *sa).has_value());
    CHECK(servers.open_count() == 2);
    const auto sc = servers.receive(make_packet(c, 0, tcp_flag::kSyn), Time::us(3), out, *sa);
    REQUIRE(sc.has_value());
    CHECK(*sc != *sa);
    CHECK(servers.open_count() == 3);
}
