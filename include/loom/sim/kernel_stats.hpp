// The statistics the kernel itself writes into every stats document (the "kernel" group), declared once.
#pragma once

#include "loom/sim/probes.hpp"
#include "loom/stats/declaration.hpp"

namespace loom::sim {

// /stats/kernel/...: written by Simulator::finish.
stats::StatDecls kernel_stat_declarations();

class Simulator;
// Readers of those statistics during a run (events so far, pending now, ...), for any model's time series.
// `sim` must outlive the probes.
Probes kernel_probes(const Simulator& sim);

}  // namespace loom::sim
