#include <catch2/catch.hpp>

#include "loom/sim/traffic.hpp"

using namespace loom;
using namespace loom::sim;

TEST_CASE("Occupancy is the exact time average of events in flight") {
    TrafficTally sent, received;
    // One event in flight over [0, 100), another over [50, 250), a third sent at 200 still in flight at 300.
    sent.note(0);
    sent.note(50);
    received.note(100);
    sent.note(200);
    received.note(250);
    const Occupancy o = occupancy(sent, received, Time::ps(300));
    CHECK(o.in_flight == 1);
    // area = 100 + 200 + 100 = 400 over 300 ps
    CHECK(o.average == Approx(400.0 / 300.0));
}

TEST_CASE("Occupancy at time zero is the count with no average") {
    TrafficTally sent, received;
    sent.note(0);
    const Occupancy o = occupancy(sent, received, Time::zero());
    CHECK(o.in_flight == 1);
    CHECK(o.average == 0.0);
}

TEST_CASE("Tallies add up") {
    TrafficTally a, b;
    a.note(10);
    b.note(20);
    b.note(30);
    a += b;
    CHECK(a.count == 3);
    CHECK(a.time_sum == 60);
}
