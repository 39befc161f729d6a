// A whole Ananta model built from a config and run in its own simulator, for the model tests: the run seed is
// the config's, a build error fails the test with its first message, and the run stops at a given time (the
// config's end_time by default) and is finished unless the test asks to look before finish.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <string>

#include "loom/ananta/ananta_model.hpp"
#include "loom/config/units.hpp"
#include "loom/sim/simulator.hpp"

namespace loom::ananta::testing {

struct ModelRun {
    enum class Finish { now, later };

    explicit ModelRun(const config::Json& config, Time end = Time::max(), Finish when = Finish::now)
        : sim(options(config)) {
        config::Errors errors;
        model = build(config, sim, errors);
        INFO((errors.empty() ? std::string() : errors.messages().front()));
        REQUIRE(errors.empty());
        REQUIRE(model != nullptr);
        sim.init();
        sim.run(sim::RunLimits{end != Time::max() ? end : end_time(config)});
        if (when == Finish::now) finish();
    }

    void finish() {
        sim.finish();
        model->finish();
    }

    static sim::SimulatorOptions options(const config::Json& c) {
        sim::SimulatorOptions o;
        o.seed = c.value("seed", 1);
        return o;
    }
    static Time end_time(const config::Json& c) {
        const auto t = config::parse_duration(c.at("end_time").get<std::string>());
        REQUIRE(t.has_value());
        return *t;
    }

    const config::Json& summary() const { return model->summary(); }
    std::uint64_t drops(const std::string& reason) const {
        const auto& d = summary().at("drops");
        return d.contains(reason) ? d.at(reason).get<std::uint64_t>() : 0;
    }
    const DcNode& node(std::uint32_t i) const { return *model->nodes()[i]; }

    sim::Simulator sim;
    std::unique_ptr<AnantaModel> model;
};

}  // namespace loom::ananta::testing
