// `loom topo`: the machine description report of a TSP or Dragonfly config (no simulation).
#include <algorithm>

#include <fmt/format.h>

#include "loom/ananta/dc_config.hpp"
#include "loom/base/error.hpp"
#include "loom/config/document.hpp"
#include "loom/fabric/fabric_config.hpp"
#include "loom/scenario/scenario.hpp"
#include "loom/stats/stats.hpp"
#include "loom/topo/chip_config.hpp"
#include "loom/topo/dragonfly.hpp"
#include "loom/topo/link_class_timing.hpp"
#include "loom/topo/topology_report.hpp"
#include "loom/topo/tsp_topology.hpp"
#include "loom/topo/tsp_topology_config.hpp"

namespace loom::scenario {

namespace {

// Parses the section `key` of `config` with `schema` into `out` (absent: defaults).
template <class T>
void parse_section(const Json& config, const std::string& key, const config::Schema<T>& schema, T& out,
                   config::Errors& errors) {
    if (config.contains(key)) schema.parse(config.at(key), "/" + key, out, errors);
}

// A Dragonfly in its own terms: routers, terminals, groups, channels by class, the balanced cut in flits per cycle and
// bytes/s, and zero-load latency from the "fabric" section's cycles (not TSPs, TSP memory or C2C links).
// Zero-load latency of a minimal path with L local and G global channels: the terminal channel in and out, the
// pipeline of each of the L + G + 1 routers, and the channels' latencies. Averages are over ordered pairs of
// distinct routers (minimal routes cross one global channel between groups, none inside one).
Report dragonfly_report(const Json& config, const topo::DragonflyConfig& shape, const topo::FrozenTopology& t,
                        const topo::TopologyReport& base, const fabric::FabricConfig& f) {
    const std::int64_t routers = shape.routers();
    const std::int64_t groups = shape.groups();
    const std::int64_t terminals = routers * shape.p;
    const std::int64_t local = t.link_count(topo::LinkClass::Local);
    const std::int64_t global = t.link_count(topo::LinkClass::Global);
    const double cycle_ps = 1e12 / static_cast<double>(f.router_clock.hertz());
    const double cut_flits = static_cast<double>(base.cut_links);  // one flit per cycle per channel, one direction
    const double cut_bytes_per_s =
        cut_flits * static_cast<double>(f.flit_bytes.count()) * static_cast<double>(f.router_clock.hertz());
    auto latency = [&](double l, double g) {
        return 2.0 * static_cast<double>(f.terminal_latency_cycles) +
               (l + g + 1.0) * static_cast<double>(f.pipeline_cycles()) +
               l * static_cast<double>(f.local_latency_cycles) + g * static_cast<double>(f.global_latency_cycles);
    };
    const double pairs_other_group =
        routers > 1 ? static_cast<double>((groups - 1) * shape.a) / static_cast<double>(routers - 1) : 0.0;
    const double avg_global = pairs_other_group;
    const double avg_local = std::max(0.0, base.hops.average - avg_global);
    // The worst minimal path: local, global, local when the diameter is 3 (fewer hops, fewer locals).
    const double worst_global = groups > 1 ? 1.0 : 0.0;
    const double worst_local = std::max(0.0, static_cast<double>(base.hops.diameter) - worst_global);
    const double worst_cycles = latency(worst_local, worst_global);
    const double avg_cycles = latency(avg_local, avg_global);

    Json j{{"kind", "dragonfly"},
           {"routers", routers},
           {"terminals", terminals},
           {"groups", groups},
           {"p", shape.p},
           {"a", shape.a},
           {"h", shape.h},
           {"channels", {{"local", local}, {"global", global}, {"terminal", terminals}, {"total", local + global + terminals}}},
           {"diameter_router_hops", base.hops.diameter},
           {"avg_router_hops", base.hops.average},
           {"cut", base.cut},
           {"cut_channels", base.cut_links},
           {"bisection_flits_per_cycle", cut_flits},
           {"bisection_bytes_per_s", cut_bytes_per_s},
           {"router_clock_hz", f.router_clock.hertz()},
           {"flit_bytes", f.flit_bytes.count()},
           {"zero_load_latency_worst_cycles", worst_cycles},
           {"zero_load_latency_worst_ns", worst_cycles * cycle_ps / 1e3},
           {"zero_load_latency_avg_cycles", avg_cycles},
           {"zero_load_latency_avg_ns", avg_cycles * cycle_ps / 1e3}};
    Report r;
    stats::DocumentHeader header;
    header.config_hash = config::canonical_hash(config);
    header.seed = config.value("seed", std::uint64_t{1});
    Json stats = Json::object();
    stats["topology"] = j;
    r.document = stats::make_document(header, stats);
    r.document["model"] = "fabric";
    r.table = fmt::format(
        "kind                   dragonfly (p={}, a={}, h={})\n"
        "routers                {} in {} groups of {}\n"
        "terminals              {} ({} per router)\n"
        "channels               local={}  global={}  terminal={} (bidirectional links)\n"
        "router hops            diameter {} (avg {:.4f} between distinct routers)\n"
        "bisection              {}: {} channels = {:.0f} flits/cycle = {:.4g} GB/s one way ({}-byte flits at {:.4g} GHz)\n"
        "zero-load latency      worst {:.1f} cycles = {:.3f} ns, avg {:.2f} cycles = {:.3f} ns (minimal routes)\n",
        shape.p, shape.a, shape.h, routers, groups, shape.a, terminals, shape.p, local, global, terminals,
        base.hops.diameter, base.hops.average, base.cut, base.cut_links, cut_flits, cut_bytes_per_s / 1e9,
        f.flit_bytes.count(), static_cast<double>(f.router_clock.hertz()) / 1e9, worst_cycles,
        worst_cycles * cycle_ps / 1e3, avg_cycles, avg_cycles * cycle_ps / 1e3);
    r.csv = stats::render_csv(stats);
    return r;
}

}  // namespace

Report topo(const Json& config, std::string* dot) {
    config::Errors errors;
    if (!config.is_object() || !config.contains("model") || !config.at("model").is_string()) {
        errors.add("/model", "expected the model name, \"tsp\", \"fabric\" or \"ananta\"");
        errors.throw_if_any();
    }
    const std::string model = config.at("model").get<std::string>();
    topo::LinkClassTiming links;
    topo::ChipConfig chip;
    topo::ReportOptions options;
    std::optional<topo::FrozenTopology> frozen;
    if (model == "tsp") {
        topo::TspTopologyConfig shape;
        parse_section(config, "topology", topo::tsp_topology_schema(), shape, errors);
        parse_section(config, "links", topo::link_class_timing_schema(), links, errors);
        parse_section(config, "chip", topo::chip_schema(), chip, errors);
        errors.throw_if_any();
        frozen.emplace(topo::build_tsp_topology(shape));
    } else if (model == "fabric") {
        topo::DragonflyConfig shape;
        fabric::FabricConfig f;
        parse_section(config, "topology", topo::dragonfly_schema(), shape, errors);
        parse_section(config, "fabric", fabric::fabric_schema(), f, errors);
        errors.throw_if_any();
        const topo::FrozenTopology t = topo::build_dragonfly(shape);
        options.latency = false;  // C2C timing does not apply: latency comes from the fabric's cycles
        const topo::TopologyReport base = topo::make_topology_report(t, links, chip, options);
        if (dot) *dot = topo::to_dot(t);
        return dragonfly_report(config, shape, t, base, f);
    } else if (model == "ananta") {
        ananta::DcConfig dc;
        ananta::parse_dc_config(config, dc, errors);
        errors.throw_if_any();
        std::string text;
        const Json stats = ananta::network_report(dc, text);
        stats::DocumentHeader header;
        header.config_hash = config::canonical_hash(config);
        header.seed = config.value("seed", std::uint64_t{1});
        Report r;
        r.document = stats::make_document(header, stats);
        r.document["model"] = model;
        r.table = text;
        r.csv = stats::render_csv(stats);
        return r;
    } else {
        errors.add("/model",
                   fmt::format("loom topo describes \"tsp\", \"fabric\" and \"ananta\" configs, got \"{}\"", model));
        errors.throw_if_any();
    }
    const topo::TopologyReport report = topo::make_topology_report(*frozen, links, chip, options);
    if (dot) *dot = topo::to_dot(*frozen);

    Report r;
    stats::DocumentHeader header;
    header.config_hash = config::canonical_hash(config);
    header.seed = config.value("seed", std::uint64_t{1});
    Json stats = Json::object();
    stats["topology"] = topo::to_json(report, *frozen);
    r.document = stats::make_document(header, stats);
    r.document["model"] = model;
    r.table = topo::to_text(report, *frozen);
    if (!r.table.empty() && r.table.back() != '\n') r.table += '\n';
    r.csv = stats::render_csv(stats);
    return r;
}

}  // namespace loom::scenario
