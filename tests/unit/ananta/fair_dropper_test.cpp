#include <catch2/catch.hpp>

#include "loom/ananta/fair_dropper.hpp"

using namespace loom;
using namespace loom::ananta;

TEST_CASE("Weighted max-min shares capacity by weight and gives small demands what they ask") {
    CHECK(weighted_max_min({100, 100}, {1, 3}, 80) == std::vector<std::int64_t>{20, 60});
    CHECK(weighted_max_min({10, 100}, {1, 1}, 80) == std::vector<std::int64_t>{10, 70});
    CHECK(weighted_max_min({100, 100, 100}, {1, 1, 1}, 10) == std::vector<std::int64_t>{4, 3, 3});
    CHECK(weighted_max_min({5, 5}, {1, 1}, 80) == std::vector<std::int64_t>{5, 5});
    CHECK(weighted_max_min({30, 100, 100}, {2, 1, 1}, 100) == std::vector<std::int64_t>{30, 35, 35});
}

TEST_CASE("Under steady overload each tenant keeps its weighted share of the capacity") {
    FairDropper f(FairDropLimits{Time::ms(1), 100}, {1, 3});
    const int windows = 10;
    // Both tenants offer 200 packets per window, interleaved evenly.
    for (int w = 0; w < windows; ++w)
        for (int i = 0; i < 400; ++i) f.admit(static_cast<std::uint32_t>(i % 2), Time::ms(w) + Time::ns(2) * i);
    // The first window is not limited (the one before it was idle); each later one admits 25 and 75.
    CHECK(f.admitted(0) == 200 + 9 * 25);
    CHECK(f.admitted(1) == 200 + 9 * 75);
    CHECK(f.allowance(0) == 25);
    CHECK(f.allowance(1) == 75);
    CHECK(f.dropped(0) + f.admitted(0) == 2000);
}

TEST_CASE("Without overload nothing is dropped and a quiet gap lifts the limits") {
    FairDropper f(FairDropLimits{Time::ms(1), 100}, {1, 1});
    for (int i = 0; i < 90; ++i) CHECK(f.admit(static_cast<std::uint32_t>(i % 2), Time::ns(10) * i));
    for (int i = 0; i < 90; ++i) CHECK(f.admit(static_cast<std::uint32_t>(i % 2), Time::ms(1) + Time::ns(10) * i));
    CHECK(f.allowance(0) == -1);
    // An overloaded window followed by an idle one: the window after the gap is unlimited again.
    for (int i = 0; i < 300; ++i) f.admit(0, Time::ms(2) + Time::ns(1) * i);
    CHECK(f.admit(0, Time::ms(3)));  // the first packet of window 3 is within its allowance
    CHECK(f.allowance(0) == 100);
    CHECK(f.admit(0, Time::ms(5)));
    CHECK(f.allowance(0) == -1);
}

TEST_CASE("A tenant's demand counts only in the window it was offered, however long the tenant stays silent") {
    FairDropper f(FairDropLimits{Time::ms(1), 100}, {1, 1});
    // Window 0: tenant 0 offers 50 (no overload). Window 1: only tenant 1, 150 packets (overload).
    for (int i = 0; i < 50; ++i) CHECK(f.admit(0, Time::ns(10) * i));
    for (int i = 0; i < 150; ++i) CHECK(f.admit(1, Time::ms(1) + Time::ns(10) * i));
    CHECK(f.allowance(0) == -1);
    CHECK(f.allowance(1) == -1);
    // Window 2's allowances come from window 1 alone: tenant 0 offered nothing there (not its 50 of window 0).
    CHECK(f.admit(1, Time::ms(2)));
    CHECK(f.allowance(1) == 100);
    CHECK(f.allowance(0) == 0);
    CHECK_FALSE(f.admit(0, Time::ms(2) + Time::ns(1)));  // a tenant silent in an overloaded window gets nothing
    CHECK(f.dropped(0) == 1);
    // Window 3 follows a window of 2 packets: unlimited again, for the tenant that was not seen in it too.
    for (int i = 0; i < 150; ++i) CHECK(f.admit(1, Time::ms(3) + Time::ns(10) * i));
    CHECK(f.allowance(0) == -1);
    CHECK(f.admit(0, Time::ms(3) + Time::us(500)));
    CHECK(f.admitted(0) == 51);
    CHECK(f.admitted(1) == 301);
}

TEST_CASE("Packets at a window's last picosecond and at the next window's first belong to different windows") {
    FairDropper f(FairDropLimits{Time::ms(1), 2}, {1});
    for (int i = 0; i < 3; ++i) CHECK(f.admit(0, Time::ms(1) - Time::ps(1)));  // window 0: 3 > 2, overloaded
    CHECK(f.allowance(0) == -1);
    CHECK(f.admit(0, Time::ms(1)));  // window 1: allowance 2
    CHECK(f.allowance(0) == 2);
    CHECK(f.admit(0, Time::ms(2) - Time::ps(1)));
    CHECK_FALSE(f.admit(0, Time::ms(2) - Time::ps(1)));
}
