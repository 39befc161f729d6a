// Parameter sweeps: a `*.sweep.json` file names a base config and axes of values on dotted paths; expansion
// turns it into one complete config per point (cartesian product or zipped), each applied exactly like --set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "loom/config/schema.hpp"

namespace loom::config {

// Compare: `loom schedule --compare dynamic` (the comparison's settings come from the config's sections).
enum class SweepCommand { Run, Schedule, Compare };

struct SweepAxis {
    std::string path;          // dotted, as for --set ("phold.lps")
    std::vector<Json> values;  // non-empty
};

// A loaded sweep file:
//   {"base": "<config path, relative to the sweep file>", "command": "run"|"schedule"|"compare" (default "run"),
//    "axes": [{"path": "phold.lps", "values": [...]}, ...], "zip": false, "report": ["/stats/<pointer>", ...],
//    "replications": 1}
struct SweepSpec {
    std::string path;       // the sweep file itself
    std::string base_path;  // the base config's path, resolved against the sweep file's folder
    Json base;              // the base config as loaded
    SweepCommand command = SweepCommand::Run;
    std::vector<SweepAxis> axes;  // at least one
    bool zip = false;             // zipped: point i takes value i of every axis (all axes equally long)
    std::vector<std::string> report;  // JSON Pointers into each point's stats document
    // Runs per point, each with its own seed (replication_seed); the summary reports each value's mean,
    // standard deviation and 95% confidence interval over them. 1: one run, the values as they are.
    int replications = 1;
};

struct SweepPoint {
    std::size_t index = 0;
    std::string id;  // "p0003": "p" + the index, at least four digits
    std::vector<std::pair<std::string, Json>> assignments;  // (dotted path, value), in axis order
    Json config;  // base with the assignments applied
};

// Reads and checks a sweep file and its base config. Problems in the sweep file are all reported together as a
// ConfigError whose messages read "<file>: <pointer>: <problem>" ("x.sweep.json: /axes/1/values: expected a
// non-empty array"); an unreadable or malformed file is an InputError from load_json_file.
SweepSpec load_sweep(const std::string& path);
// The same checks for a sweep document already in memory; `origin` names it and `base` is the loaded base config
// (`spec.path` is `origin`, `spec.base_path` the "base" string as written).
SweepSpec make_sweep(const Json& doc, const std::string& origin, Json base);

// Upper bound of "replications": more runs per point than this is a mistake in the file.
inline constexpr int kMaxReplications = 10'000;

// The seed of replication `r` of a point whose config has seed `seed`: replication 0 keeps the point's own seed
// (so a sweep with one replication runs exactly the configs it always did); the others are streams derived
// from it, kept non-negative as a config's seed must be.
std::int64_t replication_seed(std::int64_t seed, int r);

// Number of points: product of the axis lengths, or the common length when zipped.
std::size_t point_count(const SweepSpec& spec);
// All points in order: cartesian with the first axis slowest (row-major), or zipped. Throws InputError naming the
// point if an assignment's path cannot be applied to the config.
std::vector<SweepPoint> expand(const SweepSpec& spec);

}  // namespace loom::config
