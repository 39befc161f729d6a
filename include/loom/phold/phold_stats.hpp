// The statistics a PHOLD run writes (the "phold" group), declared once with units and descriptions.
#pragma once

#include "loom/stats/declaration.hpp"

namespace loom::phold {

stats::StatDecls stat_declarations();

}  // namespace loom::phold
