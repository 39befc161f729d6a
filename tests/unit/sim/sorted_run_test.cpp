#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "loom/base/rng.hpp"
#include "loom/sim/sorted_run.hpp"

using namespace loom::sim;

namespace {

std::vector<Event> drain(SortedRun& run) {
    std::vector<Event> out;
    while (!run.exhausted()) {
        out.push_back(run.front());
        run.pop_front();
    }
    return out;
}

bool same_order(const std::vector<Event>& a, const std::vector<Event>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const Event& x, const Event& y) { return x.time == y.time && x.key == y.key; });
}

// Inserts e into the sorted reference after every event not after it (the order a run keeps).
void insert_sorted(std::vector<Event>& reference, const Event& e) {
    reference.insert(std::upper_bound(reference.begin(), reference.end(), e,
                                      [](const Event& a, const Event& b) { return before(a, b); }),
                     e);
}

}  // namespace

TEST_CASE("SortedRun hands out what was filled, front to back, and peeks ahead without popping", "[sim][sorted_run]") {
    SortedRun run;
    REQUIRE(run.exhausted());
    Event* out = run.fill(3);
    REQUIRE(run.room() >= 3);
    out[0] = Event{10, 1, 0, 0};
    out[1] = Event{20, 2, 0, 0};
    out[2] = Event{30, 3, 0, 0};
    run.filled(3);
    REQUIRE(run.length() == 3);
    REQUIRE(run.front().time == 10);
    REQUIRE(run.peek(2)->time == 30);
    REQUIRE(run.peek(3) == nullptr);
    run.pop_front();
    REQUIRE(run.front().time == 20);
    REQUIRE(run.peek(1)->time == 30);
    REQUIRE(run.peek(2) == nullptr);
    std::vector<std::int64_t> seen;
    run.for_each([&](const Event& e) { seen.push_back(e.time); });
    REQUIRE(seen == std::vector<std::int64_t>{20, 30});
}

TEST_CASE("SortedRun::grow keeps the events written so far", "[sim][sorted_run]") {
    SortedRun run;
    Event* out = run.fill(0);
    std::size_t room = run.room(), n = 0;
    for (std::int64_t t = 0; t < 1000; ++t) {
        if (n == room) {
            out = run.grow();
            REQUIRE(run.room() > room);
            room = run.room();
        }
        out[n++] = Event{t, static_cast<std::uint64_t>(t), 0, 0};
    }
    run.filled(n);
    const std::vector<Event> got = drain(run);
    REQUIRE(got.size() == 1000);
    for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(got[i].time == static_cast<std::int64_t>(i));
}

TEST_CASE("SortedRun::insert keeps (time, key) order against a sorted reference, across compaction and growth",
          "[sim][sorted_run]") {
    loom::Rng rng(7);
    SortedRun run;
    std::vector<Event> reference;  // the events not yet popped, sorted
    std::uint64_t key = 0;
    for (int step = 0; step < 20'000; ++step) {
        // Insert twice as often as pop, with ties in time (keys break them), so the run both drains to its end
        // (and restarts) and fills its buffer with popped events at the front (and compacts).
        if (rng.uniform_int(0, 2) != 0 || reference.empty()) {
            const Event e{static_cast<std::int64_t>(rng.uniform_int(0, 50)), key++, 0, 0};
            run.insert(e);
            insert_sorted(reference, e);
        } else {
            REQUIRE(run.front().time == reference.front().time);
            REQUIRE(run.front().key == reference.front().key);
            run.pop_front();
            reference.erase(reference.begin());
        }
        if (step % 5000 == 4999) {
            std::vector<Event> left;
            run.for_each([&](const Event& e) { left.push_back(e); });
            REQUIRE(same_order(left, reference));
        }
    }
    REQUIRE(same_order(drain(run), reference));
}

TEST_CASE("SortedRun::try_insert_from_back keeps (time, key) order and grows the buffer as insert_from_back does",
          "[sim][sorted_run]") {
    // Two runs fed the same events: one by try_insert_from_back (insert_from_back when it refuses), one by
    // insert_from_back alone. Times in a narrow range with random keys (ties broken by the key in both
    // directions), pops in bursts that often drain the run (the try path then goes on from the old back instead
    // of restarting at the front, until it refuses at the room's end), and a population that grows in phases
    // (so both buffers grow).
    loom::Rng rng(11);
    SortedRun tried, plain;
    std::vector<Event> reference;  // the events not yet popped, sorted
    std::size_t refusals = 0;
    for (int step = 0; step < 20'000; ++step) {
        const bool growing = step / 5'000 == 2;  // the third quarter: +0.5 events per step
        const std::uint64_t pushes = rng.uniform(growing ? 5 : 4);
        const std::int64_t base = reference.empty() ? 0 : reference.front().time;
        for (std::uint64_t k = 0; k < pushes; ++k) {
            const Event e{base + static_cast<std::int64_t>(rng.uniform_int(0, 40)), rng.next_u64(), 0,
                          static_cast<std::uint32_t>(step)};
            if (!tried.try_insert_from_back(e.time, e.key, e.target, e.arg)) {
                ++refusals;
                tried.insert_from_back(e);
            }
            plain.insert_from_back(e);
            insert_sorted(reference, e);
        }
        const std::uint64_t pops = std::min<std::uint64_t>(rng.uniform(4), reference.size());
        for (std::uint64_t k = 0; k < pops; ++k) {
            REQUIRE(tried.front().key == reference.front().key);
            REQUIRE(tried.front().time == reference.front().time);
            REQUIRE(tried.front().arg == reference.front().arg);
            REQUIRE(plain.front().key == reference.front().key);
            tried.pop_front();
            plain.pop_front();
            reference.erase(reference.begin());
        }
        REQUIRE(tried.remaining() == reference.size());
        REQUIRE(tried.bytes_held() == plain.bytes_held());
    }
    CHECK(refusals > 0);
    CHECK(tried.bytes_held() > 64 * sizeof(Event));  // it grew
    REQUIRE(same_order(drain(tried), reference));
}

TEST_CASE("SortedRun::try_insert_front puts events before the front into the popped slot, in order",
          "[sim][sorted_run]") {
    // A run fed as a queue feeds near_: try_insert_front first, then try_insert_from_back, then
    // insert_from_back. Times around the front (before it, tied with it in both key directions, after it),
    // against a sorted reference; the front path must refuse on an empty run and with no popped slot.
    loom::Rng rng(23);
    SortedRun run;
    std::vector<Event> reference;
    std::size_t fronts = 0, refused_before_front = 0;
    for (int step = 0; step < 20'000; ++step) {
        const std::uint64_t pushes = rng.uniform(4);
        for (std::uint64_t k = 0; k < pushes; ++k) {
            const std::int64_t base = reference.empty() ? 1000 : reference.front().time;
            const std::int64_t t = base + static_cast<std::int64_t>(rng.uniform_int(0, 6)) - 2;
            const Event e{t, rng.next_u64(), 0, static_cast<std::uint32_t>(step)};
            const bool before_front = !reference.empty() && before(e, reference.front());
            const bool slot = run.cursor() != nullptr && run.length() > run.remaining();
            if (run.try_insert_front(e.time, e.key, e.target, e.arg)) {
                REQUIRE(before_front);
                ++fronts;
            } else {
                REQUIRE((!before_front || !slot));
                if (before_front) ++refused_before_front;
                if (!run.try_insert_from_back(e.time, e.key, e.target, e.arg)) run.insert_from_back(e);
            }
            insert_sorted(reference, e);
        }
        const std::uint64_t pops = std::min<std::uint64_t>(rng.uniform(4), reference.size());
        for (std::uint64_t k = 0; k < pops; ++k) {
            REQUIRE(run.front().time == reference.front().time);
            REQUIRE(run.front().key == reference.front().key);
            REQUIRE(run.front().arg == reference.front().arg);
            run.pop_front();
            reference.erase(reference.begin());
        }
        REQUIRE(run.remaining() == reference.size());
    }
    CHECK(fronts > 1000);
    CHECK(refused_before_front > 0);
    REQUIRE(same_order(drain(run), reference));
}

TEST_CASE("SortedRun::release drops the buffer, clear keeps it", "[sim][sorted_run]") {
    SortedRun run;
    run.fill(1000);
    run.filled(0);
    const std::size_t held = run.bytes_held();
    REQUIRE(held >= 1000 * sizeof(Event));
    run.clear();
    REQUIRE(run.bytes_held() == held);
    REQUIRE(run.exhausted());
    run.release();
    REQUIRE(run.bytes_held() == 0);
    REQUIRE(run.exhausted());
    run.insert(Event{5, 0, 0, 0});
    REQUIRE(run.front().time == 5);
}
