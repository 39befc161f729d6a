// Writing what a command reports: the stats document and its renderings, to stdout in the chosen format and
// to --out DIR as whole files (written to a temporary name and renamed, so no partial file ever looks complete).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace loom::scenario {

// Declared before the Json alias: a scoped enumerator named like an existing name trips -Wshadow.
enum class Format { Table, Json, Csv };

using Json = nlohmann::json;
// Parses "table" | "json" | "csv"; throws InputError naming the flag otherwise.
Format parse_format(const std::string& text, const std::string& flag = "--format");

// A finished report: the document and its renderings.
struct Report {
    Json document;           // the stats document (stats.json)
    std::string table;       // report.txt, or its opening lines when table_from_stats
    std::string summary;     // the lines that open `table` for a person to read first (may be empty)
    std::string csv;         // report.csv (may be empty: not written then, unless csv_from_stats)
    // The CSV is the stats' leaves, rendered from document["stats"] only when it is printed or written (a
    // 10,440-TSP run has over a million leaves, and most runs print the table only).
    bool csv_from_stats = false;
    // Likewise the table: when set, report.txt is `table`, the stats' table rendered from document["stats"] and
    // `table_tail`, rendered only when printed or written (`loom schedule --brief` prints the summary only).
    bool table_from_stats = false;
    std::string table_tail;
    std::vector<std::pair<std::string, std::string>> extra_files;  // (file name, contents), e.g. trace.json
};
// The whole text of report.txt (renders the stats' table when the report defers it).
std::string table_text(const Report& report);
// Renders the report for stdout in the given format.
std::string render(const Report& report, Format format);

// Creates DIR if needed and checks that it is writable; throws InputError("--out DIR: ...") otherwise.
// Called before a run starts so a bad --out fails fast, not after an hour of simulation.
void prepare_out_dir(const std::string& dir);
// Removes the files a previous report left in DIR (stats.json, report.txt, report.csv, config.json,
// trace.json, series.csv), so that a run that fails or is interrupted before writing its own leaves none that look like it.
void remove_previous_report(const std::string& dir);
// Writes config.json (the effective config, when not null), report.txt, report.csv (if any), the extra files
// and last stats.json into DIR, each atomically: a folder with stats.json holds a complete report.
void write_report(const std::string& dir, const Report& report, const Json& config = Json());
// Writes one file atomically (temporary name in the same folder, then rename); a failed write (full disk)
// throws InputError naming the file and leaves no file behind.
void write_file_atomic(const std::string& path, const std::string& contents);

// `--perf-json FILE`: the figures of `--perf` (RunResult::perf, "key=value" fields) as one JSON document,
// {"schema": "loom-perf", "schema_version": 1, "perf": {...}, ...`extra`} (README.md, "Regression checks"):
// integers and decimals become JSON numbers, other values strings.
Json perf_document(const std::string& perf, const Json& extra);
// Throws InputError("FLAG PATH: ...") unless PATH's folder exists and is writable: checked before a run, so a
// bad output file fails fast.
void check_output_file(const std::string& path, const std::string& flag);

}  // namespace loom::scenario
