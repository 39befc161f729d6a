// Cross-checks of the dynamics sections ("fastpath", "health", "hash_study") against the rest of a data-center
// config; called by parse_dc_config.
#pragma once

#include "loom/ananta/dc_config.hpp"

namespace loom::ananta {

void check_dynamics(const DcConfig& c, config::Errors& errors);

}  // namespace loom::ananta
