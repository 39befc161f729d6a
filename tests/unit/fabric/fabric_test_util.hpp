// Helpers of the fabric tests: the small Dragonfly config (72 terminals) and a run driven to its end.
#pragma once

#include <memory>
#include <string>

#include "loom/config/schema.hpp"
#include "loom/fabric/fabric.hpp"
#include "loom/sim/simulator.hpp"

namespace loom::fabric::testing {

// p=2, a=4, h=2, g=9 with the reference router (3 VCs so that every routing function fits) and samples short
// enough for fast tests.
inline config::Json small_config(const std::string& routing = "minimal", const std::string& pattern = "uniform",
                                 double rate = 0.2) {
    config::Json c = config::Json::parse(R"({
      "model": "fabric",
      "topology": {"p": 2, "a": 4, "h": 2},
      "fabric": {"vcs": 3},
      "routing": {"function": "minimal"},
      "traffic": {"pattern": "uniform", "rate": 0.2,
                  "measurement": {"sample_cycles": 1000, "max_warmup_samples": 10, "measure_cycles": 5000}}
    })");
    c["routing"]["function"] = routing;
    c["traffic"]["pattern"] = pattern;
    c["traffic"]["rate"] = rate;
    return c;
}

struct Run {
    std::unique_ptr<sim::Simulator> sim;
    std::unique_ptr<FabricModel> model;
};

// Parses and builds `config` (throws ConfigError on errors).
inline Run build_run(const config::Json& config, const workload::TrafficTrace* trace = nullptr, std::uint64_t seed = 1) {
    Run r;
    sim::SimulatorOptions options;
    options.seed = seed;
    r.sim = std::make_unique<sim::Simulator>(options);
    config::Errors errors;
    FabricModelConfig c;
    parse(config, c, errors);
    errors.throw_if_any();
    topo::validate(c.topology, "/topology", errors);
    errors.throw_if_any();
    r.model = build(topo::build_dragonfly(c.topology), c.fabric, c.routing, c.traffic, *r.sim, errors, trace);
    errors.throw_if_any();
    return r;
}

// Runs to the end (or `end`), finishes, and returns the "fabric" stats group.
inline config::Json finish_run(Run& r, Time end = Time::max()) {
    r.sim->init();
    sim::RunLimits limits;
    limits.end = end;
    r.sim->run(limits);
    r.sim->finish();
    r.model->finish();
    return r.sim->stats().to_json(r.sim->now()).at("fabric");
}

}  // namespace loom::fabric::testing
