#include <catch2/catch.hpp>

#include <cmath>

#include "loom/config/sweep.hpp"
#include "loom/config/sweep_summary.hpp"

using loom::config::Json;
using loom::config::summarize;
using loom::config::summarize_json;

TEST_CASE("Replication summary of 1 2 3 4 is mean 2.5, sd sqrt(5/3) and a t(3) interval, as by hand") {
    const auto s = summarize({1, 2, 3, 4});
    CHECK(s.n == 4);
    CHECK(s.mean == 2.5);
    // Squares about the mean: 2.25 + 0.25 + 0.25 + 2.25 = 5, over n - 1 = 3.
    REQUIRE(s.sd);
    CHECK(*s.sd == Approx(std::sqrt(5.0 / 3.0)).epsilon(1e-15));
    // t_{0.975,3} = 3.182; half-width 3.182 * 1.2909944 / 2 = 2.0539721.
    REQUIRE(s.ci95);
    CHECK(*s.ci95 == Approx(2.0539721).epsilon(1e-7));
}

TEST_CASE("Replication summary of two values uses t with one degree of freedom") {
    const auto s = summarize({10, 14});
    CHECK(s.mean == 12);
    CHECK(*s.sd == Approx(std::sqrt(8.0)));        // (4 + 4) / 1
    CHECK(*s.ci95 == Approx(12.706 * std::sqrt(8.0) / std::sqrt(2.0)));  // = 12.706 * 2 = 25.412
    CHECK(*s.ci95 == Approx(25.412));
}

TEST_CASE("Replication summary of equal values has zero spread and of one value none") {
    const auto same = summarize({7, 7, 7});
    CHECK(same.mean == 7);
    CHECK(*same.sd == 0);
    CHECK(*same.ci95 == 0);
    const auto one = summarize({7});
    CHECK(one.mean == 7);
    CHECK_FALSE(one.sd);
    CHECK_FALSE(one.ci95);
}

TEST_CASE("Student t quantiles follow the table and never fall below it between entries") {
    CHECK(loom::config::student_t95(1) == 12.706);
    CHECK(loom::config::student_t95(9) == 2.262);
    CHECK(loom::config::student_t95(30) == 2.042);
    CHECK(loom::config::student_t95(35) == 2.042);
    CHECK(loom::config::student_t95(45) == 2.021);
    CHECK(loom::config::student_t95(1000) == 1.980);
}

TEST_CASE("A replicated value's JSON holds mean, sd, the interval and the values, skipping missing ones") {
    const Json j = summarize_json({Json(1), Json(), Json(3)});
    CHECK(j.at("n") == 2);
    CHECK(j.at("mean") == 2.0);
    CHECK(j.at("sd").get<double>() == Approx(std::sqrt(2.0)));
    const double half = 12.706 * std::sqrt(2.0) / std::sqrt(2.0);
    CHECK(j.at("ci95").get<double>() == Approx(half));
    CHECK(j.at("ci95_low").get<double>() == Approx(2.0 - half));
    CHECK(j.at("ci95_high").get<double>() == Approx(2.0 + half));
    CHECK(j.at("values") == Json::parse("[1, null, 3]"));
}

TEST_CASE("A replicated value that is not a number reports the common value when every replication agrees") {
    const Json agree = summarize_json({Json("done"), Json("done")});
    CHECK(agree.at("n") == 2);
    CHECK(agree.at("value") == "done");
    CHECK_FALSE(agree.contains("mean"));
    const Json differ = summarize_json({Json("done"), Json("interrupted")});
    CHECK_FALSE(differ.contains("value"));
}

TEST_CASE("Replication 0 keeps the point's seed and the others are distinct non-negative seeds") {
    using loom::config::replication_seed;
    CHECK(replication_seed(42, 0) == 42);
    CHECK(replication_seed(42, 1) == replication_seed(42, 1));
    CHECK(replication_seed(42, 1) != replication_seed(42, 2));
    CHECK(replication_seed(42, 1) != replication_seed(43, 1));
    for (int r = 0; r < 100; ++r) CHECK(replication_seed(7, r) >= 0);
}
