#include "loom/fabric/routing_function.hpp"

#include <bit>

#include "loom/base/assert.hpp"

namespace loom::fabric {

std::string_view routing_name(RoutingKind kind) {
    switch (kind) {
        case RoutingKind::Minimal: return "minimal";
        case RoutingKind::Valiant: return "valiant";
        case RoutingKind::UgalLocal: return "ugal_l";
    }
    return "?";
}

config::Schema<RoutingConfig> routing_schema() {
    using R = RoutingConfig;
    config::Schema<R> s("Routing function of the VC routers, table-driven on the frozen topology.");
    s.choice("function", &R::function,
             {{"minimal", RoutingKind::Minimal}, {"valiant", RoutingKind::Valiant}, {"ugal_l", RoutingKind::UgalLocal}},
             "minimal; valiant (through a random intermediate group); ugal_l (per packet at its source router: "
             "minimal or Valiant, whichever has the smaller local queue x hops).");
    s.field("ugal_threshold_flits", &R::ugal_threshold_flits,
            "ugal_l: route minimally when q_min * H_min <= q_nonmin * H_nonmin + threshold (flits x hops).")
        .range(-(std::int64_t{1} << 40), std::int64_t{1} << 40);
    return s;
}

std::int32_t RoutingFunction::pick(std::uint64_t mask, Rng& rng) {
    LOOM_DEBUG_ASSERT(mask != 0, "RoutingFunction::pick: no candidate port");
    if ((mask & (mask - 1)) == 0) return std::countr_zero(mask);
    auto k = static_cast<int>(rng.uniform(static_cast<std::uint64_t>(std::popcount(mask))));
    while (k-- > 0) mask &= mask - 1;
    return std::countr_zero(mask);
}

std::int32_t RoutingFunction::random_other_group(std::int32_t group, Rng& rng) const {
    const std::int32_t g = tables_.groups();
    if (g < 2) return -1;
    const auto k = static_cast<std::int32_t>(rng.uniform(static_cast<std::uint64_t>(g - 1)));
    return k >= group ? k + 1 : k;
}

std::int32_t RoutingFunction::follow(const RouteQuery& q, RouteState& s, Rng& rng) const {
    if (s.intermediate >= 0) {
        if (tables_.group_of(q.router) == s.intermediate) {
            s.intermediate = -1;  // arrived: on to the destination
        } else {
            return pick(tables_.group_ports(q.router, s.intermediate), rng);
        }
    }
    return pick(tables_.minimal_ports(q.router, q.dest), rng);
}

namespace {

class MinimalRouting final : public RoutingFunction {
public:
    using RoutingFunction::RoutingFunction;
    RoutingKind kind() const override { return RoutingKind::Minimal; }
    std::int32_t classes() const override { return tables_.minimal_classes(); }
    std::int32_t route(const RouteQuery& q, RouteState& s, Rng& rng) const override {
        s.decided = true;
        return pick(tables_.minimal_ports(q.router, q.dest), rng);
    }
};

// Valiant: every packet goes first to a random group other than its source group (uniformly among the g - 1),
// then minimally to its destination. A draw of the destination's own group is a minimal route.
class ValiantRouting final : public RoutingFunction {
public:
    using RoutingFunction::RoutingFunction;
    RoutingKind kind() const override { return RoutingKind::Valiant; }
    std::int32_t classes() const override { return tables_.intermediate_classes(); }
    std::int32_t route(const RouteQuery& q, RouteState& s, Rng& rng) const override {
        if (!s.decided) {
            s.decided = true;
            const std::int32_t k = random_other_group(tables_.group_of(q.router), rng);
            if (k >= 0 && k != tables_.group_of(q.dest)) {
                s.intermediate = k;
                s.nonminimal = true;
            }
        }
        return follow(q, s, rng);
    }
};

// UGAL-L: at the source router, a random intermediate group is drawn as for Valiant; the packet takes the
// minimal route unless the local queue of the non-minimal first hop, weighted by its route length, is smaller:
// minimal when q_min * H_min <= q_nm * H_nm + threshold, with H_nm = hops to the intermediate group + hops from
// that group to the destination router.
class UgalLocalRouting final : public RoutingFunction {
public:
    UgalLocalRouting(const RoutingTables& tables, std::int64_t threshold)
        : RoutingFunction(tables), threshold_(threshold) {}
    RoutingKind kind() const override { return RoutingKind::UgalLocal; }
    bool reads_occupancy() const override { return true; }
    std::int32_t classes() const override { return tables_.intermediate_classes(); }
    std::int32_t route(const RouteQuery& q, RouteState& s, Rng& rng) const override {
        if (s.decided) return follow(q, s, rng);
        s.decided = true;
        const std::int32_t min_port = pick(tables_.minimal_ports(q.router, q.dest), rng);
        const std::int32_t k = random_other_group(tables_.group_of(q.router), rng);
        if (k < 0 || k == tables_.group_of(q.dest)) return min_port;
        const std::int32_t nm_port = pick(tables_.group_ports(q.router, k), rng);
        const std::int64_t h_min = tables_.hops(tables_.distance(q.router, q.dest));
        const std::int64_t h_nm =
            tables_.hops(tables_.group_distance(q.router, k)) + tables_.hops(tables_.group_distance(q.dest, k));
        const std::int64_t q_min = q.occupancy[static_cast<std::size_t>(min_port)];
        const std::int64_t q_nm = q.occupancy[static_cast<std::size_t>(nm_port)];
        if (q_min * h_min <= q_nm * h_nm + threshold_) return min_port;
        s.intermediate = k;
        s.nonminimal = true;
        return nm_port;
    }

private:
    std::int64_t threshold_;
};

}  // namespace

std::unique_ptr<RoutingFunction> make_routing_function(const RoutingConfig& config, const RoutingTables& tables) {
    switch (config.function) {
        case RoutingKind::Minimal: return std::make_unique<MinimalRouting>(tables);
        case RoutingKind::Valiant: return std::make_unique<ValiantRouting>(tables);
        case RoutingKind::UgalLocal: return std::make_unique<UgalLocalRouting>(tables, config.ugal_threshold_flits);
    }
    return std::make_unique<MinimalRouting>(tables);
}

}  // namespace loom::fabric
