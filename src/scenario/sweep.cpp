// `loom sweep`: every point of a sweep file run in parallel into its own folder; a rerun skips finished points.
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
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
    std::string status = "ok";  // ok | cached | bad_input | model_check_failed | internal_error
    std::string message;
    Json document;
};

const char* status_of(int exit_code) {
    switch (exit_code) {
        case 2: return "bad_input";
        case 3: return "model_check_failed";
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

PointResult run_point(const config::SweepSpec& spec, const config::SweepPoint& point, const fs::path& dir) {
    PointResult r;
    const fs::path stats_path = dir / "stats.json";
    std::error_code ec;
    if (fs::exists(stats_path, ec)) {
        try {
            r.document = config::load_json_file(stats_path.string());
            r.status = "cached";
            return r;
        } catch (const Error&) {
            // unreadable: run it again
        }
    }
    try {
        fs::create_directories(dir, ec);
        if (ec) throw InputError(fmt::format("{}: cannot create directory: {}", dir.string(), ec.message()));
        const char* command = spec.command == config::SweepCommand::Schedule  ? "schedule"
                              : spec.command == config::SweepCommand::Compare ? "compare"
                                                                              : "run";
        const RunResult result = execute(command, point.config, RunOptions{});
        write_file_atomic((dir / "config.json").string(), point.config.dump(2) + "\n");
        write_report(dir.string(), result.report);
        r.document = result.report.document;
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

}  // namespace

Report sweep(const std::string& sweep_path, const SweepOptions& options) {
    const config::SweepSpec spec = config::load_sweep(sweep_path);
    const std::vector<config::SweepPoint> points = config::expand(spec);
    const fs::path out(options.out_dir);
    std::vector<PointResult> results(points.size());

    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> done{0};
    std::mutex print_mutex;
    auto worker = [&] {
        for (std::size_t i = next++; i < points.size(); i = next++) {
            results[i] = run_point(spec, points[i], out / "points" / points[i].id);
            const std::size_t n = ++done;
            if (!options.quiet) {
                std::lock_guard lock(print_mutex);
                std::fprintf(stderr, "sweep: %s %s (%zu/%zu)\n", points[i].id.c_str(), results[i].status.c_str(), n,
                             points.size());
            }
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
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& r = results[i];
        Json line{{"id", points[i].id}, {"index", points[i].index}, {"status", r.status}};
        Json assignments = Json::object(), report = Json::object();
        std::vector<std::string> row;
        for (const auto& [path, value] : points[i].assignments) {
            assignments[path] = value;
            row.push_back(csv_cell(value));
        }
        for (const auto& ptr : spec.report) {
            Json v;  // null when missing or when the point failed
            if (!r.document.is_null()) {
                const Json::json_pointer jp(ptr);
                if (r.document.contains(jp)) v = r.document.at(jp);
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

    Report rep;
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
    std::size_t failed = 0;
    for (const auto& r : results) failed += (r.status != "ok" && r.status != "cached");
    table += fmt::format("{} points, {} failed; wrote {}/points.csv and points.jsonl\n", points.size(), failed,
                         options.out_dir);
    rep.table = table;
    return rep;
}

}  // namespace loom::scenario
