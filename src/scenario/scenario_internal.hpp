// Private to scenario/: the model registry every command uses and the command dispatch sweeps share.
#pragma once

#include <optional>
#include <string>

#include "loom/fabric/tsp_fabric.hpp"
#include "loom/scenario/scenario.hpp"
#include "loom/sim/registry.hpp"
#include "loom/stats/declaration.hpp"

namespace loom::scenario {

// The registry with every model subsystem registered (explicitly, in one place).
const sim::Registry& registry();

// What is wrong with dotted `path` as a key of `config`'s model (nullopt when the path exists in the config or
// its model declares it): "'phold.lsp' is not a parameter of model 'phold' (see loom list)".
std::optional<std::string> config_path_problem(const Json& config, const std::string& path);

// The keys every document has: header, kernel group, time series (document_stats.cpp).
stats::StatDecls document_stat_declarations();
// The keys `loom schedule --compare dynamic` adds under /comparison (declared with the tsp model).
stats::StatDecls compare_stat_declarations();

// Runs `command` ("run", "schedule" or "compare": schedule with --compare dynamic) on a config already loaded.
RunResult execute(const std::string& command, const Json& config, const RunOptions& options);

// The optional "fabric" and "routing" sections of a "tsp" config (the dynamic side of a comparison).
void parse_compare_sections(const Json& root, fabric::TspFabricConfig& fabric_config,
                            fabric::TspRoutingConfig& routing_config, config::Errors& errors);

// Runs the config's transfers on the dynamic network for every routing function and seed and returns the
// "comparison" object; `tsp_stats` is the scheduled run's "tsp" stats group (its row of the table). Fills the
// table text, its CSV and the perf fields.
Json compare_dynamic(const Json& config, const Json& tsp_stats, const CompareOptions& options, std::string& table,
                     std::string& csv, std::string& perf);

// Reading the stats document: the member `key` of object `j`, or null when it has none; a number member as a
// double, 0 when absent or not a number.
inline const Json& member(const Json& j, const char* key) {
    static const Json kNull;
    return j.is_object() && j.contains(key) ? j.at(key) : kNull;
}
inline double number(const Json& j, const char* key) {
    const Json& v = member(j, key);
    return v.is_number() ? v.get<double>() : 0.0;
}

}  // namespace loom::scenario
