#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "loom/fabric/flit_link.hpp"
#include "loom/sim/component.hpp"
#include "loom/sim/channel.hpp"
#include "loom/sim/simulator.hpp"

using namespace loom;
using loom::fabric::FlitLink;

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
        s.init();
    }
    sim::Simulator s;
    Sender& tx = s.add<Sender>("tx");
    Receiver& rx = s.add<Receiver>("rx");
    sim::Channel& ch;
    fabric::RingPool pool;  // before the line: it ends after it
    FlitLink line;
};

}  // namespace

TEST_CASE("A flit line wakes its receiver only when a push finds it empty") {
    WiredLine w(Time::ps(10), 7);
    FlitLink& line = w.line;
    line.push(w.pool, w.tx.out, 10, 1, Time::ps(10));
    line.push(w.pool, w.tx.out, 11, 2, Time::ps(11));
    line.push(w.pool, w.tx.out, 11, 3, Time::ps(11));
    CHECK(line.size() == 3);
    CHECK_FALSE(line.ready(9));
    CHECK(line.ready(10));
    CHECK(line.front_arrival(5) == 10);
    CHECK(line.pop(w.pool) == 1);
    CHECK(line.front_payload() == 2);
    CHECK(line.pop(w.pool) == 2);
    CHECK(line.pop(w.pool) == 3);
    CHECK(line.empty());
    line.push(w.pool, w.tx.out, 40, 4, Time::ps(40));
    w.s.run();
    CHECK(w.rx.wakes == std::vector<std::int64_t>{10, 40});
    CHECK(w.rx.args == std::vector<std::uint32_t>{7, 7});  // the line's own argument names it to the receiver
}

TEST_CASE("A flit line keeps order across growth and 32-bit arrival wrap-around") {
    WiredLine w(Time::ps(1), 0);
    FlitLink& line = w.line;
    const std::int64_t base = (std::int64_t{1} << 32) - 50;
    for (std::uint32_t k = 0; k < 100; ++k) line.push(w.pool, w.tx.out, base + k, k, Time::ps(1 + k));
    std::uint32_t next = 0;
    line.for_each_payload([&](std::uint32_t p) { CHECK(p == next++); });
    for (std::uint32_t k = 0; k < 100; ++k) {
        REQUIRE(line.ready(base + k));
        CHECK(line.front_arrival(base + k) == base + k);
        CHECK(line.pop(w.pool) == k);
    }
    CHECK(line.empty());
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
    CHECK(w.pool.chunks() - w.pool.free_chunks() == 9);  // one chunk a record
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
    CHECK(line.pop(w.pool) == 42);
    for (std::uint32_t h : handles) line.release_record(w.pool, h);
    CHECK(w.pool.free_chunks() == w.pool.chunks());
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
    const fabric::RingPool& pool = w.pool;
    // A window of up to 17 entries slides along for some 300 pushes, so the front crosses many chunk boundaries and
    // the line empties and refills now and then.
    std::uint32_t pushed = 0, popped = 0;
    bool emptied = false;
    for (std::uint32_t round = 0; round < 100; ++round) {
        const std::uint32_t target = round < 50 ? 3 + round % 15 : 17;
        while (line.size() < target) {
            line.push(w.pool, w.tx.out, pushed, pushed, Time::ps(1));
            ++pushed;
        }
        std::uint32_t k = 0;
        line.scan(popped, [&](std::uint32_t payload, std::int64_t arrival) {
            REQUIRE(payload == popped + k);
            REQUIRE(arrival == popped + k);
            ++k;
            return false;
        });
        REQUIRE(k == line.size());
        REQUIRE(line.back_arrival(popped) == pushed - 1);
        // 7 entries a chunk: n entries span at most n / 7 + 2 chunks (a partly read one and a partly written one).
        REQUIRE(pool.chunks() - pool.free_chunks() <= line.size() / fabric::RingPool::kEntries + 2);
        for (std::uint32_t j = 0; j < 1 + round % 5 && !line.empty(); ++j) {
            REQUIRE(line.front_arrival(popped) == popped);
            REQUIRE(line.pop(w.pool) == popped);
            ++popped;
        }
        if (round % 10 == 9) {
            while (!line.empty()) REQUIRE(line.pop(w.pool) == popped++);
            REQUIRE(pool.free_chunks() == pool.chunks());  // an empty line holds no chunk
            emptied = true;
        }
    }
    while (!line.empty()) REQUIRE(line.pop(w.pool) == popped++);
    CHECK(emptied);
    CHECK(popped == pushed);
    CHECK(pushed > 250);
    CHECK(pool.free_chunks() == pool.chunks());
    CHECK(pool.chunks() > 0);
}

TEST_CASE("Lines sharing a ring pool keep their own entries") {
    WiredLine w(Time::ps(1), 0);
    FlitLink other;
    other.bind(1, 1);
    // Interleaved pushes, so the two lines' chunks alternate in the pool; then one drains while the other grows on
    // the chunks it gives back.
    for (std::uint32_t k = 0; k < 40; ++k) {
        w.line.push(w.pool, w.tx.out, k, k, Time::ps(1));
        other.push(w.pool, w.tx.out, k, 1000 + k, Time::ps(1));
    }
    for (std::uint32_t k = 0; k < 40; ++k) {
        REQUIRE(w.line.pop(w.pool) == k);
        other.push(w.pool, w.tx.out, 40 + k, 1040 + k, Time::ps(1));
    }
    CHECK(w.line.empty());
    for (std::uint32_t k = 0; k < 80; ++k) REQUIRE(other.pop(w.pool) == 1000 + k);
    CHECK(w.pool.free_chunks() == w.pool.chunks());
}

TEST_CASE("A port's output channel and the two line headers it pushes share a cache line") {
    static_assert(sizeof(FlitLink) == 24);
    std::vector<fabric::PortOut> ports(3);
    for (const fabric::PortOut& p : ports) {
        const auto a = reinterpret_cast<std::uintptr_t>(&p);
        CHECK(a % 64 == 0);
        CHECK(reinterpret_cast<std::uintptr_t>(&p.flits) / 64 == a / 64);
        CHECK(reinterpret_cast<std::uintptr_t>(&p.credits) / 64 == a / 64);
        CHECK(reinterpret_cast<std::uintptr_t>(&p.credits + 1) - a == 64);
    }
}
