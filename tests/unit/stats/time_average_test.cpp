#include <catch2/catch.hpp>

#include "loom/base/units.hpp"
#include "loom/stats/time_average.hpp"

using namespace loom::literals;
using loom::Time;
using loom::stats::TimeAverage;

TEST_CASE("Time average of a hand-checked signal") {
    // 2 on [10ns, 20ns), 4 on [20ns, 25ns), 0 on [25ns, 30ns]: area 20 + 20 + 0 = 40 (value·ns) over 20 ns.
    TimeAverage a;
    a.set(10_ns, 2);
    a.set(20_ns, 4);
    a.set(25_ns, 0);
    CHECK(a.average(30_ns) == 2.0);
    CHECK(a.max() == 4.0);
    CHECK(a.current() == 0.0);
}

TEST_CASE("Time average probed at T-1 and T of a change counts the old value up to T") {
    // The same signal as above, read just before and at the change to 0 at 25 ns.
    TimeAverage a;
    a.set(10_ns, 2);
    a.set(20_ns, 4);
    CHECK(a.average(25_ns - 1_ps) == Approx((20'000.0 + 4.0 * 4'999.0) / 14'999.0).epsilon(1e-15));
    CHECK(a.average(25_ns) == Approx(40.0 / 15.0).epsilon(1e-15));
    a.set(25_ns, 0);  // the new value has held for zero time at 25 ns: the average there is unchanged
    CHECK(a.average(25_ns) == Approx(40.0 / 15.0).epsilon(1e-15));
    CHECK(a.average(25_ns + 1_ps) == Approx(40'000.0 / 15'001.0).epsilon(1e-15));
}

TEST_CASE("Time average takes a change at T into account from T on, not before") {
    TimeAverage at_t;
    at_t.set(Time::zero(), 0);
    at_t.set(1_ns, 10);
    CHECK(at_t.average(1_ns) == 0.0);  // the new value has held for zero time
    CHECK(at_t.average(1_ns + 1_ps) == Approx(10.0 / 1'001.0).epsilon(1e-15));
    CHECK(at_t.average(2_ns) == 5.0);

    TimeAverage at_t_minus_1;
    at_t_minus_1.set(Time::zero(), 0);
    at_t_minus_1.set(1_ns - 1_ps, 10);
    CHECK(at_t_minus_1.average(1_ns - 1_ps) == 0.0);
    CHECK(at_t_minus_1.average(1_ns) == Approx(10.0 / 1'000.0).epsilon(1e-15));
    CHECK(at_t_minus_1.average(2_ns) == Approx(10.0 * 1'001.0 / 2'000.0).epsilon(1e-15));
}

TEST_CASE("Time average adds deltas and keeps zero-duration peaks in max") {
    TimeAverage a;
    a.add(0_ns, 1);
    a.add(5_ns, 1);  // 2 from 5 ns
    a.add(5_ns, 1);  // 3 for zero duration
    a.add(5_ns, -1);
    a.add(10_ns, -2);
    CHECK(a.current() == 0.0);
    CHECK(a.max() == 3.0);
    CHECK(a.average(10_ns) == 1.5);  // (1·5 + 2·5) / 10
    CHECK(a.average(20_ns) == 0.75);
}

TEST_CASE("Time average before any set is zero and over an empty interval is the current value") {
    TimeAverage a;
    CHECK(a.average(1_us) == 0.0);
    CHECK(a.to_json(1_us) == loom::stats::Json{{"avg", 0.0}, {"max", 0.0}, {"final", 0.0}});
    a.set(1_us, 7);
    CHECK(a.average(1_us) == 7.0);
}

TEST_CASE("Time average JSON has avg, max and final") {
    TimeAverage a;
    a.set(0_ns, 4);
    a.set(3_ns, 1);
    const auto j = a.to_json(4_ns);
    CHECK(j["avg"] == 3.25);
    CHECK(j["max"] == 4.0);
    CHECK(j["final"] == 1.0);
    CHECK(j.size() == 3);
}
