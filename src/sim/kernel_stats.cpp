#include "loom/sim/kernel_stats.hpp"

#include "loom/sim/simulator.hpp"

namespace loom::sim {

stats::StatDecls kernel_stat_declarations() {
    stats::StatDecls d;
    d.scalar("/stats/kernel/events_handled", "events", "events the kernel handled over the whole run (cancelled-timer events included)");
    d.scalar("/stats/kernel/timer_events_discarded", "events", "handled events that belonged to a timer re-armed or cancelled since (no work done)");
    d.scalar("/stats/kernel/peak_pending", "events", "most events pending in the queue at once");
    d.scalar("/stats/kernel/pending_at_end", "events", "events still pending when the run stopped");
    d.scalar("/stats/kernel/components", "count", "components the model created");
    return d;
}

Probes kernel_probes(const Simulator& sim) {
    const Simulator* s = &sim;
    Probes p;
    p.add("/stats/kernel/events_handled", [s](Time) { return stats::Json(s->events_handled()); });
    p.add("/stats/kernel/timer_events_discarded", [s](Time) { return stats::Json(s->timer_events_discarded()); });
    p.add("/stats/kernel/peak_pending", [s](Time) { return stats::Json(s->peak_pending()); });
    p.add("/stats/kernel/pending_at_end", [s](Time) { return stats::Json(s->pending()); });
    p.add("/stats/kernel/components", [s](Time) { return stats::Json(s->component_count()); });
    return p;
}

}  // namespace loom::sim
