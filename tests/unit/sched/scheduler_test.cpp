#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <string>
#include <tuple>
#include <vector>

#include "loom/base/error.hpp"
#include "loom/sched/scheduler.hpp"
#include "loom/sched/verifier.hpp"
#include "sched_fixtures.hpp"

using namespace loom::literals;
using loom::Time;
using loom::sched::compile;
using loom::sched::Instruction;
using loom::sched::Op;
using loom::sched::Schedule;
using loom::sched::SchedulerConfig;
using loom::sched::verify;
using loom::topo::ChipConfig;
using loom::topo::FrozenTopology;
using loom::topo::LinkClassTiming;
using loom::workload::TransferSet;
namespace fx = loom::sched::test;

namespace {

const loom::sched::TspProgram* program(const Schedule& s, std::uint32_t tsp) {
    for (const auto& p : s.programs) {
        if (p.tsp == tsp) return &p;
    }
    return nullptr;
}

std::vector<Instruction> ops(const Schedule& s, std::uint32_t tsp, Op op, std::uint32_t transfer) {
    std::vector<Instruction> out;
    if (const auto* p = program(s, tsp)) {
        for (const auto& i : p->instructions) {
            if (i.op == op && i.transfer == transfer) out.push_back(i);
        }
    }
    return out;
}

std::vector<std::string> check(const Schedule& s, const FrozenTopology& t, const TransferSet& set,
                               const ChipConfig& chip = {}, const LinkClassTiming& links = {}) {
    return verify(s, t, links, chip, &set);
}

}  // namespace

// Two TSPs, one link (TSP 0 port 0 <-> TSP 1 port 0), three vectors at time 0:
//  Send at cycle 0, train start edge(0) = 0; the link is busy over [0, 3 x 26240) = [0, 78720).
//  Arrivals a_i = 26240 i + 497750: 523990, 550230, 576470 (the makespan).
//  Available at the next core edge: edge(472) = 524444, edge(496) = 551111, edge(519) = 576666.
//  Receive: the first cycle m with edge(m) >= v_i - S(i-1) for every i: max(524444, 524871, 524186) = 524871,
//  so m = 473 (edge 525555; edge 472 = 524444 would leave vector 2 late).
TEST_CASE("A three-vector transfer between two TSPs is sent at cycle 0 and received at cycle 473") {
    const FrozenTopology t = fx::node_of(2);
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {1}, 3));
    set.transfers[0].src_address = 640;
    set.transfers[0].dst_address = 6400;
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);

    const auto sends = ops(s, 0, Op::Send, 0);
    REQUIRE(sends.size() == 1);
    CHECK(sends[0].cycle == 0);
    CHECK(sends[0].out_ports == 0b1);
    CHECK(sends[0].count == 3);
    CHECK(sends[0].address == 640);
    const auto receives = ops(s, 1, Op::Receive, 0);
    REQUIRE(receives.size() == 1);
    CHECK(receives[0].cycle == 473);
    CHECK(receives[0].in_port == 0);
    CHECK(receives[0].address == 6400);

    REQUIRE(s.reservations.size() == 1);
    CHECK(s.reservations[0].channel == static_cast<std::uint32_t>(t.channel_at(0, 0)));
    CHECK(s.reservations[0].start == Time::zero());
    CHECK(s.reservations[0].end == Time::ps(78'720));
    REQUIRE(s.predicted.size() == 1);
    CHECK(s.predicted[0].tsp == 1);
    CHECK(s.predicted[0].train_start == Time::zero());
    CHECK(s.predicted[0].final_destination);
    CHECK(s.makespan == Time::ps(576'470));
    CHECK(check(s, t, set).empty());
}

// The chain 0 - 1 - 2 forces a forward at TSP 1. It issues at the first edge m with edge(m) >= max_i (v_i - S(i-1))
// = 524871 (the same arrivals as above): m = 473 (edge 525555), and its train on 1 -> 2 starts forward_cycles
// later, at edge(473 + 178) = 723333. At TSP 2, arrivals are 723333 + 26240 i + 497750 = 1247323, 1273563,
// 1299803, available at edge(1123) = 1247777, edge(1147) = 1274444, edge(1170) = 1300000;
// max(v_i - S(i-1)) = 1248204, so the Receive issues at cycle 1124 (edge 1248888).
TEST_CASE("A forward on a two-hop path issues at the earliest cycle its vectors allow") {
    const FrozenTopology t = fx::chain3();
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {2}, 3));
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);

    const auto fwd = ops(s, 1, Op::Forward, 0);
    REQUIRE(fwd.size() == 1);
    CHECK(fwd[0].cycle == 473);
    CHECK(fwd[0].in_port == 0);
    CHECK(fwd[0].out_ports == 0b10);
    const auto rcv = ops(s, 2, Op::Receive, 0);
    REQUIRE(rcv.size() == 1);
    CHECK(rcv[0].cycle == 1124);
    REQUIRE(s.reservations.size() == 2);
    const auto second = std::find_if(s.reservations.begin(), s.reservations.end(), [&](const auto& r) {
        return r.channel == static_cast<std::uint32_t>(t.channel_at(1, 1));
    });
    REQUIRE(second != s.reservations.end());
    CHECK(second->start == Time::ps(723'333));
    CHECK(second->end == Time::ps(723'333 + 78'720));
    CHECK(s.makespan == Time::ps(1'299'803));
    CHECK(check(s, t, set).empty());
}

// One link, n = 10000 vectors: the makespan is S(n) + latency = 262400000 + 497750 ps; the lower bound's chain
// part is the same (one port each side: the last vector leaves after S(n), then needs the link latency), so the
// efficiency is exactly 1. The busiest link is busy for S(n).
TEST_CASE("One big transfer on one link has efficiency 1 and a lower bound of its serialization plus latency") {
    const FrozenTopology t = fx::node_of(2);
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {1}, 10'000));
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    CHECK(s.makespan == Time::ps(262'400'000 + fx::kLatencyPs));
    CHECK(s.bound.busiest_link == Time::ps(262'400'000));
    CHECK(s.bound.tsp_bandwidth == Time::ps(262'400'000));
    CHECK(s.bound.dependency_chain == Time::ps(262'400'000 + fx::kLatencyPs));
    CHECK(s.lower_bound == s.makespan);
    CHECK(s.efficiency() == Approx(1.0));
    REQUIRE(s.transfers.size() == 1);
    CHECK(s.transfers[0].trains == 1);
    CHECK(check(s, t, set).empty());
}

// Transfer 1 finds the link busy until 78720 ps: its Send issues at the first cycle whose edge is not earlier,
// edge(71) = 78888 (edge(70) = 77777).
TEST_CASE("A second transfer on a busy link is sent at the first edge after the link frees") {
    const FrozenTopology t = fx::node_of(2);
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {1}, 3));
    set.transfers.push_back(fx::transfer(1, 0, {1}, 3));
    set.transfers[1].dst_address = 960;
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    const auto second = ops(s, 0, Op::Send, 1);
    REQUIRE(second.size() == 1);
    CHECK(second[0].cycle == 71);
    // Both receives claim port 0 in arrival order.
    const auto* p = program(s, 1);
    REQUIRE(p != nullptr);
    REQUIRE(p->instructions.size() == 2);
    CHECK(p->instructions[0].transfer == 0);
    CHECK(p->instructions[1].transfer == 1);
    CHECK(check(s, t, set).empty());
}

// On 0 - 1 - 2, transfer 0 ends at TSP 1 (a Receive issued when its vector is there), and transfer 1 passes
// through TSP 1 (a Forward, issued when its vector is there too). Both arrive on TSP 1's port 0, so the Forward
// must not issue before the Receive. Since a Forward waits for its vector (contract rule 5), arrival order
// already gives that order: transfer 1 goes right behind transfer 0 (edge(24) = 26666 >= 26240), undelayed.
TEST_CASE("Consumers on one port issue in the order their trains arrive") {
    const FrozenTopology t = fx::chain3();
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {1}, 1));
    set.transfers.push_back(fx::transfer(1, 0, {2}, 1));
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    const auto rcv = ops(s, 1, Op::Receive, 0);
    const auto fwd = ops(s, 1, Op::Forward, 1);
    REQUIRE(rcv.size() == 1);
    REQUIRE(fwd.size() == 1);
    CHECK(fwd[0].cycle >= rcv[0].cycle);
    CHECK(ops(s, 0, Op::Send, 1)[0].cycle == 24);
    CHECK(check(s, t, set).empty());
}

TEST_CASE("No link is double-booked and every check holds for random workloads on a node over 50 seeds") {
    const FrozenTopology t = fx::node_of(8);
    for (std::int64_t seed = 1; seed <= 50; ++seed) {
        const auto bytes = loom::Bytes(320 * (1 + (seed * 37) % 200));
        const TransferSet set = fx::random_set(t, 24, bytes, seed, seed % 5 == 0 ? 3 : 1, seed % 3 == 0 ? 0.3 : 0.0);
        const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
        const auto problems = check(s, t, set);
        INFO("seed " << seed << ": " << (problems.empty() ? std::string() : problems.front()));
        CHECK(problems.empty());
        CHECK(s.lower_bound <= s.makespan);
    }
}

TEST_CASE("No link is double-booked and every check holds for random workloads on the 264-TSP system over 50 seeds") {
    const FrozenTopology t = fx::system264();
    for (std::int64_t seed = 1; seed <= 50; ++seed) {
        const auto bytes = loom::Bytes(320 * (1 + (seed * 53) % 300));
        const TransferSet set = fx::random_set(t, 60, bytes, seed, seed % 5 == 0 ? 4 : 1, seed % 3 == 0 ? 0.3 : 0.0);
        const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
        const auto problems = check(s, t, set);
        INFO("seed " << seed << ": " << (problems.empty() ? std::string() : problems.front()));
        CHECK(problems.empty());
        CHECK(s.lower_bound <= s.makespan);
    }
}

// TSP 0 (node 0) to TSP 13 (node 1, index 5). In the 264-TSP system one link joins two nodes, so the minimal
// path (local - global - local) is the only one; a big tensor also uses detours through other nodes.
TEST_CASE("A large tensor between TSPs of different nodes spreads over non-minimal paths") {
    const FrozenTopology t = fx::system264();
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {13}, 4000));
    const Schedule spread = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    SchedulerConfig minimal_only;
    minimal_only.allow_nonminimal = false;
    const Schedule direct = compile(t, LinkClassTiming{}, ChipConfig{}, set, minimal_only);
    REQUIRE(spread.transfers.size() == 1);
    CHECK(spread.transfers[0].paths > 1);
    CHECK(spread.transfers[0].nonminimal_vectors > 0);
    CHECK(direct.transfers[0].paths == 1);
    CHECK(direct.transfers[0].nonminimal_vectors == 0);
    CHECK(spread.makespan < direct.makespan);
    CHECK(check(spread, t, set).empty());
    CHECK(check(direct, t, set).empty());
}

TEST_CASE("A single vector between TSPs of different nodes takes only the minimal path") {
    const FrozenTopology t = fx::system264();
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {13}, 1));
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    REQUIRE(s.transfers.size() == 1);
    CHECK(s.transfers[0].paths == 1);
    CHECK(s.transfers[0].nonminimal_vectors == 0);
    CHECK(check(s, t, set).empty());
}

TEST_CASE("Inside a node a large tensor spreads over two-hop detours through other TSPs") {
    const FrozenTopology t = fx::node_of(8);
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {1}, 2000));
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    CHECK(s.transfers[0].paths > 1);
    CHECK(s.transfers[0].nonminimal_vectors > 0);
    CHECK(s.makespan < Time::ps(2000 * fx::kVectorPs + fx::kLatencyPs));
    CHECK(check(s, t, set).empty());
}

TEST_CASE("A transfer starts only after its dependencies are in memory plus its compute time") {
    const FrozenTopology t = fx::node_of(4);
    TransferSet set;
    set.transfers.push_back(fx::transfer(7, 0, {1}, 50));
    set.transfers.push_back(fx::transfer(8, 1, {2}, 50, {7}));
    set.transfers.push_back(fx::transfer(9, 3, {2}, 10, {7, 8}, 1_us));
    set.transfers[1].compute_before = 2_us;
    set.transfers[2].dst_address = 320 * 100;
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    REQUIRE(s.transfers.size() == 3);
    const auto& a = s.transfers[0];
    const auto& b = s.transfers[1];
    const auto& c = s.transfers[2];
    CHECK(a.transfer == 7);
    CHECK(b.ready == a.completion + 2_us);
    CHECK(b.first_issue >= b.ready);
    CHECK(c.ready == std::max(a.completion, b.completion));
    CHECK(c.first_issue >= c.ready);
    CHECK(a.completion >= a.last_arrival);
    // The chain bound: a, then 2 us of compute, then b.
    CHECK(s.bound.dependency_chain > 2_us);
    CHECK(check(s, t, set).empty());
}

// Two 50-vector sums into the same slots of TSP 0, from TSPs 1 and 2 over different links: the second is ordered
// `after` the first, so it may leave before the first is in memory, but TSP 0 consumes it only once the first's
// last vector is written (a Reduce reads its operands at issue).
TEST_CASE("A sum ordered after another travels early but is consumed only after the other's last write") {
    const FrozenTopology t = fx::node_of(3);
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 1, {0}, 50));
    set.transfers.push_back(fx::transfer(1, 2, {0}, 50));
    for (auto& x : set.transfers) x.combine = loom::workload::Combine::Sum;
    set.transfers[1].after = {0};
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    REQUIRE(s.transfers.size() == 2);
    const auto& a = s.transfers[0];
    const auto& b = s.transfers[1];
    CHECK(b.ready == Time::zero());
    CHECK(b.first_issue < a.completion);  // no waiting for the first to land before sending
    const auto reduces = ops(s, 0, Op::Reduce, 1);
    REQUIRE_FALSE(reduces.empty());
    const loom::ClockDomain clock = ChipConfig{}.clock();
    for (const Instruction& r : reduces) CHECK(clock.edge(r.cycle) > a.completion);
    // ... and at the first cycle after it: one cycle earlier would read the first sum's slots before it is written.
    std::int64_t first = reduces.front().cycle;
    for (const Instruction& r : reduces) first = std::min(first, r.cycle);
    CHECK(clock.edge(first - 1) <= a.completion);
    // The chain bound counts the ordering: b completes after a.
    CHECK(s.bound.dependency_chain > a.completion - a.ready - 1_us);
    CHECK(check(s, t, set).empty());
}

TEST_CASE("Compiling the same input twice gives the same schedule") {
    const FrozenTopology t = fx::system264();
    const TransferSet set = fx::random_set(t, 80, loom::Bytes(320 * 150), 11, 1, 0.2);
    const Schedule a = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    const Schedule b = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    REQUIRE(a.programs.size() == b.programs.size());
    for (std::size_t p = 0; p < a.programs.size(); ++p) {
        REQUIRE(a.programs[p].tsp == b.programs[p].tsp);
        REQUIRE(a.programs[p].instructions.size() == b.programs[p].instructions.size());
        for (std::size_t i = 0; i < a.programs[p].instructions.size(); ++i) {
            const auto& x = a.programs[p].instructions[i];
            const auto& y = b.programs[p].instructions[i];
            REQUIRE(std::tie(x.cycle, x.op, x.in_port, x.out_ports, x.transfer, x.first_vector, x.count, x.address) ==
                    std::tie(y.cycle, y.op, y.in_port, y.out_ports, y.transfer, y.first_vector, y.count, y.address));
        }
    }
    REQUIRE(a.reservations.size() == b.reservations.size());
    for (std::size_t r = 0; r < a.reservations.size(); ++r) {
        CHECK(std::tie(a.reservations[r].channel, a.reservations[r].start, a.reservations[r].end) ==
              std::tie(b.reservations[r].channel, b.reservations[r].start, b.reservations[r].end));
    }
    CHECK(a.predicted.size() == b.predicted.size());
    CHECK(a.makespan == b.makespan);
    CHECK(a.lower_bound == b.lower_bound);
}

// A node of 8 TSPs is a full mesh: a fan-out to three TSPs is one Send on three ports.
TEST_CASE("A fan-out inside a node is one train sent on several ports at once") {
    const FrozenTopology t = fx::node_of(8);
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 2, {0, 5, 7}, 20));
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    const auto sends = ops(s, 2, Op::Send, 0);
    REQUIRE(sends.size() == 1);
    CHECK(std::popcount(sends[0].out_ports) == 3);
    for (std::uint32_t d : {0u, 5u, 7u}) CHECK(ops(s, d, Op::Receive, 0).size() == 1);
    CHECK(check(s, t, set).empty());
}

// From node 0 to three TSPs of node 1: the trains share the only node-to-node link and branch in node 1.
TEST_CASE("A fan-out to another node shares the global link and branches at a forwarding TSP") {
    const FrozenTopology t = fx::system264();
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {9, 10, 11}, 30));
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    int branching = 0;
    for (const auto& p : s.programs) {
        for (const auto& i : p.instructions) {
            if (i.op == Op::Forward && std::popcount(i.out_ports) >= 2) ++branching;
        }
    }
    CHECK(branching >= 1);
    CHECK(ops(s, 0, Op::Send, 0).size() == 1);
    for (std::uint32_t d : {9u, 10u, 11u}) CHECK(ops(s, d, Op::Receive, 0).size() == 1);
    CHECK(check(s, t, set).empty());
}

// 3 - 0 - 1 - 2. Transfer A keeps 1 -> 2 busy until 10.5 us; F keeps 3 -> 0 busy until 5.2 us, so B (3 -> 1)
// crosses 0 -> 1 from about 5.8 us to 16.3 us. C (0 -> 2, 10 vectors) cannot cut through before B is done,
// since 0 -> 1 and 1 -> 2 are never free together before then; staged at TSP 1 it crosses 0 -> 1 at once and
// 1 -> 2 when A is done.
TEST_CASE("Staging through an intermediate TSP's memory is used when it completes a tensor earlier") {
    const FrozenTopology t = fx::custom(4, {{0, 1}, {1, 2}, {3, 0}});
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 3, {0}, 200));  // F
    set.transfers.push_back(fx::transfer(1, 1, {2}, 400));  // A
    set.transfers.push_back(fx::transfer(2, 3, {1}, 400));  // B
    set.transfers.push_back(fx::transfer(3, 0, {2}, 10));   // C
    set.transfers[3].dst_address = 400 * 320;
    const Schedule plain = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    SchedulerConfig staged;
    staged.staging = true;
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set, staged);
    CHECK(plain.transfers[3].staged_vectors == 0);
    CHECK(s.transfers[3].staged_vectors == 10);
    CHECK(s.transfers[3].last_arrival < plain.transfers[3].last_arrival);
    CHECK(s.transfers[0].staged_vectors == 0);
    // TSP 1 receives C into the staging area (the top 16 MiB of its memory) and sends it on.
    const auto rcv = ops(s, 1, Op::Receive, 3);
    REQUIRE(rcv.size() == 1);
    CHECK(rcv[0].address >= (220LL << 20) - (16LL << 20));
    const auto snd = ops(s, 1, Op::Send, 3);
    REQUIRE(snd.size() == 1);
    CHECK(snd[0].address == rcv[0].address);
    CHECK(check(s, t, set).empty());
    CHECK(check(plain, t, set).empty());
}

// With a jitter allowance J the Receive waits until the vectors are available even if each arrives J late.
// Three vectors, J = 5 ns: latest availability edge(ceil((a_i + 5000) 9 / 10^4)): a_1 + 5000 = 528990 -> edge
// 477 = 530000; a_2 + 5000 = 555230 -> edge 500 = 555555; a_3 + 5000 = 581470 -> edge 524 = 582222;
// minus S(i-1): 530000, 529315, 529742 -> cycle 477.
TEST_CASE("A jitter allowance delays each consumer until late vectors are available") {
    const FrozenTopology t = fx::node_of(2);
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {1}, 3));
    SchedulerConfig cfg;
    cfg.jitter_allowance = 5_ns;
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set, cfg);
    CHECK(s.jitter_allowance == 5_ns);
    const auto rcv = ops(s, 1, Op::Receive, 0);
    REQUIRE(rcv.size() == 1);
    CHECK(rcv[0].cycle == 477);
    CHECK(s.makespan == Time::ps(576'470));  // predictions do not include jitter
    CHECK(check(s, t, set).empty());
}

TEST_CASE("Issue and crossing cycles delay the train and the consumer as the contract says") {
    const FrozenTopology t = fx::node_of(2);
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {1}, 1));
    ChipConfig chip;
    chip.issue_cycles = 9;    // train starts at edge(9) = 10000
    chip.crossing_cycles = 2;  // available two edges after the first edge at or after arrival
    const Schedule s = compile(t, LinkClassTiming{}, chip, set);
    // Arrival 10000 + 26240 + 497750 = 533990 -> edge 481 (534444) + 2 = edge 483 (536666): Receive at 483.
    REQUIRE(s.reservations.size() == 1);
    CHECK(s.reservations[0].start == Time::ps(10'000));
    CHECK(ops(s, 1, Op::Receive, 0)[0].cycle == 483);
    CHECK(s.makespan == Time::ps(533'990));
    CHECK(check(s, t, set, chip).empty());
}

TEST_CASE("A long train is split when max_train_vectors says so") {
    const FrozenTopology t = fx::node_of(2);
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {1}, 1000));
    SchedulerConfig cfg;
    cfg.max_train_vectors = 300;
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set, cfg);
    const auto sends = ops(s, 0, Op::Send, 0);
    CHECK(sends.size() == 4);
    for (const auto& i : sends) CHECK(i.count <= 300);
    CHECK(check(s, t, set).empty());
}

TEST_CASE("An invalid transfer set is rejected with its JSON Pointer") {
    const FrozenTopology t = fx::node_of(2);
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {0}, 1));
    try {
        compile(t, LinkClassTiming{}, ChipConfig{}, set);
        FAIL("expected a ConfigError");
    } catch (const loom::ConfigError& e) {
        REQUIRE(e.messages().size() == 1);
        CHECK(e.messages()[0].rfind("/workload/transfers/0/dsts/0: self-transfer", 0) == 0);
    }
}

TEST_CASE("Links of a different rate on one path are handled with shorter trains") {
    // In-node links at 4 x 25 Gbps, the 264 system's node-to-node links at 4 x 25.78125 Gbps.
    const FrozenTopology t = fx::system264();
    LinkClassTiming links;
    links.rack_to_rack.lane_rate = loom::Bandwidth::bps(25'781'250'000);
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {13}, 700));
    SchedulerConfig cfg;
    cfg.allow_nonminimal = false;
    const Schedule s = compile(t, links, ChipConfig{}, set, cfg);
    CHECK(ops(s, 0, Op::Send, 0).size() >= 3);
    CHECK(verify(s, t, links, ChipConfig{}, &set).empty());
}

TEST_CASE("A clock offset is scheduled exactly with the offset clock") {
    const FrozenTopology t = fx::chain3();
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {2}, 600));
    ChipConfig chip;
    chip.clock_offset_ppm = 37.5;
    const Schedule s = compile(t, LinkClassTiming{}, chip, set);
    CHECK(verify(s, t, LinkClassTiming{}, chip, &set).empty());
    CHECK(ops(s, 0, Op::Send, 0).size() >= 3);
}

TEST_CASE("Every check holds on a rack with staging, jitter, issue and crossing cycles over 20 seeds") {
    loom::topo::TspTopologyConfig rc;
    rc.kind = loom::topo::TspKind::Rack;
    const FrozenTopology t = loom::topo::build_tsp_topology(rc);
    ChipConfig chip;
    chip.issue_cycles = 3;
    chip.crossing_cycles = 2;
    LinkClassTiming links;
    links.in_rack.jitter = 4_ns;
    SchedulerConfig cfg;
    cfg.staging = true;
    cfg.max_paths = 4;
    for (std::int64_t seed = 1; seed <= 20; ++seed) {
        const TransferSet set = fx::random_set(t, 40, loom::Bytes(320 * (1 + (seed * 71) % 400)), seed,
                                               seed % 4 == 0 ? 3 : 1, 0.25);
        const Schedule s = compile(t, links, chip, set, cfg);
        CHECK(s.jitter_allowance == 4_ns);
        const auto problems = verify(s, t, links, chip, &set);
        INFO("seed " << seed << ": " << (problems.empty() ? std::string() : problems.front()));
        CHECK(problems.empty());
        CHECK(s.lower_bound <= s.makespan);
    }
}

// A slow clock crossing (30 cycles, 33 ns: longer than a vector's 26.24 ns) and 40 ns of jitter keep vectors in
// the FIFO long enough that trains must be cut short and spaced out to fit a FIFO of one or two vectors.
TEST_CASE("Every check holds with shallow FIFOs and a slow clock crossing over 30 seeds") {
    const FrozenTopology t = fx::node_of(4);
    for (std::int32_t depth : {1, 2}) {
        ChipConfig chip;
        chip.fifo_depth = depth;
        chip.crossing_cycles = 30;
        SchedulerConfig cfg;
        cfg.jitter_allowance = 40_ns;
        for (std::int64_t seed = 1; seed <= 30; ++seed) {
            const TransferSet set =
                fx::random_set(t, 20, loom::Bytes(320 * (1 + seed % 20)), seed, seed % 3 == 0 ? 2 : 1, 0.2);
            const Schedule s = compile(t, LinkClassTiming{}, chip, set, cfg);
            const auto problems = verify(s, t, LinkClassTiming{}, chip, &set);
            INFO("depth " << depth << " seed " << seed << ": " << (problems.empty() ? std::string() : problems.front()));
            CHECK(problems.empty());
            if (depth == 1) {
                // Each vector stays longer than the next takes to arrive: every train is a single vector.
                for (const auto& p : s.programs) {
                    for (const auto& i : p.instructions) CHECK(i.count == 1);
                }
            }
        }
    }
}

TEST_CASE("An empty workload compiles to an empty schedule with efficiency 1") {
    const FrozenTopology t = fx::node_of(2);
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, TransferSet{});
    CHECK(s.programs.empty());
    CHECK(s.reservations.empty());
    CHECK(s.makespan == Time::zero());
    CHECK(s.efficiency() == 1.0);
    CHECK(verify(s, t, LinkClassTiming{}, ChipConfig{}).empty());
}

TEST_CASE("A transfer between TSPs that no path joins is a model error naming both") {
    const FrozenTopology t = fx::custom(3, {{0, 1}});
    TransferSet set;
    set.transfers.push_back(fx::transfer(5, 0, {2}, 1));
    CHECK_THROWS_WITH(compile(t, LinkClassTiming{}, ChipConfig{}, set),
                      "transfer 5: no path from TSP 0 (node0.tsp0) to TSP 2 (node0.tsp2)");
}

// On 0 - 1 - 2 a fan-out to {1, 2} cannot forward through TSP 1 and also deliver there: TSP 1 receives the
// tensor, then sends it on to TSP 2 from where it wrote it, once all of it is there.
TEST_CASE("A fan-out through one of its destinations relays the tensor from that destination's memory") {
    const FrozenTopology t = fx::chain3();
    TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {2, 1}, 5));
    set.transfers[0].dst_address = 3200;
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    const auto rcv1 = ops(s, 1, Op::Receive, 0);
    const auto relay = ops(s, 1, Op::Send, 0);
    REQUIRE(rcv1.size() == 1);
    REQUIRE(relay.size() == 1);
    CHECK(relay[0].address == 3200);
    CHECK(relay[0].cycle > rcv1[0].cycle);
    CHECK(ops(s, 1, Op::Forward, 0).empty());
    CHECK(ops(s, 2, Op::Receive, 0).size() == 1);
    CHECK(s.transfers[0].trains == 1);
    CHECK(check(s, t, set).empty());
}

// On 0 - 1 - 2 with three vectors: arrivals at TSP 1 are 523990, 550230, 576470 ps (train at 0), at TSP 2 1247323,
// 1273563, 1299803 ps (train at 723333).
TEST_CASE("Each vector's predicted arrival is its train's start plus its serialization and the link latency") {
    const FrozenTopology t = fx::chain3();
    TransferSet set;
    set.transfers.push_back(fx::transfer(4, 0, {2}, 3));
    const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    REQUIRE(s.predicted.size() == 2);
    const LinkClassTiming links;
    for (const auto& run : s.predicted) {
        const auto& timing = links.timing(t.channel(static_cast<loom::topo::ChannelId>(run.channel)).link_class);
        REQUIRE(run.count == 3);
        if (run.tsp == 1) {
            CHECK(loom::sched::predicted_arrival(run, 0, timing) == Time::ps(523'990));
            CHECK(loom::sched::predicted_arrival(run, 2, timing) == Time::ps(576'470));
        } else {
            CHECK(run.tsp == 2);
            CHECK(run.final_destination);
            CHECK(loom::sched::predicted_arrival(run, 1, timing) == Time::ps(1'273'563));
            CHECK(loom::sched::predicted_arrival(run, 2, timing) == Time::ps(1'299'803));
        }
    }
}

TEST_CASE("Predicted runs come in (transfer, first vector, train start, channel) order, one per reserved hop") {
    // Dependencies commit transfers out of id order; the reversed sets also hold their ids out of position order.
    const FrozenTopology t = fx::system264();
    for (std::int64_t seed = 1; seed <= 12; ++seed) {
        TransferSet set = fx::random_set(t, 60, loom::Bytes(320 * (1 + (seed * 53) % 300)), seed,
                                         seed % 4 == 0 ? 3 : 1, 0.4);
        if (seed % 2 == 0) std::reverse(set.transfers.begin(), set.transfers.end());
        const Schedule s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
        INFO("seed " << seed);
        REQUIRE(s.predicted.size() == s.reservations.size());
        const auto run_key = [](const loom::sched::PredictedRun& r) {
            return std::tuple(r.transfer, r.first_vector, r.train_start, r.channel);
        };
        for (std::size_t i = 1; i < s.predicted.size(); ++i)
            REQUIRE(run_key(s.predicted[i - 1]) < run_key(s.predicted[i]));
        // The same (transfer, vectors, channel, start) as the reservations, one each.
        using Key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, Time>;
        std::vector<Key> runs;
        std::vector<Key> booked;
        for (const auto& r : s.predicted) runs.emplace_back(r.transfer, r.first_vector, r.count, r.channel, r.train_start);
        for (const auto& r : s.reservations) booked.emplace_back(r.transfer, r.first_vector, r.count, r.channel, r.start);
        std::sort(runs.begin(), runs.end());
        std::sort(booked.begin(), booked.end());
        CHECK(runs == booked);
        CHECK(check(s, t, set).empty());
    }
}
