// The statistics an Ananta run writes (the "ananta" group), declared once with units and descriptions.
// To add one: a line in stat_declarations() (src/ananta/ananta_stats.cpp), and, if it can be read mid-run, a
// probe in AnantaModel::add_probes() beside it.
#pragma once

#include "loom/stats/declaration.hpp"

namespace loom::ananta {

stats::StatDecls stat_declarations();

}  // namespace loom::ananta
