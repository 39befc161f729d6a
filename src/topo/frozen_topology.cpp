#include "loom/topo/frozen_topology.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "loom/base/error.hpp"

namespace loom::topo {
namespace {

[[noreturn]] void bad(const std::string& what) { throw InternalError("frozen topology: " + what); }

std::int32_t count_distinct(std::vector<std::int32_t> values) {
    std::sort(values.begin(), values.end());
    return static_cast<std::int32_t>(std::unique(values.begin(), values.end()) - values.begin());
}

}  // namespace

FrozenTopology::FrozenTopology(std::string kind, std::vector<VertexInfo> vertices,
                               std::vector<std::int32_t> ports_per_vertex, const std::vector<LinkSpec>& links)
    : kind_(std::move(kind)), vertices_(std::move(vertices)) {
    const std::size_t nv = vertices_.size();
    if (ports_per_vertex.size() != nv) bad("one port count per vertex expected");
    if (links.size() * 2 > static_cast<std::size_t>(INT32_MAX)) bad("too many links");

    // Port slots.
    port_offsets_.assign(nv + 1, 0);
    for (std::size_t v = 0; v < nv; ++v) {
        if (ports_per_vertex[v] < 0) bad("negative port count");
        port_offsets_[v + 1] = port_offsets_[v] + ports_per_vertex[v];
    }
    port_channel_.assign(static_cast<std::size_t>(port_offsets_[nv]), kNoChannel);

    // Channels: link l -> 2l (a -> b), 2l+1 (b -> a).
    channels_.resize(links.size() * 2);
    auto claim = [&](VertexId v, std::int32_t port, ChannelId c) {
        if (v < 0 || static_cast<std::size_t>(v) >= nv) bad(fmt::format("vertex {} out of range", v));
        if (port < 0 || port >= num_ports(v)) bad(fmt::format("port {} out of range at vertex {}", port, v));
        ChannelId& slot = port_channel_[static_cast<std::size_t>(port_offsets_[static_cast<std::size_t>(v)] + port)];
        if (slot != kNoChannel) bad(fmt::format("port {} of vertex {} wired twice", port, v));
        slot = c;
    };
    for (std::size_t l = 0; l < links.size(); ++l) {
        const LinkSpec& s = links[l];
        if (s.a == s.b) bad(fmt::format("link {} joins vertex {} to itself", l, s.a));
        const auto c = static_cast<ChannelId>(2 * l);
        claim(s.a, s.port_a, c);
        claim(s.b, s.port_b, c + 1);
        channels_[2 * l] = {s.a, s.b, s.port_a, s.port_b, s.link_class};
        channels_[2 * l + 1] = {s.b, s.a, s.port_b, s.port_a, s.link_class};
        ++link_counts_[index_of(s.link_class)];
    }

    // CSR in port order.
    adjacency_.offsets.assign(nv + 1, 0);
    out_channels_.reserve(channels_.size());
    adjacency_.targets.reserve(channels_.size());
    for (std::size_t v = 0; v < nv; ++v) {
        for (std::int32_t i = port_offsets_[v]; i < port_offsets_[v + 1]; ++i) {
            const ChannelId c = port_channel_[static_cast<std::size_t>(i)];
            if (c == kNoChannel) continue;
            out_channels_.push_back(c);
            adjacency_.targets.push_back(channels_[static_cast<std::size_t>(c)].dst);
        }
        adjacency_.offsets[v + 1] = static_cast<std::int32_t>(out_channels_.size());
    }

    // Nodes: contiguous, numbered 0.. in vertex order.
    node_offsets_.push_back(0);
    for (std::size_t v = 0; v < nv; ++v) {
        const std::int32_t n = vertices_[v].node;
        const auto current = static_cast<std::int32_t>(node_offsets_.size()) - 1;
        if (n == current + 1) {
            node_offsets_.push_back(static_cast<VertexId>(v));
        } else if (n != current) {
            bad(fmt::format("vertex {} has node {}: nodes must be numbered 0.. in vertex order", v, n));
        }
        if (vertices_[v].terminals > 0 && !vertices_[v].spare) ++num_compute_;
        if (vertices_[v].spare && vertices_[v].terminals > 0) bad(fmt::format("spare vertex {} has terminals", v));
    }
    node_offsets_.push_back(static_cast<VertexId>(nv));
    if (nv == 0) node_offsets_ = {0};

    // Node-level graph, deduplicated, neighbours in increasing order.
    const std::int32_t nn = num_nodes();
    node_adjacency_.offsets.assign(static_cast<std::size_t>(nn) + 1, 0);
    std::vector<std::int32_t> row;
    for (std::int32_t n = 0; n < nn; ++n) {
        row.clear();
        for (VertexId v = node_offsets_[static_cast<std::size_t>(n)]; v < node_offsets_[static_cast<std::size_t>(n) + 1]; ++v)
            for (std::int32_t u : adjacency_.neighbors(v)) {
                const std::int32_t m = vertices_[static_cast<std::size_t>(u)].node;
                if (m != n) row.push_back(m);
            }
        std::sort(row.begin(), row.end());
        row.erase(std::unique(row.begin(), row.end()), row.end());
        node_adjacency_.targets.insert(node_adjacency_.targets.end(), row.begin(), row.end());
        node_adjacency_.offsets[static_cast<std::size_t>(n) + 1] = static_cast<std::int32_t>(node_adjacency_.targets.size());
    }

    std::vector<std::int32_t> groups, racks;
    for (const auto& v : vertices_) {
        groups.push_back(v.group);
        if (v.rack >= 0) racks.push_back(v.rack);
    }
    num_groups_ = count_distinct(groups);
    num_racks_ = count_distinct(racks);
    std::int32_t max_rack = -1;
    for (std::int32_t r : racks) max_rack = std::max(max_rack, r);
    rack_first_node_.assign(static_cast<std::size_t>(max_rack + 1), INT32_MAX);
    for (const auto& v : vertices_)
        if (v.rack >= 0)
            rack_first_node_[static_cast<std::size_t>(v.rack)] =
                std::min(rack_first_node_[static_cast<std::size_t>(v.rack)], v.node);
}

ChannelId FrozenTopology::channel_at(VertexId v, std::int32_t port) const {
    if (port < 0 || port >= num_ports(v)) return kNoChannel;
    return port_channel_[static_cast<std::size_t>(port_offsets_[static_cast<std::size_t>(v)] + port)];
}

std::string FrozenTopology::vertex_name(VertexId v) const {
    const VertexInfo& i = vertex(v);
    if (kind_ == "dragonfly") return fmt::format("group{}.router{}", i.group, i.index);
    if (i.rack >= 0)
        return fmt::format("rack{}.node{}.tsp{}", i.rack, i.node - rack_first_node_[static_cast<std::size_t>(i.rack)],
                           i.index);
    return fmt::format("node{}.tsp{}", i.node, i.index);
}

}  // namespace loom::topo
