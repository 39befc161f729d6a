#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "loom/base/rng.hpp"
#include "loom/sim/calendar_queue.hpp"
#include "loom/sim/heap_queue.hpp"
#include "queue_check.hpp"

using namespace loom::sim;

namespace {

// Hold model with PHOLD's delays: pop one, push one 10 ns + Exp(100 ns) later.
void hold(CalendarQueue& q, HeapQueue& reference, loom::Rng& rng, std::uint64_t& counter, int steps) {
    for (int i = 0; i < steps; ++i) {
        const Event a = testing::pop_both(q, reference);
        const Event next{a.time + 10'000 + static_cast<std::int64_t>(rng.exponential(100'000.0)), counter++, 0, 0};
        q.push(next);
        reference.push(next);
    }
}

}  // namespace

TEST_CASE("The calendar tunes its bucket width to the workload and keeps the order while rebuilding") {
    CalendarQueue q;  // starts at 1024 ps buckets
    HeapQueue reference;
    loom::Rng rng(5);
    std::uint64_t counter = 0;
    for (int i = 0; i < 16384; ++i) {
        const Event e{static_cast<std::int64_t>(rng.exponential(100'000.0)), counter++, 0, 0};
        q.push(e);
        reference.push(e);
    }
    hold(q, reference, rng, counter, 300'000);
    CHECK(q.rebuilds() >= 1);
    // About 16384 events spread over ~110 ns: ~4 per bucket means buckets of some tens of ps, and the
    // memory cap keeps the ring at most `pending` buckets.
    CHECK(q.shift() <= 7);
    CHECK(q.buckets() <= 16384);
    const double bytes_per_event = static_cast<double>(q.peak_bytes()) / 16384.0;
    CHECK(bytes_per_event <= 32.0);
}

TEST_CASE("The calendar's peak memory figure is never below what it held at any moment") {
    // Rebuilds release the load buffers, so the memory held now can be less than it was: the figure the
    // per-event budget is checked against must remember the largest.
    CalendarQueue q;
    loom::Rng rng(9);
    std::uint64_t counter = 0;
    std::size_t seen = q.bytes_held();
    for (int i = 0; i < 4096; ++i) {
        q.push(Event{static_cast<std::int64_t>(rng.exponential(1'000'000.0)), counter++, 0, 0});
        seen = std::max(seen, q.bytes_held());
    }
    for (int i = 0; i < 200'000; ++i) {
        const Event a = q.top();
        q.pop();
        // Delays shrink as the run goes on, so the tuner narrows the buckets and rebuilds.
        const double mean = i < 100'000 ? 1'000'000.0 : 1'000.0;
        q.push(Event{a.time + 1 + static_cast<std::int64_t>(rng.exponential(mean)), counter++, 0, 0});
        seen = std::max(seen, q.bytes_held());
    }
    CHECK(q.rebuilds() >= 1);
    CHECK(q.peak_bytes() >= seen);
    CHECK(q.peak_bytes() >= q.bytes_held());
}

TEST_CASE("The calendar keeps exact tie order through rebuilds when every delay is the same") {
    // 256 events at each multiple of 10 ns: every bucket load is one big tie broken by the key alone, and the
    // tuner rebuilds the ring while events are in flight.
    CalendarQueue q;
    HeapQueue reference;
    loom::Rng rng(1);
    std::uint64_t counter = 0;
    for (std::uint32_t i = 0; i < 256; ++i) {
        const Event e{10'000, key::make(Phase::Delivery, i % 64, counter++), i, 0};
        q.push(e);
        reference.push(e);
    }
    bool same = true;
    for (int step = 0; step < 300'000 && same; ++step) {
        const Event a = q.top();
        const Event b = reference.top();
        same = a.time == b.time && a.key == b.key;
        q.pop();
        reference.pop();
        const Event next{a.time + 10'000,
                         key::make(Phase::Delivery, static_cast<std::uint32_t>(rng.uniform(64)), counter++), 0, 0};
        q.push(next);
        reference.push(next);
    }
    CHECK(same);
    CHECK(q.rebuilds() >= 1);
}

TEST_CASE("The calendar jumps over long empty stretches to the overflow's least event") {
    CalendarQueue q(4, 64, false);  // 16 ps buckets, 1 ns ring: every event below is in the overflow heap
    for (std::int64_t i = 5; i >= 1; --i) q.push(Event{i * 1'000'000'000, static_cast<std::uint64_t>(i), 0, 0});
    std::int64_t last = 0;
    for (int i = 0; i < 5; ++i) {
        const Event e = q.top();
        CHECK(e.time > last);
        last = e.time;
        q.pop();
    }
    CHECK(last == 5'000'000'000);
    CHECK(q.empty());
}

TEST_CASE("A push before the current bucket's end after top() is popped in order") {
    CalendarQueue q(10, 64, false);
    q.push(Event{5000, 1, 0, 0});
    CHECK(q.top().time == 5000);  // the bucket [4096, 5120) is now current
    q.push(Event{4500, 2, 0, 0});  // earlier than the current top, same bucket
    q.push(Event{100, 3, 0, 0});   // before the current bucket (e.g. a new run from an earlier time)
    CHECK(q.top().time == 100);
    q.pop();
    CHECK(q.top().time == 4500);
    q.pop();
    CHECK(q.top().time == 5000);
    q.pop();
    CHECK(q.empty());
}

TEST_CASE("Pushes into wide current buckets interleave with the loaded events in exact order") {
    // 2^20 ps (1 us) buckets, fixed: most pushes below land before the current bucket's end (the near
    // buffer beside the loaded run), some in the ring, some past it; ties on time are broken by key.
    // peek(0) must name the event top() returns next.
    CalendarQueue q(20, 64, false);
    HeapQueue reference;
    loom::Rng rng(17);
    std::uint64_t counter = 0;
    auto push = [&](std::int64_t t) {
        const Event e{t, rng.uniform(1000) * 1'000'000 + counter++, 0, 0};
        q.push(e);
        reference.push(e);
    };
    for (int i = 0; i < 64; ++i) push(rng.uniform_int(0, 4'000'000));
    std::int64_t popped = 0;
    while (!reference.empty()) {
        const Event a = testing::pop_both(q, reference);
        if (const Event* next = q.peek(0)) {
            const Event& top = q.top();
            REQUIRE(next->time == top.time);
            REQUIRE(next->key == top.key);
        }
        if (++popped > 200'000) continue;  // then drain
        const int pushes = static_cast<int>(rng.uniform(3));  // 0, 1 or 2: the population drifts
        for (int k = 0; k < pushes; ++k) {
            switch (rng.uniform(4)) {
                case 0: push(a.time); break;                                         // same time: key order
                case 1: push(a.time + rng.uniform_int(0, 2'000)); break;              // a link delay ahead
                case 2: push(a.time + rng.uniform_int(0, 300'000)); break;            // inside the bucket
                default: push(a.time + rng.uniform_int(0, 100'000'000)); break;       // ring and overflow
            }
        }
        if (reference.empty()) push(a.time + 1);
    }
    CHECK(q.empty());
}

TEST_CASE("Pushes spread over a bucket far wider than a link delay keep the heap's order, ties included") {
    // 2^30 ps (1.07 ms) buckets, fixed (Ananta's are 134 us): pushes at once, a link delay (~1 us) and up to
    // ~100 us ahead of the popped event all land before the current bucket's end, in near_, before and after
    // its front and among its far events. Times are whole nanoseconds, so ties in time (broken by key, in
    // both directions) are common.
    CalendarQueue q(30, 64, false);
    HeapQueue reference;
    loom::Rng rng(23);
    std::uint64_t counter = 0;
    auto push = [&](std::int64_t t) {
        const Event e{t, rng.uniform(2) == 0 ? counter++ : (std::uint64_t{1} << 40) - counter++, 0, 0};
        q.push(e);
        reference.push(e);
    };
    for (int i = 0; i < 32; ++i) push(1000 * rng.uniform_int(0, 3'000'000));
    std::int64_t popped = 0;
    while (!reference.empty()) {
        const Event a = testing::pop_both(q, reference);
        if (++popped > 200'000) continue;  // then drain
        const int pushes = static_cast<int>(rng.uniform(3));
        for (int k = 0; k < pushes; ++k) {
            switch (rng.uniform(5)) {
                case 0: push(a.time); break;                                              // same time
                case 1: push(a.time + 1000 * rng.uniform_int(0, 2'000)); break;           // a link ahead
                case 2: push(a.time + 1000 * rng.uniform_int(10'000, 30'000)); break;     // 10-30 us
                case 3: push(a.time + 1000 * rng.uniform_int(0, 120'000)); break;         // far in the bucket
                default: push(a.time + 1000 * rng.uniform_int(0, 3'000'000)); break;      // later buckets
            }
        }
        if (reference.empty()) push(a.time + 1);
    }
    CHECK(q.empty());
}

TEST_CASE("The calendar rejects ring sizes that are not a power of two") {
    CHECK_THROWS(CalendarQueue(4, 100, false));
    CHECK_THROWS(CalendarQueue(-1, 64, false));
    CHECK_NOTHROW(CalendarQueue(0, 64, false));
}
