// FrozenTopology: a topology as flat arrays (CSR), the form every model uses at run time. Vertices are TSPs
// (or routers), each physical link is two directed channels, adjacency is compressed sparse rows.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "loom/topo/link_class.hpp"

namespace loom::topo {

using VertexId = std::int32_t;
using ChannelId = std::int32_t;
using LinkId = std::int32_t;
inline constexpr ChannelId kNoChannel = -1;

// Where a vertex sits. TSP systems number vertices node-major: vertex = node * tsps_per_node + index, and
// node = rack * nodes_per_rack + node-in-rack, so the TSPs of a node and the nodes of a rack are contiguous.
struct VertexInfo {
    std::int32_t group = 0;      // rack (rack, multirack), node (system264), 0 (node); Dragonfly: group
    std::int32_t rack = -1;      // rack; -1 where there are no racks (node, system264, Dragonfly)
    std::int32_t node = 0;       // system-wide node number; Dragonfly: the router itself (= vertex id)
    std::int32_t index = 0;      // TSP index in its node; Dragonfly: router index in its group
    std::int32_t terminals = 1;  // endpoints attached: 1 for a compute TSP, 0 for a spare; Dragonfly: p
    bool spare = false;          // TSP of a spare node (N+1): wired and may forward, never an endpoint
};

// One direction of a physical link. Channels 2l and 2l+1 are the two directions of link l.
struct Channel {
    VertexId src = 0;
    VertexId dst = 0;
    std::int32_t src_port = 0;  // network port number at src (see FrozenTopology::num_ports)
    std::int32_t dst_port = 0;
    LinkClass link_class = LinkClass::InNode;
};

// One physical (bidirectional) link as a builder declares it.
struct LinkSpec {
    VertexId a = 0;
    std::int32_t port_a = 0;
    VertexId b = 0;
    std::int32_t port_b = 0;
    LinkClass link_class = LinkClass::InNode;
};

// Compressed sparse rows: the neighbours of v are targets[offsets[v] .. offsets[v+1]).
struct Adjacency {
    std::vector<std::int32_t> offsets;  // size n + 1
    std::vector<std::int32_t> targets;
    std::int32_t size() const { return static_cast<std::int32_t>(offsets.size()) - 1; }
    std::span<const std::int32_t> neighbors(std::int32_t v) const {
        return {targets.data() + offsets[static_cast<std::size_t>(v)],
                targets.data() + offsets[static_cast<std::size_t>(v) + 1]};
    }
};

class FrozenTopology {
public:
    // Builds the flat form. `ports_per_vertex[v]` is the number of network port slots of v (ports
    // 0..n-1, not all necessarily wired); each link joins two distinct vertices on free ports. Link l becomes
    // channels 2l (a -> b) and 2l+1 (b -> a). Throws InternalError on an inconsistent description.
    // `kind` names the shape ("node", "system264", "rack", "multirack", "dragonfly", ...).
    FrozenTopology(std::string kind, std::vector<VertexInfo> vertices, std::vector<std::int32_t> ports_per_vertex,
                   const std::vector<LinkSpec>& links);

    const std::string& kind() const { return kind_; }
    std::int32_t num_vertices() const { return static_cast<std::int32_t>(vertices_.size()); }
    std::int32_t num_channels() const { return static_cast<std::int32_t>(channels_.size()); }
    std::int32_t num_links() const { return num_channels() / 2; }
    std::int32_t num_nodes() const { return static_cast<std::int32_t>(node_offsets_.size()) - 1; }
    std::int32_t num_groups() const { return num_groups_; }
    std::int32_t num_racks() const { return num_racks_; }  // distinct rack numbers (-1 not counted)
    // Vertices that are endpoints (terminals > 0).
    std::int32_t num_compute_vertices() const { return num_compute_; }

    const VertexInfo& vertex(VertexId v) const { return vertices_[static_cast<std::size_t>(v)]; }
    const std::vector<VertexInfo>& vertices() const { return vertices_; }
    const Channel& channel(ChannelId c) const { return channels_[static_cast<std::size_t>(c)]; }
    const std::vector<Channel>& channels() const { return channels_; }
    static constexpr ChannelId reverse(ChannelId c) { return c ^ 1; }
    static constexpr LinkId link_of(ChannelId c) { return c >> 1; }

    // Outgoing channels of v, in port order.
    std::span<const ChannelId> out_channels(VertexId v) const {
        return {out_channels_.data() + adjacency_.offsets[static_cast<std::size_t>(v)],
                out_channels_.data() + adjacency_.offsets[static_cast<std::size_t>(v) + 1]};
    }
    // Network port slots of v, and the channel leaving v on `port` (kNoChannel if that port is not wired).
    std::int32_t num_ports(VertexId v) const {
        return port_offsets_[static_cast<std::size_t>(v) + 1] - port_offsets_[static_cast<std::size_t>(v)];
    }
    ChannelId channel_at(VertexId v, std::int32_t port) const;

    // Vertex adjacency: targets parallel to out_channels() (one entry per channel, so parallel links repeat).
    const Adjacency& adjacency() const { return adjacency_; }
    // Node-level graph: vertices are nodes, an edge joins two nodes linked by at least one link (deduplicated).
    const Adjacency& node_adjacency() const { return node_adjacency_; }
    // Vertices of node n: [first_vertex_of_node(n), first_vertex_of_node(n + 1)).
    VertexId first_vertex_of_node(std::int32_t n) const { return node_offsets_[static_cast<std::size_t>(n)]; }

    std::int64_t link_count(LinkClass c) const { return link_counts_[index_of(c)]; }

    // Hierarchical name: "rack3.node2.tsp5" (racked kinds; node = number in its rack), "node2.tsp5" (node,
    // system264), "group3.router2" (dragonfly).
    std::string vertex_name(VertexId v) const;

private:
    std::string kind_;
    std::vector<VertexInfo> vertices_;
    std::vector<Channel> channels_;
    std::vector<ChannelId> out_channels_;        // CSR, rows = adjacency_.offsets
    Adjacency adjacency_;
    std::vector<std::int32_t> port_offsets_;     // size V + 1
    std::vector<ChannelId> port_channel_;        // per port slot, kNoChannel if unwired
    std::vector<VertexId> node_offsets_;         // size nodes + 1
    Adjacency node_adjacency_;
    std::array<std::int64_t, kLinkClassCount> link_counts_{};
    std::int32_t num_groups_ = 0;
    std::int32_t num_racks_ = 0;
    std::int32_t num_compute_ = 0;
    std::vector<std::int32_t> rack_first_node_;  // lowest node number of each rack, for names
};

}  // namespace loom::topo
