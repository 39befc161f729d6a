#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <vector>

#include "loom/phold/logical_process.hpp"
#include "loom/phold/phold.hpp"
#include "loom/sim/simulator.hpp"

using namespace loom;
using namespace loom::literals;

TEST_CASE("A lone process with no random delay handles its token exactly every lookahead") {
    sim::Simulator sim;
    phold::PholdConfig cfg;
    cfg.lps = 1;
    cfg.population = 1;
    cfg.lookahead = 10_ns;
    cfg.mean_delay = Time::zero();
    auto model = phold::build(cfg, sim);
    sim.init();
    sim.run({Time::ps(99'999)});
    CHECK(sim.events_handled() == 9);  // 10, 20, ..., 90 ns
    sim.run({100_ns});
    CHECK(sim.events_handled() == 10);  // and exactly at 100 ns
    sim.finish();
    CHECK_NOTHROW(model->finish());
}

TEST_CASE("A process starts with its population of tokens addressed to itself") {
    sim::Simulator sim;
    phold::PholdConfig cfg;
    cfg.lps = 3;
    cfg.population = 5;
    auto model = phold::build(cfg, sim);
    sim.init();
    CHECK(sim.pending() == 15);
    std::vector<int> per_target(3, 0);
    std::int64_t earliest = std::numeric_limits<std::int64_t>::max();
    sim.for_each_pending([&](const sim::Event& e) {
        ++per_target.at(e.target);
        earliest = std::min(earliest, e.time);
    });
    CHECK(per_target == std::vector<int>{5, 5, 5});
    CHECK(earliest >= cfg.lookahead.count());
}

TEST_CASE("Handling a token re-sends it so the population stays constant") {
    sim::Simulator sim;
    phold::PholdConfig cfg;
    cfg.lps = 8;
    cfg.population = 2;
    cfg.lookahead = 7_ns;
    cfg.mean_delay = 3_ns;
    auto model = phold::build(cfg, sim);
    sim.init();
    for (int step = 0; step < 200; ++step) {
        sim.run({Time::max(), 1});
        const std::int64_t now = sim.now_ps();
        bool all_late_enough = true;
        sim.for_each_pending([&](const sim::Event& e) { all_late_enough &= e.time >= now; });
        CHECK(all_late_enough);
    }
    // Each handled event re-sends its token: still 16 pending, and 200 handled.
    CHECK(sim.pending() == 16);
    CHECK(sim.events_handled() == 200);
}
