#include "loom/scenario/output.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "loom/base/error.hpp"
#include "loom/stats/stats.hpp"

namespace loom::scenario {

namespace fs = std::filesystem;

Format parse_format(const std::string& text, const std::string& flag) {
    if (text == "table") return Format::Table;
    if (text == "json") return Format::Json;
    if (text == "csv") return Format::Csv;
    throw InputError(fmt::format("{}: expected one of table, json, csv, got '{}'", flag, text));
}

std::string table_text(const Report& report) {
    if (!report.table_from_stats) return report.table;
    std::string text = report.table + stats::render_table(report.document.at("stats"));
    if (!text.empty() && text.back() != '\n') text += '\n';
    return text + report.table_tail;
}

std::string render(const Report& report, Format format) {
    switch (format) {
        case Format::Json: return stats::dump(report.document);
        case Format::Csv:
            if (report.csv_from_stats) return stats::render_csv(report.document.at("stats"));
            return report.csv.empty() ? stats::render_csv(report.document.value("stats", Json::object())) : report.csv;
        case Format::Table: break;
    }
    return table_text(report);
}

void prepare_out_dir(const std::string& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw InputError(fmt::format("--out {}: cannot create directory: {}", dir, ec.message()));
    if (!fs::is_directory(dir, ec)) throw InputError(fmt::format("--out {}: not a directory", dir));
    const fs::path probe = fs::path(dir) / ".loom-write-test";
    {
        std::ofstream f(probe);
        if (!f) throw InputError(fmt::format("--out {}: directory is not writable", dir));
    }
    fs::remove(probe, ec);
}

Json perf_document(const std::string& perf, const Json& extra) {
    Json fields = Json::object();
    std::istringstream in(perf);
    for (std::string item; in >> item;) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0) continue;
        const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
        const char* first = value.data();
        const char* last = first + value.size();
        std::int64_t i = 0;
        double d = 0;
        if (const auto r = std::from_chars(first, last, i); r.ec == std::errc() && r.ptr == last) {
            fields[key] = i;
        } else if (const auto r2 = std::from_chars(first, last, d); r2.ec == std::errc() && r2.ptr == last) {
            fields[key] = d;
        } else {
            fields[key] = value;
        }
    }
    Json doc = {{"schema", "loom-perf"}, {"schema_version", 1}};
    for (const auto& [k, v] : extra.items()) doc[k] = v;
    doc["perf"] = std::move(fields);
    return doc;
}

void check_output_file(const std::string& path, const std::string& flag) {
    const fs::path p(path);
    const fs::path folder = p.has_parent_path() ? p.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(folder, ec))
        throw InputError(fmt::format("{} {}: folder {} does not exist", flag, path, folder.string()));
    if (fs::is_directory(p, ec)) throw InputError(fmt::format("{} {}: is a directory", flag, path));
    const fs::path probe = folder / ".loom-write-test";
    {
        std::ofstream f(probe);
        if (!f) throw InputError(fmt::format("{} {}: folder {} is not writable", flag, path, folder.string()));
    }
    fs::remove(probe, ec);
}

void remove_previous_report(const std::string& dir) {
    const fs::path d(dir);
    std::error_code ec;
    // stats.json first: without it the folder no longer claims a complete report.
    for (const char* name : {"stats.json", "report.txt", "report.csv", "config.json", "trace.json", "series.csv"}) {
        fs::remove(d / name, ec);
        if (ec) throw InputError(fmt::format("--out {}: cannot remove the previous {}: {}", dir, name, ec.message()));
    }
}

void write_file_atomic(const std::string& path, const std::string& contents) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f) throw InputError(fmt::format("{}: cannot write file", path));
        f << contents;
        f.close();  // close() reports what flush() may not (a full disk seen only when the buffer goes out)
        if (!f) {
            std::error_code ec;
            fs::remove(tmp, ec);
            throw InputError(fmt::format("{}: write failed (disk full?)", path));
        }
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) {
        fs::remove(tmp, ec);
        throw InputError(fmt::format("{}: cannot write file: {}", path, ec.message()));
    }
}

void write_report(const std::string& dir, const Report& report, const Json& config) {
    const fs::path d(dir);
    // stats.json last: its presence marks a complete output folder (sweeps rely on this).
    if (!config.is_null()) write_file_atomic((d / "config.json").string(), config.dump(2) + "\n");
    write_file_atomic((d / "report.txt").string(), table_text(report));
    if (report.csv_from_stats)
        write_file_atomic((d / "report.csv").string(), stats::render_csv(report.document.at("stats")));
    else if (!report.csv.empty())
        write_file_atomic((d / "report.csv").string(), report.csv);
    for (const auto& [name, contents] : report.extra_files) write_file_atomic((d / name).string(), contents);
    write_file_atomic((d / "stats.json").string(), stats::dump(report.document));
}

}  // namespace loom::scenario
