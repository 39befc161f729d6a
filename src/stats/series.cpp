#include "loom/stats/series.hpp"

#include <string_view>

#include "loom/base/assert.hpp"
#include "loom/stats/table.hpp"

namespace loom::stats {
Series::Series(Time interval, std::vector<std::string> columns)
    : interval_(interval), columns_(std::move(columns)), values_(columns_.size()) {}

void Series::add_row(Time at, std::vector<Json> values) {
    LOOM_ASSERT(values.size() == columns_.size(), "Series::add_row: one value per column");
    LOOM_ASSERT(times_.empty() || at.count() > times_.back(), "Series::add_row: times must increase");
    times_.push_back(at.count());
    for (std::size_t c = 0; c < values.size(); ++c) values_[c].push_back(std::move(values[c]));
}

Json Series::to_json() const {
    Json values = Json::object();
    for (std::size_t c = 0; c < columns_.size(); ++c) values[columns_[c]] = values_[c];
    return Json{{"interval_ps", interval_.count()},
                {"samples", times_.size()},
                {"time_ps", times_},
                {"values", std::move(values)}};
}

std::string Series::to_csv() const {
    std::string out = "time_ps";
    for (const std::string& c : columns_) {
        out += ',';
        out += csv_field(c);
    }
    out += '\n';
    for (std::size_t r = 0; r < times_.size(); ++r) {
        out += std::to_string(times_[r]);
        for (std::size_t c = 0; c < columns_.size(); ++c) {
            const Json& v = values_[c][r];
            out += ',';
            out += csv_field(v.is_string() ? v.get<std::string>() : v.dump());
        }
        out += '\n';
    }
    return out;
}

}  // namespace loom::stats
