// The "topology" config section of a TSP system: its shape (node, 264-TSP system, rack, multi-rack), the port
// budget of a TSP, sparing and the port assignment strategy. Its Schema is public so every model reuses it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "loom/config/schema.hpp"

namespace loom::topo {

enum class TspKind {
    Node,       // one node: tsps_per_node TSPs, fully connected
    System264,  // `nodes` nodes all-to-all, one link per node pair, no racks (the paper's 264-TSP system)
    Rack,       // one rack: nodes_per_rack nodes, links_per_node_pair links between every two nodes
    Multirack,  // `racks` racks; the rack-to-rack ports of a rack are spread over the other racks
};

// Which TSP of a node holds which of the node's global ports, and which node of a rack holds which of the
// rack's rack-to-rack links. The paper does not publish it. Both strategies work on ordered demand lists:
//  - a rack's rack-to-rack links, ordered by peer rack then parallel copy;
//  - a node's global ports, ordered: in-rack links (by peer node, then copy; for system264 the node-to-node
//    links by peer node), then the node's rack-to-rack links in the rack's order.
enum class PortAssignment {
    // Demand k goes to node k mod nodes_per_rack (rack level) and to TSP k mod tsps_per_node (node level),
    // port slot k / tsps_per_node: every TSP gets the same mix (2 in-rack + 2 rack-to-rack ports in the
    // paper's rack), and parallel links to one peer land on different TSPs.
    RoundRobin,
    // Demands fill nodes and TSPs in order: demand k goes to node k / (free global ports per node) and to
    // TSP k / global_ports_per_tsp, slot k mod global_ports_per_tsp. In the paper's rack TSPs 0-3 hold all
    // in-rack ports and TSPs 4-7 all rack-to-rack ports, and both links between two nodes join the same TSP
    // pair: fewer distinct neighbours, longer average paths (6.12 against 5.25 hops at 10,440 TSPs).
    Blocked,
};

std::string_view tsp_kind_name(TspKind k);
std::string_view port_assignment_name(PortAssignment p);

struct TspTopologyConfig {
    TspKind kind = TspKind::Multirack;
    // Paper (ISCA 2022): 8 TSPs per node, fully connected by 28 links.
    std::int32_t tsps_per_node = 8;
    // Paper: 9 nodes (72 TSPs) per rack.
    std::int32_t nodes_per_rack = 9;
    // Paper: up to 145 racks (10,440 TSPs). Used by kind "multirack" only.
    std::int32_t racks = 145;
    // Paper: the 144 in-rack ports of a rack connect its 9 nodes "to each other twice over".
    std::int32_t links_per_node_pair = 2;
    // Number of nodes of kind "system264" (paper: 33 nodes, all-to-all).
    std::int32_t nodes = 33;
    // Paper: 4 global ports per TSP (32 per node).
    std::int32_t global_ports_per_tsp = 4;
    // Paper: 7 local links per TSP (a full mesh of 8). At least tsps_per_node - 1; extra ones stay unused.
    std::int32_t local_links_per_tsp = 7;
    // Paper: 16 physical chip-to-chip links per TSP, of which the topology uses 11.
    std::int32_t c2c_links_per_tsp = 16;
    // N+1 sparing: the last `spare_nodes_per_rack` nodes of every rack (for system264 and node: of the whole
    // system) are spares. They are wired and may forward, but are not compute endpoints. Paper: 1 of 33 nodes
    // in the 264-TSP system, 1 of 9 in a rack; 0 by default so that `tsps` = `compute_tsps`.
    std::int32_t spare_nodes_per_rack = 0;
    PortAssignment port_assignment = PortAssignment::RoundRobin;

    // Counts implied by the shape.
    std::int64_t num_nodes() const;
    std::int64_t num_tsps() const { return num_nodes() * tsps_per_node; }
    std::int32_t num_racks() const;  // 0 for node and system264 (no racks)
};

// A problem with a shape: the key it is reported at (under the section's pointer) and the message.
struct ShapeProblem {
    std::string key;
    std::string message;
};

// Shapes that need more ports than a TSP has, or that cannot be built, with a message that names the
// parameter and the limit. Empty when the shape can be built.
std::vector<ShapeProblem> shape_problems(const TspTopologyConfig& c);
// Adds shape_problems() to `errors` under `pointer` ("/topology").
void validate(const TspTopologyConfig& c, const std::string& pointer, config::Errors& errors);

// The section's fields and checks (range checks plus shape_problems()).
config::Schema<TspTopologyConfig> tsp_topology_schema();

}  // namespace loom::topo
