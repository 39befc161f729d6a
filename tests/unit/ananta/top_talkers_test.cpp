#include <catch2/catch.hpp>

#include "loom/ananta/top_talkers.hpp"

using namespace loom;
using namespace loom::ananta;

TEST_CASE("An overloaded window ends with a report of its top VIPs, busiest first") {
    TopTalkers t(Time::ms(100), 2, 1);
    for (int i = 0; i < 5; ++i) CHECK_FALSE(t.record_packet(ip(100, 64, 0, 1), Time::ms(i)).has_value());
    for (int i = 0; i < 10; ++i) CHECK_FALSE(t.record_packet(ip(100, 64, 0, 2), Time::ms(i)).has_value());
    for (int i = 0; i < 3; ++i) CHECK_FALSE(t.record_packet(ip(100, 64, 0, 3), Time::ms(i)).has_value());
    CHECK_FALSE(t.record_overload_drop(Time::ms(50)).has_value());
    CHECK_FALSE(t.poll(Time::ms(100) - Time::ps(1)).has_value());
    const auto report = t.poll(Time::ms(100));
    REQUIRE(report.has_value());
    CHECK(report->window_start == Time::zero());
    CHECK(report->window_end == Time::ms(100));
    CHECK(report->overload_drops == 1);
    CHECK(report->top == std::vector<TopTalker>{{ip(100, 64, 0, 2), 10}, {ip(100, 64, 0, 1), 5}});
    CHECK(t.current().empty());
}

TEST_CASE("A window without overload drops reports nothing") {
    TopTalkers t(Time::ms(100), 2, 1);
    for (int i = 0; i < 100; ++i) t.record_packet(ip(100, 64, 0, 1), Time::ms(i));
    CHECK_FALSE(t.poll(Time::ms(150)).has_value());
    CHECK(t.current().empty());
}

TEST_CASE("VIPs first seen out of address order are counted apart, busiest first and ties by lower VIP") {
    TopTalkers t(Time::ms(100), 8, 1);
    const IpAddr order[] = {ip(100, 64, 0, 9), ip(100, 64, 0, 3), ip(100, 64, 0, 7), ip(100, 64, 0, 1),
                            ip(100, 64, 0, 3), ip(100, 64, 0, 9), ip(100, 64, 0, 5), ip(100, 64, 0, 9)};
    for (const IpAddr v : order) t.record_packet(v, Time::ms(1));
    CHECK(t.current() == std::vector<TopTalker>{{ip(100, 64, 0, 9), 3},
                                                {ip(100, 64, 0, 3), 2},
                                                {ip(100, 64, 0, 1), 1},
                                                {ip(100, 64, 0, 5), 1},
                                                {ip(100, 64, 0, 7), 1}});
    t.record_packet(ip(100, 64, 0, 2), Time::ms(150));  // a new window starts from nothing
    CHECK(t.current() == std::vector<TopTalker>{{ip(100, 64, 0, 2), 1}});
}

TEST_CASE("A window's last picosecond still counts in it and the next window's first does not") {
    TopTalkers t(Time::ms(100), 2, 1);
    t.record_packet(ip(100, 64, 0, 1), Time::ms(100) - Time::ps(1));
    CHECK_FALSE(t.record_overload_drop(Time::ms(100) - Time::ps(1)).has_value());
    const auto report = t.record_packet(ip(100, 64, 0, 2), Time::ms(100));
    REQUIRE(report.has_value());
    CHECK(report->top == std::vector<TopTalker>{{ip(100, 64, 0, 1), 1}});
    CHECK(t.current() == std::vector<TopTalker>{{ip(100, 64, 0, 2), 1}});
    // A gap of several windows: the next packet starts its own window, and the one before it reports nothing.
    CHECK_FALSE(t.record_packet(ip(100, 64, 0, 3), Time::ms(450)).has_value());
    CHECK(t.current() == std::vector<TopTalker>{{ip(100, 64, 0, 3), 1}});
    CHECK_FALSE(t.poll(Time::ms(500) - Time::ps(1)).has_value());
    CHECK_FALSE(t.poll(Time::ms(500)).has_value());
    CHECK(t.current().empty());
}
