#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <string>

#include "loom/sched/scheduler.hpp"
#include "sched_fixtures.hpp"

using loom::Time;
using loom::sched::compile;
using loom::sched::Schedule;
using loom::sched::SchedulerConfig;
using loom::topo::ChipConfig;
using loom::topo::FrozenTopology;
using loom::topo::LinkClassTiming;
using loom::workload::TransferSet;
namespace fx = loom::sched::test;

namespace {

const loom::sched::BoundTerm& term(const Schedule& s, const std::string& name) {
    for (const auto& t : s.bound.terms)
        if (t.name == name) return t;
    FAIL("no bound term " << name);
    throw 0;
}

}  // namespace

// A fully connected node of 4 TSPs (3 ports each, one vector = 26,240 ps, one hop = 497,750 ps after a vector's
// serialization): TSP 0 sends 30 vectors to TSP 1 and 12 to TSPs 2 and 3 (fan-out); TSP 1 then sends 9 back.
TEST_CASE("Every lower bound term matches hand arithmetic on a four-TSP node") {
    const FrozenTopology t = fx::node_of(4);
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {1}, 30));
    set.transfers.push_back(fx::transfer(1, 0, {2, 3}, 12));
    set.transfers.push_back(fx::transfer(2, 1, {0}, 9, {0}));
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    const std::int64_t v = fx::kVectorPs;
    // TSP 0 sends 30 + 12 vectors (a fan-out leaves its source once) through 3 ports.
    CHECK(term(s, "tsp_send").value == Time::ps(42 * v / 3));
    CHECK(term(s, "tsp_send").where == "node0.tsp0");
    // TSP 1 receives 30.
    CHECK(term(s, "tsp_receive").value == Time::ps(30 * v / 3));
    CHECK(term(s, "tsp_receive").where == "node0.tsp1");
    // The balanced cut {0, 1} | {2, 3} has 4 links each way; only the fan-out's 12 vectors must cross it, once.
    CHECK(term(s, "cut_out").value == Time::ps(12 * v / 4));
    CHECK(term(s, "cut_in").value == Time::ps(12 * v / 4));
    // One node, no racks: no node or rack terms.
    CHECK(std::none_of(s.bound.terms.begin(), s.bound.terms.end(),
                       [](const auto& x) { return x.name.rfind("node", 0) == 0 || x.name.rfind("rack", 0) == 0; }));
    // Chain: transfer 0 takes 10 vector times through 3 ports plus a hop, then transfer 2 takes 3 plus a hop.
    const std::int64_t chain = (10 * v + fx::kLatencyPs) + (3 * v + fx::kLatencyPs);
    CHECK(term(s, "dependency_chain").value == Time::ps(chain));
    CHECK(s.lower_bound == Time::ps(chain));
    CHECK(s.bound.binding == "dependency_chain");
    CHECK(s.lower_bound <= s.makespan);
}

TEST_CASE("A schedule that piles a tensor on one link no longer raises its own bound") {
    // Minimal paths only: 3000 vectors from TSP 0 to TSP 1 all cross the one direct link, which the old definition
    // (the busiest link's busy time) took as the bound, scoring this schedule about 1. TSP 0 has 3 ports.
    const FrozenTopology t = fx::node_of(4);
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {1}, 3000));
    SchedulerConfig c;
    c.allow_nonminimal = false;
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set, c);
    const double old_efficiency = static_cast<double>(std::max(
                                      {s.bound.busiest_link, s.bound.tsp_bandwidth, s.bound.dependency_chain})
                                                          .count()) /
                                  static_cast<double>(s.makespan.count());
    CHECK(old_efficiency > 0.99);
    CHECK(s.bound.busiest_link == Time::ps(3000 * fx::kVectorPs));
    CHECK(s.lower_bound == Time::ps(1000 * fx::kVectorPs + fx::kLatencyPs));
    CHECK(s.efficiency() < 0.35);
    CHECK(s.efficiency() < old_efficiency);
    // With detours allowed the scheduler spreads it and gets closer to the same bound, which did not move.
    const Schedule spread = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    CHECK(spread.lower_bound == s.lower_bound);
    CHECK(spread.efficiency() > s.efficiency());
}

// Not an exhaustive search over every timing (no ILP here): every transfer order (list-scheduling priority) and
// scheduler setting on tiny instances, the best makespan found must still not beat the bound.
TEST_CASE("No schedule found over transfer orders and scheduler settings on tiny instances beats the lower bound") {
    struct Instance {
        FrozenTopology t;
        TransferSet set;
    };
    std::vector<Instance> cases;
    {
        Instance i{fx::node_of(2), {}};
        i.set.transfers = {fx::transfer(0, 0, {1}, 7), fx::transfer(1, 1, {0}, 5), fx::transfer(2, 0, {1}, 3, {1})};
        cases.push_back(std::move(i));
    }
    {
        Instance i{fx::chain3(), {}};
        i.set.transfers = {fx::transfer(0, 0, {2}, 6), fx::transfer(1, 2, {0}, 4), fx::transfer(2, 1, {0, 2}, 5)};
        cases.push_back(std::move(i));
    }
    {
        Instance i{fx::node_of(3), {}};
        i.set.transfers = {fx::transfer(0, 0, {1}, 20), fx::transfer(1, 0, {2}, 20), fx::transfer(2, 1, {2}, 8, {0})};
        cases.push_back(std::move(i));
    }
    {
        Instance i{fx::node_of(4), {}};
        i.set.transfers = {fx::transfer(0, 0, {1, 2, 3}, 16), fx::transfer(1, 3, {0}, 24), fx::transfer(2, 2, {1}, 9),
                           fx::transfer(3, 1, {3}, 5, {0, 2})};
        cases.push_back(std::move(i));
    }
    for (const Instance& in : cases) {
        Time best = Time::max();
        Time bound;
        std::vector<std::size_t> perm(in.set.transfers.size());
        std::iota(perm.begin(), perm.end(), 0);
        do {
            TransferSet s;
            for (std::size_t p : perm) s.transfers.push_back(in.set.transfers[p]);
            for (std::int32_t paths : {1, 2, 4, 8})
                for (bool nonminimal : {false, true})
                    for (std::int32_t chunk : {1, 8}) {
                        SchedulerConfig c;
                        c.max_paths = paths;
                        c.allow_nonminimal = nonminimal;
                        c.min_chunk_vectors = chunk;
                        const Schedule sch = compile(in.t, LinkClassTiming{}, ChipConfig{}, s, c);
                        if (bound == Time::zero()) bound = sch.lower_bound;
                        CHECK(sch.lower_bound == bound);  // the bound depends on the workload and machine only
                        best = std::min(best, sch.makespan);
                    }
        } while (std::next_permutation(perm.begin(), perm.end()));
        INFO("bound " << bound.count() << " ps, best makespan " << best.count() << " ps");
        CHECK(bound > Time::zero());
        CHECK(bound <= best);
    }
}
