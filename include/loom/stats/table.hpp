// Human- and spreadsheet-readable renderings of a stats object ({path: {name: value}}), for the `table` and
// `csv` report formats.
#pragma once

#include <string>
#include <string_view>

#include "loom/stats/json.hpp"

namespace loom::stats {

// A fixed-width terminal table with a header line, columns "path  name  value" padded to their widest entry,
// paths in sorted order and each group's leaves sorted by name. Nested objects are flattened with '.' in the
// name, except that a histogram (an object with "count" and a "p50..." key) becomes one row
// "count=.. mean=.. p50=.. p99=.. max=.." (keys keep their unit suffix, "p50_ps="). Integers print as
// integers, doubles with 4 significant digits, strings bare, arrays as compact JSON. A path whose value is
// not an object is one row with an empty name. `stats` must be an object.
std::string render_table(const Json& stats);

// The same leaves as CSV (RFC 4180 quoting, '\n' line ends): header "path,name,value", then one line per
// leaf with nested objects (histograms included) flattened with '.' in the name. Numbers are printed in full
// as in the JSON document.
std::string render_csv(const Json& stats);

// One CSV field, RFC 4180: `s` bare unless it holds a comma, a double quote, CR or LF; then in double quotes with
// each double quote doubled. Every CSV file Loom writes quotes its fields with this.
std::string csv_field(std::string_view s);

}  // namespace loom::stats
