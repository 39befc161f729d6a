// The EventQueue contract, checked identically on every implementation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "loom/base/rng.hpp"
#include "loom/sim/calendar_queue.hpp"
#include "loom/sim/event_queue.hpp"
#include "loom/sim/heap_queue.hpp"
#include "loom/sim/radix_queue.hpp"
#include "loom/sim/two_level_queue.hpp"

using namespace loom::sim;

namespace {

template <class Q>
std::vector<Event> drain(Q& q) {
    std::vector<Event> out;
    while (!q.empty()) {
        out.push_back(q.top());
        q.pop();
    }
    return out;
}

bool same(const std::vector<Event>& a, const std::vector<Event>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].time != b[i].time || a[i].key != b[i].key || a[i].target != b[i].target || a[i].arg != b[i].arg) {
            return false;
        }
    }
    return true;
}

// Events at one time covering every tie-break level: phases, sources, counters.
std::vector<Event> simultaneous(std::int64_t t) {
    std::vector<Event> v;
    std::uint32_t arg = 0;
    for (unsigned phase : {0u, 1u, 2u, 3u, 15u}) {
        for (std::uint32_t source : {0u, 1u, 7u, key::kMaxSources - 1}) {
            for (std::uint64_t counter : {std::uint64_t{0}, std::uint64_t{1}, key::kCounterMask}) {
                v.push_back(Event{t, key::make(static_cast<Phase>(phase), source, counter), 0, arg++});
            }
        }
    }
    return v;
}

}  // namespace

TEMPLATE_TEST_CASE("Simultaneous events pop by phase then source then counter in any insertion order", "[queue]",
                   CalendarQueue, HeapQueue, TwoLevelQueue, RadixQueue) {
    std::vector<Event> events = simultaneous(5000);
    std::vector<Event> expected = events;
    std::sort(expected.begin(), expected.end(), [](const Event& a, const Event& b) { return before(a, b); });
    // Sanity of the expectation: phase is the most significant tie-break.
    REQUIRE(key::phase_of(expected.front().key) == 0);
    REQUIRE(key::phase_of(expected.back().key) == 15);

    loom::Rng rng(11);
    for (int round = 0; round < 20; ++round) {
        for (std::size_t i = events.size(); i > 1; --i) std::swap(events[i - 1], events[rng.uniform(i)]);
        TestType q;
        for (const Event& e : events) q.push(e);
        CHECK(same(drain(q), expected));
    }
}

TEMPLATE_TEST_CASE("A queue pops in time order and reports its size", "[queue]", CalendarQueue, HeapQueue, TwoLevelQueue, RadixQueue) {
    TestType q;
    CHECK(q.empty());
    q.push(Event{30, 1, 0, 0});
    q.push(Event{10, 2, 0, 0});
    q.push(Event{20, 3, 0, 0});
    CHECK(q.size() == 3);
    CHECK(q.top().time == 10);
    q.pop();
    CHECK(q.top().time == 20);
    q.pop();
    // A push earlier than everything pending (but not in the past) comes out next.
    q.push(Event{25, 4, 0, 0});
    CHECK(q.top().time == 25);
    q.pop();
    CHECK(q.top().time == 30);
    q.pop();
    CHECK(q.empty());
    CHECK(q.bytes_held() > 0);
}

TEMPLATE_TEST_CASE("for_each visits every pending event once", "[queue]", CalendarQueue, HeapQueue, TwoLevelQueue, RadixQueue) {
    TestType q;
    for (std::uint32_t i = 0; i < 1000; ++i) q.push(Event{static_cast<std::int64_t>(i % 37) * 1000, i, 0, i});
    q.top();
    q.pop();
    std::vector<std::uint32_t> seen;
    q.for_each([&seen](const Event& e) { seen.push_back(e.arg); });
    std::sort(seen.begin(), seen.end());
    CHECK(seen.size() == 999);
    CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
}

TEMPLATE_TEST_CASE("clear empties a queue that can then be reused", "[queue]", CalendarQueue, HeapQueue, TwoLevelQueue, RadixQueue) {
    TestType q;
    for (std::uint64_t i = 0; i < 100; ++i) q.push(Event{static_cast<std::int64_t>(i) * 77, i, 0, 0});
    q.top();
    q.clear();
    CHECK(q.empty());
    q.push(Event{5, 1, 0, 0});
    CHECK(q.top().time == 5);
}

namespace {

// A random discrete-event workload: hold steps with a mix of increments (zero, tiny, typical, far future),
// bursts at one time, and pushes into the current time. Every push is >= the last popped time.
template <class Q>
std::vector<Event> random_workload(Q& q, std::uint64_t seed, int steps) {
    loom::Rng rng(seed);
    std::uint64_t counter = 0;
    auto next_key = [&]() { return key::make(static_cast<Phase>(rng.uniform(4)), 0, counter++); };
    std::vector<Event> popped;
    for (int i = 0; i < 2000; ++i) q.push(Event{rng.uniform_int(0, 1'000'000), next_key(), 0, 0});
    std::int64_t now = 0;
    for (int step = 0; step < steps && !q.empty(); ++step) {
        const Event e = q.top();
        q.pop();
        REQUIRE(e.time >= now);
        now = e.time;
        popped.push_back(e);
        const auto pushes = rng.uniform(3);  // 0, 1 or 2: the population drifts up and down
        for (std::uint64_t p = 0; p < pushes; ++p) {
            std::int64_t dt = 0;
            switch (rng.uniform(6)) {
                case 0: dt = 0; break;
                case 1: dt = rng.uniform_int(1, 10); break;
                case 2: dt = rng.uniform_int(1, 100'000); break;
                case 3: dt = static_cast<std::int64_t>(rng.exponential(50'000.0)); break;
                case 4: dt = rng.uniform_int(1'000'000, 1'000'000'000); break;  // far: overflow territory
                default: dt = rng.uniform_int(0, 3) * 1000; break;              // coarse grid: many ties
            }
            q.push(Event{now + dt, next_key(), 0, 0});
        }
        if (q.empty()) q.push(Event{now + 12345, next_key(), 0, 0});
    }
    return popped;
}

}  // namespace

TEST_CASE("Every queue pops the sequence the heap pops on random workloads") {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        HeapQueue heap;
        CalendarQueue calendar;
        CalendarQueue small_ring(2, 64, false);  // tiny fixed ring: constant wrap-around and overflow
        TwoLevelQueue two_level;
        TwoLevelQueue small_two_level(0, 64, false);  // 1 ps buckets, 64 ns ring: constant overflow
        const auto a = random_workload(heap, seed, 200'000);
        const auto b = random_workload(calendar, seed, 200'000);
        const auto c = random_workload(small_ring, seed, 200'000);
        const auto d = random_workload(two_level, seed, 200'000);
        const auto e = random_workload(small_two_level, seed, 200'000);
        RadixQueue radix;
        RadixQueue small_radix(2, 1, false);       // 4 ps windows, a one-window ring: constant overflow
        RadixQueue wide_radix(20, 64, false);      // 1 us windows: the comparison-sort path
        RadixQueue one_digit_radix(6, 64, false);  // 64 ps windows: the one-pass radix path
        const auto f = random_workload(radix, seed, 200'000);
        const auto g = random_workload(small_radix, seed, 200'000);
        const auto h = random_workload(wide_radix, seed, 200'000);
        const auto i = random_workload(one_digit_radix, seed, 200'000);
        CHECK(same(a, f));
        CHECK(same(a, g));
        CHECK(same(a, h));
        CHECK(same(a, i));
        CHECK(heap.size() == radix.size());
        CHECK(same(a, b));
        CHECK(same(a, c));
        CHECK(same(a, d));
        CHECK(same(a, e));
        CHECK(heap.size() == calendar.size());
        CHECK(heap.size() == two_level.size());
    }
}

TEST_CASE("Queue kinds have config names that parse back") {
    CHECK(std::string(to_string(QueueKind::Calendar)) == "calendar");
    CHECK(std::string(to_string(QueueKind::Heap)) == "heap");
    CHECK(parse_queue_kind("calendar") == QueueKind::Calendar);
    CHECK(parse_queue_kind("heap") == QueueKind::Heap);
    CHECK(std::string(to_string(QueueKind::TwoLevel)) == "two_level");
    CHECK(parse_queue_kind("two_level") == QueueKind::TwoLevel);
    CHECK(std::string(to_string(QueueKind::Radix)) == "radix");
    CHECK(parse_queue_kind("radix") == QueueKind::Radix);
    CHECK_FALSE(parse_queue_kind("ladder").has_value());
}

TEST_CASE("A radix window of 2^15 or more events (32-bit counts) pops the heap's sequence") {
    // 65,536 ps windows (the widest radix path) holding 40,000 events each, some fine buckets over the
    // insertion limit (a burst at one time), against the heap.
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
        loom::Rng rng(seed);
        HeapQueue heap;
        RadixQueue radix(16, 64, false);
        std::uint64_t counter = 0;
        for (int k = 0; k < 80'000; ++k) {
            const std::int64_t t = k % 50 == 0 ? 70'000 : rng.uniform_int(0, 131'071);
            const Event e{t, key::make(Phase::Delivery, static_cast<std::uint32_t>(rng.uniform(1000)), counter++), 0, 0};
            heap.push(e);
            radix.push(e);
        }
        std::vector<Event> a, b;
        while (!heap.empty()) {
            a.push_back(heap.top());
            heap.pop();
            b.push_back(radix.top());
            radix.pop();
        }
        CHECK(radix.empty());
        CHECK(same(a, b));
    }
}

TEST_CASE("A loaded radix window ends in the sentinel, also after pushes into it and once popped empty") {
    // Simulator::next_in_batch reads the window's cursor without testing for its end: an exhausted window's
    // cursor must be an event after every batch's end (time INT64_MAX).
    loom::Rng rng(5);
    HeapQueue heap;
    RadixQueue radix(6, 64, false);  // 64 ps windows
    std::uint64_t counter = 0;
    auto push = [&](std::int64_t t) {
        const Event e{t, key::make(Phase::Delivery, 3, counter++), 1, static_cast<std::uint32_t>(counter)};
        heap.push(e);
        radix.push(e);
    };
    for (int k = 0; k < 2000; ++k) push(rng.uniform_int(0, 20'000));
    std::vector<Event> a, b;
    std::size_t exhausted = 0, inserted = 0;
    while (!heap.empty()) {
        const Event* front = radix.front();
        REQUIRE(front != nullptr);
        CHECK(radix.window_end()->time == INT64_MAX);
        CHECK(radix.window_end()->target == 0);
        a.push_back(heap.top());
        heap.pop();
        b.push_back(*front);
        const std::int64_t now = front->time;
        radix.pop();
        if (radix.window_cursor() == radix.window_end()) {
            ++exhausted;
            CHECK(radix.window_cursor()->time == INT64_MAX);
        }
        // Pushes into the window being popped (the run grows, moves, or restarts after it was exhausted).
        if (counter < 6000 && rng.uniform(3) == 0) {
            push(now + static_cast<std::int64_t>(rng.uniform(3)));
            ++inserted;
            CHECK(radix.window_end()->time == INT64_MAX);
        }
    }
    CHECK(radix.empty());
    CHECK(same(a, b));
    CHECK(exhausted > 100);
    CHECK(inserted > 500);
}

TEST_CASE("A radix window of any count of events, full chunks or not, pops all of them in order") {
    // A window keeps no event count (its head chunk's free places and its chunks give it): windows of 1 to
    // 3 chunks' worth, with and without a partly filled head chunk.
    for (std::size_t n = 1; n <= 3 * RadixQueue::kChunk + 1; ++n) {
        INFO("events " << n);
        RadixQueue radix(10, 64, false);
        HeapQueue heap;
        for (std::size_t k = 0; k < n; ++k) {
            // All in window 1 (1024-2047 ps), in an order that is not the time order.
            const Event e{1024 + static_cast<std::int64_t>((k * 37) % 101), key::make(Phase::Delivery, 1, k), 0, 0};
            radix.push(e);
            heap.push(e);
        }
        CHECK(radix.size() == n);
        CHECK(same(drain(heap), drain(radix)));
        CHECK(radix.size() == 0);
    }
}

TEST_CASE("Radix windows filled in turn keep their head chunks' places while the chunk pool grows") {
    // Pushes go round the 64 windows one event at a time after w % kChunk events into window w, so that the
    // windows' head chunks fill out of step and most are partly filled when the pool (128 chunks at first)
    // grows and moves: their write positions must move with it.
    static_assert(RadixQueue::kChunk + 1 <= 255, "a window's room byte counts 1 + a chunk's free places");
    for (const std::size_t per_window : {RadixQueue::kChunk - 1, RadixQueue::kChunk, 2 * RadixQueue::kChunk + 3}) {
        INFO("events per window " << per_window);
        RadixQueue radix(10, 64, false);
        HeapQueue heap;
        std::uint64_t counter = 0;
        std::size_t pushed = 0;
        auto push = [&](std::int64_t w, std::size_t k) {
            const Event e{w * 1024 + static_cast<std::int64_t>((k * 53) % 997),
                          key::make(Phase::Delivery, 3, counter++), 0, 0};
            radix.push(e);
            heap.push(e);
            ++pushed;
        };
        for (std::int64_t w = 0; w < 64; ++w) {
            for (std::size_t k = 0; k < static_cast<std::size_t>(w) % RadixQueue::kChunk; ++k) push(w, 1000 + k);
        }
        for (std::size_t k = 0; k < per_window; ++k) {
            for (std::int64_t w = 0; w < 64; ++w) push(w, k);
        }
        CHECK(radix.size() == pushed);
        CHECK(same(drain(heap), drain(radix)));
    }
}

TEST_CASE("A radix queue's pop_above_mark tells whether it held more events than its mark before the pop") {
    // The kernel's batch dispatch samples the peak of pending events with it (Simulator::next_in_batch).
    loom::Rng rng(11);
    RadixQueue radix(6, 64, false);
    std::uint64_t counter = 0;
    std::size_t size = 0, mark = 0, fired = 0;
    std::int64_t now = 0;
    for (int step = 0; step < 20'000; ++step) {
        const std::uint64_t pushes = rng.uniform(3);  // 0-2 pushes per pop: the size wanders up and down
        for (std::uint64_t k = 0; k < pushes; ++k) {
            radix.push(Event{now + 1 + static_cast<std::int64_t>(rng.uniform(5000)),
                             key::make(Phase::Delivery, 2, counter++), 0, 0});
            ++size;
        }
        REQUIRE(radix.size() == size);
        if (size == 0) continue;
        const Event* e = radix.front();
        REQUIRE(e != nullptr);
        now = e->time;
        const bool above = radix.pop_above_mark();
        CHECK(above == (size > mark));
        --size;
        if (above) {
            ++fired;
            mark = size + 1;  // as the kernel does: the mark follows the peak
            radix.raise_mark(mark);
        }
        CHECK(radix.size() == size);
    }
    CHECK(fired > 10);
    radix.clear();
    CHECK(radix.size() == 0);
    CHECK(radix.empty());
}

TEST_CASE("A radix window's insertion pass orders reversed, tied and last-place events after bigger windows") {
    // The load's insertion pass runs while times rise and stops at a stop event written at the window's end
    // (then overwritten by the sentinel): windows whose events arrive in descending order (every event out of
    // order in its fine bucket), ties broken by the key in both directions, the out-of-order event at the
    // window's last place, one and two events; each after a bigger window, so that the load buffer holds
    // stale events past the new window's end.
    RadixQueue radix(10, 64, false);  // 1024 ps windows, 16-event windows use 4 ps fine buckets
    HeapQueue heap;
    std::uint64_t counter = 0;
    std::int64_t base = 0;
    auto window = [&](const std::vector<std::int64_t>& offsets, bool keys_down) {
        base += 1024;
        for (std::size_t k = 0; k < offsets.size(); ++k) {
            const std::uint64_t c = keys_down ? 100'000 - counter : counter;
            ++counter;
            const Event e{base + offsets[k], key::make(Phase::Delivery, 1, c), static_cast<std::uint32_t>(k), 0};
            radix.push(e);
            heap.push(e);
        }
    };
    std::vector<std::vector<std::int64_t>> shapes;
    std::vector<std::int64_t> big;
    for (int k = 0; k < 60; ++k) big.push_back(1000 - 16 * k);  // descending, spread over the window
    shapes.push_back(big);
    shapes.push_back({5});
    shapes.push_back({9, 3});
    shapes.push_back({3, 9, 1});                  // the last event belongs first
    shapes.push_back({100, 101, 102, 103, 50});   // the last event far back
    shapes.push_back({7, 7, 7, 7, 7, 7, 7, 7, 7});  // one time: the key decides
    shapes.push_back({3, 2, 1, 0});               // one fine bucket, reversed
    shapes.push_back({0, 1023, 0, 1023, 512});    // the window's first and last picoseconds
    for (const bool keys_down : {false, true}) {
        for (const auto& s : shapes) {
            window(big, keys_down);
            window(s, keys_down);
        }
    }
    REQUIRE(radix.size() == heap.size());
    while (!heap.empty()) {
        const Event* front = radix.front();
        REQUIRE(front != nullptr);
        CHECK(radix.window_end()->time == INT64_MAX);  // the sentinel, not the stop event
        const Event& h = heap.top();
        REQUIRE(front->time == h.time);
        REQUIRE(front->key == h.key);
        CHECK(front->target == h.target);
        heap.pop();
        radix.pop();
    }
    CHECK(radix.empty());
}

TEST_CASE("A radix queue that refuses try_push stays correct, and clear() restores try_push") {
    // A simulator with another queue kind makes its (unused) radix queue refuse every try_push, so that a
    // channel send needs no test of the kind (Simulator::push_channel).
    RadixQueue radix(6, 64, false);
    HeapQueue heap;
    radix.refuse_try_push();
    for (std::int64_t t : {0, 1, 63, 64, 4095, 4096, 1 << 20}) {
        CHECK_FALSE(radix.try_push(t, key::make(Phase::Delivery, 1, 0), 0, 0));
    }
    CHECK(radix.empty());
    loom::Rng rng(3);
    for (std::uint64_t k = 0; k < 3000; ++k) {
        const Event e{static_cast<std::int64_t>(rng.uniform(50'000)), key::make(Phase::Delivery, 1, k), 0, 0};
        radix.push(e);
        heap.push(e);
    }
    CHECK(same(drain(heap), drain(radix)));
    radix.clear();
    CHECK(radix.try_push(10, key::make(Phase::Delivery, 1, 0), 0, 7));
    CHECK(radix.size() == 1);
    CHECK(radix.top().arg == 7);
}

TEST_CASE("Radix windows around the 8-bit count limit, spread or in a burst, pop the heap's sequence") {
    // Windows of up to 85 events load with 8-bit counts (3 units of 8 bytes per event, sixteen digits per scan
    // step, carried across steps); 86 and more with 16-bit counts. A burst (most of a window at one time)
    // fills one fine bucket past the insertion limit, with a count above 127 units.
    for (std::size_t n : {1, 15, 16, 17, 40, 64, 84, 85, 86, 87, 120, 200}) {
        for (const bool burst : {false, true}) {
            INFO("events " << n << (burst ? " burst" : " spread"));
            loom::Rng rng(n * 2 + (burst ? 1 : 0));
            RadixQueue radix(12, 64, false);  // 4096 ps windows: 16 ps fine buckets at 256 digits
            HeapQueue heap;
            for (std::size_t k = 0; k < n; ++k) {
                const std::int64_t off = burst && k % 5 != 0 ? 2000 : static_cast<std::int64_t>(rng.uniform(4096));
                const Event e{4096 + off, key::make(Phase::Delivery, 1, 5000 - k), 0, static_cast<std::uint32_t>(k)};
                radix.push(e);
                heap.push(e);
            }
            CHECK(same(drain(heap), drain(radix)));
        }
    }
}
