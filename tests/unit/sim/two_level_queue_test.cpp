// The two-level queue's own paths: window, ring and overflow boundaries, tuning, and the current run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "loom/base/rng.hpp"
#include "loom/sim/heap_queue.hpp"
#include "loom/sim/two_level_queue.hpp"
#include "queue_check.hpp"

using namespace loom::sim;

namespace {

// A pinned queue with 1 ps buckets and a 64-window ring: a window is 1024 ps, the ring ends 65 windows
// after the current window's start.
constexpr std::int64_t kWindow = 1024;
constexpr std::int64_t kFarEnd = kWindow * 65;

// Pops both queues to empty, requiring the same events in the same order; returns how many.
std::size_t drain_both(TwoLevelQueue& q, HeapQueue& reference) {
    std::size_t n = 0;
    while (!reference.empty()) {
        REQUIRE(q.size() == reference.size());
        testing::pop_both(q, reference);
        ++n;
    }
    CHECK(q.empty());
    return n;
}

}  // namespace

TEST_CASE("Events on both sides of every level boundary pop in (time, key) order") {
    // T-1 and T for the first fine bucket, the window end, the ring end and a far-future time, several
    // events with equal times at each (keys inserted in shuffled order).
    std::vector<std::int64_t> times;
    for (std::int64_t boundary : {std::int64_t{1}, kWindow, 2 * kWindow, kFarEnd, kFarEnd + kWindow,
                                  std::int64_t{1} << 40}) {
        times.push_back(boundary - 1);
        times.push_back(boundary);
    }
    std::vector<Event> events;
    std::uint64_t counter = 0;
    for (std::int64_t t : times) {
        for (int k = 0; k < 5; ++k) {
            events.push_back(Event{t, key::make(static_cast<Phase>(k % 3), 7 - static_cast<std::uint32_t>(k), counter), 0,
                                   static_cast<std::uint32_t>(counter)});
            ++counter;
        }
    }
    loom::Rng rng(3);
    for (int round = 0; round < 10; ++round) {
        for (std::size_t i = events.size(); i > 1; --i) std::swap(events[i - 1], events[rng.uniform(i)]);
        TwoLevelQueue q(0, 64, false);
        HeapQueue reference;
        for (const Event& e : events) {
            q.push(e);
            reference.push(e);
        }
        CHECK(drain_both(q, reference) == events.size());
    }
}

TEST_CASE("Pushes at the last and first picosecond of each level while popping keep the order") {
    // Each pop pushes new events exactly at the current window's last picosecond, the next window's first,
    // the ring's last and first, relative to the popped time: the pushes land on every boundary as the
    // windows slide.
    TwoLevelQueue q(0, 64, false);
    HeapQueue reference;
    std::uint64_t counter = 0;
    auto push = [&](std::int64_t t) {
        const Event e{t, key::make(Phase::Delivery, 1, counter), 0, static_cast<std::uint32_t>(counter)};
        ++counter;
        q.push(e);
        reference.push(e);
    };
    push(0);
    push(kWindow - 1);
    push(kWindow);
    for (int step = 0; step < 3000 && !reference.empty(); ++step) {
        const Event a = testing::pop_both(q, reference);
        if (counter < 6000) {
            const std::int64_t window_end = (a.time / kWindow + 1) * kWindow;
            push(a.time);  // the current time itself: lands in the drained run
            push(window_end - 1);
            push(window_end);
            if (step % 7 == 0) {
                push(window_end + 64 * kWindow - 1);  // last picosecond inside the ring
                push(window_end + 64 * kWindow);      // first one past it: the overflow heap
            }
        }
    }
    drain_both(q, reference);
}

TEST_CASE("The two-level queue jumps over long empty stretches to the overflow's least event") {
    TwoLevelQueue q(0, 64, false);  // every event below is far past the ring
    HeapQueue reference;
    for (std::int64_t i = 5; i >= 1; --i) {
        const Event e{i * 1'000'000'000, static_cast<std::uint64_t>(i), 0, 0};
        q.push(e);
        reference.push(e);
    }
    CHECK(drain_both(q, reference) == 5);
}

TEST_CASE("A push before the drained run's end after top() is popped in order") {
    TwoLevelQueue q(4, 64, false);  // 16 ps buckets, 16 ns windows
    q.push(Event{5000, 1, 0, 0});
    CHECK(q.top().time == 5000);  // drained: the run now ends at 5008
    q.push(Event{5000, 0, 0, 0});  // same time, smaller key
    q.push(Event{4500, 2, 0, 0});  // earlier than the current top
    q.push(Event{100, 3, 0, 0});   // before the window (e.g. a new run from an earlier time)
    q.push(Event{5007, 4, 0, 0});  // the last picosecond of the drained bucket
    q.push(Event{5008, 5, 0, 0});  // the first one after it: a fine bucket
    std::vector<std::int64_t> times;
    std::vector<std::uint64_t> keys;
    while (!q.empty()) {
        times.push_back(q.top().time);
        keys.push_back(q.top().key);
        q.pop();
    }
    CHECK(times == std::vector<std::int64_t>{100, 4500, 5000, 5000, 5007, 5008});
    CHECK(keys == std::vector<std::uint64_t>{3, 2, 0, 1, 4, 5});
}

TEST_CASE("A long chain of zero-delay events does not grow the drained run") {
    TwoLevelQueue q;
    q.push(Event{1000, 0, 0, 0});
    q.top();
    const std::size_t before_chain = q.bytes_held();
    for (std::uint64_t i = 1; i <= 100'000; ++i) {
        const Event e = q.top();
        q.pop();
        q.push(Event{e.time, i, 0, 0});
    }
    CHECK(q.size() == 1);
    CHECK(q.top().key == 100'000);
    CHECK(q.bytes_held() <= before_chain + 1024);
}

TEST_CASE("The two-level queue tunes its buckets to about one event and stays within 32 bytes per event") {
    TwoLevelQueue q;  // starts at 64 ps buckets and a 64-window ring
    HeapQueue reference;
    loom::Rng rng(5);
    std::uint64_t counter = 0;
    for (int i = 0; i < 16384; ++i) {
        const Event e{static_cast<std::int64_t>(rng.exponential(100'000.0)), counter++, 0, 0};
        q.push(e);
        reference.push(e);
    }
    for (int i = 0; i < 300'000; ++i) {
        const Event a = testing::pop_both(q, reference);
        const Event next{a.time + 10'000 + static_cast<std::int64_t>(rng.exponential(100'000.0)), counter++, 0, 0};
        q.push(next);
        reference.push(next);
    }
    CHECK(q.rebuilds() >= 1);
    // 16384 events over ~110 ns is ~0.15 per ps: about one per bucket means 4 or 8 ps buckets.
    CHECK(q.fine_shift() >= 2);
    CHECK(q.fine_shift() <= 3);
    CHECK(q.coarse_windows() <= 16384);
    CHECK(static_cast<double>(q.peak_bytes()) / 16384.0 <= 32.0);
}

TEST_CASE("The two-level queue rejects rings that are not a power of two") {
    CHECK_THROWS(TwoLevelQueue(4, 100, false));
    CHECK_THROWS(TwoLevelQueue(4, 32, false));
    CHECK_THROWS(TwoLevelQueue(-1, 64, false));
    CHECK_NOTHROW(TwoLevelQueue(0, 64, false));
}
