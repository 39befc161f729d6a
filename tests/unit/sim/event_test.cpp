#include <catch2/catch.hpp>

#include "loom/sim/event.hpp"

using namespace loom::sim;

TEST_CASE("An event key packs phase, source and counter and unpacks them again") {
    const std::uint64_t k = key::make(Phase::Timer, 123456, 987654321);
    CHECK(key::phase_of(k) == 1);
    CHECK(key::source_of(k) == 123456);
    CHECK(key::counter_of(k) == 987654321);
    const std::uint64_t max = key::make(static_cast<Phase>(15), key::kMaxSources - 1, key::kCounterMask);
    CHECK(max == ~std::uint64_t{0});
    CHECK(key::phase_of(max) == 15);
    CHECK(key::source_of(max) == key::kMaxSources - 1);
    CHECK(key::counter_of(max) == key::kCounterMask);
}

TEST_CASE("Events order by time, then phase, then source, then counter") {
    const Event early{100, key::make(Phase::Report, 9, 9), 0, 0};
    const Event delivery{200, key::make(Phase::Delivery, 9, 9), 0, 0};
    const Event timer{200, key::make(Phase::Timer, 0, 0), 0, 0};
    const Event timer_src1{200, key::make(Phase::Timer, 1, 0), 0, 0};
    const Event timer_src1_n1{200, key::make(Phase::Timer, 1, 1), 0, 0};
    CHECK(before(early, delivery));
    CHECK(before(delivery, timer));
    CHECK(before(timer, timer_src1));
    CHECK(before(timer_src1, timer_src1_n1));
    CHECK_FALSE(before(timer_src1_n1, timer_src1));
    CHECK_FALSE(before(timer, timer));
}

TEST_CASE("Large times still order before larger ones regardless of key") {
    const Event a{(std::int64_t{1} << 62), ~std::uint64_t{0}, 0, 0};
    const Event b{(std::int64_t{1} << 62) + 1, 0, 0, 0};
    CHECK(before(a, b));
    CHECK_FALSE(before(b, a));
}

TEST_CASE("An event renders its fields for messages") {
    const Event e{1500, key::make(Phase::Delivery, 3, 17), 5, 42};
    CHECK(to_string(e) == "t=1500ps phase=0 src=3 n=17 slot=5 arg=42");
}
