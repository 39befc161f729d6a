// A time series of sampled statistics: one row per sample time, one column per document pointer. Written into
// the stats document under "series" and as series.csv.
#pragma once

#include <string>
#include <vector>

#include "loom/base/units.hpp"
#include "loom/stats/json.hpp"

namespace loom::stats {

class Series {
public:
    // `columns` are the concrete document pointers sampled, in column order.
    Series(Time interval, std::vector<std::string> columns);

    // One sample: values[i] is column i's value at `at` (times increase from row to row).
    void add_row(Time at, std::vector<Json> values);
    std::size_t rows() const { return times_.size(); }
    const std::vector<std::string>& columns() const { return columns_; }

    // {"interval_ps", "samples", "time_ps": [t...], "values": {pointer: [v...]}}: every array has one entry per
    // sample.
    Json to_json() const;
    // "time_ps,<pointer>,..." then one line per sample (RFC 4180 quoting, '\n' line ends, numbers in full).
    std::string to_csv() const;

private:
    Time interval_;
    std::vector<std::string> columns_;
    std::vector<std::int64_t> times_;
    std::vector<std::vector<Json>> values_;  // per column
};

}  // namespace loom::stats
