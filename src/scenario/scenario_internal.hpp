// Private to scenario/: the model registry every command uses and the command dispatch sweeps share.
#pragma once

#include <string>

#include "loom/scenario/scenario.hpp"
#include "loom/sim/registry.hpp"

namespace loom::scenario {

// The registry with every model subsystem registered (explicitly, in one place).
const sim::Registry& registry();

// Runs `command` ("run" or "schedule") on a config already loaded.
RunResult execute(const std::string& command, const Json& config, const RunOptions& options);

}  // namespace loom::scenario
