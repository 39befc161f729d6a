#include "loom/stats/table.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "loom/base/assert.hpp"

namespace loom::stats {
namespace {

enum class Style { Table, Csv };

std::string compact_json(const Json& v) { return v.dump(-1, ' ', false, Json::error_handler_t::replace); }

// One leaf's value as text: the table shows doubles to 4 significant digits, the CSV in full.
std::string format_value(const Json& v, Style style) {
    switch (v.type()) {
    case Json::value_t::number_float:
        return style == Style::Table ? fmt::format("{:.4g}", v.get<double>()) : compact_json(v);
    case Json::value_t::string:
        return v.get<std::string>();
    default:  // integers, booleans, null, arrays, empty objects
        return compact_json(v);
    }
}

// Whether `obj` is a histogram (Histogram::to_json): it has "count" and a key "p50" or "p50_<unit>". If so,
// `suffix` receives the unit suffix ("" or "_ps").
bool histogram_suffix(const Json& obj, std::string& suffix) {
    if (!obj.contains("count")) return false;
    for (const auto& [key, value] : obj.items()) {
        if (key == "p50" || key.starts_with("p50_")) {
            suffix = key.substr(3);
            return true;
        }
    }
    return false;
}

std::string histogram_summary(const Json& obj, const std::string& suffix) {
    std::string out;
    const auto part = [&](const std::string& key) {
        const auto it = obj.find(key);
        if (it == obj.end()) return;
        if (!out.empty()) out += ' ';
        out += key + "=" + format_value(*it, Style::Table);
    };
    part("count");
    for (const char* key : {"mean", "p50", "p99", "max"}) part(key + suffix);
    return out;
}

// Visits every leaf row (path, name, value) in order, without keeping them: at 10,440 TSPs the stats have 1.25M
// leaves, and a list of them as strings was a few hundred megabytes beside the document and the rendered text.
template <class Visit>
void collect(std::string_view path, const std::string& name, const Json& v, Style style, Visit& visit) {
    if (v.is_object() && !v.empty()) {
        std::string suffix;
        if (style == Style::Table && histogram_suffix(v, suffix)) {
            visit(path, name, histogram_summary(v, suffix));
            return;
        }
        for (const auto& [key, child] : v.items())
            collect(path, name.empty() ? key : name + "." + key, child, style, visit);
        return;
    }
    visit(path, name, format_value(v, style));
}

template <class Visit>
void for_each_leaf(const Json& stats, Style style, Visit&& visit) {
    LOOM_ASSERT(stats.is_object(), "render: the stats value must be a JSON object {path: {name: value}}");
    for (const auto& [path, group] : stats.items()) {
        if (group.is_object()) {
            for (const auto& [name, v] : group.items()) collect(path, name, v, style, visit);
        } else {
            visit(path, std::string(), format_value(group, style));
        }
    }
}

}  // namespace

std::string csv_field(std::string_view s) {
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
    return out;
}

std::string render_table(const Json& stats) {
    // Two passes over the leaves: the column widths and the text's size, then the text into one buffer of that size.
    std::size_t path_w = 4, name_w = 4;  // "path", "name"
    std::size_t rows = 0, values = 0;
    for_each_leaf(stats, Style::Table, [&](std::string_view path, std::string_view name, const std::string& value) {
        path_w = std::max(path_w, path.size());
        name_w = std::max(name_w, name.size());
        values += value.size();
        ++rows;
    });
    std::string out;
    out.reserve((rows + 2) * (path_w + name_w + 5) + values + 10);  // each line: columns, two gaps, its value, '\n'
    const auto line = [&](std::string_view path, std::string_view name, std::string_view value) {
        const std::size_t begin = out.size();
        fmt::format_to(std::back_inserter(out), "{:<{}}  {:<{}}  {}", path, path_w, name, name_w, value);
        const std::size_t end = out.find_last_not_of(' ');  // no trailing blanks (an empty value or name)
        out.resize(end == std::string::npos || end < begin ? begin : end + 1);
        out += '\n';
    };
    line("path", "name", "value");
    line(std::string(path_w, '-'), std::string(name_w, '-'), "-----");
    for_each_leaf(stats, Style::Table, [&](std::string_view path, std::string_view name, const std::string& value) {
        line(path, name, value);
    });
    return out;
}

std::string render_csv(const Json& stats) {
    std::string out = "path,name,value\n";
    for_each_leaf(stats, Style::Csv, [&](std::string_view path, std::string_view name, const std::string& value) {
        out += csv_field(path) + "," + csv_field(name) + "," + csv_field(value) + "\n";
    });
    return out;
}

}  // namespace loom::stats
