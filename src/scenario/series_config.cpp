#include "series_config.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "loom/config/units.hpp"
#include "loom/sim/kernel_stats.hpp"

namespace loom::scenario {

config::FieldInfo stats_config_info() {
    config::FieldInfo interval;
    interval.key = "interval";
    interval.kind = config::Kind::Duration;
    interval.doc = "time between samples; samples are taken at 0, interval, 2*interval, ... up to the end of the run";
    interval.required = true;
    interval.range = ">= 1ps";
    config::FieldInfo keys;
    keys.key = "keys";
    keys.kind = config::Kind::List;
    keys.doc = "JSON Pointers of declared scalar statistics (see the model's stats in loom list); '*' in a token "
               "samples every instance or statistic it matches that the model can read during the run";
    keys.required = true;
    keys.range = ">= 1";
    config::FieldInfo series;
    series.key = "series";
    series.kind = config::Kind::Section;
    series.doc = "sample statistics during the run: stats.json gets \"series\", --out DIR also series.csv";
    series.children = {interval, keys};
    config::FieldInfo info;
    info.key = "stats";
    info.kind = config::Kind::Section;
    info.doc = "what the stats document holds besides the end-of-run statistics";
    info.children = {series};
    info.default_value = config::Json::object();
    return info;
}

void parse_stats_config(const config::Json& root, const std::string& model, const stats::StatDecls& declared,
                        StatsConfig& out, config::Errors& errors) {
    if (!root.is_object() || !root.contains("stats")) return;
    const config::Json& s = root.at("stats");
    if (!s.is_object()) {
        errors.add("/stats", fmt::format("expected an object, got {}", config::quote_value(s)));
        return;
    }
    config::report_unknown_keys(s, "/stats", {"series"}, errors);
    if (!s.contains("series")) return;
    const config::Json& j = s.at("series");
    if (!j.is_object()) {
        errors.add("/stats/series", fmt::format("expected an object, got {}", config::quote_value(j)));
        return;
    }
    config::report_unknown_keys(j, "/stats/series", {"interval", "keys"}, errors);
    SeriesConfig series;
    bool ok = true;
    if (!j.contains("interval")) {
        errors.add("/stats/series/interval", "missing required key 'interval'");
        ok = false;
    } else {
        const config::Json& v = j.at("interval");
        const std::optional<Time> t = v.is_string() ? config::parse_duration(v.get<std::string>()) : std::nullopt;
        if (!t || *t < Time::ps(1)) {
            errors.add("/stats/series/interval",
                       fmt::format("expected {} (>= 1ps), got {}", config::kDurationForm, config::quote_value(v)));
            ok = false;
        } else {
            series.interval = *t;
        }
    }
    if (!j.contains("keys")) {
        errors.add("/stats/series/keys", "missing required key 'keys'");
        ok = false;
    } else if (const config::Json& keys = j.at("keys"); !keys.is_array() || keys.empty()) {
        errors.add("/stats/series/keys",
                   fmt::format("expected a non-empty array of JSON Pointers into the stats document, got {}",
                               config::quote_value(keys)));
        ok = false;
    } else {
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const std::string at = config::child_pointer("/stats/series/keys", i);
            if (!keys[i].is_string()) {
                errors.add(at, fmt::format("expected a JSON Pointer string such as \"/stats/kernel/events_handled\", "
                                           "got {}", config::quote_value(keys[i])));
                ok = false;
                continue;
            }
            const std::string key = keys[i].get<std::string>();
            // A key with '*' may also select among declared scalars ("/stats/ananta/connections/*").
            const auto selects = [&key](const stats::StatDecl& d) {
                return d.shape == stats::StatShape::Scalar && stats::pointer_matches(key, d.pointer);
            };
            if (declared.find_scalar(key) != nullptr ||
                (key.find('*') != std::string::npos &&
                 std::any_of(declared.all().begin(), declared.all().end(), selects))) {
                series.keys.push_back(key);
                continue;
            }
            ok = false;
            if (const stats::StatDecl* d = declared.covering(key)) {
                errors.add(at, fmt::format("'{}' lies in '{}', a {} of model '{}': a series samples scalar statistics "
                                           "only (see loom list)",
                                           key, d->pointer, stats::shape_name(d->shape), model));
            } else {
                errors.add(at, fmt::format("'{}' is not a declared statistic of model '{}' (see loom list)", key, model));
            }
        }
    }
    if (ok) out.series = std::move(series);
}

namespace {

std::vector<std::string> columns_of(const std::vector<sim::Probe>& probes) {
    std::vector<std::string> out;
    out.reserve(probes.size());
    for (const sim::Probe& p : probes) out.push_back(p.pointer);
    return out;
}

// Every key's probes, one per concrete pointer (a pointer named by two keys is sampled once); a key the model
// cannot read mid-run is an error at its place in the list.
std::vector<sim::Probe> resolve_probes(const SeriesConfig& config, const std::string& model,
                                       const stats::StatDecls& declared, const sim::ModelInstance& instance,
                                       const sim::Simulator& sim) {
    // The kernel's own statistics can be read under any model; the model's come from its probes.
    const sim::Probes kernel = sim::kernel_probes(sim);
    const auto probes_of = [&](const std::string& key) {
        std::vector<sim::Probe> found = instance.probes(key);
        for (sim::Probe& p : kernel.select(key)) found.push_back(std::move(p));
        return found;
    };
    config::Errors errors;
    std::vector<sim::Probe> out;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < config.keys.size(); ++i) {
        std::vector<sim::Probe> found = probes_of(config.keys[i]);
        if (found.empty()) {
            std::string can;
            for (const stats::StatDecl& d : declared.all())
                if (d.shape == stats::StatShape::Scalar && !probes_of(d.pointer).empty())
                    can += (can.empty() ? "" : ", ") + d.pointer;
            errors.add(config::child_pointer("/stats/series/keys", i),
                       fmt::format("model '{}' cannot sample '{}' during a run (its value is known only at the end); "
                                   "it can sample: {}",
                                   model, config.keys[i], can.empty() ? std::string("none") : can));
            continue;
        }
        for (sim::Probe& p : found)
            if (seen.insert(p.pointer).second) out.push_back(std::move(p));
    }
    errors.throw_if_any();
    return out;
}

}  // namespace

SeriesRecorder::SeriesRecorder(const SeriesConfig& config, const std::string& model, const stats::StatDecls& declared,
                               const sim::ModelInstance& instance, sim::Simulator& sim)
    : probes_(resolve_probes(config, model, declared, instance, sim)), series_(config.interval, columns_of(probes_)) {
    sim.set_sampler(config.interval, [this](Time t) {
        std::vector<stats::Json> row;
        row.reserve(probes_.size());
        for (const sim::Probe& p : probes_) row.push_back(p.read(t));
        series_.add_row(t, std::move(row));
    });
}

}  // namespace loom::scenario
