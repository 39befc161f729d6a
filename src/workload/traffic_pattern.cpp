#include "loom/workload/traffic_pattern.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "loom/base/assert.hpp"
#include "loom/base/error.hpp"

namespace loom::workload {

namespace {

std::int32_t count_terminals(const topo::FrozenTopology& t) {
    std::int64_t n = 0;
    for (const auto& v : t.vertices()) n += v.spare ? 0 : std::max(v.terminals, 0);
    return static_cast<std::int32_t>(std::min<std::int64_t>(n, INT32_MAX));
}

std::int32_t terminals_at(const topo::VertexInfo& v) { return v.spare ? 0 : std::max(v.terminals, 0); }

}  // namespace

void TrafficPattern::validate(const TrafficConfig& config, const topo::FrozenTopology& topology,
                              const std::string& pointer, config::Errors& errors) {
    const std::int32_t n = count_terminals(topology);
    if (config.pattern != TrafficPatternKind::Trace && n < 2) {
        errors.add(config::child_pointer(pointer, "pattern"),
                   fmt::format("pattern \"{}\" needs at least 2 terminals, the topology has {}",
                               traffic_pattern_name(config.pattern), n));
        return;
    }
    if (config.pattern == TrafficPatternKind::Hotspot) {
        for (std::size_t i = 0; i < config.hotspots.size(); ++i) {
            if (config.hotspots[i] >= n)
                errors.add(config::child_pointer(config::child_pointer(pointer, "hotspots"), i),
                           fmt::format("expected a terminal id in 0..{}, got {}", n - 1, config.hotspots[i]));
        }
    }
    if (config.pattern == TrafficPatternKind::GroupShift) {
        std::vector<bool> has;
        for (const auto& v : topology.vertices()) {
            if (terminals_at(v) == 0) continue;
            if (static_cast<std::size_t>(v.group) >= has.size()) has.resize(static_cast<std::size_t>(v.group) + 1);
            has[static_cast<std::size_t>(v.group)] = true;
        }
        const auto groups = static_cast<std::int64_t>(has.size());
        if (groups < 2 || std::count(has.begin(), has.end(), false) > 0) {
            errors.add(config::child_pointer(pointer, "pattern"),
                       fmt::format("pattern \"group_shift\" needs at least 2 groups, each with terminals (the "
                                   "topology has {} groups)",
                                   groups));
        } else if (config.shift % groups == 0) {
            errors.add(config::child_pointer(pointer, "shift"),
                       fmt::format("a shift of {} maps every group of {} onto itself", config.shift, groups));
        }
    }
}

TrafficPattern::TrafficPattern(const TrafficConfig& config, const topo::FrozenTopology& topology,
                               std::uint64_t seed)
    : kind_(config.pattern), shift_(config.shift), hotspot_fraction_(config.hotspot_fraction) {
    config::Errors errors;
    validate(config, topology, "/traffic", errors);
    if (!errors.empty()) throw InternalError("TrafficPattern built from an invalid config: " + errors.messages()[0]);

    const auto vertices = static_cast<std::size_t>(topology.num_vertices());
    first_.assign(vertices + 1, 0);
    for (std::size_t v = 0; v < vertices; ++v) {
        const topo::VertexInfo& info = topology.vertex(static_cast<topo::VertexId>(v));
        const std::int32_t k = terminals_at(info);
        first_[v] = static_cast<std::int32_t>(router_.size());
        for (std::int32_t i = 0; i < k; ++i) {
            const auto t = static_cast<std::int32_t>(router_.size());
            router_.push_back(static_cast<topo::VertexId>(v));
            group_.push_back(info.group);
            if (static_cast<std::size_t>(info.group) >= group_members_.size())
                group_members_.resize(static_cast<std::size_t>(info.group) + 1);
            group_members_[static_cast<std::size_t>(info.group)].push_back(t);
        }
    }
    first_[vertices] = static_cast<std::int32_t>(router_.size());

    if (kind_ == TrafficPatternKind::Permutation) {
        // Sattolo's algorithm: a uniformly random permutation with a single cycle, so no fixed point.
        const auto n = router_.size();
        permutation_.resize(n);
        for (std::size_t i = 0; i < n; ++i) permutation_[i] = static_cast<std::int32_t>(i);
        Rng rng(derive(seed, std::string_view("traffic.permutation")));
        for (std::size_t i = n - 1; i > 0; --i) {
            const auto j = static_cast<std::size_t>(rng.uniform(i));  // j < i
            std::swap(permutation_[i], permutation_[j]);
        }
    }
    for (std::int64_t h : config.hotspots) hotspots_.push_back(static_cast<std::int32_t>(h));
}

std::int32_t TrafficPattern::uniform_other(std::int32_t src, Rng& rng) const {
    const auto n = static_cast<std::uint64_t>(router_.size());
    auto d = static_cast<std::int32_t>(rng.uniform(n - 1));
    return d >= src ? d + 1 : d;
}

std::int32_t TrafficPattern::destination(std::int32_t src, Rng& rng) const {
    switch (kind_) {
        case TrafficPatternKind::Uniform: return uniform_other(src, rng);
        case TrafficPatternKind::Permutation: return permutation_[static_cast<std::size_t>(src)];
        case TrafficPatternKind::GroupShift: {
            const auto groups = static_cast<std::int64_t>(group_members_.size());
            const auto g = static_cast<std::size_t>((group_of(src) + shift_) % groups);
            const auto& members = group_members_[g];
            return members[static_cast<std::size_t>(rng.uniform(members.size()))];
        }
        case TrafficPatternKind::Hotspot: {
            if (rng.uniform01() < hotspot_fraction_) {
                const std::int32_t h = hotspots_[static_cast<std::size_t>(rng.uniform(hotspots_.size()))];
                if (h != src) return h;
            }
            return uniform_other(src, rng);
        }
        case TrafficPatternKind::Trace: break;
    }
    throw InternalError("TrafficPattern::destination: trace traffic carries its own destinations");
}

}  // namespace loom::workload
