#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "loom/fabric/flit_link.hpp"
#include "loom/sim/component.hpp"
#include "loom/sim/channel.hpp"
#include "loom/sim/simulator.hpp"

using namespace loom;
using loom::fabric::FlitLink;
using loom::fabric::LineReader;

namespace {

// Both ends sit on one wake channel (endpoint 0 sends, endpoint 1 receives), as in a fabric run.
struct Sender : sim::Component {
    explicit Sender(sim::Context& c) : sim::Component(c), out(c, "wake", this, sim::handler<&Sender::on_wake>) {}
    void on_wake(std::uint32_t) {}
    sim::ChannelPort out;
};
struct Receiver : sim::Component {
    explicit Receiver(sim::Context& c) : sim::Component(c), in(c, "wake", this, sim::handler<&Receiver::on_wake>) {}
    void on_wake(std::uint32_t arg) {
        wakes.push_back(now().count());
        args.push_back(arg);
    }
    sim::ChannelPort in;
    std::vector<std::int64_t> wakes;
    std::vector<std::uint32_t> args;
};

// A simulator with the two ends on one wake channel of the given latency and a line bound to the sender, initialised.
struct WiredLine {
    WiredLine(Time latency, std::uint32_t arg) : ch(s.add_channel("wake", 2, latency)) {
        tx.out.attach(ch, 0);
        rx.in.attach(ch, 1);
        line.bind(1, arg);
        reader.attach(line, pool);
        s.init();
    }
    sim::Simulator s;
    Sender& tx = s.add<Sender>("tx");
    Receiver& rx = s.add<Receiver>("rx");
    sim::Channel& ch;
    fabric::RingPool pool;  // before the line: it ends after it
    FlitLink line;
    LineReader reader;  // the receiver's end
};

}  // namespace

TEST_CASE("A flit line wakes its receiver only when a push finds it empty") {
    WiredLine w(Time::ps(10), 7);
    FlitLink& line = w.line;
    LineReader& in = w.reader;
    CHECK(in.empty());
    line.push(w.pool, w.tx.out, 10, 1, Time::ps(10));
    line.push(w.pool, w.tx.out, 11, 2, Time::ps(11));
    line.push(w.pool, w.tx.out, 11, 3, Time::ps(11));
    CHECK(in.size() == 3);
    CHECK(in.reads(line));
    CHECK_FALSE(in.ready(9));
    CHECK(in.ready(10));
    CHECK(in.front_arrival(5) == 10);
    CHECK(in.pop(w.pool) == 1);
    CHECK(in.front_payload() == 2);
    CHECK(in.pop(w.pool) == 2);
    CHECK(in.pop(w.pool) == 3);
    CHECK(in.empty());
    CHECK(in.reads(line));
    line.push(w.pool, w.tx.out, 40, 4, Time::ps(40));
    w.s.run();
    CHECK(w.rx.wakes == std::vector<std::int64_t>{10, 40});
    CHECK(w.rx.args == std::vector<std::uint32_t>{7, 7});  // the line's own argument names it to the receiver
}

TEST_CASE("A flit line keeps order across growth and 32-bit arrival wrap-around") {
    WiredLine w(Time::ps(1), 0);
    FlitLink& line = w.line;
    LineReader& in = w.reader;
    const std::int64_t base = (std::int64_t{1} << 32) - 50;
    for (std::uint32_t k = 0; k < 100; ++k) line.push(w.pool, w.tx.out, base + k, k, Time::ps(1 + k));
    std::uint32_t next = 0;
    in.for_each_payload([&](std::uint32_t p) { CHECK(p == next++); });
    CHECK(next == 100);
    for (std::uint32_t k = 0; k < 100; ++k) {
        REQUIRE(in.ready(base + k));
        CHECK(in.front_arrival(base + k) == base + k);
        CHECK(in.pop(w.pool) == k);
    }
    CHECK(in.empty());
}

TEST_CASE("A flit line keeps its packet records in pool chunks, reused most recently released first") {
    WiredLine w(Time::ps(1), 0);  // the receiver unbound: checked by nobody (the builder's use)
    FlitLink& line = w.line;
    std::vector<std::uint32_t> handles;
    for (std::uint32_t k = 0; k < 9; ++k) {
        fabric::FabricRecord r;
        r.id = 1000 + k;
        r.dst = k;
        r.payload.flits = static_cast<std::int32_t>(k + 1);
        handles.push_back(line.push_record(w.pool, r));
        REQUIRE(handles.back() < fabric::Flit::kMaxPackets);
    }
    CHECK(w.pool.chunks() - w.pool.free_chunks() == 9 + 1);  // one chunk a record, and the line's
    for (std::uint32_t k = 0; k < 9; ++k) {
        CHECK(std::count(handles.begin(), handles.end(), handles[k]) == 1);  // distinct
        const fabric::FabricRecord& r = line.record(w.pool, handles[k]);
        CHECK(r.id == 1000 + k);
        CHECK(r.dst == k);
        CHECK(r.payload.flits == static_cast<std::int32_t>(k + 1));
    }
    line.release_record(w.pool, handles[2]);
    line.release_record(w.pool, handles[6]);
    fabric::FabricRecord r;
    r.id = 7;
    CHECK(line.push_record(w.pool, r) == handles[6]);  // the chunk released last
    r.id = 8;
    CHECK(line.push_record(w.pool, r) == handles[2]);
    CHECK(line.record(w.pool, handles[5]).id == 1005);  // the others untouched
    CHECK(line.record(w.pool, handles[6]).id == 7);
    // Records and ring entries share the pool: pushes between them leave both intact.
    line.push(w.pool, w.tx.out, 5, 42, Time::ps(5));
    CHECK(line.record(w.pool, handles[2]).id == 8);
    CHECK(w.reader.pop(w.pool) == 42);
    for (std::uint32_t h : handles) line.release_record(w.pool, h);
    CHECK(w.pool.free_chunks() == w.pool.chunks() - 1);  // the line keeps its chunk
}

TEST_CASE("Pool handles name chunks across slabs") {
    fabric::RingPool pool;
    std::vector<fabric::RingPool::Chunk*> taken;
    const std::size_t n = 2 * fabric::RingPool::kSlabChunks + 1000;  // three slabs
    for (std::size_t k = 0; k < n; ++k) taken.push_back(pool.take());
    CHECK(pool.chunks() >= n);
    CHECK(pool.chunks() == 3 * (fabric::RingPool::kSlabChunks - 1));
    std::vector<std::uint32_t> seen;
    for (fabric::RingPool::Chunk* c : taken) {
        const std::uint32_t h = fabric::RingPool::handle_of(c);
        REQUIRE(pool.at(h) == c);
        seen.push_back(h);
    }
    std::sort(seen.begin(), seen.end());
    CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
    for (fabric::RingPool::Chunk* c : taken) pool.give(c);
    CHECK(pool.free_chunks() == pool.chunks());
}

TEST_CASE("A flit line's ring holds the chunks of what is in flight and gives them back as it drains") {
    WiredLine w(Time::ps(1), 0);
    FlitLink& line = w.line;
    LineReader& in = w.reader;
    const fabric::RingPool& pool = w.pool;
    // A window of up to 17 entries slides along for some 300 pushes, so the front crosses many chunk boundaries and
    // the line empties and refills now and then.
    std::uint32_t pushed = 0, popped = 0;
    bool emptied = false;
    for (std::uint32_t round = 0; round < 100; ++round) {
        const std::uint32_t target = round < 50 ? 3 + round % 15 : 17;
        while (in.size() < target) {
            line.push(w.pool, w.tx.out, pushed, pushed, Time::ps(1));
            ++pushed;
        }
        std::uint32_t k = 0;
        in.scan(popped, [&](std::uint32_t payload, std::int64_t arrival) {
            REQUIRE(payload == popped + k);
            REQUIRE(arrival == popped + k);
            ++k;
            return false;
        });
        REQUIRE(k == in.size());
        REQUIRE(in.reads(line));
        REQUIRE(line.back_arrival(popped) == pushed - 1);
        // 7 entries a chunk: n entries span at most n / 7 + 2 chunks (a partly read one and a partly written one).
        REQUIRE(pool.chunks() - pool.free_chunks() <= in.size() / fabric::RingPool::kEntries + 2);
        for (std::uint32_t j = 0; j < 1 + round % 5 && !in.empty(); ++j) {
            REQUIRE(in.front_arrival(popped) == popped);
            REQUIRE(in.pop(w.pool) == popped);
            ++popped;
        }
        if (round % 10 == 9) {
            while (!in.empty()) REQUIRE(in.pop(w.pool) == popped++);
            REQUIRE(pool.free_chunks() == pool.chunks() - 1);  // an empty line holds one chunk
            REQUIRE(in.reads(line));
            emptied = true;
        }
    }
    while (!in.empty()) REQUIRE(in.pop(w.pool) == popped++);
    CHECK(emptied);
    CHECK(popped == pushed);
    CHECK(pushed > 250);
    CHECK(pool.free_chunks() == pool.chunks() - 1);
    CHECK(pool.chunks() > 0);
}

TEST_CASE("Lines sharing a ring pool keep their own entries") {
    WiredLine w(Time::ps(1), 0);
    FlitLink other;
    other.bind(1, 1);
    LineReader other_in;
    other_in.attach(other, w.pool);
    // Interleaved pushes, so the two lines' chunks alternate in the pool; then one drains while the other grows on
    // the chunks it gives back.
    for (std::uint32_t k = 0; k < 40; ++k) {
        w.line.push(w.pool, w.tx.out, k, k, Time::ps(1));
        other.push(w.pool, w.tx.out, k, 1000 + k, Time::ps(1));
    }
    for (std::uint32_t k = 0; k < 40; ++k) {
        REQUIRE(w.reader.pop(w.pool) == k);
        other.push(w.pool, w.tx.out, 40 + k, 1040 + k, Time::ps(1));
    }
    CHECK(w.reader.empty());
    for (std::uint32_t k = 0; k < 80; ++k) REQUIRE(other_in.pop(w.pool) == 1000 + k);
    CHECK(other_in.empty());
    CHECK(w.pool.free_chunks() == w.pool.chunks() - 2);  // a chunk each
}

TEST_CASE("A port's output channel and the sender's ends of the two lines it pushes share a cache line") {
    static_assert(sizeof(FlitLink) == 16);
    std::vector<fabric::PortOut> ports(3);
    for (const fabric::PortOut& p : ports) {
        const auto a = reinterpret_cast<std::uintptr_t>(&p);
        CHECK(a % 64 == 0);
        CHECK(reinterpret_cast<std::uintptr_t>(&p.flits) / 64 == a / 64);
        CHECK(reinterpret_cast<std::uintptr_t>(&p.credits) / 64 == a / 64);
        CHECK(reinterpret_cast<std::uintptr_t>(&p.credits + 1) - a <= 64);
    }
}

TEST_CASE("A push finds the line empty where its reader took the last entry, at a chunk's end too") {
    // 7 entries a chunk: the reader empties the line in the middle of a chunk, at its end (its next chunk not
    // taken yet) and after crossing into the next; each time the next push, and only it, wakes the receiver.
    WiredLine w(Time::ps(1), 3);
    FlitLink& line = w.line;
    LineReader& in = w.reader;
    std::int64_t at = 10;
    std::vector<std::int64_t> expect;
    std::uint32_t payload = 0;
    for (const std::uint32_t batch : {3u, 4u, 7u, 9u, 5u, 14u, 1u}) {
        expect.push_back(at);
        for (std::uint32_t k = 0; k < batch; ++k) line.push(w.pool, w.tx.out, at + k, payload + k, Time::ps(at + k));
        REQUIRE(in.size() == batch);
        for (std::uint32_t k = 0; k < batch; ++k) {
            REQUIRE_FALSE(in.empty());
            REQUIRE(in.front_arrival(at) == at + k);
            REQUIRE(in.pop(w.pool) == payload + k);
        }
        REQUIRE(in.empty());
        REQUIRE_FALSE(in.ready(at + 1000));
        REQUIRE(in.reads(line));
        REQUIRE(w.pool.free_chunks() == w.pool.chunks() - 1);  // what it read went back, bar its current chunk
        payload += batch;
        at += 100;
    }
    w.s.run();
    CHECK(w.rx.wakes == expect);
}
