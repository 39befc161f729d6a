// Routing tables of the dynamically routed network, computed once from any frozen topology and shared read-only
// by every router: distances to each router and to each group, the minimal output ports derived from them, and
// the virtual-channel class scheme that keeps routing deadlock-free.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/topo/frozen_topology.hpp"

namespace loom::fabric {

// How a hop's virtual-channel class is numbered (see RoutingFunction for the deadlock argument).
enum class VcClassScheme : std::uint8_t {
    GlobalHops,  // Dragonfly: the class is the number of group-crossing (global) hops taken so far
    HopIndex,    // any other topology: the class is the number of hops taken so far
};

// Distances. On a Dragonfly (kind "dragonfly") routes are hierarchical: a hop between two groups weighs 256 and a
// hop inside a group 1, so the distance 256 * crossings + local hops orders routes by group crossings first
// (minimal routes cross at most once on a Dragonfly and take at most one local hop per group). On other
// topologies every hop weighs 1 (minimal = fewest hops). Storage: a byte per (router, router) naming one of the
// router's (minimal port mask, distance) pairs (4.3 MB at 2,064 routers; a Dragonfly router has about 60 such
// pairs), and one uint16 per (router, group). A V x V distance matrix (8.5 MB at 2,064 routers) is kept only
// when some router has more than 254 pairs.
class RoutingTables {
public:
    static constexpr std::uint16_t kUnreachable = 0xffff;
    static constexpr std::uint16_t kCrossingWeight = 256;

    // Throws InternalError if a wired router cannot reach another, or a router has more than 64 ports.
    explicit RoutingTables(const topo::FrozenTopology& topology);

    const topo::FrozenTopology& topology() const { return topo_; }
    VcClassScheme scheme() const { return scheme_; }
    std::int32_t routers() const { return vertices_; }
    std::int32_t groups() const { return groups_; }
    std::int32_t group_of(topo::VertexId v) const { return group_[static_cast<std::size_t>(v)]; }

    // Weighted distance from router v to router d, and from v to the nearest router of group g.
    std::uint16_t distance(topo::VertexId v, topo::VertexId d) const {
        const std::uint8_t k =
            min_index_[static_cast<std::size_t>(v) * static_cast<std::size_t>(vertices_) + static_cast<std::size_t>(d)];
        if (k != kNoPalette) [[likely]]
            return palette_dist_[static_cast<std::size_t>(palette_first_[static_cast<std::size_t>(v)]) + k];
        return stored_distance(v, d);
    }
    std::uint16_t group_distance(topo::VertexId v, std::int32_t g) const {
        return gdist_[static_cast<std::size_t>(g) * static_cast<std::size_t>(vertices_) + static_cast<std::size_t>(v)];
    }
    // Hops and group crossings of a distance.
    std::int32_t hops(std::uint16_t distance) const {
        return scheme_ == VcClassScheme::GlobalHops ? (distance >> 8) + (distance & 0xff) : distance;
    }
    std::int32_t crossings(std::uint16_t distance) const {
        return scheme_ == VcClassScheme::GlobalHops ? distance >> 8 : 0;
    }

    // Output ports of v on minimal routes to router d (to group g): bit q set for port q. Empty at d (in g).
    // minimal_ports is read once per packet and router: a precomputed row lookup (see min_index_).
    std::uint64_t minimal_ports(topo::VertexId v, topo::VertexId d) const {
        const std::uint8_t k =
            min_index_[static_cast<std::size_t>(v) * static_cast<std::size_t>(vertices_) + static_cast<std::size_t>(d)];
        if (k != kNoPalette) [[likely]]
            return min_palette_[static_cast<std::size_t>(palette_first_[static_cast<std::size_t>(v)]) + k];
        return compute_minimal_ports(v, d);
    }
    std::uint64_t group_ports(topo::VertexId v, std::int32_t g) const;

    // The router at the far end of port q of v (-1 if unwired) and whether that hop crosses between groups.
    topo::VertexId neighbor(topo::VertexId v, std::int32_t port) const {
        return neighbor_[static_cast<std::size_t>(port_offset_[static_cast<std::size_t>(v)] + port)];
    }
    bool crosses(topo::VertexId v, std::int32_t port) const {
        return weight_[static_cast<std::size_t>(port_offset_[static_cast<std::size_t>(v)] + port)] != 1;
    }
    std::int32_t ports(topo::VertexId v) const {
        return port_offset_[static_cast<std::size_t>(v) + 1] - port_offset_[static_cast<std::size_t>(v)];
    }

    // VC classes routes need: minimal routes, and routes through one intermediate group (Valiant, UGAL). With
    // GlobalHops: largest number of crossings + 1; with HopIndex: largest number of hops (a conservative bound
    // for intermediate-group routes: longest route to a group plus longest route from there).
    std::int32_t minimal_classes() const { return minimal_classes_; }
    std::int32_t intermediate_classes() const { return intermediate_classes_; }

private:
    static constexpr std::uint8_t kNoPalette = 0xff;
    std::uint64_t compute_minimal_ports(topo::VertexId v, topo::VertexId d) const;
    std::uint16_t stored_distance(topo::VertexId v, topo::VertexId d) const;
    // The minimal ports of v toward the router whose distances `col` holds (col[u] = dist(u, that router)).
    std::uint64_t minimal_ports_from(const std::uint16_t* col, topo::VertexId v) const;

    const topo::FrozenTopology& topo_;
    VcClassScheme scheme_;
    std::int32_t vertices_ = 0;
    std::int32_t groups_ = 0;
    std::vector<std::int32_t> group_;
    std::vector<std::int32_t> port_offset_;  // V + 1
    std::vector<topo::VertexId> neighbor_;   // per port slot
    std::vector<std::uint16_t> weight_;      // per port slot: 1 or kCrossingWeight
    std::vector<std::uint16_t> dist_;        // [d * V + v], only when a palette overflows (else empty)
    std::vector<std::uint16_t> gdist_;       // [g * V + v]
    // Minimal port masks and distances: a router has few distinct (mask, distance) pairs (a Dragonfly router:
    // about one per port and hop count), so each (v, d) holds a byte indexing v's palette, kNoPalette when v has
    // more than 254 (then both come from dist_).
    // V^2 bytes (4.3 MB at 2,064 routers), one contiguous row per router, instead of ~15 scattered dist_ reads.
    std::vector<std::uint8_t> min_index_;      // [v * V + d]
    std::vector<std::uint64_t> min_palette_;   // router v's masks from palette_first_[v]
    std::vector<std::uint16_t> palette_dist_;  // beside min_palette_: the distance of each pair
    std::vector<std::int32_t> palette_first_;  // V
    std::int32_t minimal_classes_ = 1;
    std::int32_t intermediate_classes_ = 1;
};

}  // namespace loom::fabric
