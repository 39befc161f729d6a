#include "loom/stats/group.hpp"

#include <fmt/format.h>

#include "loom/base/error.hpp"

namespace loom::stats {
namespace {

const char* kind_name(bool counter, bool histogram, bool average) {
    if (counter) return "counter";
    if (histogram) return "histogram";
    if (average) return "time average";
    return "value";
}

}  // namespace

void Group::claim(const std::string& name, Kind kind) const {
    const bool counter = counters_.contains(name);
    const bool histogram = histograms_.contains(name);
    const bool average = averages_.contains(name);
    const bool value = values_.contains(name) || deferred_.contains(name);
    const bool clash = (counter && kind != Kind::Counter) || (histogram && kind != Kind::Histogram) ||
                       (average && kind != Kind::TimeAverage) || (value && kind != Kind::Value);
    if (clash) {
        throw InternalError(fmt::format("stats group '{}': '{}' is already registered as a {}", path_, name,
                                        kind_name(counter, histogram, average)));
    }
}

Counter& Group::counter(const std::string& name) {
    if (auto it = counters_.find(name); it != counters_.end()) return *it->second;
    claim(name, Kind::Counter);
    return *counters_.emplace(name, std::make_unique<Counter>()).first->second;
}

Histogram& Group::histogram(const std::string& name, const std::string& unit, int sub_bits) {
    if (auto it = histograms_.find(name); it != histograms_.end()) {
        const auto& [hist, existing_unit] = it->second;
        if (existing_unit != unit || hist->sub_bits() != sub_bits) {
            throw InternalError(fmt::format(
                "stats group '{}': histogram '{}' re-registered with unit '{}' and sub_bits {} (was '{}' and {})",
                path_, name, unit, sub_bits, existing_unit, hist->sub_bits()));
        }
        return *hist;
    }
    claim(name, Kind::Histogram);
    auto& entry = histograms_.emplace(name, std::make_pair(std::make_unique<Histogram>(sub_bits), unit)).first->second;
    return *entry.first;
}

TimeAverage& Group::time_average(const std::string& name) {
    if (auto it = averages_.find(name); it != averages_.end()) return *it->second;
    claim(name, Kind::TimeAverage);
    return *averages_.emplace(name, std::make_unique<TimeAverage>()).first->second;
}

void Group::set(const std::string& name, Json value) {
    claim(name, Kind::Value);
    deferred_.erase(name);
    values_[name] = std::move(value);
}

void Group::set_deferred(const std::string& name, std::function<Json()> make) {
    claim(name, Kind::Value);
    values_.erase(name);
    deferred_[name] = std::move(make);
}

Json Group::to_json(Time end) const {
    Json j = Json::object();
    for (const auto& [name, c] : counters_) j[name] = c->value();
    for (const auto& [name, h] : histograms_) j[name] = h.first->to_json(h.second);
    for (const auto& [name, a] : averages_) j[name] = a->to_json(end);
    for (const auto& [name, v] : values_) j[name] = v;
    for (const auto& [name, make] : deferred_) j[name] = make();
    return j;
}

}  // namespace loom::stats
