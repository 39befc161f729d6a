// Private to scenario/: the optional "stats" section of every config, which asks for time series of declared
// statistics ({"stats": {"series": {"interval": "10ms", "keys": ["/stats/...", ...]}}}), and the sampling of them
// during a run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"
#include "loom/sim/registry.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/stats/declaration.hpp"
#include "loom/stats/series.hpp"

namespace loom::scenario {

struct SeriesConfig {
    Time interval;
    // Declared scalar statistics: concrete pointers, declared patterns, or a pattern with '*' selecting among
    // them ("/stats/ananta/connections/*": every one the model can read mid-run).
    std::vector<std::string> keys;
};
struct StatsConfig {
    std::optional<SeriesConfig> series;  // none: no time series
};

// What `loom list` shows of the "stats" section.
config::FieldInfo stats_config_info();

// Parses "/stats" of `root` (absent: nothing asked). Every key must be a scalar statistic `declared` holds
// ("/stats/series/keys/3: '/stats/x' is not a declared statistic of model 'phold' (see loom list)").
void parse_stats_config(const config::Json& root, const std::string& model, const stats::StatDecls& declared,
                        StatsConfig& out, config::Errors& errors);

// The sampling of one run: the model's probes for every key (a key the model cannot read mid-run is an error at
// its pointer), a Series with one column per concrete pointer, and the simulator's sampler filling it.
class SeriesRecorder {
public:
    // After sim.init(). Throws ConfigError naming each key without a probe.
    SeriesRecorder(const SeriesConfig& config, const std::string& model, const stats::StatDecls& declared,
                   const sim::ModelInstance& instance, sim::Simulator& sim);
    SeriesRecorder(const SeriesRecorder&) = delete;  // the simulator's sampler refers to this object
    SeriesRecorder& operator=(const SeriesRecorder&) = delete;
    const stats::Series& series() const { return series_; }

private:
    std::vector<sim::Probe> probes_;
    stats::Series series_;
};

}  // namespace loom::scenario
