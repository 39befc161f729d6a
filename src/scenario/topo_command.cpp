// `loom topo`: the machine description report of a TSP or Dragonfly config (no simulation).
#include <fmt/format.h>

#include "loom/base/error.hpp"
#include "loom/config/document.hpp"
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

}  // namespace

Report topo(const Json& config, std::string* dot) {
    config::Errors errors;
    if (!config.is_object() || !config.contains("model") || !config.at("model").is_string()) {
        errors.add("/model", "expected the model name, \"tsp\" or \"fabric\"");
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
        parse_section(config, "topology", topo::dragonfly_schema(), shape, errors);
        errors.throw_if_any();
        frozen.emplace(topo::build_dragonfly(shape));
        options.latency = false;  // C2C timing does not apply; the fabric model reports its own latencies
    } else {
        errors.add("/model", fmt::format("loom topo describes \"tsp\" and \"fabric\" configs, got \"{}\"", model));
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
