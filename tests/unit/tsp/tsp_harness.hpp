// Shared by the tsp tests: run a "tsp" config through the registry (as the scenario layer does) or a Program
// through the API, and return the stats (without the kernel group, whose event counts differ by mode by design).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "loom/base/error.hpp"
#include "loom/config/schema.hpp"
#include "loom/sim/registry.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/stats/document.hpp"
#include "loom/stats/group.hpp"
#include "loom/tsp/tsp_model.hpp"

namespace loom::tsp::test {

struct RunOutput {
    bool ok = false;    // finished without a ModelError
    std::string error;  // the ModelError's message
    int exit_code = 0;  // of the error thrown (3 for a model check)
    stats::Json stats;  // every group but "kernel"
    std::string text;   // stats.dump()
    std::uint64_t events = 0;
    Time end;
};

inline RunOutput finish_run(sim::Simulator& sim, sim::ModelInstance& model, Time end) {
    RunOutput out;
    sim.init();
    sim.run({end});
    out.events = sim.events_handled();
    out.end = sim.now();
    sim.finish();
    try {
        model.finish();
        out.ok = true;
    } catch (const Error& e) {
        out.error = e.what();
        out.exit_code = e.exit_code();
    }
    out.stats = sim.stats().to_json(sim.now());
    out.stats.erase("kernel");
    out.text = stats::dump(out.stats);
    return out;
}

// Builds through the registry exactly as `loom run` does.
inline RunOutput run_config(const config::Json& root, std::uint64_t seed = 1, Time end = Time::max()) {
    sim::Registry registry;
    register_components(registry);
    sim::SimulatorOptions options;
    options.seed = seed;
    sim::Simulator sim(options);
    config::Errors errors;
    auto model = registry.find("tsp").build(root, sim, errors);
    errors.throw_if_any();
    return finish_run(sim, *model, end);
}

inline RunOutput run_program(const MachineConfig& machine, Program program, const ExecutorConfig& exec,
                             std::uint64_t seed = 1, Time end = Time::max()) {
    sim::SimulatorOptions options;
    options.seed = seed;
    sim::Simulator sim(options);
    auto model = build(std::make_unique<TspSystem>(machine, seed), exec, std::move(program), sim);
    return finish_run(sim, *model, end);
}

inline RunOutput run_program(const MachineConfig& machine, Program program, ExecutionMode mode, std::uint64_t seed = 1,
                             Time end = Time::max()) {
    ExecutorConfig exec;
    exec.mode = mode;
    return run_program(machine, std::move(program), exec, seed, end);
}

// A node of `tsps` fully connected TSPs with the paper's default links and chip.
inline MachineConfig node_machine(std::int32_t tsps = 8) {
    MachineConfig m;
    m.topology.kind = topo::TspKind::Node;
    m.topology.tsps_per_node = tsps;
    return m;
}

// {"topology": {"kind": "node", "tsps_per_node": tsps}} plus a program and optional extra sections.
inline config::Json node_config(const config::Json& program, std::int32_t tsps = 8) {
    return config::Json{
        {"model", "tsp"}, {"topology", {{"kind", "node"}, {"tsps_per_node", tsps}}}, {"program", program}};
}

}  // namespace loom::tsp::test
