#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <vector>

#include "loom/base/rng.hpp"
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
// The table as it was first written: sorted vectors and a walk over blocks one at a time. The tree-backed table
// must give exactly its answers, or schedules would change.
class LinearTable {
public:
    explicit LinearTable(Time gap) : gap_(gap) {}
    std::optional<Time> conflict_end(Time s, Time e) const {
        const auto it = std::upper_bound(blocks_.begin(), blocks_.end(), s, [](Time t, const Block& b) { return t < b.end; });
        if (it != blocks_.end() && it->start < e) return it->end;
        return std::nullopt;
    }
    Time first_fit(Time s, Time length) const {
        auto it = std::upper_bound(blocks_.begin(), blocks_.end(), s, [](Time t, const Block& b) { return t < b.end; });
        while (it != blocks_.end() && it->start < s + length) {
            s = std::max(s, it->end);
            ++it;
        }
        return s;
    }
    void insert(Time start, Time end) {
        Block merged{start, end};
        auto first = std::upper_bound(blocks_.begin(), blocks_.end(), start - gap_,
                                      [](Time t, const Block& x) { return t < x.end; });
        auto last = first;
        while (last != blocks_.end() && last->start < end + gap_) {
            merged.start = std::min(merged.start, last->start);
            merged.end = std::max(merged.end, last->end);
            ++last;
        }
        if (first == last) {
            blocks_.insert(first, merged);
        } else {
            *first = merged;
            blocks_.erase(first + 1, last);
        }
    }
    std::size_t blocks() const { return blocks_.size(); }

private:
    struct Block {
        Time start;
        Time end;
    };
    Time gap_;
    std::vector<Block> blocks_;
};
}  // namespace

TEST_CASE("The tree-backed table answers every query as a linear scan over blocks does") {
    // Random bookings of random lengths at random free places (found by first_fit itself) on two channels with
    // different minimum gaps, queried at random times and lengths after every insert.
    const std::vector<Time> gaps{Time::ps(7), Time::ps(40)};
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        loom::Rng rng(seed);
        ReservationTable t(gaps);
        std::vector<LinearTable> ref{LinearTable(gaps[0]), LinearTable(gaps[1])};
        std::vector<std::vector<std::pair<Time, Time>>> booked(2);
        for (int step = 0; step < 600; ++step) {
            const auto c = static_cast<std::int32_t>(rng.uniform(2));
            const auto ci = static_cast<std::size_t>(c);
            const Time length = gaps[ci] + Time::ps(rng.uniform_int(0, 300));
            const Time want = Time::ps(rng.uniform_int(0, 40'000));
            const Time at = t.first_fit(c, want, length);
            REQUIRE(at == ref[ci].first_fit(want, length));
            REQUIRE_FALSE(t.conflict_end(c, at, at + length));
            t.insert(c, Booking{at, at + length, step, at + length, at + length});
            ref[ci].insert(at, at + length);
            booked[ci].emplace_back(at, at + length);
            for (int q = 0; q < 20; ++q) {
                const auto qc = static_cast<std::int32_t>(rng.uniform(2));
                const auto qi = static_cast<std::size_t>(qc);
                const Time s = Time::ps(rng.uniform_int(-100, 45'000));
                const Time len = gaps[qi] + Time::ps(rng.uniform_int(0, 600));
                REQUIRE(t.first_fit(qc, s, len) == ref[qi].first_fit(s, len));
                REQUIRE(t.conflict_end(qc, s, s + len) == ref[qi].conflict_end(s, s + len));
                // before/after: the last booking starting before s and the first at or after it.
                const Booking* b = t.before(qc, s);
                const Booking* a = t.after(qc, s);
                std::optional<Time> want_b;
                std::optional<Time> want_a;
                for (const auto& [bs, be] : booked[qi]) {
                    if (bs < s && (!want_b || bs > *want_b)) want_b = bs;
                    if (bs >= s && (!want_a || bs < *want_a)) want_a = bs;
                }
                REQUIRE((b ? std::optional<Time>(b->start) : std::nullopt) == want_b);
                REQUIRE((a ? std::optional<Time>(a->start) : std::nullopt) == want_a);
            }
        }
        CHECK(t.blocks() == static_cast<std::int64_t>(ref[0].blocks() + ref[1].blocks()));
        CHECK(t.size() == 600);
    }
}
