// `loom sweep`: every point of a sweep file (each replication of it, when replicated) run in parallel into its own
// folder, over the ranks of an mpirun launch too; a rerun skips the runs whose results are still valid (same
// effective config, same build of Loom) and resumes an interrupted sweep.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "loom/base/error.hpp"
#include "loom/config/document.hpp"
#include "loom/config/sweep.hpp"
#include "loom/config/sweep_summary.hpp"
#include "loom/scenario/scenario.hpp"
#include "loom/stats/stats.hpp"
#include "loom/stats/table.hpp"
#include "scenario_internal.hpp"
#include "sweep_group.hpp"

namespace loom::scenario {

namespace fs = std::filesystem;

namespace {

// One run of a sweep: a point, or one replication of a point. What the summaries need of it travels between
// processes, so it holds the reported values, not the whole stats document.
struct UnitResult {
    // ok | cached | bad_input | model_check_failed | internal_error | interrupted | not_run
    std::string status = "not_run";
    std::string message;
    bool has_document = false;
    std::vector<Json> values;  // one per report pointer, null where the document has none
};

Json to_json(std::size_t unit, const UnitResult& r) {
    return Json::array({unit, r.status, r.message, r.has_document, r.values});
}

std::pair<std::size_t, UnitResult> unit_from_json(const Json& j) {
    UnitResult r;
    r.status = j.at(1).get<std::string>();
    r.message = j.at(2).get<std::string>();
    r.has_document = j.at(3).get<bool>();
    r.values = j.at(4).get<std::vector<Json>>();
    return {j.at(0).get<std::size_t>(), std::move(r)};
}

const char* status_of(int exit_code) {
    switch (exit_code) {
        case 2: return "bad_input";
        case 3: return "model_check_failed";
        case 130: return "interrupted";
        default: return "internal_error";
    }
}

// How serious a status is, for the status of a replicated point: the worst of its runs.
int severity(const std::string& status) {
    if (status == "internal_error") return 5;
    if (status == "model_check_failed") return 4;
    if (status == "bad_input") return 3;
    if (status == "interrupted") return 2;
    if (status == "not_run") return 1;
    return 0;  // ok, cached
}

// A cell of points.csv: strings bare (quoted when needed), everything else as compact JSON.
std::string csv_cell(const Json& v) {
    return stats::csv_field(v.is_string() ? v.get<std::string>() : v.dump());
}

const char* command_name(config::SweepCommand c) {
    switch (c) {
        case config::SweepCommand::Schedule: return "schedule";
        case config::SweepCommand::Compare: return "compare";
        case config::SweepCommand::Run: break;
    }
    return "run";
}

// What makes a point's stored result valid: the command, the effective config and the build that ran it.
std::string cache_key(const char* command, const Json& config, const std::string& build_identity) {
    return config::canonical_hash(Json{{"command", command}, {"config", config}, {"build", build_identity}});
}

std::string read_small_file(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// The file beside stats.json that records the cache key, written last: without it a point runs again.
constexpr const char* kKeyFile = "cache_key";

// Runs one point (or replication) into `dir`, or finds its stored result. With `document`, the stats document
// is also handed back whole (point 0's, which the report pointers are checked against).
UnitResult run_unit(const char* command, const Json& config, const fs::path& dir, const SweepOptions& options,
                    const std::vector<std::string>& report, Json* document = nullptr) {
    UnitResult r;
    Json doc;
    const auto keep = [&](Json d) {
        r.has_document = true;
        r.values.clear();
        for (const std::string& ptr : report) {
            const Json::json_pointer jp(ptr);
            r.values.push_back(d.contains(jp) ? d.at(jp) : Json());
        }
        if (document) *document = std::move(d);
    };
    r.values.assign(report.size(), Json());
    const fs::path stats_path = dir / "stats.json";
    const std::string key = cache_key(command, config, options.build_identity);
    std::error_code ec;
    if (fs::exists(stats_path, ec) && read_small_file(dir / kKeyFile) == key + "\n") {
        try {
            keep(config::load_json_file(stats_path.string()));
            r.status = "cached";
            return r;
        } catch (const Error&) {
            // unreadable: run it again
        }
    }
    if (options.stop && options.stop->load()) return r;  // not_run
    try {
        fs::create_directories(dir, ec);
        if (ec) throw InputError(fmt::format("{}: cannot create directory: {}", dir.string(), ec.message()));
        // A stale result must not survive a rerun that fails.
        fs::remove(dir / kKeyFile, ec);
        remove_previous_report(dir.string());
        RunOptions run_options;
        run_options.stop = options.stop;
        run_options.log_level = options.log_level;
        RunResult result = execute(command, config, run_options);
        if (result.interrupted) {
            // Nothing is written: the point runs again on the next call.
            r.status = "interrupted";
            return r;
        }
        write_report(dir.string(), result.report, config);
        write_file_atomic((dir / kKeyFile).string(), key + "\n");
        keep(std::move(result.report.document));
        r.status = "ok";
    } catch (const ConfigError& e) {
        r.status = status_of(e.exit_code());
        r.message = e.messages().empty() ? e.what() : e.messages().front();
    } catch (const Error& e) {
        r.status = status_of(e.exit_code());
        r.message = e.what();
    } catch (const std::exception& e) {
        r.status = "internal_error";
        r.message = e.what();
    }
    return r;
}

// The top-level members a stats document may have, by command.
bool known_document_key(const std::string& key, config::SweepCommand command) {
    static const std::set<std::string> always{"schema_version", "loom_version", "config_hash", "seed",
                                              "sim_time_ps", "stats", "model", "stop_reason"};
    if (always.count(key)) return true;
    if (key == "command") return command != config::SweepCommand::Run;
    if (key == "comparison") return command == config::SweepCommand::Compare;
    return false;
}

// The first `n` tokens of a JSON Pointer, as a pointer.
std::string pointer_prefix(const std::string& pointer, std::size_t n) {
    std::size_t at = 0;
    for (std::size_t k = 0; k < n; ++k) {
        at = pointer.find('/', at + 1);
        if (at == std::string::npos) return pointer;
    }
    return pointer.substr(0, at);
}

std::string assignments_text(const config::SweepPoint& p) {
    std::string out;
    for (const auto& [path, value] : p.assignments) out += (out.empty() ? "" : " ") + path + "=" + value.dump();
    return out;
}

}  // namespace

namespace {

// Everything a sweep knows before its first run: the checked file, its points and their runs.
struct Plan {
    config::SweepSpec spec;
    const char* command = "run";
    std::vector<config::SweepPoint> points;
    std::size_t runs_per_point = 1;
};

// Loads, checks and expands the sweep file. Every process of a distributed sweep does this alike, so an error
// here is met by all of them.
Plan make_plan(const std::string& sweep_path) {
    Plan plan;
    config::SweepSpec& spec = plan.spec;
    spec = config::load_sweep(sweep_path);
    plan.command = command_name(spec.command);
    plan.runs_per_point = static_cast<std::size_t>(spec.replications);
    // Relative file paths in the base config resolve against the base config's folder.
    resolve_paths(spec.base, spec.base_path);

    // Everything that can be checked before a point runs: axis paths against the model's parameters, report
    // pointers against the document's members.
    std::vector<std::string> problems;
    for (std::size_t i = 0; i < spec.axes.size(); ++i) {
        if (auto problem = config_path_problem(spec.base, spec.axes[i].path))
            problems.push_back(fmt::format("{}: /axes/{}/path: {}", spec.path, i, *problem));
    }
    for (std::size_t i = 0; i < spec.report.size(); ++i) {
        const Json::json_pointer jp(spec.report[i]);
        const std::string first = jp.empty() ? std::string() : Json::json_pointer(pointer_prefix(spec.report[i], 1)).back();
        if (!known_document_key(first, spec.command)) {
            problems.push_back(fmt::format("{}: /report/{}: '{}' is not in a \"{}\" stats document (it has "
                                           "/stats, /model, /seed, /sim_time_ps, /config_hash, /stop_reason{})",
                                           spec.path, i, spec.report[i], plan.command,
                                           spec.command == config::SweepCommand::Compare ? ", /comparison" : ""));
        }
    }
    if (!problems.empty()) throw ConfigError(std::move(problems));

    plan.points = config::expand(spec);
    // A path an axis assigns (a trace file, say) is named by the sweep file: it resolves against its folder.
    for (auto& p : plan.points) {
        for (const auto& [path, value] : p.assignments) {
            if (!value.is_string()) continue;
            Json probe{{"model", p.config.value("model", Json())}};
            if (config::try_set_dotted(probe, path, value)) continue;
            resolve_paths(probe, spec.path);
            const Json::json_pointer jp(config::dotted_to_pointer(path));
            if (probe.at(jp) != value) p.config[jp] = probe.at(jp);
        }
    }
    return plan;
}

// Run `unit` of the plan: point unit / runs_per_point, replication unit % runs_per_point.
std::size_t point_of(const Plan& plan, std::size_t unit) { return unit / plan.runs_per_point; }
int replication_of(const Plan& plan, std::size_t unit) { return static_cast<int>(unit % plan.runs_per_point); }

// "p0003", or "p0003/r001" for a replication.
std::string unit_id(const Plan& plan, std::size_t unit) {
    const std::string& point = plan.points[point_of(plan, unit)].id;
    return plan.runs_per_point == 1 ? point : fmt::format("{}/r{:03d}", point, replication_of(plan, unit));
}

// The config a run uses: the point's, with replication r's seed (config::replication_seed) when replicated.
Json unit_config(const Plan& plan, std::size_t unit) {
    Json config = plan.points[point_of(plan, unit)].config;
    if (plan.runs_per_point == 1) return config;
    const Json seed = config.value("seed", Json(1));
    // A seed that is not a non-negative integer fails the run's own config check, which says why.
    if (seed.is_number_unsigned() || (seed.is_number_integer() && seed.get<std::int64_t>() >= 0))
        config["seed"] = config::replication_seed(seed.get<std::int64_t>(), replication_of(plan, unit));
    return config;
}

// The summaries of a finished sweep, from every run's result: points.csv and points.jsonl text, the table, the
// failures and the exit code.
struct Summary {
    std::string csv, jsonl, table;
    std::vector<std::string> failures;
    int exit_code = 0;
};

Summary summarize_sweep(const Plan& plan, const std::vector<UnitResult>& results, const SweepOptions& options) {
    const config::SweepSpec& spec = plan.spec;
    const auto& points = plan.points;
    const std::size_t runs = plan.runs_per_point;
    const bool replicated = runs > 1;
    Summary out;
    std::ostringstream csv, jsonl;
    std::vector<std::string> header;
    for (const auto& a : spec.axes) header.push_back(a.path);
    for (const auto& p : spec.report) {
        header.push_back(p);
        if (replicated) {
            // The pointer's own column is the mean; then its spread over the replications.
            header.push_back(p + ":sd");
            header.push_back(p + ":ci95");
            header.push_back(p + ":n");
        }
    }
    header.push_back("status");
    for (std::size_t c = 0; c < header.size(); ++c) csv << (c ? "," : "") << csv_cell(Json(header[c]));
    csv << "\n";
    std::vector<std::vector<std::string>> rows;
    std::vector<bool> pointer_seen(spec.report.size(), false);
    bool any_document = false;
    std::vector<std::string> point_status(points.size());
    std::vector<std::string> point_message(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
        // The point's status: its run's, or the worst of its replications' (the first such one's message).
        std::string status = "ok";
        std::string message;
        for (std::size_t r = 0; r < runs; ++r) {
            const UnitResult& u = results[i * runs + r];
            if (severity(u.status) > severity(status)) {
                status = u.status;
                message = replicated && !u.message.empty() ? fmt::format("r{:03d}: {}", r, u.message) : u.message;
            }
        }
        point_status[i] = status;
        point_message[i] = message;
        // The summaries say "ok" for a result found from an earlier call: a resumed sweep's files are the same
        // bytes as an uninterrupted one's.
        Json line{{"id", points[i].id}, {"index", points[i].index}, {"status", status}};
        Json assignments = Json::object(), report = Json::object();
        std::vector<std::string> row;
        for (const auto& [path, value] : points[i].assignments) {
            assignments[path] = value;
            row.push_back(csv_cell(value));
        }
        for (std::size_t r = 0; r < runs; ++r) any_document = any_document || results[i * runs + r].has_document;
        for (std::size_t k = 0; k < spec.report.size(); ++k) {
            const std::string& ptr = spec.report[k];
            std::vector<Json> values;  // one per replication; null when missing or when the run failed
            for (std::size_t r = 0; r < runs; ++r) {
                values.push_back(results[i * runs + r].values.empty() ? Json() : results[i * runs + r].values[k]);
                pointer_seen[k] = pointer_seen[k] || !values.back().is_null();
            }
            if (!replicated) {
                report[ptr] = values.front();
                row.push_back(values.front().is_null() ? std::string() : csv_cell(values.front()));
                continue;
            }
            const Json summary = config::summarize_json(values);
            report[ptr] = summary;
            const auto cell = [&](const char* key) {
                const auto it = summary.find(key);
                return it == summary.end() || it->is_null() ? std::string() : csv_cell(*it);
            };
            row.push_back(summary.contains("mean") ? cell("mean") : cell("value"));
            row.push_back(cell("sd"));
            row.push_back(cell("ci95"));
            row.push_back(cell("n"));
        }
        row.push_back(status);
        line["assignments"] = assignments;
        line["report"] = report;
        if (replicated) {
            Json reps = Json::array();
            for (std::size_t r = 0; r < runs; ++r) {
                const Json seed = unit_config(plan, i * runs + r).value("seed", Json());
                const std::string& st = results[i * runs + r].status;
                reps.push_back(Json{{"seed", seed}, {"status", st == "cached" ? "ok" : st}});
            }
            line["replications"] = reps;
        }
        if (!message.empty()) line["message"] = message;
        jsonl << line.dump() << "\n";
        for (std::size_t c = 0; c < row.size(); ++c) csv << (c ? "," : "") << row[c];
        csv << "\n";
        rows.push_back(std::move(row));
    }
    out.csv = csv.str();
    out.jsonl = jsonl.str();

    // Fixed-width table: one row per point.
    std::vector<std::size_t> width(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    auto put_row = [&](const std::vector<std::string>& row) {
        for (std::size_t c = 0; c < row.size(); ++c)
            out.table += fmt::format("{:<{}}{}", row[c], width[c], c + 1 < row.size() ? "  " : "\n");
    };
    put_row(header);
    for (const auto& row : rows) put_row(row);

    // Exit code: the most serious failure wins (internal error, then model check, then bad input).
    bool internal = false, model = false, bad = false, interrupted = false;
    std::size_t failed = 0, unfinished = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const std::string& status = point_status[i];
        if (status == "ok") continue;
        if (status == "interrupted" || status == "not_run") {
            interrupted = true;
            ++unfinished;
            continue;
        }
        ++failed;
        internal = internal || status == "internal_error";
        model = model || status == "model_check_failed";
        bad = bad || status == "bad_input";
        out.failures.push_back(fmt::format("sweep point {} ({}): {}: {}", points[i].id, assignments_text(points[i]),
                                           status, point_message[i]));
    }
    // A pointer that no point's document holds is misspelled, not missing by chance.
    if (any_document) {
        for (std::size_t k = 0; k < spec.report.size(); ++k) {
            if (!pointer_seen[k]) {
                out.failures.push_back(fmt::format("{}: /report/{}: '{}' is in no point's stats document", spec.path,
                                                   k, spec.report[k]));
                bad = true;
            }
        }
    }
    out.exit_code = internal ? 1 : model ? 3 : bad ? 2 : 0;
    if (interrupted && (options.stop && options.stop->load())) out.exit_code = 130;
    out.table += fmt::format("{} points{}, {} failed{}; wrote {}/points.csv and points.jsonl\n", points.size(),
                             replicated ? fmt::format(" x {} replications", runs) : "", failed,
                             unfinished ? fmt::format(", {} not finished (interrupted: rerun to resume)", unfinished) : "",
                             options.out_dir);
    return out;
}

// Progress of this process's runs on stderr: "sweep: p0003 ok (4/10 done, 1 failed, eta 12s)".
class SweepProgress {
public:
    SweepProgress(std::size_t total, bool quiet, int rank, int size)
        : total_(total), quiet_(quiet),
          prefix_(size > 1 ? fmt::format("sweep (rank {}/{})", rank, size) : std::string("sweep")),
          start_(std::chrono::steady_clock::now()) {}

    void done(const std::string& id, const std::string& status) {
        std::lock_guard lock(mutex_);
        ++done_;
        if (status != "ok" && status != "cached" && status != "interrupted" && status != "not_run") ++failed_;
        if (status != "cached" && status != "not_run") ++ran_;
        if (quiet_ || status == "not_run") return;
        // The rate of the runs that ran here (cached ones cost nothing) predicts the rest.
        std::string eta;
        if (ran_ > 0 && done_ < total_) {
            const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
            eta = fmt::format(", eta {:.0f}s", elapsed / static_cast<double>(ran_) * static_cast<double>(total_ - done_));
        }
        std::fprintf(stderr, "%s: %s %s (%zu/%zu done, %zu failed%s)\n", prefix_.c_str(), id.c_str(), status.c_str(),
                     done_, total_, failed_, eta.c_str());
    }

private:
    std::mutex mutex_;
    std::size_t total_;
    bool quiet_;
    std::string prefix_;
    std::chrono::steady_clock::time_point start_;
    std::size_t done_ = 0, failed_ = 0, ran_ = 0;
};

}  // namespace

SweepResult sweep(const std::string& sweep_path, const SweepOptions& options) {
    std::unique_ptr<SweepGroup> group = open_sweep_group();
    const bool primary = group->rank() == 0;
    SweepResult result;
    result.primary = primary;
    // Errors every process meets alike (the file, its checks) are reported by rank 0 alone.
    const auto quietly = [&](int exit_code) {
        group->finish();
        result.exit_code = exit_code;
        return result;
    };

    Plan plan;
    try {
        plan = make_plan(sweep_path);
    } catch (const Error& e) {
        if (!primary) return quietly(e.exit_code());
        group->finish();
        throw;
    }
    const config::SweepSpec& spec = plan.spec;
    const std::size_t units = plan.points.size() * plan.runs_per_point;
    const fs::path out(options.out_dir);
    const auto unit_dir = [&](std::size_t u) { return out / "points" / unit_id(plan, u); };
    std::vector<UnitResult> results(units);
    for (auto& r : results) r.values.assign(spec.report.size(), Json());

    // This process's share: run u goes to rank u mod size, so each rank's runs spread over the whole sweep.
    std::vector<std::size_t> mine;
    for (std::size_t u = 0; u < units; ++u)
        if (static_cast<int>(u % static_cast<std::size_t>(group->size())) == group->rank()) mine.push_back(u);
    SweepProgress progress(mine.size(), options.quiet, group->rank(), group->size());

    // Point 0 runs alone first: its document shows whether each report pointer's stats group exists before the
    // other points spend their time (a point may legitimately lack a leaf, e.g. latency when saturated).
    std::vector<std::string> problems;
    if (primary) {
        std::error_code ec;
        // Stale summaries go first: a sweep that fails half-way leaves none from an earlier call.
        fs::remove(out / "points.csv", ec);
        fs::remove(out / "points.jsonl", ec);
        Json document;
        results[0] = run_unit(plan.command, unit_config(plan, 0), unit_dir(0), options, spec.report, &document);
        progress.done(unit_id(plan, 0), results[0].status);
        if (!document.is_null()) {
            for (std::size_t i = 0; i < spec.report.size(); ++i) {
                const std::string group_ptr = pointer_prefix(spec.report[i], 2);
                if (!document.contains(Json::json_pointer(group_ptr))) {
                    problems.push_back(fmt::format("{}: /report/{}: '{}' is not in the stats document of {} (no {})",
                                                   spec.path, i, spec.report[i], plan.points[0].id, group_ptr));
                }
            }
        }
    }
    problems = Json::parse(group->broadcast(Json(problems).dump())).get<std::vector<std::string>>();
    if (!problems.empty()) {
        if (!primary) return quietly(2);
        group->finish();
        throw ConfigError(std::move(problems));
    }

    // The rest of this process's runs, on `jobs` threads.
    {
        std::atomic<std::size_t> next{primary ? 1u : 0u};
        auto worker = [&] {
            for (std::size_t k = next++; k < mine.size(); k = next++) {
                const std::size_t u = mine[k];
                results[u] = run_unit(plan.command, unit_config(plan, u), unit_dir(u), options, spec.report);
                progress.done(unit_id(plan, u), results[u].status);
            }
        };
        const int jobs = std::max(1, std::min<int>(options.jobs, static_cast<int>(mine.size())));
        std::vector<std::thread> threads;
        for (int j = 1; j < jobs; ++j) threads.emplace_back(worker);
        worker();
        for (auto& t : threads) t.join();
    }

    // Rank 0 collects every run's result; the summaries are built from them in point order.
    {
        Json mine_json = Json::array();
        if (!primary)
            for (std::size_t u : mine) mine_json.push_back(to_json(u, results[u]));
        const std::vector<std::string> gathered = group->gather(mine_json.dump());
        for (std::size_t rank = 1; rank < gathered.size(); ++rank) {
            for (const Json& j : Json::parse(gathered[rank])) {
                auto [u, r] = unit_from_json(j);
                if (u < results.size()) results[u] = std::move(r);
            }
        }
    }

    if (!primary) {
        // The exit code is rank 0's, so that mpirun reports the sweep's outcome whichever rank it asks.
        const int code = std::stoi(group->broadcast(""));
        return quietly(code);
    }
    std::exception_ptr failure;
    Summary summary;
    try {
        summary = summarize_sweep(plan, results, options);
        write_file_atomic((out / "points.jsonl").string(), summary.jsonl);
        write_file_atomic((out / "points.csv").string(), summary.csv);
    } catch (...) {
        failure = std::current_exception();
        summary.exit_code = 2;
    }
    group->broadcast(std::to_string(summary.exit_code));
    group->finish();
    if (failure) std::rethrow_exception(failure);

    Report& rep = result.report;
    rep.csv = summary.csv;
    rep.document = Json{{"sweep", spec.path}, {"points", Json::array()}};
    {
        std::istringstream lines(summary.jsonl);
        for (std::string l; std::getline(lines, l);) rep.document["points"].push_back(Json::parse(l));
    }
    rep.table = summary.table;
    result.failures = std::move(summary.failures);
    result.exit_code = summary.exit_code;
    return result;
}

}  // namespace loom::scenario
