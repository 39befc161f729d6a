// `loom sweep`: every point of a sweep file run in parallel into its own folder; a rerun skips the points whose
// results are still valid (same effective config, same build of Loom) and resumes an interrupted sweep.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "loom/base/error.hpp"
#include "loom/config/document.hpp"
#include "loom/config/sweep.hpp"
#include "loom/scenario/scenario.hpp"
#include "loom/stats/stats.hpp"
#include "scenario_internal.hpp"

namespace loom::scenario {

namespace fs = std::filesystem;

namespace {

struct PointResult {
    // ok | cached | bad_input | model_check_failed | internal_error | interrupted | not_run
    std::string status = "not_run";
    std::string message;
    Json document;
};

const char* status_of(int exit_code) {
    switch (exit_code) {
        case 2: return "bad_input";
        case 3: return "model_check_failed";
        case 130: return "interrupted";
        default: return "internal_error";
    }
}

// A cell of points.csv: strings bare (quoted when needed), everything else as compact JSON.
std::string csv_cell(const Json& v) {
    std::string s = v.is_string() ? v.get<std::string>() : v.dump();
    if (s.find_first_of(",\"\n") != std::string::npos) {
        std::string q = "\"";
        for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
        return q + "\"";
    }
    return s;
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

PointResult run_point(const char* command, const config::SweepPoint& point, const fs::path& dir,
                      const SweepOptions& options) {
    PointResult r;
    const fs::path stats_path = dir / "stats.json";
    const std::string key = cache_key(command, point.config, options.build_identity);
    std::error_code ec;
    if (fs::exists(stats_path, ec) && read_small_file(dir / kKeyFile) == key + "\n") {
        try {
            r.document = config::load_json_file(stats_path.string());
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
        const RunResult result = execute(command, point.config, run_options);
        if (result.interrupted) {
            // Nothing is written: the point runs again on the next call.
            r.status = "interrupted";
            return r;
        }
        write_report(dir.string(), result.report, point.config);
        write_file_atomic((dir / kKeyFile).string(), key + "\n");
        r.document = result.report.document;
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

SweepResult sweep(const std::string& sweep_path, const SweepOptions& options) {
    config::SweepSpec spec = config::load_sweep(sweep_path);
    const char* command = command_name(spec.command);
    // Relative file paths in the base config resolve against the base config's folder.
    resolve_paths(spec.base, spec.base_path);

    // Everything that can be checked before a point runs: axis paths against the model's parameters, report
    // pointers against the document's members.
    {
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
                                               spec.path, i, spec.report[i], command,
                                               spec.command == config::SweepCommand::Compare ? ", /comparison" : ""));
            }
        }
        if (!problems.empty()) throw ConfigError(std::move(problems));
    }

    std::vector<config::SweepPoint> points = config::expand(spec);
    // A path an axis assigns (a trace file, say) is named by the sweep file: it resolves against its folder.
    for (auto& p : points) {
        for (const auto& [path, value] : p.assignments) {
            if (!value.is_string()) continue;
            Json probe{{"model", p.config.value("model", Json())}};
            if (config::try_set_dotted(probe, path, value)) continue;
            resolve_paths(probe, spec.path);
            const Json::json_pointer jp(config::dotted_to_pointer(path));
            if (probe.at(jp) != value) p.config[jp] = probe.at(jp);
        }
    }

    const fs::path out(options.out_dir);
    std::error_code ec;
    // Stale summaries go first: a sweep that fails half-way leaves none from an earlier call.
    fs::remove(out / "points.csv", ec);
    fs::remove(out / "points.jsonl", ec);
    std::vector<PointResult> results(points.size());

    std::mutex print_mutex;
    std::size_t done = 0;
    auto report_point = [&](std::size_t i) {
        std::lock_guard lock(print_mutex);
        ++done;
        if (!options.quiet && results[i].status != "not_run") {
            std::fprintf(stderr, "sweep: %s %s (%zu/%zu)\n", points[i].id.c_str(), results[i].status.c_str(), done,
                         points.size());
        }
    };

    // Point 0 runs alone first: its document shows whether each report pointer's stats group exists before the
    // other points spend their time (a point may legitimately lack a leaf, e.g. latency when saturated).
    results[0] = run_point(command, points[0], out / "points" / points[0].id, options);
    report_point(0);
    if (!results[0].document.is_null()) {
        std::vector<std::string> problems;
        for (std::size_t i = 0; i < spec.report.size(); ++i) {
            const std::string group = pointer_prefix(spec.report[i], 2);
            if (!results[0].document.contains(Json::json_pointer(group))) {
                problems.push_back(fmt::format("{}: /report/{}: '{}' is not in the stats document of {} (no {})",
                                               spec.path, i, spec.report[i], points[0].id, group));
            }
        }
        if (!problems.empty()) throw ConfigError(std::move(problems));
    }

    std::atomic<std::size_t> next{1};
    auto worker = [&] {
        for (std::size_t i = next++; i < points.size(); i = next++) {
            results[i] = run_point(command, points[i], out / "points" / points[i].id, options);
            report_point(i);
        }
    };
    const int jobs = std::max(1, std::min<int>(options.jobs, static_cast<int>(points.size())));
    std::vector<std::thread> threads;
    for (int j = 1; j < jobs; ++j) threads.emplace_back(worker);
    worker();
    for (auto& t : threads) t.join();

    // points.csv / points.jsonl / the table, in point order.
    std::ostringstream csv, jsonl;
    std::vector<std::string> header;
    for (const auto& a : spec.axes) header.push_back(a.path);
    for (const auto& p : spec.report) header.push_back(p);
    header.push_back("status");
    for (std::size_t c = 0; c < header.size(); ++c) csv << (c ? "," : "") << csv_cell(Json(header[c]));
    csv << "\n";
    std::vector<std::vector<std::string>> rows;
    std::vector<bool> pointer_seen(spec.report.size(), false);
    bool any_document = false;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& r = results[i];
        Json line{{"id", points[i].id}, {"index", points[i].index}, {"status", r.status}};
        Json assignments = Json::object(), report = Json::object();
        std::vector<std::string> row;
        for (const auto& [path, value] : points[i].assignments) {
            assignments[path] = value;
            row.push_back(csv_cell(value));
        }
        any_document = any_document || !r.document.is_null();
        for (std::size_t k = 0; k < spec.report.size(); ++k) {
            const std::string& ptr = spec.report[k];
            Json v;  // null when missing or when the point failed
            if (!r.document.is_null()) {
                const Json::json_pointer jp(ptr);
                if (r.document.contains(jp)) {
                    v = r.document.at(jp);
                    pointer_seen[k] = true;
                }
            }
            report[ptr] = v;
            row.push_back(v.is_null() ? std::string() : csv_cell(v));
        }
        row.push_back(r.status == "cached" ? "ok" : r.status);
        line["assignments"] = assignments;
        line["report"] = report;
        if (!r.message.empty()) line["message"] = r.message;
        jsonl << line.dump() << "\n";
        for (std::size_t c = 0; c < row.size(); ++c) csv << (c ? "," : "") << row[c];
        csv << "\n";
        rows.push_back(std::move(row));
    }
    write_file_atomic((out / "points.jsonl").string(), jsonl.str());
    write_file_atomic((out / "points.csv").string(), csv.str());

    SweepResult result;
    Report& rep = result.report;
    rep.csv = csv.str();
    rep.document = Json{{"sweep", spec.path}, {"points", Json::array()}};
    {
        std::istringstream lines(jsonl.str());
        for (std::string l; std::getline(lines, l);) rep.document["points"].push_back(Json::parse(l));
    }
    // Fixed-width table: one row per point.
    std::vector<std::size_t> width(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    std::string table;
    auto put_row = [&](const std::vector<std::string>& row) {
        for (std::size_t c = 0; c < row.size(); ++c)
            table += fmt::format("{:<{}}{}", row[c], width[c], c + 1 < row.size() ? "  " : "\n");
    };
    put_row(header);
    for (const auto& row : rows) put_row(row);

    // Exit code: the most serious failure wins (internal error, then model check, then bad input).
    bool internal = false, model = false, bad = false, interrupted = false;
    std::size_t failed = 0, unfinished = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& r = results[i];
        if (r.status == "ok" || r.status == "cached") continue;
        if (r.status == "interrupted" || r.status == "not_run") {
            interrupted = true;
            ++unfinished;
            continue;
        }
        ++failed;
        internal = internal || r.status == "internal_error";
        model = model || r.status == "model_check_failed";
        bad = bad || r.status == "bad_input";
        result.failures.push_back(
            fmt::format("sweep point {} ({}): {}: {}", points[i].id, assignments_text(points[i]), r.status, r.message));
    }
    // A pointer that no point's document holds is misspelled, not missing by chance.
    if (any_document) {
        for (std::size_t k = 0; k < spec.report.size(); ++k) {
            if (!pointer_seen[k]) {
                result.failures.push_back(fmt::format("{}: /report/{}: '{}' is in no point's stats document", spec.path,
                                                      k, spec.report[k]));
                bad = true;
            }
        }
    }
    result.exit_code = internal ? 1 : model ? 3 : bad ? 2 : 0;
    if (interrupted && (options.stop && options.stop->load())) result.exit_code = 130;
    table += fmt::format("{} points, {} failed{}; wrote {}/points.csv and points.jsonl\n", points.size(), failed,
                         unfinished ? fmt::format(", {} not finished (interrupted: rerun to resume)", unfinished) : "",
                         options.out_dir);
    rep.table = table;
    return result;
}

}  // namespace loom::scenario
