// The statistics of one component, found by its hierarchical path: named counters, histograms and time
// averages registered at setup (then updated through the returned references), and values set at the end.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "loom/base/units.hpp"
#include "loom/stats/counter.hpp"
#include "loom/stats/histogram.hpp"
#include "loom/stats/json.hpp"
#include "loom/stats/time_average.hpp"

namespace loom::stats {

// Registration is a setup-time operation (a map lookup); the returned references stay valid for the Group's
// lifetime, so the hot path never looks a name up. Registering the same name again with the same kind returns
// the same object; a name already used by another kind (or a histogram re-registered with another unit or
// sub_bits) is a bug and throws InternalError naming the path and the stat.
class Group {
public:
    explicit Group(std::string path) : path_(std::move(path)) {}
    Group(const Group&) = delete;
    Group& operator=(const Group&) = delete;

    const std::string& path() const { return path_; }

    Counter& counter(const std::string& name);
    // unit (e.g. "ps", "bytes") is appended to the value keys of the histogram's JSON ("p99_ps").
    Histogram& histogram(const std::string& name, const std::string& unit = {}, int sub_bits = 7);
    TimeAverage& time_average(const std::string& name);
    // A value computed at the end of a run (a makespan, a ratio, a table as JSON). Setting it again replaces it.
    void set(const std::string& name, Json value);
    // A value made when the group's JSON is (to_json), by `make` from what it holds: for large values, so that the
    // document holds their JSON and the group does not hold a second copy (at 10,440 TSPs the chips' port tables
    // are 1.25M leaves). `make` must not depend on anything that may be gone by then. Setting it again replaces it.
    void set_deferred(const std::string& name, std::function<Json()> make);

    // {name: value}, sorted by name: counters as integers, histograms as Histogram::to_json(unit), time
    // averages as TimeAverage::to_json(end), set values as given (deferred ones as made now).
    Json to_json(Time end) const;

private:
    enum class Kind { Counter, Histogram, TimeAverage, Value };
    void claim(const std::string& name, Kind kind) const;

    std::string path_;
    std::map<std::string, std::unique_ptr<Counter>> counters_;
    std::map<std::string, std::pair<std::unique_ptr<Histogram>, std::string>> histograms_;
    std::map<std::string, std::unique_ptr<TimeAverage>> averages_;
    std::map<std::string, Json> values_;
    std::map<std::string, std::function<Json()>> deferred_;  // values too, made by to_json
};

}  // namespace loom::stats
