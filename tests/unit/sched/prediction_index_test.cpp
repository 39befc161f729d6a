#include <catch2/catch.hpp>

#include "loom/sched/prediction_index.hpp"
#include "loom/sched/scheduler.hpp"
#include "sched_fixtures.hpp"

using loom::Time;
using loom::sched::PredictionIndex;
using loom::topo::ChipConfig;
using loom::topo::FrozenTopology;
using loom::topo::LinkClassTiming;
using loom::workload::TransferSet;
namespace fx = loom::sched::test;

// On 0 - 1 - 2 with three vectors (scheduler_test): arrivals at TSP 1 are 523990, 550230, 576470 ps (train at 0),
// at TSP 2 1247323, 1273563, 1299803 ps (train at 723333).
TEST_CASE("The prediction index gives each vector's predicted arrival at each TSP on its path") {
    const FrozenTopology t = fx::chain3();
    TransferSet set;
    set.transfers.push_back(fx::transfer(4, 0, {2}, 3));
    const auto s = loom::sched::compile(t, LinkClassTiming{}, ChipConfig{}, set);
    const PredictionIndex index(s, t, LinkClassTiming{});
    CHECK(index.size() == 2);
    const auto in1 = static_cast<std::uint32_t>(t.channel_at(0, 0));  // 0 -> 1 arrives on TSP 1's port 0
    CHECK(index.arrival(4, 0, 1, in1) == Time::ps(523'990));
    CHECK(index.arrival(4, 2, 1, in1) == Time::ps(576'470));
    CHECK(index.arrival(4, 1, 2) == Time::ps(1'273'563));
    CHECK(index.arrival_on_port(4, 2, 2, 0) == Time::ps(1'299'803));
    const auto* run = index.find(4, 1, 2, static_cast<std::uint32_t>(t.channel_at(1, 1)));
    REQUIRE(run != nullptr);
    CHECK(run->final_destination);
    CHECK_FALSE(index.arrival(4, 3, 2).has_value());   // no vector 3
    CHECK_FALSE(index.arrival(5, 0, 2).has_value());   // no transfer 5
    CHECK_FALSE(index.arrival(4, 0, 0).has_value());   // nothing arrives at the source
    CHECK_FALSE(index.arrival_on_port(4, 0, 2, 1).has_value());  // port 1 of TSP 2 is not wired
}

TEST_CASE("Every predicted run of a spread transfer is found vector by vector") {
    const FrozenTopology t = fx::node_of(8);
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {1}, 500));
    const auto s = loom::sched::compile(t, LinkClassTiming{}, ChipConfig{}, set);
    const PredictionIndex index(s, t, LinkClassTiming{});
    std::int64_t finals = 0;
    for (std::uint32_t v = 0; v < 500; ++v) {
        const auto a = index.arrival(0, v, 1);
        REQUIRE(a.has_value());
        CHECK(*a <= s.makespan);
        ++finals;
    }
    CHECK(finals == 500);
    for (const auto& r : s.predicted) {
        for (std::uint32_t j = 0; j < r.count; ++j) {
            const auto a = index.arrival(r.transfer, r.first_vector + j, r.tsp, r.channel);
            REQUIRE(a.has_value());
            CHECK(*a == loom::sched::predicted_arrival(r, j, index.timing(r.channel)));
        }
    }
}
