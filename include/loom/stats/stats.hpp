// Statistics registered once at setup and updated through plain references on the hot path: counters,
// log-linear (HDR-style) histograms, time averages, and values set at the end of a run. A Registry holds
// one Group per component path and writes them all as one JSON object with sorted keys.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/base/units.hpp"

namespace loom::stats {

using Json = nlohmann::json;

// A monotone or signed running count. Hot path: one add.
class Counter {
public:
    void add(std::int64_t n = 1) { value_ += n; }
    void set(std::int64_t v) { value_ = v; }
    std::int64_t value() const { return value_; }

private:
    std::int64_t value_ = 0;
};

// Log-linear histogram of non-negative integers (HDR-style): exact below 2^sub_bits, then each power of two
// is split into 2^sub_bits equal buckets, so any recorded value is reported within a relative error of
// 2^-sub_bits. Negative values are clamped to 0 and counted in `negative`. min, max, count and sum are exact.
class Histogram {
public:
    explicit Histogram(int sub_bits = 7);
    void record(std::int64_t v) { record_n(v, 1); }
    void record_n(std::int64_t v, std::int64_t n);
    void merge(const Histogram& other);  // same sub_bits

    std::int64_t count() const { return count_; }
    std::int64_t min() const { return count_ ? min_ : 0; }
    std::int64_t max() const { return count_ ? max_ : 0; }
    double mean() const;
    // Value at quantile q in [0, 1]: the upper edge of the bucket holding it, clamped to [min, max].
    std::int64_t percentile(double q) const;
    // {"count","min","max","mean","p50","p90","p99","p999","sum"}, with "_<unit>" appended to the value keys
    // when unit is non-empty (e.g. "p99_ps").
    Json to_json(const std::string& unit = {}) const;

private:
    std::size_t bucket_of(std::int64_t v) const;
    std::int64_t bucket_upper(std::size_t b) const;
    int sub_bits_;
    std::vector<std::int64_t> buckets_;
    std::int64_t count_ = 0, min_ = 0, max_ = 0, negative_ = 0;
    __extension__ __int128 sum_ = 0;
};

// Time-weighted average of a piecewise-constant signal (queue occupancy, events in flight).
class TimeAverage {
public:
    // The signal takes `value` from time `now` on. Times must not decrease.
    void set(Time now, double value);
    void add(Time now, double delta) { set(now, value_ + delta); }
    double current() const { return value_; }
    double max() const { return max_; }
    // Average over [first set, end].
    double average(Time end) const;
    Json to_json(Time end) const;  // {"avg","max","final"}

private:
    bool started_ = false;
    Time start_{}, last_{};
    double value_ = 0, max_ = 0, area_ = 0;  // area in value·ps
};

// The statistics of one component (path "sys.rack3.node2.tsp5"). References returned stay valid for the
// Group's lifetime. Registering the same name twice returns the same object.
class Group {
public:
    explicit Group(std::string path) : path_(std::move(path)) {}
    const std::string& path() const { return path_; }

    Counter& counter(const std::string& name);
    Histogram& histogram(const std::string& name, const std::string& unit = {}, int sub_bits = 7);
    TimeAverage& time_average(const std::string& name);
    // A value computed at the end of a run (a makespan, a ratio, a table as JSON).
    void set(const std::string& name, Json value);

    Json to_json(Time end) const;  // {name: value}, sorted

private:
    std::string path_;
    std::map<std::string, std::unique_ptr<Counter>> counters_;
    std::map<std::string, std::pair<std::unique_ptr<Histogram>, std::string>> histograms_;
    std::map<std::string, std::unique_ptr<TimeAverage>> averages_;
    std::map<std::string, Json> values_;
};

// All groups of one run. Group references stay valid for the Registry's lifetime.
class Registry {
public:
    Group& group(const std::string& path);
    const Group* find(const std::string& path) const;
    Json to_json(Time end) const;  // {path: {...}}, sorted

private:
    std::map<std::string, std::unique_ptr<Group>> groups_;
};

// The stats document of a run: {schema_version, loom_version, config_hash, seed, sim_time_ps, stats, ...extra}.
// No wall-clock figure goes in: the same config and seed give a byte-identical document.
struct DocumentHeader {
    std::string config_hash;  // hex digest of the canonical config (see config::canonical_hash)
    std::uint64_t seed = 1;
    Time sim_time;
};
inline constexpr int kSchemaVersion = 1;
Json make_document(const DocumentHeader& header, Json stats);
// The document as text: sorted keys, 2-space indent, trailing newline.
std::string dump(const Json& document);

// A terminal table of a stats object: one row per leaf "path  name  value", histograms on one row each.
std::string render_table(const Json& stats);
// The same leaves as CSV: "path,name,value" with a header line.
std::string render_csv(const Json& stats);

const char* version();  // Loom's version string

}  // namespace loom::stats
