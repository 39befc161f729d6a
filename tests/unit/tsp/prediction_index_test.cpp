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

TEST_CASE("take_span gives what one expect per vector gives, and leaves the index in the same state") {
    // Two indexes over the same runs, at a rate whose serialization rounds (the stepper's remainder matters);
    // random spans looked up in one with take_span and in the other with expect per vector, in random order.
    LinkTiming t = link();
    t.rate = Bandwidth::bps(97'000'000'007);
    PredictionIndex a, b;
    for (PredictionIndex* idx : {&a, &b}) {
        idx->add(run(1, 0, 7, 2, 1_us), t);
        idx->add(run(1, 7, 5, 0, 3_us), t);
        idx->add(run(2, 4, 9, 5, 2_us), t);
        idx->add(run(4, 0, 1, 0, 5_us), t);
        idx->add(run(5, 0, 40, 3, 4_us), t);  // spans longer than take_span steps
        idx->freeze();
    }
    std::uint64_t x = 12345;
    auto rnd = [&](std::uint32_t n) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<std::uint32_t>((x >> 33) % n);
    };
    int taken = 0, refused = 0;
    for (int step = 0; step < 400; ++step) {
        const std::uint32_t transfer = 1 + rnd(5);
        const std::uint32_t vector = rnd(transfer == 5 ? 45 : 15), n = 1 + rnd(transfer == 5 ? 24 : 6);
        Time base;
        SerialStepper first;
        const bool ok = a.take_span(transfer, vector, n, base, first);
        if (!ok) {
            ++refused;
            continue;  // nothing changed in `a`: `b` is not asked either
        }
        ++taken;
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::optional<Time> p = b.expect(transfer, vector + i);
            REQUIRE(p.has_value());
            CHECK(*p == base + first.value());
            first.next();
        }
        // The next lookups agree in both (the cursor and the stepper were left alike).
        CHECK(a.expect(transfer, vector + n) == b.expect(transfer, vector + n));
    }
    CHECK(taken > 50);
    CHECK(refused > 50);
    const auto ma = a.missing(), mb = b.missing();
    REQUIRE(ma.size() == mb.size());
    for (std::size_t i = 0; i < ma.size(); ++i) {
        CHECK(ma[i].transfer == mb[i].transfer);
        CHECK(ma[i].first_vector == mb[i].first_vector);
        CHECK(ma[i].count == mb[i].count);
        CHECK(ma[i].predicted == mb[i].predicted);
    }
}

TEST_CASE("take_span refuses a span that leaves its entry or is not predicted, changing nothing") {
    const LinkTiming t = link();
    PredictionIndex idx;
    idx.add(run(1, 0, 4, 0, 0_ns), t);
    idx.add(run(1, 4, 4, 0, 1_us), t);  // the next entry: vectors 4..7 of transfer 1
    idx.freeze();
    Time base;
    SerialStepper first;
    CHECK_FALSE(idx.take_span(1, 2, 3, base, first));  // 2..4 spans two entries
    CHECK_FALSE(idx.take_span(1, 8, 1, base, first));  // not predicted
    CHECK_FALSE(idx.take_span(3, 0, 1, base, first));
    CHECK_FALSE(idx.take_span(1, 0, 0, base, first));
    CHECK(idx.missing().size() == 2);  // nothing counted as seen
    REQUIRE(idx.take_span(1, 2, 2, base, first));
    CHECK(base + first.value() == Time::ps(3 * 26'240 + 497'750));
    const auto m = idx.missing();
    REQUIRE(m.size() == 2);
    CHECK(m[0].count == 2);  // vectors 0 and 1 of the first entry still unseen
    CHECK(idx.expect(1, 4) == 1_us + Time::ps(26'240 + 497'750));
}
