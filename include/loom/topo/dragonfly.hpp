// A generic Dragonfly (groups of fully connected routers joined by global links), the topology of the
// dynamically routed baseline, frozen into the same flat form as the TSP systems.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "loom/config/schema.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/topo/tsp_topology_config.hpp"

namespace loom::topo {

// How the a*h global ports of a group map to other groups. Global port k of a group (k = r*h + j for global
// port j of router r, 0 <= k < a*h) has a target offset t = k mod (g-1) and a copy number c = k / (g-1):
//  - Absolute: group i's offset t leads to group t if t < i, else t + 1 (groups in increasing order,
//    skipping i). The far end is group j's port (i if i < j, else i - 1) + c*(g-1).
//  - Relative: group i's offset t leads to group (i + t + 1) mod g. The far end is group j's port
//    (g - 2 - t) + c*(g-1).
// With g = a*h + 1 every group pair is joined by exactly one link. With fewer groups, q = floor(a*h / (g-1))
// copies join every pair, and a pair gets one more link when the remainder copy (c = q) exists at both ends
// (both ports < a*h); ports of the remainder copy whose far end does not exist stay unused.
enum class GlobalArrangement { Absolute, Relative };

struct DragonflyConfig {
    // Defaults: the balanced Dragonfly of Kim et al. (ISCA 2008), a = 2p = 2h, at its smallest size.
    std::int32_t p = 2;  // terminals per router
    std::int32_t a = 4;  // routers per group, fully connected
    std::int32_t h = 2;  // global ports per router
    std::int32_t g = 0;  // groups; 0 means a*h + 1 (the largest: one global link per group pair)
    GlobalArrangement arrangement = GlobalArrangement::Absolute;

    std::int32_t groups() const { return g > 0 ? g : a * h + 1; }
    std::int32_t routers() const { return groups() * a; }
};

std::string_view global_arrangement_name(GlobalArrangement a);

std::vector<ShapeProblem> shape_problems(const DragonflyConfig& c);
void validate(const DragonflyConfig& c, const std::string& pointer, config::Errors& errors);
config::Schema<DragonflyConfig> dragonfly_schema();

// Builds and freezes the Dragonfly (throws ConfigError under `pointer` for an impossible shape). Vertex
// v = group * a + router; ports 0..a-2 are local (port q leads to router q if q < r, else q + 1), ports
// a-1 .. a-2+h global. VertexInfo: group = group, rack = -1, node = v, index = router, terminals = p.
// Links are class Local or Global.
FrozenTopology build_dragonfly(const DragonflyConfig& c, const std::string& pointer = "/topology");

}  // namespace loom::topo
