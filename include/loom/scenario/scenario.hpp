// The scenario layer: load a config, build the model it names through the registry of every model subsystem,
// run it and report. This is the whole library surface the command line uses.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/common.h>

#include "loom/base/error.hpp"
#include "loom/scenario/output.hpp"
#include "loom/stats/declaration.hpp"

namespace loom::scenario {

// Reads a config file and applies `--set path=value` overrides in order. Throws InputError/ConfigError with
// the file name in the message.
// Relative file paths in the file resolve against its folder; those given by --set against the working
// directory.
Json load_config(const std::string& path, const std::vector<std::string>& overrides = {});

// Progress callback: simulated time (ps), events so far, events/s, estimated seconds left (< 0: unknown).
using ProgressFn = std::function<void(std::int64_t sim_ps, std::uint64_t events, double events_per_s, double eta_s)>;

struct RunOptions {
    ProgressFn progress;  // empty: no progress reports
    // Called as each phase of the command begins: the model's ("compile", "verify", the fabric's "warm-up",
    // "measure", "drain"), "run", and a comparison's "dynamic run 3/6: valiant seed 2". Empty: none.
    std::function<void(std::string_view phase)> phase;
    bool trace = false;   // also produce the model's Chrome/Perfetto trace (InputError if it has none)
    // Set by a signal handler: the simulator polls it and stops; the result is then marked interrupted.
    const std::atomic<bool>* stop = nullptr;
    spdlog::level::level_enum log_level = spdlog::level::info;  // the models' loggers
    // false: a "tsp" workload's compiled schedule is not checked by the static verifier (/scheduler/verify is
    // set to false, so the stats say "verified": false and the schedule summary says so).
    bool verify = true;
};

struct RunResult {
    Report report;     // with `trace`, report.extra_files holds "trace.json"
    std::string perf;  // "events=<n> wall_s=<s> events_per_s=<r>" plus model fields
    std::string trace; // the trace JSON when RunOptions::trace
    // The stop flag ended the run early: the document holds what the run had, with "stop_reason":
    // "interrupted", and the model's end-of-run checks were not applied.
    bool interrupted = false;
};

// Thrown when the stop flag ends a command that has nothing partial to report. Exit code 130, as a shell
// reports a process ended by SIGINT.
class Interrupted : public Error {
public:
    Interrupted() : Error("interrupted") {}
    int exit_code() const override { return 130; }
};

// Parses, builds, runs and checks the model the config names. Throws ConfigError (exit 2) for a bad config,
// ModelError (exit 3) when a model check fails.
RunResult run(const Json& config, const RunOptions& options = {});

// `loom schedule`: a "tsp" config with a "workload" is compiled by the scheduler, verified statically, run (every
// arrival checked against its prediction) and reported: makespan (ns and cycles), efficiency against the lower
// bound, prediction error, per-transfer latency, bandwidth per TSP and per link class, link utilization, FEC.
// The document is the run's, with "command": "schedule". Throws ConfigError for a config that is not one.
// With `compare.network` "dynamic", the same transfers also run on the dynamically routed network of the same
// machine (the config's optional "fabric" and "routing" sections; fabric/tsp_fabric.hpp) for each routing
// function and seed; the table of makespan, transfer latency and spread over seeds is printed after the
// summary, written under "comparison" in the document and as report.csv.
struct CompareOptions {
    std::string network;  // "" (no comparison) or "dynamic"; anything else is an InputError naming --compare
    // Not given: kSeedsUnset (the config's /fabric/seeds); given, it must be >= 1 (--seeds 0 is an InputError).
    static constexpr std::int32_t kSeedsUnset = std::numeric_limits<std::int32_t>::min();
    std::int32_t seeds = kSeedsUnset;
    std::string routing;     // non-empty: overrides /routing/functions ("min,valiant,ugal_l")
    const std::atomic<bool>* stop = nullptr;  // set by schedule() from RunOptions::stop
    std::function<void(std::string_view phase)> phase = {};  // set by schedule() from RunOptions::phase
};
RunResult schedule(const Json& config, const RunOptions& options = {}, const CompareOptions& compare = {});

// Parses the config and builds the model without running it: every error a run would report at setup.
void validate(const Json& config, const RunOptions& options = {});

// Every model, its component types and parameters (default, unit, doc): the schema `loom list` prints.
Json list_schema();
std::string list_text();
// Every statistic a stats document of `model` may hold: the keys every document has (header, kernel group,
// time series), then the model's own (sim::ModelEntry::stats). InputError for an unknown model.
stats::StatDecls stat_declarations(std::string_view model);

// `loom topo`: the machine description report of a TSP or Dragonfly config, and optionally its DOT graph.
Report topo(const Json& config, std::string* dot = nullptr);

// `loom sweep`: runs every point of a sweep file (in parallel with `jobs` threads) into `out_dir`
// (points/<id>/stats.json, points.csv, points.jsonl); a point whose stats.json exists is not run again. With
// "replications": N each point runs N times (points/<id>/r<k>/), seeds from config::replication_seed, and the
// summaries give each value's mean, sd and 95% interval. Launched by mpirun (and built with MPI), the runs are
// spread over the ranks, each with `jobs` threads, and rank 0 writes the same summaries a single process would.
struct SweepOptions {
    int jobs = 1;
    std::string out_dir;  // required
    bool quiet = false;   // no progress lines ("sweep: p0003 ok (4/10 done, 0 failed, eta 12s)") on stderr
    // Part of every point's cache key (with the hash of the point's effective config): a point run by another
    // build of Loom runs again. The binary's `loom --version` text.
    std::string build_identity;
    const std::atomic<bool>* stop = nullptr;  // no point starts once set; a running one stops, unwritten
    spdlog::level::level_enum log_level = spdlog::level::info;
};
// The outcome of a sweep: the points table, and what failed.
struct SweepResult {
    // false on the ranks other than 0 of an mpirun launch: rank 0 prints the report and the failures.
    bool primary = true;
    Report report;
    std::vector<std::string> failures;  // one line per failed point: "p0003 (phold.lps=0): bad_input: ..."
    // The exit code the failures call for: 1 if any point hit an internal error, else 3 if any failed a model
    // check, else 2 if any had bad input; 130 when interrupted; 0 when every point is ok.
    int exit_code = 0;
};
// Returns the points table; throws InputError for a bad sweep file (its axis paths and report pointers are
// checked against the base config and the stats document before any point runs). Points that fail are
// recorded with their status and message, not thrown.
SweepResult sweep(const std::string& sweep_path, const SweepOptions& options);

// Makes every relative file path in `config` (fields a schema declares as paths, e.g. /traffic/trace) relative
// to the folder of `origin`, the file that names them, instead of the working directory.
void resolve_paths(Json& config, const std::string& origin);

}  // namespace loom::scenario
