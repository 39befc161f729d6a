#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

#include "loom/sched/scheduler.hpp"
#include "sched_fixtures.hpp"
#include "scheduler_impl.hpp"

// The scheduler keeps, per train shape and length, the Send cycles the reservation table alone already ruled out
// (Scheduler::reuse_known_busy): searches start past them. The schedule must be the one the searches from scratch
// give, instruction for instruction.

using loom::Time;
using loom::sched::Schedule;
using loom::sched::SchedulerConfig;
using loom::topo::ChipConfig;
using loom::topo::FrozenTopology;
using loom::topo::LinkClassTiming;
using loom::workload::TransferSet;
namespace fx = loom::sched::test;

namespace {

Schedule compile_with(const FrozenTopology& t, const TransferSet& set, const SchedulerConfig& cfg, bool reuse) {
    // The scheduler keeps references to the machine's descriptions: they must outlive it.
    const LinkClassTiming links{};
    const ChipConfig chip{};
    loom::sched::detail::Scheduler s(t, links, chip, set, cfg);
    s.reuse_known_busy(reuse);
    return s.run();
}

void require_same(const Schedule& a, const Schedule& b) {
    REQUIRE(a.makespan == b.makespan);
    REQUIRE(a.reservations.size() == b.reservations.size());
    for (std::size_t i = 0; i < a.reservations.size(); ++i) {
        const auto& x = a.reservations[i];
        const auto& y = b.reservations[i];
        INFO("reservation " << i);
        REQUIRE(std::tie(x.channel, x.start, x.end, x.transfer, x.first_vector, x.count) ==
                std::tie(y.channel, y.start, y.end, y.transfer, y.first_vector, y.count));
    }
    REQUIRE(a.programs.size() == b.programs.size());
    for (std::size_t p = 0; p < a.programs.size(); ++p) {
        const auto& x = a.programs[p].instructions;
        const auto& y = b.programs[p].instructions;
        REQUIRE(x.size() == y.size());
        for (std::size_t i = 0; i < x.size(); ++i) {
            INFO("program " << p << " instruction " << i);
            REQUIRE(std::tie(x[i].cycle, x[i].op, x[i].in_port, x[i].out_ports, x[i].transfer, x[i].first_vector,
                             x[i].count, x[i].address) == std::tie(y[i].cycle, y[i].op, y[i].in_port, y[i].out_ports,
                                                                   y[i].transfer, y[i].first_vector, y[i].count,
                                                                   y[i].address));
        }
    }
}

// Transfers between random TSPs of a node whose ready times crowd a few neighbouring clock cycles (a search then
// starts one cycle before, at, or one after the end of a range found busy before), some ordered after others.
TransferSet crowded(const FrozenTopology& t, std::uint32_t seed, std::int64_t count) {
    std::mt19937_64 rng(seed);
    const auto tsps = static_cast<std::int32_t>(t.num_vertices());
    std::uniform_int_distribution<std::int32_t> pick(0, tsps - 1);
    std::uniform_int_distribution<std::int64_t> vectors(1, 40);
    std::uniform_int_distribution<std::int64_t> cycle(0, 3);
    std::uniform_int_distribution<int> percent(0, 99);
    TransferSet set;
    for (std::int64_t i = 0; i < count; ++i) {
        const std::int32_t src = pick(rng);
        std::int32_t dst = pick(rng);
        if (dst == src) dst = (dst + 1) % tsps;
        // Edges of the 900 MHz clock are 1111 or 1112 ps apart: a ready time 1 ps either side of an edge.
        const Time earliest = Time::ps(cycle(rng) * 1111 + (percent(rng) < 50 ? 0 : 1));
        auto x = fx::transfer(static_cast<std::uint32_t>(i), src, {dst}, vectors(rng), {}, earliest);
        if (i > 0 && percent(rng) < 20) x.deps.push_back(static_cast<std::uint32_t>(percent(rng) % i));
        if (i > 0 && percent(rng) < 10) x.after.push_back(static_cast<std::uint32_t>(percent(rng) % i));
        x.src_address = i * 64 * 320;
        x.dst_address = i * 64 * 320;
        set.transfers.push_back(std::move(x));
    }
    return set;
}

}  // namespace

TEST_CASE("Searches starting past known busy Send cycles give the schedule of searches from scratch on a node") {
    const FrozenTopology t = fx::node_of(8);
    for (std::int64_t seed = 1; seed <= 4; ++seed) {
        for (const bool staging : {false, true}) {
            INFO("seed " << seed << " staging " << staging);
            SchedulerConfig cfg;
            cfg.staging = staging;
            const TransferSet set = fx::random_set(t, 120, loom::Bytes(8 << 10), seed, 1, 0.3);
            require_same(compile_with(t, set, cfg, true), compile_with(t, set, cfg, false));
        }
    }
}

TEST_CASE("Known busy Send cycles are reused exactly when ready times fall a cycle either side of a known range") {
    const FrozenTopology t = fx::node_of(4);
    for (std::uint32_t seed = 1; seed <= 6; ++seed) {
        INFO("seed " << seed);
        const TransferSet set = crowded(t, seed, 80);
        require_same(compile_with(t, set, SchedulerConfig{}, true), compile_with(t, set, SchedulerConfig{}, false));
    }
}

TEST_CASE("Known busy Send cycles are reused exactly for fan-out trees and multi-hop paths of the 264-TSP system") {
    const FrozenTopology t = fx::system264();
    for (std::int64_t seed = 1; seed <= 2; ++seed) {
        for (const std::int32_t fanout : {1, 3}) {
            INFO("seed " << seed << " fanout " << fanout);
            const TransferSet set = fx::random_set(t, 60, loom::Bytes(16 << 10), seed, fanout, 0.2);
            require_same(compile_with(t, set, SchedulerConfig{}, true), compile_with(t, set, SchedulerConfig{}, false));
        }
    }
}

TEST_CASE("Skipping Send cycles by the hops' offsets and remembered answers give the schedule of plain searches") {
    // As bench/sched_bench.cpp BM_CompileNode, smaller: every transfer ready at time 0, so placement books each into
    // an ever more fragmented table and most searches step over many busy gaps.
    const FrozenTopology t = fx::node_of(8);
    for (std::int64_t seed = 1; seed <= 2; ++seed) {
        for (const bool staging : {false, true}) {
            INFO("seed " << seed << " staging " << staging);
            SchedulerConfig cfg;
            cfg.staging = staging;
            const TransferSet set = fx::random_set(t, 600, loom::Bytes(32 << 10), seed, 1, 0.0);
            require_same(compile_with(t, set, cfg, true), compile_with(t, set, cfg, false));
        }
    }
}
