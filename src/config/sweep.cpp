#include "loom/config/sweep.hpp"

#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "loom/base/error.hpp"
#include "loom/base/rng.hpp"
#include "loom/config/document.hpp"

namespace loom::config {
namespace {

// A sweep this large is a mistake in the axes, not a plan.
constexpr std::size_t kMaxPoints = 1'000'000;

bool valid_dotted(const std::string& path) {
    if (path.empty() || path.front() == '.' || path.back() == '.') return false;
    return path.find("..") == std::string::npos;
}

bool valid_pointer(const std::string& text) {
    if (text.empty() || text.front() != '/') return false;
    try {
        Json::json_pointer pointer(text);
    } catch (const Json::exception&) {
        return false;
    }
    return true;
}

// Checks `doc` and fills `spec` (except base and paths). `base` is the loaded base config when the caller has
// it, otherwise it is loaded from `base_dir` once the rest checked out.
SweepSpec build(const Json& doc, const std::string& origin, std::optional<Json> base, const std::string& base_dir) {
    Errors errors;
    SweepSpec spec;
    spec.path = origin;
    const auto finish = [&] {
        if (errors.empty()) return;
        std::vector<std::string> messages;
        for (const std::string& m : errors.messages()) messages.push_back(fmt::format("{}: {}", origin, m));
        throw ConfigError(std::move(messages));
    };
    if (!doc.is_object()) {
        errors.add("", fmt::format("expected a sweep object, got {}", quote_value(doc)));
        finish();
    }
    report_unknown_keys(doc, "", {"base", "command", "axes", "zip", "report", "replications"}, errors);

    if (!doc.contains("base")) {
        errors.add("", "missing required key 'base'");
    } else if (const Json& b = doc["base"]; !b.is_string() || b.get_ref<const std::string&>().empty()) {
        errors.add("/base", fmt::format("expected a config path, got {}", quote_value(b)));
    } else {
        spec.base_path = b.get<std::string>();
    }

    if (auto it = doc.find("command"); it != doc.end()) {
        if (*it == "run") {
            spec.command = SweepCommand::Run;
        } else if (*it == "schedule") {
            spec.command = SweepCommand::Schedule;
        } else if (*it == "compare") {
            spec.command = SweepCommand::Compare;
        } else {
            errors.add("/command",
                       fmt::format("expected one of \"run\", \"schedule\", \"compare\", got {}", quote_value(*it)));
        }
    }

    if (auto it = doc.find("zip"); it != doc.end()) {
        if (it->is_boolean()) {
            spec.zip = it->get<bool>();
        } else {
            errors.add("/zip", fmt::format("expected true or false, got {}", quote_value(*it)));
        }
    }

    if (auto it = doc.find("replications"); it != doc.end()) {
        if (it->is_number_integer() && it->get<std::int64_t>() >= 1 && it->get<std::int64_t>() <= kMaxReplications) {
            spec.replications = it->get<int>();
        } else {
            errors.add("/replications",
                       fmt::format("expected an integer in 1..{}, got {}", kMaxReplications, quote_value(*it)));
        }
    }

    if (auto it = doc.find("report"); it != doc.end()) {
        if (!it->is_array()) {
            errors.add("/report", fmt::format("expected an array of JSON Pointers, got {}", quote_value(*it)));
        } else {
            for (std::size_t i = 0; i < it->size(); ++i) {
                const Json& r = (*it)[i];
                if (r.is_string() && valid_pointer(r.get_ref<const std::string&>())) {
                    spec.report.push_back(r.get<std::string>());
                } else {
                    errors.add(child_pointer("/report", i),
                               fmt::format("expected a JSON Pointer like \"/stats/sim/events\", got {}", quote_value(r)));
                }
            }
        }
    }

    std::vector<std::string> axis_pointers;  // of each accepted axis, for messages that compare axes
    if (!doc.contains("axes")) {
        errors.add("", "missing required key 'axes'");
    } else if (const Json& axes = doc["axes"]; !axes.is_array() || axes.empty()) {
        errors.add("/axes", fmt::format("expected a non-empty array of axes, got {}", quote_value(axes)));
    } else {
        for (std::size_t i = 0; i < axes.size(); ++i) {
            const std::string at = child_pointer("/axes", i);
            const Json& a = axes[i];
            if (!a.is_object()) {
                errors.add(at, fmt::format("expected an axis {{\"path\": ..., \"values\": [...]}}, got {}", quote_value(a)));
                continue;
            }
            report_unknown_keys(a, at, {"path", "values"}, errors);
            SweepAxis axis;
            bool ok = true;
            if (!a.contains("path")) {
                errors.add(at, "missing required key 'path'");
                ok = false;
            } else if (const Json& p = a["path"]; !p.is_string() || !valid_dotted(p.get_ref<const std::string&>())) {
                errors.add(at + "/path", fmt::format("expected a dotted path like \"phold.lps\", got {}", quote_value(p)));
                ok = false;
            } else {
                axis.path = p.get<std::string>();
                for (std::size_t j = 0; j < spec.axes.size(); ++j) {
                    if (spec.axes[j].path == axis.path) {
                        errors.add(at + "/path", fmt::format("'{}' is already swept by {}", axis.path, axis_pointers[j]));
                        ok = false;
                    }
                }
            }
            if (!a.contains("values")) {
                errors.add(at, "missing required key 'values'");
                ok = false;
            } else if (const Json& v = a["values"]; !v.is_array() || v.empty()) {
                errors.add(at + "/values", fmt::format("expected a non-empty array, got {}", quote_value(v)));
                ok = false;
            } else {
                axis.values.assign(v.begin(), v.end());
            }
            if (!ok) continue;
            if (spec.zip && !spec.axes.empty() && axis.values.size() != spec.axes.front().values.size()) {
                errors.add(at + "/values",
                           fmt::format("zip needs axes of equal length: this one has {} values, {} has {}",
                                       axis.values.size(), axis_pointers.front(), spec.axes.front().values.size()));
                continue;
            }
            spec.axes.push_back(std::move(axis));
            axis_pointers.push_back(at);
        }
    }
    if (errors.empty() && point_count(spec) > kMaxPoints) {
        errors.add("/axes", fmt::format("the sweep has more than {} points", kMaxPoints));
    } else if (errors.empty() && point_count(spec) * static_cast<std::size_t>(spec.replications) > kMaxPoints) {
        errors.add("/replications", fmt::format("the sweep has more than {} runs ({} points x {} replications)",
                                                kMaxPoints, point_count(spec), spec.replications));
    }
    finish();

    if (base) {
        spec.base = std::move(*base);
    } else {
        const std::filesystem::path dir(base_dir);
        spec.base_path = (dir / spec.base_path).lexically_normal().string();
        spec.base = load_json_file(spec.base_path);
    }
    // Every path must apply to the base; point 0's assignments, applied in order, exercise each path once.
    Json probe = spec.base;
    for (std::size_t i = 0; i < spec.axes.size(); ++i) {
        if (auto problem = try_set_dotted(probe, spec.axes[i].path, spec.axes[i].values.front())) {
            errors.add(axis_pointers[i] + "/path", *problem);
        }
    }
    finish();
    return spec;
}

}  // namespace

SweepSpec load_sweep(const std::string& path) {
    const Json doc = load_json_file(path);
    return build(doc, path, std::nullopt, std::filesystem::path(path).parent_path().string());
}

SweepSpec make_sweep(const Json& doc, const std::string& origin, Json base) {
    return build(doc, origin, std::move(base), {});
}

std::int64_t replication_seed(std::int64_t seed, int r) {
    if (r == 0) return seed;
    const std::uint64_t stream = derive(static_cast<std::uint64_t>(seed), "replication");
    return static_cast<std::int64_t>(derive(stream, static_cast<std::uint64_t>(r)) >> 1);
}

std::size_t point_count(const SweepSpec& spec) {
    if (spec.axes.empty()) return 0;
    if (spec.zip) return spec.axes.front().values.size();
    std::size_t n = 1;
    for (const SweepAxis& a : spec.axes) {
        // Saturate rather than wrap: callers only compare against a limit.
        if (n > std::numeric_limits<std::size_t>::max() / a.values.size()) return std::numeric_limits<std::size_t>::max();
        n *= a.values.size();
    }
    return n;
}

std::vector<SweepPoint> expand(const SweepSpec& spec) {
    const std::size_t n = point_count(spec);
    std::vector<SweepPoint> points;
    points.reserve(n);
    for (std::size_t index = 0; index < n; ++index) {
        SweepPoint p;
        p.index = index;
        p.id = fmt::format("p{:04d}", index);
        p.assignments.resize(spec.axes.size());
        // Row-major: the last axis varies fastest.
        std::size_t rest = index;
        for (std::size_t k = spec.axes.size(); k-- > 0;) {
            const SweepAxis& axis = spec.axes[k];
            const std::size_t v = spec.zip ? index : rest % axis.values.size();
            rest = spec.zip ? rest : rest / axis.values.size();
            p.assignments[k] = {axis.path, axis.values[v]};
        }
        p.config = spec.base;
        for (const auto& [path, value] : p.assignments) {
            if (auto problem = try_set_dotted(p.config, path, value)) {
                throw InputError(fmt::format("{}: sweep point {} ({}): {}", spec.path, p.id, path, *problem));
            }
        }
        points.push_back(std::move(p));
    }
    return points;
}

}  // namespace loom::config
