#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "paxos_harness.hpp"

using namespace loom;
using namespace loom::ananta::paxos;

namespace {

#ifndef LOOM_PAXOS_DEFAULT_RUNS
#define LOOM_PAXOS_DEFAULT_RUNS 10000
#endif

std::uint64_t run_count() {
    if (const char* env = std::getenv("LOOM_PAXOS_RUNS")) return std::stoull(env);
    return LOOM_PAXOS_DEFAULT_RUNS;
}

std::string describe(const test::RunSpec& s, const test::RunResult& r) {
    std::string text = "seed " + std::to_string(s.seed) + ", " + std::to_string(s.config.replicas) +
                       " replicas, lease " + (s.config.leader_lease ? "on" : "off") + ":";
    for (const auto& v : r.violations) text += "\n  " + v;
    return text;
}

}  // namespace

TEST_CASE("Randomized runs with crashes partitions loss duplicates and dueling proposers never choose two values for a slot nor lose a committed entry") {
    const std::uint64_t runs = run_count();
    std::uint64_t commits = 0, events = 0, leader_changes = 0;
    for (std::uint64_t i = 0; i < runs; ++i) {
        const test::RunSpec spec = test::random_spec(derive(0x5afe'7a05ULL, i));
        const test::RunResult result = test::run(spec);
        if (!result.ok()) FAIL(describe(spec, result));
        commits += result.commits;
        events += result.events;
        leader_changes += result.leader_changes;
    }
    INFO(runs << " runs, " << events << " events, " << commits << " committed slots, " << leader_changes
              << " leadership changes");
    CHECK(commits > runs);          // the runs made progress, so the checker had something to check
    CHECK(leader_changes > runs);   // and leadership moved around
}

TEST_CASE("The safety checker catches an acceptor that ignores ballots") {
    std::uint64_t caught = 0;
    std::string example;
    for (std::uint64_t i = 0; i < 100; ++i) {
        test::RunSpec spec = test::random_spec(derive(0xb20c'e17ULL, i));
        spec.config.unsafe_ignore_ballots = true;
        const test::RunResult result = test::run(spec);
        if (!result.ok()) {
            ++caught;
            if (example.empty()) example = describe(spec, result);
        }
    }
    INFO(caught << " of 100 runs caught; first: " << example);
    CHECK(caught > 10);
}

TEST_CASE("With a stable majority and no faults after time T every value proposed from T commits at every live replica within a bound") {
    // Bound: a lease or election wait (<= 4 ms + 10 ms), a few dueling rounds, phase 1 over a log of some tens
    // of slots in 4-slot windows (round trips <= 3 ms plus writes), and the client's 2 ms resubmission period.
    const Time bound = Time::ms(120);
    const std::uint64_t runs = std::max<std::uint64_t>(1, run_count() / 20);  // 500, or 25 under sanitizers
    Time worst;
    for (std::uint64_t i = 0; i < runs; ++i) {
        test::RunSpec spec = test::random_spec(derive(0x11fe'0e55ULL, i));
        spec.stay_down = static_cast<std::uint32_t>(i % ((spec.config.replicas - 1) / 2 + 1));
        spec.late_values = 5;
        spec.settle = Time::ms(200);
        const test::RunResult result = test::run(spec);
        if (!result.ok()) FAIL(describe(spec, result));
        REQUIRE(result.late_committed == 5);
        worst = std::max(worst, result.worst_late_commit);
        if (result.worst_late_commit > bound)
            FAIL("seed " << spec.seed << ": a value took " << result.worst_late_commit.count() << " ps");
    }
    INFO("worst submit-to-commit-everywhere: " << worst.count() << " ps");
    CHECK(worst <= bound);
}

TEST_CASE("With the lease no two replicas ever lead at once even when lease holders crash and recover quickly") {
    const std::uint64_t runs = std::max<std::uint64_t>(1, run_count() / 10);
    std::uint64_t leader_changes = 0;
    for (std::uint64_t i = 0; i < runs; ++i) {
        test::RunSpec spec = test::random_spec(derive(0x1ea5'e000ULL, i));
        spec.config.leader_lease = true;
        spec.p_crash = 0.15;
        spec.down_min = Time::us(200);
        spec.down_max = Time::ms(3);
        spec.p_campaign = 0.3;
        const test::RunResult result = test::run(spec);
        if (!result.ok()) FAIL(describe(spec, result));
        leader_changes += result.leader_changes;
    }
    CHECK(leader_changes > runs);  // leases were won and lost throughout
}

TEST_CASE("A randomized run is reproducible from its seed") {
    const test::RunSpec spec = test::random_spec(42);
    const test::RunResult a = test::run(spec);
    const test::RunResult b = test::run(spec);
    CHECK(a.events == b.events);
    CHECK(a.commits == b.commits);
    CHECK(a.leader_changes == b.leader_changes);
}
