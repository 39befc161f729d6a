// PHOLD's statistics: their declarations, and the probes that read them during a run for time series.
#include "loom/phold/phold_stats.hpp"

#include "loom/phold/logical_process.hpp"
#include "loom/phold/phold.hpp"

namespace loom::phold {

stats::StatDecls stat_declarations() {
    stats::StatDecls d;
    d.scalar("/stats/phold/events_handled", "events", "tokens the logical processes handled (each schedules one more)");
    d.histogram("/stats/phold/events_per_lp", "events", "tokens handled per logical process, over the processes");
    d.scalar("/stats/phold/in_flight/avg", "events", "time-average number of tokens in flight on phold.net since time 0");
    d.scalar("/stats/phold/in_flight/final", "events", "tokens in flight on phold.net (conservation: always lps * population)");
    d.scalar("/stats/phold/in_flight/expected", "events", "lps * population, the number conservation requires");
    return d;
}

std::vector<sim::Probe> PholdModel::probes(const std::string& key) const { return probes_.select(key); }

void PholdModel::add_probes() {
    // The readers only look at the processes' counts and the channel's tallies.
    probes_.add("/stats/phold/events_handled", [this](Time) {
        std::int64_t n = 0;
        for (const LogicalProcess* lp : lps_) n += lp->handled();
        return stats::Json(n);
    });
    probes_.add("/stats/phold/in_flight/avg", [this](Time at) { return stats::Json(channel_.occupancy(at).average); });
    probes_.add("/stats/phold/in_flight/final", [this](Time at) { return stats::Json(channel_.occupancy(at).in_flight); });
    const std::int64_t expected = config_.lps * config_.population;
    probes_.add("/stats/phold/in_flight/expected", [expected](Time) { return stats::Json(expected); });
}

}  // namespace loom::phold
