#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "loom/base/rng.hpp"
#include "loom/config/document.hpp"
#include "random_schedule.hpp"
#include "tsp_harness.hpp"

using namespace loom;
using namespace loom::literals;
using loom::config::Json;
using loom::tsp::ExecutionMode;
using loom::tsp::MachineConfig;
using loom::tsp::Program;
using loom::tsp::test::node_machine;
using loom::tsp::test::random_program;
using loom::tsp::test::run_config;
using loom::tsp::test::run_program;

namespace {

MachineConfig random_machine(Time jitter, double ber, std::int32_t tsps = 8) {
    MachineConfig m = node_machine(tsps);
    m.chip.fifo_depth = 32;  // the test scheduler does not plan FIFO occupancy
    m.links.in_node.jitter = jitter;
    m.links.in_node.bit_error_rate = ber;
    return m;
}

// Runs `p` in both modes and checks they agree: both pass with byte-identical stats, or both fail with the same
// message.
void check_modes_agree(const MachineConfig& m, const Program& p, std::uint64_t seed, bool must_pass) {
    const auto train = run_program(m, p, ExecutionMode::Train, seed);
    const auto vector = run_program(m, p, ExecutionMode::Vector, seed);
    INFO("seed " << seed << ": train: " << train.error << " | vector: " << vector.error);
    if (must_pass) REQUIRE(train.ok);
    REQUIRE(train.ok == vector.ok);
    if (train.ok) {
        CHECK(train.text == vector.text);
        // Train mode needs fewer events whenever a train has more than one vector.
        CHECK(train.events <= vector.events);
    } else {
        CHECK(train.error == vector.error);
        CHECK(train.exit_code == 3);
    }
}

}  // namespace

TEST_CASE("Train mode and vector mode give identical arrivals and stats on random valid schedules") {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const Program p = random_program(random_machine(Time::zero(), 0.0), seed);
        check_modes_agree(random_machine(Time::zero(), 0.0), p, seed, true);
    }
}

TEST_CASE("Train mode and vector mode agree with link jitter and bit errors") {
    for (std::uint64_t seed = 1; seed <= 25; ++seed) {
        const MachineConfig m = random_machine(Time::ns(3), 2e-4);
        check_modes_agree(m, random_program(m, seed), seed, true);
    }
}

namespace {

// Moves one random instruction by up to 40 cycles either way, or changes its count, and keeps its program in cycle
// order.
void perturb_one_instruction(Program& p, Rng& rng) {
    auto& prog = p.schedule.programs[rng.uniform(p.schedule.programs.size())];
    auto& ins = prog.instructions[rng.uniform(prog.instructions.size())];
    if (rng.bernoulli(0.7)) {
        ins.cycle = std::max<std::int64_t>(0, ins.cycle + rng.uniform_int(-40, 40));
    } else {
        ins.count = static_cast<std::uint32_t>(std::max<std::int64_t>(1, ins.count + rng.uniform_int(-1, 1)));
    }
    std::stable_sort(prog.instructions.begin(), prog.instructions.end(),
                     [](const sched::Instruction& a, const sched::Instruction& b) { return a.cycle < b.cycle; });
}

}  // namespace

TEST_CASE("Train mode and vector mode report the same first error on perturbed schedules") {
    int failed = 0;
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        const MachineConfig m = random_machine(seed % 2 ? Time::ns(2) : Time::zero(), 0.0);
        Program p = random_program(m, seed);
        Rng rng(seed * 7919);
        perturb_one_instruction(p, rng);
        const auto train = run_program(m, p, ExecutionMode::Train, seed);
        check_modes_agree(m, p, seed, false);
        failed += train.ok ? 0 : 1;
    }
    CHECK(failed > 10);  // the perturbations do break schedules, so the error paths are compared too
}

TEST_CASE("FEC outcomes are counted identically in both modes and depend on the seed") {
    MachineConfig m = random_machine(Time::zero(), 1e-3);
    m.links.in_node.replay_latency = Time::zero();  // counted only: a replayed vector would arrive late
    const Program p = random_program(m, 3, {40, 8, Time::us(2)});
    const auto a = run_program(m, p, ExecutionMode::Train, 11);
    const auto b = run_program(m, p, ExecutionMode::Vector, 11);
    REQUIRE(a.ok);
    REQUIRE(b.ok);
    const Json& fa = a.stats.at("tsp").at("fec");
    CHECK(fa == b.stats.at("tsp").at("fec"));
    // 2624 bits at BER 1e-3: about 93% of vectors see errors; 7 correctable bits leave ~1% uncorrectable.
    CHECK(fa.at("corrected").get<std::int64_t>() > 0);
    CHECK(fa.at("uncorrectable").get<std::int64_t>() > 0);
    CHECK(fa.at("replay_required") == true);
    // Per-vector outcomes in the arrival list match too (they are part of the identical stats).
    CHECK(a.stats.at("tsp").at("arrivals") == b.stats.at("tsp").at("arrivals"));
    const auto c = run_program(m, p, ExecutionMode::Train, 12);
    CHECK(c.stats.at("tsp").at("fec") != fa);
}

TEST_CASE("The same config and seed give byte-identical stats") {
    const MachineConfig m = random_machine(Time::ns(1), 1e-4);
    const Program p = random_program(m, 5);
    const auto a = run_program(m, p, ExecutionMode::Train, 9);
    const auto b = run_program(m, p, ExecutionMode::Train, 9);
    REQUIRE(a.ok);
    CHECK(a.text == b.text);
    CHECK(a.events == b.events);
}

TEST_CASE("The run report gives latency, link use by class, global memory and prediction error") {
    const MachineConfig m = random_machine(Time::zero(), 0.0);
    const auto r = run_program(m, random_program(m, 2), ExecutionMode::Train);
    REQUIRE(r.ok);
    const Json& g = r.stats.at("tsp");
    CHECK(g.at("complete") == true);
    CHECK(g.at("tsps") == 8);
    CHECK(g.at("vector_latency").at("count").get<std::int64_t>() == g.at("vectors_delivered").get<std::int64_t>());
    CHECK(g.at("links").at("in_node").at("channels") == 56);
    CHECK(g.at("links").at("in_node").at("utilization").get<double>() > 0.0);
    CHECK(g.at("global_memory").at("capacity_bytes") == std::int64_t{8} * 220 * 1024 * 1024);
    CHECK(g.at("global_memory").at("capacity") == "1760MiB");
    CHECK(g.at("schedule").at("prediction_error_ps") == 0);
    CHECK(g.at("makespan_ps").get<std::int64_t>() > 0);
    CHECK(g.at("arrivals").size() == g.at("vector_hops").get<std::size_t>());
}

TEST_CASE("A config names the model, its sections and each chip component for loom list") {
    sim::Registry registry;
    tsp::register_components(registry);
    const sim::ModelEntry& e = registry.find("tsp");
    std::vector<std::string> keys;
    for (const auto& s : e.sections) keys.push_back(s.key);
    CHECK(keys ==
          std::vector<std::string>{"topology", "links", "chip", "executor", "program", "workload", "scheduler"});
    REQUIRE(e.components.size() == 1);
    CHECK(e.components[0].name == "TspChip");
}

TEST_CASE("A config without a program builds the machine and runs nothing") {
    const auto r = run_config(Json{{"model", "tsp"}, {"topology", {{"kind", "system264"}}}});
    REQUIRE(r.ok);
    CHECK(r.events == 0);
    CHECK(r.stats.at("tsp").at("tsps") == 264);
    CHECK(r.stats.at("tsp").at("global_memory").at("tsps") == 264);
}

TEST_CASE("The example programs in configs/tsp/programs run and pass their checks in both modes") {
    const std::filesystem::path dir = std::filesystem::path(LOOM_SOURCE_DIR) / "configs" / "tsp" / "programs";
    int found = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".json") continue;
        ++found;
        INFO(entry.path().string());
        Json c = config::load_json_file(entry.path().string());
        c["executor"] = {{"mode", "train"}};
        const auto train = run_config(c);
        INFO(train.error);
        REQUIRE(train.ok);
        c["executor"] = {{"mode", "vector"}};
        const auto vector = run_config(c);
        CHECK(train.text == vector.text);
    }
    CHECK(found >= 3);
}

TEST_CASE("A workload is compiled by the scheduler and runs with every arrival as predicted in both modes") {
    Json c{{"model", "tsp"},
           {"topology", {{"kind", "node"}}},
           {"workload",
            {{"transfers",
              {{{"src", 0}, {"dsts", {1}}, {"bytes", 64000}},
               {{"src", 2}, {"dsts", {5, 6, 7}}, {"bytes", 3200}, {"dst_address", 1 << 20}},
               {{"src", 1}, {"dsts", {3}}, {"bytes", 32000}, {"deps", {0}}, {"src_address", 0}, {"dst_address", 640}}}},
             {"random", {{"count", 6}, {"bytes", "16KiB"}, {"seed", 3}}}}}};
    Json train = c, vector = c;
    train["executor"] = {{"mode", "train"}};
    vector["executor"] = {{"mode", "vector"}};
    const auto a = run_config(train);
    INFO(a.error);
    REQUIRE(a.ok);
    const auto b = run_config(vector);
    CHECK(a.text == b.text);
    const Json& s = a.stats.at("tsp").at("schedule");
    CHECK(s.at("prediction_error_ps") == 0);
    CHECK(s.at("vectors_checked") == a.stats.at("tsp").at("vector_hops"));
    CHECK(s.at("efficiency").get<double>() > 0.0);
    CHECK(s.at("efficiency").get<double>() <= 1.0);
    CHECK(s.at("predicted_makespan_ps") == a.stats.at("tsp").at("makespan_ps"));
}

TEST_CASE("A config gives a program or a workload, not both") {
    Json c{{"model", "tsp"},
           {"topology", {{"kind", "node"}}},
           {"program", Json::object()},
           {"workload", {{"transfers", Json::array()}}}};
    CHECK_THROWS_AS(run_config(c), ConfigError);
}

TEST_CASE("Train mode and vector mode agree on random workloads compiled by the scheduler") {
    for (std::int64_t seed = 1; seed <= 8; ++seed) {
        Json c{{"model", "tsp"},
               {"topology", {{"kind", seed % 2 ? "rack" : "node"}}},
               {"workload",
                {{"random",
                  {{"count", 24},
                   {"bytes", "12KiB"},
                   {"seed", seed},
                   {"fanout", seed % 3 == 0 ? 3 : 1},
                   {"dependency_probability", 0.3}}}}}};
        if (seed % 4 == 1) c["links"] = {{"in_node", {{"jitter", "2ns"}, {"bit_error_rate", 1e-4}}}};
        Json train = c, vector = c;
        train["executor"] = {{"mode", "train"}};
        vector["executor"] = {{"mode", "vector"}};
        const auto a = run_config(train, static_cast<std::uint64_t>(seed));
        const auto b = run_config(vector, static_cast<std::uint64_t>(seed));
        INFO("seed " << seed << ": " << a.error << " / " << b.error);
        REQUIRE(a.ok);
        CHECK(a.text == b.text);
        CHECK(a.events < b.events);
    }
}

TEST_CASE("Bulk checks and per-vector checks give identical stats and errors on valid and perturbed schedules") {
    // The executor checks a part of a run in bulk (counters, deliveries, latency histogram, predictions stepped)
    // when its vectors are the instruction's next ones; bulk_checks = false checks every vector alone. Both must
    // give byte-identical stats (arrivals listed or not) and the same first error.
    int failed = 0, compared = 0;
    for (std::uint64_t seed = 1; seed <= 48; ++seed) {
        const bool noisy = seed % 3 == 0;
        const MachineConfig m = random_machine(noisy ? Time::ns(2) : Time::zero(), noisy ? 2e-4 : 0.0);
        Program p = random_program(m, seed, {seed % 2 ? 12 : 30, seed % 2 ? 6 : 12, Time::us(2)});
        if (seed % 4 == 2) {  // break one instruction: errors of every kind arise inside bulk parts
            Rng rng(seed * 104729);
            perturb_one_instruction(p, rng);
        }
        for (const std::int64_t limit : {std::int64_t{0}, std::int64_t{10'000}}) {
            for (auto mode : {ExecutionMode::Train, ExecutionMode::Vector}) {
                tsp::ExecutorConfig bulk;
                bulk.mode = mode;
                bulk.record_limit = limit;
                tsp::ExecutorConfig single = bulk;
                single.bulk_checks = false;
                const auto a = run_program(m, p, bulk, seed);
                const auto b = run_program(m, p, single, seed);
                INFO("seed " << seed << " limit " << limit << ": bulk: " << a.error << " | per vector: " << b.error);
                REQUIRE(a.ok == b.ok);
                CHECK(a.text == b.text);
                CHECK(a.error == b.error);
                CHECK(a.end == b.end);
                failed += a.ok ? 0 : 1;
                ++compared;
            }
        }
    }
    CHECK(compared == 192);
    CHECK(failed > 8);  // the error paths are compared too
}
