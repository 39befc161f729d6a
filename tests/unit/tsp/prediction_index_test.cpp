#include <catch2/catch.hpp>

#include "loom/base/error.hpp"
#include "loom/tsp/prediction_index.hpp"

using namespace loom;
using namespace loom::literals;
using loom::tsp::PredictionIndex;

namespace {
LinkTiming link() {
    LinkTiming t;
    t.rate = Bandwidth::gbps(100);
    t.latency_parts = {{"all", 497'750_ps}};
    return t;
}
sched::PredictedRun run(std::uint32_t transfer, std::uint32_t first, std::uint32_t count, std::uint32_t offset,
                        Time start) {
    sched::PredictedRun r;
    r.transfer = transfer;
    r.first_vector = first;
    r.count = count;
    r.offset = offset;
    r.train_start = start;
    return r;
}
}  // namespace

TEST_CASE("A predicted arrival is the train start plus the serialization of the vector's position plus latency") {
    const LinkTiming t = link();
    PredictionIndex idx;
    idx.add(run(2, 10, 4, 3, 1_us), t);  // vectors 10..13 are units 4..7 of a train started at 1 us
    idx.add(run(1, 0, 2, 0, 0_ns), t);
    idx.freeze();
    CHECK(idx.expect(1, 0) == Time::ps(26'240 + 497'750));
    CHECK(idx.expect(2, 10) == 1_us + Time::ps(4 * 26'240 + 497'750));
    CHECK(idx.expect(2, 13) == 1_us + Time::ps(7 * 26'240 + 497'750));
    CHECK_FALSE(idx.expect(2, 14).has_value());
    CHECK_FALSE(idx.expect(3, 0).has_value());
}

TEST_CASE("Predicted vectors never looked up are reported missing") {
    const LinkTiming t = link();
    PredictionIndex idx;
    idx.add(run(1, 0, 3, 0, 0_ns), t);
    idx.freeze();
    idx.expect(1, 0);
    idx.expect(1, 1);
    const auto m = idx.missing();
    REQUIRE(m.size() == 1);
    CHECK(m[0].transfer == 1);
    CHECK(m[0].count == 1);
}

TEST_CASE("Overlapping predicted runs are rejected") {
    const LinkTiming t = link();
    PredictionIndex idx;
    idx.add(run(1, 0, 3, 0, 0_ns), t);
    idx.add(run(1, 2, 3, 0, 1_us), t);
    CHECK_THROWS_AS(idx.freeze(), InputError);
}

TEST_CASE("Lookups in any order give sched::predicted_arrival (the serialization is stepped only in order)") {
    // A rate whose unit time is no whole number of ps (328 bytes at 96 Gbps: 27,333.3 ps), so a stepper that
    // rounded per unit would drift; three latency parts, summed once by the index.
    LinkTiming t;
    t.rate = Bandwidth::gbps(96);
    t.latency_parts = {{"serdes", 100'001_ps}, {"cable", 97'003_ps}, {"fec", 1'234_ps}};
    std::vector<sched::PredictedRun> runs = {run(1, 0, 40, 0, 0_ns), run(1, 40, 25, 7, 3_us), run(2, 5, 30, 2, 1_us)};
    PredictionIndex idx;
    for (const auto& r : runs) idx.add(r, t);
    idx.freeze();
    // In order, backwards, repeated and jumping between runs.
    std::vector<std::pair<std::size_t, std::uint32_t>> order;
    for (std::uint32_t j = 0; j < 40; ++j) order.emplace_back(0, j);
    for (std::uint32_t j = 25; j-- > 0;) order.emplace_back(1, j);
    for (std::uint32_t j = 0; j < 30; j += 3) {
        order.emplace_back(2, j);
        order.emplace_back(2, j);
        order.emplace_back(0, j);
        order.emplace_back(2, j + 1);
    }
    for (const auto& [r, j] : order) {
        INFO("run " << r << " vector " << j);
        const auto got = idx.expect(runs[r].transfer, runs[r].first_vector + j);
        REQUIRE(got.has_value());
        CHECK(*got == sched::predicted_arrival(runs[r], j, t));
    }
}

TEST_CASE("A lookup the cursor's run and the next one do not cover is searched for, or has no prediction") {
    LinkTiming t;
    t.rate = Bandwidth::gbps(100);
    std::vector<sched::PredictedRun> runs = {run(1, 0, 4, 0, 0_ns), run(1, 10, 4, 0, 1_us), run(3, 0, 4, 0, 2_us)};
    PredictionIndex idx;
    for (const auto& r : runs) idx.add(r, t);
    idx.freeze();
    REQUIRE(idx.expect(1, 0).has_value());
    CHECK_FALSE(idx.expect(1, 4).has_value());  // between runs 0 and 1 of transfer 1
    CHECK(*idx.expect(1, 11) == sched::predicted_arrival(runs[1], 1, t));  // the next run
    CHECK(*idx.expect(3, 2) == sched::predicted_arrival(runs[2], 2, t));   // the next run again
    CHECK(*idx.expect(1, 1) == sched::predicted_arrival(runs[0], 1, t));   // back: a search
    CHECK(*idx.expect(3, 3) == sched::predicted_arrival(runs[2], 3, t));   // two runs on: a search
    CHECK_FALSE(idx.expect(2, 0).has_value());
    CHECK_FALSE(idx.expect(3, 4).has_value());
    const auto missing = idx.missing();
    REQUIRE(missing.size() == 3);
    CHECK(missing[0].count == 2);  // transfer 1 vectors 2..3 (0 and 1 seen)
}
