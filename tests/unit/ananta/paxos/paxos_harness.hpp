// A deterministic simulated network for Paxos replicas (seeded loss, delay, duplication, reordering,
// partitions, crashes with torn durable writes, recoveries, dueling proposers) and the safety checker that
// watches it: one value chosen per slot, commits that agree with it, and (with the lease) one leader at a time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "loom/ananta/paxos/replica.hpp"
#include "loom/base/rng.hpp"

namespace loom::ananta::paxos::test {

// One randomized run's knobs. Times are scaled down from the defaults (1 ms heartbeats) to keep runs cheap.
struct RunSpec {
    std::uint64_t seed = 1;
    Config config;
    double loss = 0.0;       // per message
    double duplicate = 0.0;  // per message: a second copy with its own delay
    Time delay_min = Time::us(50);
    Time delay_max = Time::ms(1);  // delays drawn uniformly: messages overtake each other
    Time write_min = Time::us(10);
    Time write_max = Time::us(200);
    // Chaos phase [0, faults_until): every chaos_tick one draw of each fault below.
    Time faults_until = Time::ms(60);
    Time chaos_tick = Time::ms(1);
    double p_crash = 0.03;
    Time down_min = Time::ms(1);
    Time down_max = Time::ms(20);
    double p_partition = 0.05;  // redraw a two-sided partition (or heal, one time in three)
    double p_campaign = 0.05;   // a random live replica starts an election: dueling proposers
    double p_propose = 0.4;     // the client proposes a new value to a replica that believes it leads
    // After faults_until: no loss, no partition, crashed replicas recover except `stay_down` of them.
    std::uint32_t stay_down = 0;
    Time settle = Time::ms(80);
    // Liveness phase: from faults_until, the client submits `late_values` values and resubmits each to the
    // current leader every `resubmit` until every live replica has committed it.
    std::uint32_t late_values = 0;
    Time resubmit = Time::ms(2);
};

// A knob set drawn from `seed`: 3, 5 or 7 replicas, lease on or off (off: deposed on any higher ballot or only
// on a refused write), loss up to 30 %, duplicates up to 20 %.
RunSpec random_spec(std::uint64_t seed);

struct RunResult {
    std::vector<std::string> violations;  // safety (and end-of-run convergence) failures, first few
    std::uint64_t events = 0;
    std::uint64_t commits = 0;            // slots committed somewhere
    std::uint64_t leader_changes = 0;
    Time worst_late_commit;               // liveness: longest submit-to-commit-everywhere of a late value
    std::uint32_t late_committed = 0;
    bool ok() const { return violations.empty(); }
};

RunResult run(const RunSpec& spec);

}  // namespace loom::ananta::paxos::test
