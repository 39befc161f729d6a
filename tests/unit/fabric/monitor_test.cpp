#include <catch2/catch.hpp>

#include "fabric_test_util.hpp"
#include "loom/fabric/monitor.hpp"

using namespace loom;
using namespace loom::fabric;
using loom::fabric::testing::build_run;
using loom::fabric::testing::finish_run;
using loom::fabric::testing::small_config;

TEST_CASE("Warm-up ends at a steady sample and the window covers measure_cycles from the next cycle") {
    auto run = build_run(small_config("minimal", "uniform", 0.2));
    const config::Json stats = finish_run(run);
    REQUIRE(stats.at("status") == "steady");
    const std::int64_t warmup = stats.at("warmup_samples");
    CHECK(warmup >= 3);
    CHECK(stats.at("window").at("start_cycle") == warmup * 1000);
    CHECK(stats.at("window").at("end_cycle") == warmup * 1000 + 5000);
    CHECK(stats.at("packets_measured").get<std::int64_t>() > 0);
    // Every measured packet was drained: the run stopped when the last one arrived.
    CHECK(stats.at("packet_latency").at("count") == stats.at("packets_measured"));
    CHECK(run.model->monitor().samples().size() >= static_cast<std::size_t>(warmup + 5));
}

TEST_CASE("An overloaded run is reported as saturated with its accepted load and no latency") {
    auto run = build_run(small_config("minimal", "group_shift", 0.5));
    const config::Json stats = finish_run(run);
    CHECK(stats.at("status") == "saturated");
    CHECK_FALSE(stats.contains("packet_latency"));
    CHECK(stats.at("saturation_reason").get<std::string>().find("no steady state") != std::string::npos);
    // One global link per group pair carries all of a group's 8 terminals: 1/8 flit per cycle each.
    CHECK(stats.at("accepted_flits_per_cycle").get<double>() == Approx(0.125).epsilon(0.05));
}

TEST_CASE("A run stopped by its end time before the window closes is incomplete") {
    auto run = build_run(small_config("minimal", "uniform", 0.2));
    const config::Json stats = finish_run(run, Time::ns(2500));
    CHECK(stats.at("status") == "incomplete");
    CHECK_FALSE(stats.contains("packet_latency"));
}

TEST_CASE("A run with nothing to inject ends at once and is steady") {
    auto run = build_run(small_config("minimal", "uniform", 0.0));
    const config::Json stats = finish_run(run);
    CHECK(stats.at("status") == "steady");
    CHECK(stats.at("flits_generated") == 0);
    CHECK(run.sim->now() == Time::zero());
}
