// The keys every config has at its top level, whatever the model: model, description, seed, end_time, kernel.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"
#include "loom/sim/kernel_config.hpp"
#include "loom/sim/registry.hpp"

namespace loom::scenario {

struct RootConfig {
    std::string model;
    std::string description;
    std::int64_t seed = 1;
    std::optional<Time> end_time;  // none: run until no event is pending
    sim::KernelConfig kernel;
};

const config::Schema<RootConfig>& root_schema();

// Parses the root keys, checks that the model exists and that every other top-level key is one of its
// sections; returns the model's entry (nullptr if the model is unknown). Problems go to `errors`.
const sim::ModelEntry* parse_root(const config::Json& config, const sim::Registry& registry, RootConfig& root,
                                  config::Errors& errors);

}  // namespace loom::scenario
