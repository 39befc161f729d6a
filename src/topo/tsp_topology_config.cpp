#include "loom/topo/tsp_topology_config.hpp"

#include <fmt/format.h>

namespace loom::topo {
namespace {

// Upper bound on the number of TSPs a shape may describe, so that a typo cannot ask for terabytes.
constexpr std::int64_t kMaxTsps = std::int64_t{1} << 24;

bool racked(TspKind k) { return k == TspKind::Rack || k == TspKind::Multirack; }

// Values outside these ranges are reported by the schema's range checks (or by validate() for structs built
// in code); shape checks only run on values inside them, so their arithmetic cannot overflow.
std::vector<ShapeProblem> range_problems(const TspTopologyConfig& c) {
    std::vector<ShapeProblem> out;
    auto need = [&](const char* key, std::int64_t v, std::int64_t lo, std::int64_t hi) {
        if (v < lo || v > hi) out.push_back({key, fmt::format("expected integer in {}..{}, got {}", lo, hi, v)});
    };
    need("tsps_per_node", c.tsps_per_node, 1, 1024);
    need("nodes_per_rack", c.nodes_per_rack, 1, 4096);
    need("racks", c.racks, 1, 100'000);
    need("links_per_node_pair", c.links_per_node_pair, 1, 64);
    need("nodes", c.nodes, 1, 100'000);
    need("global_ports_per_tsp", c.global_ports_per_tsp, 0, 1024);
    need("local_links_per_tsp", c.local_links_per_tsp, 0, 1024);
    need("c2c_links_per_tsp", c.c2c_links_per_tsp, 1, 4096);
    need("spare_nodes_per_rack", c.spare_nodes_per_rack, 0, 4096);
    return out;
}

}  // namespace

std::string_view tsp_kind_name(TspKind k) {
    switch (k) {
        case TspKind::Node: return "node";
        case TspKind::System264: return "system264";
        case TspKind::Rack: return "rack";
        case TspKind::Multirack: return "multirack";
    }
    return "?";
}

std::string_view port_assignment_name(PortAssignment p) {
    switch (p) {
        case PortAssignment::RoundRobin: return "round_robin";
        case PortAssignment::Blocked: return "blocked";
    }
    return "?";
}

std::int64_t TspTopologyConfig::num_nodes() const {
    switch (kind) {
        case TspKind::Node: return 1;
        case TspKind::System264: return nodes;
        case TspKind::Rack: return nodes_per_rack;
        case TspKind::Multirack: return static_cast<std::int64_t>(racks) * nodes_per_rack;
    }
    return 0;
}

std::int32_t TspTopologyConfig::num_racks() const {
    switch (kind) {
        case TspKind::Node:
        case TspKind::System264: return 0;
        case TspKind::Rack: return 1;
        case TspKind::Multirack: return racks;
    }
    return 0;
}

std::vector<ShapeProblem> shape_problems(const TspTopologyConfig& c) {
    std::vector<ShapeProblem> out;
    if (!range_problems(c).empty()) return out;
    const std::int64_t t = c.tsps_per_node;
    const std::int64_t node_ports = t * c.global_ports_per_tsp;  // global ports of one node

    if (c.local_links_per_tsp < t - 1)
        out.push_back({"local_links_per_tsp",
                       fmt::format("a fully connected node of {} TSPs (tsps_per_node) needs {} local links per "
                                   "TSP, got {}",
                                   t, t - 1, c.local_links_per_tsp)});
    if (std::int64_t{c.local_links_per_tsp} + c.global_ports_per_tsp > c.c2c_links_per_tsp)
        out.push_back({"global_ports_per_tsp",
                       fmt::format("{} local links + {} global ports = {} ports per TSP, more than the {} physical "
                                   "C2C links of a TSP (c2c_links_per_tsp)",
                                   c.local_links_per_tsp, c.global_ports_per_tsp,
                                   c.local_links_per_tsp + c.global_ports_per_tsp, c.c2c_links_per_tsp)});

    const char* size_key = "tsps_per_node";
    if (racked(c.kind)) {
        const std::int64_t n = c.nodes_per_rack;
        const std::int64_t in_rack = (n - 1) * c.links_per_node_pair;
        if (in_rack > node_ports)
            out.push_back({"nodes_per_rack",
                           fmt::format("{} nodes per rack with {} links per node pair (links_per_node_pair) need "
                                       "{} in-rack ports per node, more than the {} global ports of a node "
                                       "({} TSPs x {} global_ports_per_tsp)",
                                       n, c.links_per_node_pair, in_rack, node_ports, t, c.global_ports_per_tsp)});
        else if (c.kind == TspKind::Multirack) {
            const std::int64_t rack_ports = n * (node_ports - in_rack);
            if (c.racks - 1 > rack_ports)
                out.push_back({"racks",
                               fmt::format("{} racks need {} rack-to-rack ports per rack (one link to every other "
                                           "rack), a rack has {} ({} nodes x ({} global ports - {} in-rack "
                                           "ports)): at most {} racks",
                                           c.racks, c.racks - 1, rack_ports, n, node_ports, in_rack,
                                           rack_ports + 1)});
        }
        if (c.spare_nodes_per_rack >= n)
            out.push_back({"spare_nodes_per_rack",
                           fmt::format("{} spare nodes leave no compute node in a rack of {} nodes (at most {})",
                                       c.spare_nodes_per_rack, n, n - 1)});
        size_key = c.kind == TspKind::Multirack ? "racks" : "nodes_per_rack";
    } else if (c.kind == TspKind::System264) {
        if (c.nodes - 1 > node_ports)
            out.push_back({"nodes",
                           fmt::format("{} nodes all-to-all need {} global ports per node, a node has {} ({} TSPs x "
                                       "{} global_ports_per_tsp): at most {} nodes",
                                       c.nodes, c.nodes - 1, node_ports, t, c.global_ports_per_tsp,
                                       node_ports + 1)});
        if (c.spare_nodes_per_rack >= c.nodes)
            out.push_back({"spare_nodes_per_rack",
                           fmt::format("{} spare nodes leave no compute node among the system's {} nodes (at most "
                                       "{})",
                                       c.spare_nodes_per_rack, c.nodes, c.nodes - 1)});
        size_key = "nodes";
    } else if (c.spare_nodes_per_rack >= 1) {
        out.push_back({"spare_nodes_per_rack",
                       fmt::format("a single node cannot be a spare: at most 0, got {}", c.spare_nodes_per_rack)});
    }
    if (c.num_tsps() > kMaxTsps)
        out.push_back({size_key, fmt::format("the shape has {} TSPs, more than the {} Loom can describe",
                                             c.num_tsps(), kMaxTsps)});
    return out;
}

void validate(const TspTopologyConfig& c, const std::string& pointer, config::Errors& errors) {
    for (const auto& p : range_problems(c)) errors.add(config::child_pointer(pointer, p.key), p.message);
    for (const auto& p : shape_problems(c)) errors.add(config::child_pointer(pointer, p.key), p.message);
}

config::Schema<TspTopologyConfig> tsp_topology_schema() {
    using C = TspTopologyConfig;
    config::Schema<C> s("Shape of a TSP system (paper: 8 TSPs per node, 9 nodes per rack, up to 145 racks)");
    s.choice("kind", &C::kind,
             {{"node", TspKind::Node},
              {"system264", TspKind::System264},
              {"rack", TspKind::Rack},
              {"multirack", TspKind::Multirack}},
             "node: one fully connected node; system264: `nodes` nodes all-to-all (one link per pair); rack: "
             "nodes_per_rack nodes joined links_per_node_pair times; multirack: `racks` racks, rack-to-rack ports "
             "spread over the other racks");
    s.field("tsps_per_node", &C::tsps_per_node, "TSPs per node, fully connected (paper: 8)").range(1, 1024);
    s.field("nodes_per_rack", &C::nodes_per_rack, "nodes per rack (paper: 9)").range(1, 4096);
    s.field("racks", &C::racks, "racks of a multirack system (paper: up to 145)").range(1, 100000);
    s.field("links_per_node_pair", &C::links_per_node_pair,
            "links between every two nodes of a rack (paper: 2)")
        .range(1, 64);
    s.field("nodes", &C::nodes, "nodes of a system264 system, all-to-all (paper: 33)").range(1, 100000);
    s.field("global_ports_per_tsp", &C::global_ports_per_tsp, "global ports per TSP (paper: 4)").range(0, 1024);
    s.field("local_links_per_tsp", &C::local_links_per_tsp,
            "local (in-node) links per TSP, at least tsps_per_node - 1 (paper: 7)")
        .range(0, 1024);
    s.field("c2c_links_per_tsp", &C::c2c_links_per_tsp, "physical chip-to-chip links per TSP (paper: 16)")
        .range(1, 4096);
    s.field("spare_nodes_per_rack", &C::spare_nodes_per_rack,
            "spare nodes (N+1) at the end of every rack, or of the system for node/system264; wired, never "
            "endpoints")
        .range(0, 4096);
    s.choice("port_assignment", &C::port_assignment,
             {{"round_robin", PortAssignment::RoundRobin}, {"blocked", PortAssignment::Blocked}},
             "which TSP of a node holds which global port: round_robin deals ports to TSPs in turn (2 in-rack + 2 "
             "rack-to-rack per TSP), blocked fills TSPs in order (in-rack ports on the first TSPs)");
    for (const char* key : {"tsps_per_node", "nodes_per_rack", "racks", "nodes", "global_ports_per_tsp",
                            "local_links_per_tsp", "spare_nodes_per_rack"}) {
        s.check(key, [key = std::string(key)](const C& c) -> std::optional<std::string> {
            for (const auto& p : shape_problems(c))
                if (p.key == key) return p.message;
            return std::nullopt;
        });
    }
    return s;
}

}  // namespace loom::topo
