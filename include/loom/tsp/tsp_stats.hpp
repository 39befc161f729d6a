// The statistics a TSP run writes (the "tsp" group and one group per active chip, "sys.<rack>.<node>.<tsp>"),
// declared once with units and descriptions.
#pragma once

#include "loom/stats/declaration.hpp"

namespace loom::tsp {

stats::StatDecls stat_declarations();

}  // namespace loom::tsp
