// Builders of the TSP systems (one node, the 264-TSP system, a rack, R racks) from the "topology" section,
// frozen into the flat form models use.
#pragma once

#include "loom/topo/frozen_topology.hpp"
#include "loom/topo/tsp_topology_config.hpp"

namespace loom::topo {

// Builds and freezes the system `c` describes. Throws ConfigError (messages under "/topology") when the shape
// needs more ports than a TSP has (see shape_problems()).
//
// Wiring, per kind:
//  - every node is a full mesh of its TSPs; the link between TSPs i < j of a node uses local port j - 1 of i
//    and local port i of j (local port q of TSP t leads to TSP q if q < t, else to q + 1);
//  - rack: every two nodes of a rack are joined by links_per_node_pair links (class in_rack);
//  - system264: every two of the `nodes` nodes are joined by one link (class rack_to_rack: these are the
//    links between groups, a group being one node);
//  - multirack: the rack-to-rack ports of a rack, P = nodes_per_rack x (tsps_per_node x global_ports_per_tsp
//    - (nodes_per_rack - 1) x links_per_node_pair) (144 in the paper's rack), are spread over the other
//    R - 1 racks: every rack pair gets q = floor(P / (R - 1)) links, and the remainder r = P mod (R - 1)
//    ports of each rack go as one extra link to the racks at circular distance 1 .. floor(r / 2) on either
//    side (rack i and rack j are at distance min(|i - j|, R - |i - j|)) and, when r is odd and R even, to the
//    opposite rack (distance R / 2). That pattern is r-regular, so every rack uses all its ports; when r and
//    R are both odd no r-regular pattern exists and one port per rack stays unused. At R = 145: one link
//    per rack pair; at R = 2: 144 parallel links.
// Global ports are numbered after the local ones: port local_links_per_tsp + s is global port slot s. Which
// TSP holds which global port follows c.port_assignment (see PortAssignment).
FrozenTopology build_tsp_topology(const TspTopologyConfig& c);

// Links between racks i and j (i != j) of a multirack system with `racks` racks and `ports` rack-to-rack
// ports per rack, following the rule above.
std::int32_t rack_pair_links(std::int32_t i, std::int32_t j, std::int32_t racks, std::int32_t ports);

}  // namespace loom::topo
