#include "loom/phold/phold.hpp"

#include <fmt/format.h>

#include "loom/base/error.hpp"
#include "loom/phold/logical_process.hpp"
#include "loom/phold/phold_stats.hpp"
#include "loom/stats/group.hpp"

namespace loom::phold {

config::Schema<PholdConfig> phold_schema() {
    config::Schema<PholdConfig> s(
        "PHOLD synthetic benchmark: logical processes exchanging a fixed population of tokens over one "
        "any-to-any channel.");
    s.field("lps", &PholdConfig::lps, "Logical processes, each a component on the channel \"phold.net\".")
        .range(1, 1 << 20);
    s.field("population", &PholdConfig::population,
            "Tokens each process starts with; lps * population stay in flight for the whole run.")
        .range(1, 1 << 20);
    s.field("lookahead", &PholdConfig::lookahead,
            "Fixed part of every delay, and the channel's minimum latency (the lookahead of a partitioned run).")
        .range(Time::ps(1), Time::s(1));
    s.field("mean_delay", &PholdConfig::mean_delay,
            "Mean of the exponential part of every delay (0: every delay is exactly the lookahead).")
        .range(Time::ps(0), Time::s(1));
    s.check("population", [](const PholdConfig& c) -> std::optional<std::string> {
        if (c.lps * c.population > kMaxInFlight) {
            return fmt::format("lps * population = {} exceeds the limit of {} tokens in flight",
                               c.lps * c.population, kMaxInFlight);
        }
        return std::nullopt;
    });
    return s;
}

PholdModel::PholdModel(sim::Simulator& sim, const PholdConfig& config, sim::Channel& channel,
                       std::vector<const LogicalProcess*> lps)
    : sim_(sim), config_(config), channel_(channel), lps_(std::move(lps)) {
    add_probes();
}

void PholdModel::finish() {
    const Time end = sim_.now();
    stats::Group& g = sim_.stats().group("phold");
    std::int64_t handled = 0;
    stats::Histogram& per_lp = g.histogram("events_per_lp");
    for (const LogicalProcess* lp : lps_) {
        handled += lp->handled();
        per_lp.record(lp->handled());
    }
    g.counter("events_handled").set(handled);
    const sim::Occupancy occ = channel_.occupancy(end);
    const std::int64_t expected = config_.lps * config_.population;
    g.set("in_flight", stats::Json{{"avg", occ.average}, {"final", occ.in_flight}, {"expected", expected}});

    // Conservation: every token is in flight at every moment, and the kernel holds exactly those events.
    const auto received = static_cast<std::int64_t>(channel_.received().count);
    if (occ.in_flight != expected || static_cast<std::int64_t>(sim_.pending()) != expected ||
        received != handled) {
        throw ModelError(fmt::format(
            "phold: conservation violated at {}: {} tokens in flight on {} and {} events pending, expected {}; "
            "{} received, {} handled",
            loom::to_string(end), occ.in_flight, channel_.path(), sim_.pending(), expected, received, handled));
    }
}

std::string PholdModel::perf_fields() const {
    return fmt::format(" lps={} population={}", config_.lps, config_.population);
}

std::unique_ptr<PholdModel> build(const PholdConfig& config, sim::Simulator& sim) {
    const auto n = static_cast<std::uint32_t>(config.lps);
    sim::Channel& channel = sim.add_channel("phold.net", n, config.lookahead);
    std::vector<const LogicalProcess*> lps(n, nullptr);
    for (const std::uint32_t i : sim.construction_order(n, "phold.lp")) {
        auto& lp = sim.add<LogicalProcess>(fmt::format("phold.lp{}", i), config);
        lp.port().attach(channel, i);
        lps[i] = &lp;
    }
    return std::make_unique<PholdModel>(sim, config, channel, std::move(lps));
}

std::unique_ptr<sim::ModelInstance> build(const config::Json& root, sim::Simulator& sim, config::Errors& errors) {
    PholdConfig config;
    const std::size_t before = errors.size();
    if (root.is_object() && root.contains("phold")) phold_schema().parse(root.at("phold"), "/phold", config, errors);
    if (errors.size() != before) return nullptr;
    return build(config, sim);
}

void register_components(sim::Registry& registry) {
    const config::FieldInfo section = config::section_info("phold", phold_schema());

    sim::ModelEntry entry;
    entry.name = "phold";
    entry.doc = "PHOLD kernel benchmark: lps processes forwarding lps * population tokens after "
                "lookahead + Exp(mean_delay); checks that the number in flight is conserved.";
    entry.sections = {section};
    entry.stats = stat_declarations();
    entry.components = {{"LogicalProcess", "One PHOLD process (phold.lp<i>) on the any-to-any channel phold.net."}};
    entry.build = [](const config::Json& root, sim::Simulator& sim, config::Errors& errors) {
        return build(root, sim, errors);
    };
    registry.add(std::move(entry));
}

}  // namespace loom::phold
