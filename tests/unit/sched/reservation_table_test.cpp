#include <catch2/catch.hpp>

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
