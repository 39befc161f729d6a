#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>

#include "loom/sched/scheduler.hpp"
#include "loom/sched/verifier.hpp"
#include "sched_fixtures.hpp"

using loom::Time;
using loom::sched::compile;
using loom::sched::Op;
using loom::sched::Schedule;
using loom::sched::verify;
using loom::topo::ChipConfig;
using loom::topo::FrozenTopology;
using loom::topo::LinkClassTiming;
using loom::workload::TransferSet;
namespace fx = loom::sched::test;

namespace {

loom::sched::Instruction& find(Schedule& s, std::uint32_t tsp, Op op, std::uint32_t transfer) {
    for (auto& p : s.programs) {
        if (p.tsp != tsp) continue;
        for (auto& i : p.instructions) {
            if (i.op == op && i.transfer == transfer) return i;
        }
    }
    FAIL("instruction not found");
    throw 0;
}

bool any(const std::vector<std::string>& problems, const std::string& part) {
    return std::any_of(problems.begin(), problems.end(),
                       [&](const std::string& p) { return p.find(part) != std::string::npos; });
}

std::string all(const std::vector<std::string>& problems) {
    std::string s;
    for (const auto& p : problems) s += p + "\n";
    return s;
}

// Two transfers of 3 vectors from TSP 0 to TSP 1 of a two-TSP node: the second is sent at cycle 71.
Schedule two_transfers(const FrozenTopology& t, TransferSet& set) {
    set.transfers.push_back(fx::transfer(0, 0, {1}, 3));
    set.transfers.push_back(fx::transfer(1, 0, {1}, 3));
    set.transfers[1].dst_address = 960;
    return compile(t, LinkClassTiming{}, ChipConfig{}, set);
}

}  // namespace

TEST_CASE("The verifier accepts the schedules the scheduler makes") {
    const FrozenTopology t = fx::node_of(2);
    TransferSet set;
    const Schedule s = two_transfers(t, set);
    CHECK(verify(s, t, LinkClassTiming{}, ChipConfig{}, &set).empty());
}

TEST_CASE("The verifier reports a double-booked channel with the link, both transfers and the time") {
    const FrozenTopology t = fx::node_of(2);
    TransferSet set;
    Schedule s = two_transfers(t, set);
    find(s, 0, Op::Send, 1).cycle = 50;  // edge(50) = 55555 < 78720, the end of transfer 0's train
    const auto p = verify(s, t, LinkClassTiming{}, ChipConfig{});
    INFO(all(p));
    CHECK(any(p, "channel 0 (node0.tsp0 port 0 -> node0.tsp1 port 0) double-booked at 55555ps: transfer 0"));
    CHECK(any(p, "has no reservation"));
}

TEST_CASE("The verifier reports overlapping reservations") {
    const FrozenTopology t = fx::node_of(2);
    TransferSet set;
    Schedule s = two_transfers(t, set);
    REQUIRE(s.reservations.size() == 2);
    s.reservations[0].end = s.reservations[1].start + Time::ps(1);
    const auto p = verify(s, t, LinkClassTiming{}, ChipConfig{});
    INFO(all(p));
    CHECK(any(p, "double-booked at 78888ps: reservation [0ps, 78889ps) of transfer 0 overlaps"));
}

TEST_CASE("The verifier reports a forward that issues before its vectors are available") {
    const FrozenTopology t = fx::chain3();
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {2}, 3));
    Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    auto& fwd = find(s, 1, Op::Forward, 0);
    REQUIRE(fwd.cycle == 473);
    fwd.cycle = 472;  // issued at edge(472) = 524444, vector 2's slot (+26240) comes before it is available
    const auto p = verify(s, t, LinkClassTiming{}, ChipConfig{});
    INFO(all(p));
    CHECK(any(p, "TSP 1 (node0.tsp1) port 0: TSP 1 (node0.tsp1) forward #0 (cycle 472, transfer 0, vectors 0..2) is "
                 "late: transfer 0 vector 1 is available at 551111ps but needed by 550684ps"));
}

TEST_CASE("The verifier reports a receive that issues too early") {
    const FrozenTopology t = fx::node_of(2);
    TransferSet set;
    Schedule s = two_transfers(t, set);
    find(s, 1, Op::Receive, 0).cycle = 472;
    const auto p = verify(s, t, LinkClassTiming{}, ChipConfig{});
    INFO(all(p));
    CHECK(any(p, "receive #0 (cycle 472, transfer 0, vectors 0..2) is late"));
}

TEST_CASE("The verifier reports a clock-crossing FIFO overflow with the TSP, port and time") {
    const FrozenTopology t = fx::node_of(2);
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {1}, 10));
    Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    auto& rcv = find(s, 1, Op::Receive, 0);
    rcv.cycle += 200;  // 222 ns late: vectors keep arriving every 26.24 ns and wait
    const auto p = verify(s, t, LinkClassTiming{}, ChipConfig{});
    INFO(all(p));
    // Vectors arrive at 523990 + 26240 (i - 1); the fifth, at 628950 ps, finds four waiting.
    CHECK(any(p, "TSP 1 (node0.tsp1) port 0: clock-crossing FIFO overflow at 628950ps: 5 vectors held, depth 4"));
    // A deeper FIFO absorbs it.
    ChipConfig deep;
    deep.fifo_depth = 16;
    CHECK(verify(s, t, LinkClassTiming{}, deep).empty());
}

TEST_CASE("The verifier reports vectors nobody claims and instructions that wait for nothing") {
    const FrozenTopology t = fx::node_of(2);
    TransferSet set;
    Schedule s = two_transfers(t, set);
    auto& p1 = s.programs.back();
    REQUIRE(p1.tsp == 1);
    p1.instructions.erase(p1.instructions.begin() + 1);  // drop transfer 1's Receive
    auto p = verify(s, t, LinkClassTiming{}, ChipConfig{});
    CHECK(any(p, "port 0: 3 vectors arrive where no instruction expects them, the first transfer 1 vector 0 at "
                 "602878ps"));
    p1.instructions[0].count = 5;
    p = verify(s, t, LinkClassTiming{}, ChipConfig{});
    CHECK(any(p, "claims transfer 1 vector 0 (arrival order) where it names transfer 0 vector 3"));
}

TEST_CASE("The verifier reports predictions and reservations that disagree with the instructions") {
    const FrozenTopology t = fx::node_of(2);
    TransferSet set;
    Schedule s = two_transfers(t, set);
    s.predicted[0].train_start += Time::ps(1);
    s.reservations[1].count = 2;
    s.makespan = Time::ps(5);
    const auto p = verify(s, t, LinkClassTiming{}, ChipConfig{});
    INFO(all(p));
    CHECK(any(p, "predicted arrivals of the train of transfer 0 vectors 0..2"));
    CHECK(any(p, "reservation [78888ps, 157608ps) transfer 1 vectors 0+2 differs from the train"));
    CHECK(any(p, "makespan is 5ps"));
}

TEST_CASE("With the transfers the verifier checks delivery and dependency order") {
    const FrozenTopology t = fx::node_of(2);
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {1}, 3));
    set.transfers.push_back(fx::transfer(1, 1, {0}, 3, {0}));
    Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    REQUIRE(verify(s, t, LinkClassTiming{}, ChipConfig{}, &set).empty());
    find(s, 1, Op::Send, 1).cycle = 100;  // before transfer 0 is in memory
    find(s, 0, Op::Receive, 1).cycle = 700;
    const auto p = verify(s, t, LinkClassTiming{}, ChipConfig{}, &set);
    INFO(all(p));
    CHECK(any(p, "transfer 1: first Send issues at 111111ps before it is ready"));
}

TEST_CASE("The verifier caps its report and says how much it left out") {
    const FrozenTopology t = fx::node_of(2);
    TransferSet set;
    Schedule s = two_transfers(t, set);
    for (auto& r : s.reservations) r.transfer = 99;
    s.makespan = Time::ps(1);
    const auto p = verify(s, t, LinkClassTiming{}, ChipConfig{}, nullptr, 2);
    REQUIRE(p.size() == 3);
    CHECK(p[2] == "... and 1 more problems");
}

TEST_CASE("With the transfers the verifier checks that sums chained with after consume in order") {
    const FrozenTopology t = fx::node_of(3);
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {2}, 3));
    set.transfers.push_back(fx::transfer(1, 1, {2}, 3));
    for (auto& x : set.transfers) x.combine = loom::workload::Combine::Sum;
    set.transfers[1].after = {0};
    Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    REQUIRE(verify(s, t, LinkClassTiming{}, ChipConfig{}, &set).empty());
    // The second sum's Reduce moved to the first one's cycle: it would read the region before the first is added.
    find(s, 2, Op::Reduce, 1).cycle = find(s, 2, Op::Reduce, 0).cycle;
    const auto p = verify(s, t, LinkClassTiming{}, ChipConfig{}, &set);
    INFO(all(p));
    CHECK(any(p, "which it is ordered after"));
}

TEST_CASE("The verifier matches reservations and predicted runs to the trains whatever their order in the schedule") {
    const FrozenTopology t = fx::node_of(8);
    TransferSet set = fx::random_set(t, 60, loom::Bytes(320 * 5), 7, 2);
    Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    REQUIRE(verify(s, t, LinkClassTiming{}, ChipConfig{}, &set).empty());
    REQUIRE(s.reservations.size() > 20);
    // Predicted runs may come in any order: reversed (so every channel's runs are out of train order), the
    // schedule still passes.
    Schedule runs = s;
    std::reverse(runs.predicted.begin(), runs.predicted.end());
    CHECK(verify(runs, t, LinkClassTiming{}, ChipConfig{}, &set).empty());
    // Reservations must be sorted by (channel, start): reversed, that is reported, and they still match the trains
    // (no reservation reported as missing or different).
    Schedule res = s;
    std::reverse(res.reservations.begin(), res.reservations.end());
    const auto p = verify(res, t, LinkClassTiming{}, ChipConfig{}, &set, 1000);
    INFO(all(p));
    CHECK(any(p, "reservations are not sorted by (channel, start)"));
    CHECK_FALSE(any(p, "has no reservation"));
    CHECK_FALSE(any(p, "matches no instruction's train"));
    CHECK_FALSE(any(p, "differs from the train"));
    // One reservation moved: the train it belonged to has none.
    res.reservations.front().start += Time::ps(1);
    CHECK(any(verify(res, t, LinkClassTiming{}, ChipConfig{}, &set, 1000), "has no reservation"));
}

namespace {

// The verifier's messages with its closed form over evenly spaced runs and with the per-vector walk (the
// reference): they must be the same list.
void check_same(const Schedule& s, const FrozenTopology& t, const ChipConfig& chip, const TransferSet* set,
                std::size_t& found) {
    const auto fast = verify(s, t, LinkClassTiming{}, chip, set, 1000, true);
    const auto walk = verify(s, t, LinkClassTiming{}, chip, set, 1000, false);
    INFO(all(walk));
    REQUIRE(fast == walk);
    found += walk.size();
}

}  // namespace

TEST_CASE("The verifier's closed form over evenly spaced runs finds what the per-vector walk finds") {
    const FrozenTopology ring = fx::custom(6, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0}});
    const FrozenTopology node = fx::node_of(8);
    std::mt19937_64 rng(20261207);
    std::size_t found = 0;
    std::size_t clean = 0;
    for (int trial = 0; trial < 40; ++trial) {
        const FrozenTopology& t = trial % 2 == 0 ? ring : node;
        const auto vectors = static_cast<std::int64_t>(4 + rng() % 40);
        TransferSet set =
            fx::random_set(t, 12, loom::Bytes(320 * vectors), static_cast<std::int64_t>(trial), 1 + trial % 3);
        ChipConfig chip;
        chip.fifo_depth = static_cast<std::int32_t>(2 + rng() % 7);
        chip.crossing_cycles = static_cast<std::int64_t>(rng() % 3);
        Schedule s = compile(t, LinkClassTiming{}, chip, set);
        if (trial % 4 == 1) s.jitter_allowance = Time::ps(static_cast<std::int64_t>(rng() % 3000));
        std::size_t before = found;
        check_same(s, t, chip, &set, found);
        if (found == before) ++clean;
        // Consumers moved by a few cycles either way (late vectors, FIFO overflows), Sends moved (double-booked
        // channels, runs that overlap the next train), counts changed (claims of the wrong vectors).
        for (int m = 0; m < 6; ++m) {
            Schedule bad = s;
            const int moves = 1 + static_cast<int>(rng() % 4);
            for (int k = 0; k < moves; ++k) {
                auto& prog = bad.programs[rng() % bad.programs.size()];
                if (prog.instructions.empty()) continue;
                auto& ins = prog.instructions[rng() % prog.instructions.size()];
                switch (rng() % 4) {
                    case 0:
                        ins.cycle = std::max<std::int64_t>(0, ins.cycle - static_cast<std::int64_t>(rng() % 40));
                        break;
                    case 1: ins.cycle += static_cast<std::int64_t>(rng() % 400); break;
                    case 2:
                        ins.cycle = std::max<std::int64_t>(0, ins.cycle - static_cast<std::int64_t>(rng() % 3));
                        break;
                    default:
                        if (ins.count > 1) ins.count -= 1 + static_cast<std::uint32_t>(rng() % ins.count) / 2;
                        break;
                }
            }
            for (auto& prog : bad.programs)
                std::stable_sort(prog.instructions.begin(), prog.instructions.end(),
                                 [](const auto& a, const auto& b) { return a.cycle < b.cycle; });
            before = found;
            check_same(bad, t, chip, &set, found);
            if (found == before) ++clean;
        }
    }
    CHECK(found > 100);  // the moves broke schedules
    CHECK(clean > 20);   // and many stayed (or were) clean
}

TEST_CASE("A conflict inside an evenly spaced run the closed form checks is still found") {
    const FrozenTopology t = fx::node_of(2);
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {1}, 30));
    set.transfers.push_back(fx::transfer(1, 0, {1}, 30));
    set.transfers[1].dst_address = 320 * 40;
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    REQUIRE(verify(s, t, LinkClassTiming{}, ChipConfig{}, &set).empty());
    std::size_t found = 0;
    // The receive one cycle early: vector 29 (the run's last) is late.
    Schedule early = s;
    find(early, 1, Op::Receive, 0).cycle -= 1;
    check_same(early, t, ChipConfig{}, &set, found);
    CHECK(any(verify(early, t, LinkClassTiming{}, ChipConfig{}, &set), "receive #0 (cycle"));
    CHECK(any(verify(early, t, LinkClassTiming{}, ChipConfig{}, &set), "is late"));
    // The second train starts inside the first (double-booked): its vectors arrive while the first run's are
    // held.
    Schedule overlap = s;
    find(overlap, 0, Op::Send, 1).cycle = find(overlap, 0, Op::Send, 0).cycle + 300;
    check_same(overlap, t, ChipConfig{}, &set, found);
    CHECK(any(verify(overlap, t, LinkClassTiming{}, ChipConfig{}, &set), "double-booked"));
    // The second receive late by a few vectors: the FIFO overflows once the first run's vectors have left.
    Schedule full = s;
    find(full, 1, Op::Receive, 1).cycle += 120;
    check_same(full, t, ChipConfig{}, &set, found);
    CHECK(any(verify(full, t, LinkClassTiming{}, ChipConfig{}, &set), "clock-crossing FIFO overflow"));
    // The first receive later by 0..100 cycles (up to several vectors held when its run ends) and the second
    // train overlapping the first's end: the first run's held vectors, which the closed form leaves to its last
    // few walked ones, meet the second train's arrivals.
    std::size_t overflows = 0;
    for (std::int64_t delay = 0; delay <= 100; ++delay) {
        for (std::int64_t offset : {560, 640, 700, 720, 760}) {
            Schedule both = s;
            find(both, 1, Op::Receive, 0).cycle += delay;
            const std::int64_t shift = find(both, 0, Op::Send, 0).cycle + offset - find(both, 0, Op::Send, 1).cycle;
            find(both, 0, Op::Send, 1).cycle += shift;
            find(both, 1, Op::Receive, 1).cycle += shift;
            check_same(both, t, ChipConfig{}, &set, found);
            if (any(verify(both, t, LinkClassTiming{}, ChipConfig{}, &set), "FIFO overflow")) ++overflows;
        }
    }
    CHECK(overflows > 0);
    CHECK(found >= 3);
}

TEST_CASE("A forward's run checked in closed form leaves its held vectors in the FIFO for the next train") {
    // Two 30-vector transfers over TSP 0 -> 1 -> 2; the first forward (and receive) later by 0..100 cycles, so up
    // to several vectors wait at TSP 1 until their slots, and the second train moved to start before the first
    // ends: at its first arrival the first run's held vectors count (the closed form walks them one by one).
    const FrozenTopology t = fx::chain3();
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {2}, 30));
    set.transfers.push_back(fx::transfer(1, 0, {2}, 30));
    set.transfers[1].dst_address = 320 * 40;
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    REQUIRE(verify(s, t, LinkClassTiming{}, ChipConfig{}, &set).empty());
    std::size_t found = 0;
    std::size_t overflows = 0;
    for (std::int64_t delay = 0; delay <= 100; ++delay) {
        for (std::int64_t offset : {560, 640, 700, 760}) {
            Schedule both = s;
            find(both, 1, Op::Forward, 0).cycle += delay;
            find(both, 2, Op::Receive, 0).cycle += delay;
            const std::int64_t shift = find(both, 0, Op::Send, 0).cycle + offset - find(both, 0, Op::Send, 1).cycle;
            find(both, 0, Op::Send, 1).cycle += shift;
            find(both, 1, Op::Forward, 1).cycle += shift;
            find(both, 2, Op::Receive, 1).cycle += shift;
            check_same(both, t, ChipConfig{}, &set, found);
            if (any(verify(both, t, LinkClassTiming{}, ChipConfig{}, &set), "node0.tsp1) port 0: clock-crossing FIFO"))
                ++overflows;
        }
    }
    CHECK(overflows > 0);
}

TEST_CASE("Programs out of TSP order are reported as such and checked as they are in order") {
    const FrozenTopology t = fx::node_of(8);
    TransferSet set = fx::random_set(t, 40, loom::Bytes(320 * 9), 3, 2);
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    REQUIRE(verify(s, t, LinkClassTiming{}, ChipConfig{}, &set).empty());
    // Reversed: each port's consumers are sorted by one sort instead of per TSP range, to the same order.
    Schedule reversed = s;
    std::reverse(reversed.programs.begin(), reversed.programs.end());
    // Program indices name the instructions in messages, so a late receive is moved in both and compared.
    auto p = verify(reversed, t, LinkClassTiming{}, ChipConfig{}, &set, 1000);
    INFO(all(p));
    REQUIRE(!p.empty());
    for (const auto& m : p) CHECK(m.find("programs are not sorted by TSP") != std::string::npos);
    Schedule late = s;
    Schedule late_reversed = reversed;
    for (auto* x : {&late, &late_reversed})
        for (auto& prog : x->programs)
            for (auto& ins : prog.instructions)
                if (ins.op == Op::Receive) ins.cycle -= 3;
    const auto a = verify(late, t, LinkClassTiming{}, ChipConfig{}, &set, 1000);
    auto b = verify(late_reversed, t, LinkClassTiming{}, ChipConfig{}, &set, 1000);
    b.erase(std::remove_if(b.begin(), b.end(),
                           [](const std::string& m) { return m.find("programs are not sorted") != std::string::npos; }),
            b.end());
    REQUIRE(!a.empty());
    CHECK(std::is_permutation(a.begin(), a.end(), b.begin(), b.end()));
}
