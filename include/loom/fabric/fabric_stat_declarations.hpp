// The statistics a fabric run writes (the "fabric" group), declared once with units and descriptions.
#pragma once

#include "loom/stats/declaration.hpp"

namespace loom::fabric {

stats::StatDecls stat_declarations();

}  // namespace loom::fabric
