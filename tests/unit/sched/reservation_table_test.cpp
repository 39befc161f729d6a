#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "reservation_table.hpp"

using loom::Time;
using loom::sched::detail::Booking;
using loom::sched::detail::ReservationTable;

namespace {
Booking booking(std::int64_t s, std::int64_t e, std::int64_t cycle = 0) {
    return Booking{Time::ps(s), Time::ps(e), cycle, Time::ps(e + 10), Time::ps(e + 20)};
}
}  // namespace

TEST_CASE("A free interval has no conflict and a busy one reports where the busy span ends") {
    ReservationTable t({Time::ps(100), Time::ps(100)});
    t.insert(0, booking(1000, 2000));
    CHECK_FALSE(t.conflict_end(0, Time::ps(0), Time::ps(1000)));     // ends where the booking starts
    CHECK_FALSE(t.conflict_end(0, Time::ps(2000), Time::ps(2100)));  // starts where it ends
    CHECK(t.conflict_end(0, Time::ps(999), Time::ps(1100)) == Time::ps(2000));
    CHECK(t.conflict_end(0, Time::ps(1999), Time::ps(2100)) == Time::ps(2000));
    CHECK_FALSE(t.conflict_end(1, Time::ps(1000), Time::ps(2000)));  // other channel
}

TEST_CASE("Bookings closer than the shortest train merge into one block") {
    ReservationTable t({Time::ps(100)});
    t.insert(0, booking(1000, 2000));
    t.insert(0, booking(2050, 3000));  // gap of 50 ps: no train fits
    t.insert(0, booking(3100, 4000));  // gap of 100 ps: one could
    CHECK(t.blocks() == 2);
    CHECK(t.conflict_end(0, Time::ps(1500), Time::ps(1600)) == Time::ps(3000));
    CHECK_FALSE(t.conflict_end(0, Time::ps(3000), Time::ps(3100)));
    t.insert(0, booking(3000, 3100));  // fills the gap: everything is one block
    CHECK(t.blocks() == 1);
    CHECK(t.conflict_end(0, Time::ps(0), Time::ps(1001)) == Time::ps(4000));
    CHECK(t.size() == 4);
}

TEST_CASE("The neighbours of a time are the bookings that start before it and at or after it") {
    ReservationTable t({Time::ps(10)});
    t.insert(0, booking(500, 600, 7));
    t.insert(0, booking(100, 200, 3));
    CHECK(t.before(0, Time::ps(100)) == nullptr);
    CHECK(t.after(0, Time::ps(100))->consumer_cycle == 3);
    CHECK(t.before(0, Time::ps(300))->consumer_cycle == 3);
    CHECK(t.after(0, Time::ps(300))->consumer_cycle == 7);
    CHECK(t.after(0, Time::ps(501)) == nullptr);
    REQUIRE(t.bookings(0).size() == 2);
    CHECK(t.bookings(0)[0].start == Time::ps(100));
}

TEST_CASE("Queries past every booking and bookings inserted out of order keep the table's answers") {
    ReservationTable t({Time::ps(10)});
    t.insert(0, {Time::ps(300), Time::ps(400), 3, Time::ps(310), Time::ps(420)});
    t.insert(0, {Time::ps(100), Time::ps(200), 1, Time::ps(110), Time::ps(220)});  // before the first
    t.insert(0, {Time::ps(205), Time::ps(250), 2, Time::ps(215), Time::ps(260)});  // merges with [100, 200)
    REQUIRE(t.bookings(0).size() == 3);
    CHECK(t.bookings(0)[1].consumer_cycle == 2);
    CHECK(t.blocks() == 2);
    // Past everything: free, the last booking before, none after.
    CHECK(t.first_fit(0, Time::ps(400), Time::ps(50)) == Time::ps(400));
    CHECK(t.first_fit(0, Time::ps(399), Time::ps(50)) == Time::ps(400));
    CHECK(t.before(0, Time::ps(301))->consumer_cycle == 3);
    CHECK(t.before(0, Time::ps(300))->consumer_cycle == 2);
    CHECK(t.after(0, Time::ps(301)) == nullptr);
    CHECK(t.after(0, Time::ps(300))->consumer_cycle == 3);
    // Between: the gap [250, 300) takes 50 ps, not 51.
    CHECK(t.first_fit(0, Time::ps(150), Time::ps(50)) == Time::ps(250));
    CHECK(t.first_fit(0, Time::ps(150), Time::ps(51)) == Time::ps(400));
    // A booking at the very end merges with the last block when closer than the gap.
    t.insert(0, {Time::ps(405), Time::ps(450), 4, Time::ps(415), Time::ps(460)});
    CHECK(t.blocks() == 2);
    CHECK(t.first_fit(0, Time::ps(400), Time::ps(10)) == Time::ps(450));
}

namespace {

// The table's answers worked out from its bookings alone, one by one.
struct Reference {
    std::int64_t gap;
    std::vector<std::pair<std::int64_t, std::int64_t>> bookings;  // [start, end), sorted by start

    // Maximal runs of bookings whose gaps are shorter than `gap`.
    std::vector<std::pair<std::int64_t, std::int64_t>> blocks() const {
        std::vector<std::pair<std::int64_t, std::int64_t>> out;
        for (const auto& b : bookings) {
            if (!out.empty() && b.first < out.back().second + gap) {
                out.back().second = std::max(out.back().second, b.second);
            } else {
                out.push_back(b);
            }
        }
        return out;
    }
    std::optional<std::int64_t> conflict_end(std::int64_t s, std::int64_t e) const {
        for (const auto& [bs, be] : blocks()) {
            if (bs < e && be > s) return be;
        }
        return std::nullopt;
    }
    std::int64_t first_fit(std::int64_t s, std::int64_t length) const {
        for (bool moved = true; moved;) {
            moved = false;
            for (const auto& [bs, be] : blocks()) {
                if (bs < s + length && be > s) {
                    s = be;
                    moved = true;
                }
            }
        }
        return s;
    }
    std::optional<std::int64_t> before(std::int64_t s) const {
        std::optional<std::int64_t> r;
        for (const auto& b : bookings) {
            if (b.first < s) r = b.first;
        }
        return r;
    }
    std::optional<std::int64_t> after(std::int64_t s) const {
        for (const auto& b : bookings) {
            if (b.first >= s) return b.first;
        }
        return std::nullopt;
    }
};

std::optional<std::int64_t> start_of(const Booking* b) {
    return b ? std::optional<std::int64_t>(b->start.count()) : std::nullopt;
}

}  // namespace

TEST_CASE("Random tables answer every query as the bookings worked through one by one do, at and beside each edge") {
    std::mt19937_64 rng(11);
    for (int round = 0; round < 60; ++round) {
        const std::int64_t gap = std::uniform_int_distribution<std::int64_t>(1, 8)(rng);
        ReservationTable table({Time::ps(gap)});
        Reference ref{gap, {}};
        // Odd rounds book several hundred trains: more than a chunk of the table's chunked sequences holds.
        const std::int64_t span = round % 2 == 0 ? 600 : 6000;
        const int inserts = std::uniform_int_distribution<int>(0, static_cast<int>(span / 600) * 70)(rng);
        for (int i = 0; i < inserts; ++i) {
            // A random free interval of [0, span): out of order, adjacent to others, or in a gap shorter than `gap`.
            const std::int64_t s = std::uniform_int_distribution<std::int64_t>(0, span - 10)(rng);
            const std::int64_t e = s + std::uniform_int_distribution<std::int64_t>(gap, gap + 12)(rng);
            bool free = true;
            for (const auto& [bs, be] : ref.bookings) free = free && (e <= bs || s >= be);
            if (!free) continue;
            table.insert(0, booking(s, e));
            ref.bookings.emplace_back(s, e);
            std::sort(ref.bookings.begin(), ref.bookings.end());
        }
        REQUIRE(table.blocks() == static_cast<std::int64_t>(ref.blocks().size()));
        // Every edge of every block and booking, one either side, and random times.
        std::vector<std::int64_t> times;
        for (const auto& [bs, be] : ref.bookings) {
            for (std::int64_t d = -1; d <= 1; ++d) times.insert(times.end(), {bs + d, be + d});
        }
        for (int i = 0; i < 20; ++i) times.push_back(std::uniform_int_distribution<std::int64_t>(-5, span + 20)(rng));
        // The reference is slow: on large tables, a random sample of these times.
        std::shuffle(times.begin(), times.end(), rng);
        times.resize(std::min<std::size_t>(times.size(), 400));
        for (const std::int64_t t : times) {
            INFO("round " << round << " time " << t << " gap " << gap);
            CHECK(start_of(table.before(0, Time::ps(t))) == ref.before(t));
            CHECK(start_of(table.after(0, Time::ps(t))) == ref.after(t));
            const auto [b, a] = table.around(0, Time::ps(t));
            CHECK(start_of(b) == ref.before(t));
            CHECK(start_of(a) == ref.after(t));
            for (const std::int64_t length : {gap, gap + 1, gap + 5, gap + 20}) {
                CHECK(table.first_fit(0, Time::ps(t), Time::ps(length)).count() == ref.first_fit(t, length));
                const auto c = table.conflict_end(0, Time::ps(t), Time::ps(t + length));
                CHECK((c ? std::optional<std::int64_t>(c->count()) : std::nullopt) == ref.conflict_end(t, t + length));
            }
        }
    }
}

TEST_CASE("Queries between bookings answer as the bookings so far do (the block fingers follow every insert)") {
    // The table remembers, per channel, which times its last block searches answered: a booking that lands there
    // (new block, or merging blocks) must change those answers. Ask the same times again after every insert.
    std::mt19937_64 rng(29);
    for (int round = 0; round < 40; ++round) {
        const std::int64_t gap = std::uniform_int_distribution<std::int64_t>(1, 8)(rng);
        ReservationTable table({Time::ps(gap)});
        Reference ref{gap, {}};
        const std::int64_t span = round % 2 == 0 ? 400 : 3000;
        std::vector<std::int64_t> asked;  // times asked so far, asked again after each insert
        for (int i = 0; i < 150; ++i) {
            const std::int64_t s = std::uniform_int_distribution<std::int64_t>(0, span - 10)(rng);
            const std::int64_t e = s + std::uniform_int_distribution<std::int64_t>(gap, gap + 12)(rng);
            bool free = true;
            for (const auto& [bs, be] : ref.bookings) free = free && (e <= bs || s >= be);
            if (free) {
                table.insert(0, booking(s, e));
                ref.bookings.emplace_back(s, e);
                std::sort(ref.bookings.begin(), ref.bookings.end());
            }
            // Near the new booking's edges (where blocks merged), and a few asked before.
            for (const std::int64_t t : {s - gap - 1, s - 1, s, e - 1, e, e + gap}) asked.push_back(t);
            std::shuffle(asked.begin(), asked.end(), rng);
            if (asked.size() > 24) asked.resize(24);
            for (const std::int64_t t : asked) {
                INFO("round " << round << " insert " << i << " time " << t << " gap " << gap);
                for (const std::int64_t length : {gap, gap + 3, gap + 15}) {
                    REQUIRE(table.first_fit(0, Time::ps(t), Time::ps(length)).count() == ref.first_fit(t, length));
                    const auto c = table.conflict_end(0, Time::ps(t), Time::ps(t + length));
                    REQUIRE((c ? std::optional<std::int64_t>(c->count()) : std::nullopt) ==
                            ref.conflict_end(t, t + length));
                }
            }
        }
    }
}

TEST_CASE("An interval free before some bookings and untouched by them is free after them") {
    std::mt19937_64 rng(23);
    std::int64_t kept = 0;  // intervals the log vouched for (the test must exercise that side)
    for (int round = 0; round < 40; ++round) {
        const std::int64_t gap = std::uniform_int_distribution<std::int64_t>(1, 8)(rng);
        ReservationTable table({Time::ps(gap)});
        std::vector<std::pair<std::int64_t, std::int64_t>> booked;
        auto book_random = [&](int count) {
            for (int i = 0; i < count; ++i) {
                const std::int64_t s = std::uniform_int_distribution<std::int64_t>(0, 5990)(rng);
                const std::int64_t e = s + std::uniform_int_distribution<std::int64_t>(gap, gap + 12)(rng);
                bool free = true;
                for (const auto& [bs, be] : booked) free = free && (e <= bs || s >= be);
                if (!free) continue;
                table.insert(0, booking(s, e));
                booked.emplace_back(s, e);
            }
        };
        book_random(std::uniform_int_distribution<int>(0, 300)(rng));
        // Intervals free now, and how many bookings the channel has had.
        std::vector<std::pair<std::int64_t, std::int64_t>> free_now;
        for (int i = 0; i < 200; ++i) {
            const std::int64_t s = std::uniform_int_distribution<std::int64_t>(-5, 6000)(rng);
            const std::int64_t e = s + std::uniform_int_distribution<std::int64_t>(gap, gap + 30)(rng);
            if (!table.conflict_end(0, Time::ps(s), Time::ps(e))) free_now.emplace_back(s, e);
        }
        const std::int64_t since = table.inserts(0);
        // Up to 300 more attempts: sometimes more bookings than the log keeps (then it must not vouch).
        const std::size_t before = booked.size();
        book_random(std::uniform_int_distribution<int>(0, 300)(rng));
        CHECK(table.inserts(0) == since + static_cast<std::int64_t>(booked.size() - before));
        for (const auto& [s, e] : free_now) {
            if (!table.untouched_since(0, since, Time::ps(s), Time::ps(e))) continue;
            ++kept;
            INFO("round " << round << " [" << s << ", " << e << ") gap " << gap);
            CHECK_FALSE(table.conflict_end(0, Time::ps(s), Time::ps(e)));
        }
    }
    CHECK(kept > 100);
}
