#include <catch2/catch.hpp>

#include <string>

#include "loom/base/error.hpp"
#include "loom/phold/phold.hpp"
#include "loom/sim/registry.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/stats/document.hpp"
#include "loom/stats/group.hpp"

using namespace loom;
using namespace loom::literals;

namespace {

config::Json small_config(const std::string& mean_delay = "100ns") {
    return config::Json{
        {"model", "phold"},
        {"phold", {{"lps", 64}, {"population", 4}, {"lookahead", "10ns"}, {"mean_delay", mean_delay}}}};
}

// Builds through the registry exactly as the scenario layer does and returns the stats document's text.
std::string run_stats(const config::Json& root, std::uint64_t seed, sim::QueueKind queue, Time end = 20_us) {
    sim::Registry registry;
    phold::register_components(registry);
    sim::SimulatorOptions options;
    options.seed = seed;
    options.queue = queue;
    sim::Simulator sim(options);
    config::Errors errors;
    auto model = registry.find("phold").build(root, sim, errors);
    REQUIRE(errors.empty());
    REQUIRE(model);
    sim.init();
    const sim::RunResult r = sim.run({end});
    CHECK(r.reason == sim::StopReason::EndTime);
    sim.finish();
    model->finish();
    return stats::dump(sim.stats().to_json(sim.now()));
}

}  // namespace

TEST_CASE("PHOLD conserves its tokens and reports them as in flight") {
    sim::Simulator sim;
    phold::PholdConfig cfg;
    cfg.lps = 32;
    cfg.population = 8;
    auto model = phold::build(cfg, sim);
    sim.init();
    CHECK(sim.pending() == 256);
    sim.run({50_us});
    sim.finish();
    CHECK_NOTHROW(model->finish());
    const stats::Json doc = sim.stats().to_json(sim.now());
    const stats::Json& g = doc.at("phold");
    CHECK(g.at("in_flight").at("final") == 256);
    CHECK(g.at("in_flight").at("expected") == 256);
    CHECK(g.at("in_flight").at("avg").get<double>() == 256.0);
    // About tokens * time / mean delay = 256 * 50 us / 110 ns = 116,000 events.
    CHECK(g.at("events_handled").get<std::int64_t>() > 100'000);
    CHECK(g.at("events_handled").get<std::int64_t>() < 130'000);
    CHECK(g.at("events_per_lp").at("count") == 32);
    CHECK(doc.at("kernel").at("events_handled") == g.at("events_handled"));
    CHECK(model->perf_fields() == " lps=32 population=8");
}

TEST_CASE("PHOLD's conservation check fails when the kernel holds an event no token accounts for") {
    sim::Simulator sim;
    phold::PholdConfig cfg;
    cfg.lps = 4;
    cfg.population = 2;
    auto model = phold::build(cfg, sim);
    sim.init();
    sim.run({1_us});
    // A stray delivery to endpoint 0, as a kernel that duplicated an event would leave behind.
    sim.push(sim::Event{sim.now_ps() + 1000, sim::key::make(sim::Phase::Delivery, 0, 1u << 30), 0, 0});
    sim.finish();
    try {
        model->finish();
        FAIL("conservation check passed");
    } catch (const ModelError& e) {
        CHECK(std::string(e.what()).find("conservation") != std::string::npos);
        CHECK(e.exit_code() == 3);
    }
}

TEST_CASE("PHOLD with the same seed gives byte-identical stats and another seed differs") {
    const std::string a = run_stats(small_config(), 1, sim::QueueKind::Calendar);
    const std::string b = run_stats(small_config(), 1, sim::QueueKind::Calendar);
    const std::string c = run_stats(small_config(), 2, sim::QueueKind::Calendar);
    CHECK(a == b);
    CHECK(a != c);
}

TEST_CASE("PHOLD gives identical stats on the heap and the calendar queue") {
    CHECK(run_stats(small_config(), 3, sim::QueueKind::Calendar) == run_stats(small_config(), 3, sim::QueueKind::Heap));
    // Zero mean delay: every delay is exactly the lookahead, so every event ties with hundreds of others and
    // only the key orders them.
    CHECK(run_stats(small_config("0ps"), 3, sim::QueueKind::Calendar) ==
          run_stats(small_config("0ps"), 3, sim::QueueKind::Heap));
}

TEST_CASE("PHOLD config errors are reported together at their JSON Pointers") {
    sim::Registry registry;
    phold::register_components(registry);
    sim::Simulator sim;
    config::Errors errors;
    const config::Json root{{"model", "phold"},
                            {"phold", {{"lps", 0}, {"lookahead", "0ps"}, {"mean_delay", 5}, {"popuation", 3}}}};
    CHECK(registry.find("phold").build(root, sim, errors) == nullptr);
    std::string all;
    for (const auto& m : errors.messages()) all += m + "\n";
    CHECK(errors.size() == 4);
    CHECK(all.find("/phold/lps") != std::string::npos);
    CHECK(all.find("/phold/lookahead") != std::string::npos);
    CHECK(all.find("/phold/mean_delay") != std::string::npos);
    CHECK(all.find("/phold/popuation") != std::string::npos);
    CHECK(sim.component_count() == 0);
}

TEST_CASE("PHOLD limits the number of tokens in flight") {
    phold::PholdConfig c;
    config::Errors errors;
    phold::phold_schema().parse(config::Json{{"lps", 1 << 20}, {"population", 1 << 10}}, "/phold", c, errors);
    REQUIRE(errors.size() == 1);
    CHECK(errors.messages()[0].find("/phold/population") == 0);
}

TEST_CASE("PHOLD without a phold section runs with the defaults") {
    sim::Simulator sim;
    config::Errors errors;
    auto model = phold::build(config::Json{{"model", "phold"}}, sim, errors);
    REQUIRE(model);
    CHECK(sim.component_count() == 1024);
}

TEST_CASE("PHOLD registers its section and component type for listing") {
    sim::Registry registry;
    phold::register_components(registry);
    const sim::ModelEntry& e = registry.find("phold");
    REQUIRE(e.sections.size() == 1);
    CHECK(e.sections[0].key == "phold");
    CHECK(e.sections[0].kind == config::Kind::Section);
    std::vector<std::string> keys;
    for (const auto& f : e.sections[0].children) keys.push_back(f.key);
    CHECK(keys == std::vector<std::string>{"lps", "population", "lookahead", "mean_delay"});
    REQUIRE(e.components.size() == 1);
    CHECK(e.components[0].name == "LogicalProcess");
}
