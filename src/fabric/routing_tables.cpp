#include "loom/fabric/routing_tables.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "loom/base/error.hpp"

namespace loom::fabric {

namespace {

// Dial's shortest paths with edge weights 1 and kCrossingWeight: a ring of kCrossingWeight + 1 buckets holds
// every pending distance (all lie within [current, current + kCrossingWeight]). Fills `dist` (size V) from `source`.
class Dial {
public:
    static constexpr std::size_t kRing = RoutingTables::kCrossingWeight + 1;

    void run(std::int32_t source, const std::vector<std::int32_t>& offsets, const std::vector<topo::VertexId>& nbr,
             const std::vector<std::uint16_t>& weight, std::uint16_t* dist, std::size_t n) {
        std::fill(dist, dist + n, RoutingTables::kUnreachable);
        dist[source] = 0;
        buckets_[0].push_back(source);
        std::size_t pending = 1;
        for (std::uint32_t cur = 0; pending > 0; ++cur) {
            auto& b = buckets_[cur % kRing];
            for (std::size_t k = 0; k < b.size(); ++k) {
                const std::int32_t v = b[k];
                --pending;
                if (dist[v] != cur) continue;  // superseded entry
                for (std::int32_t s = offsets[static_cast<std::size_t>(v)], e = offsets[static_cast<std::size_t>(v) + 1];
                     s < e; ++s) {
                    const topo::VertexId u = nbr[static_cast<std::size_t>(s)];
                    if (u < 0) continue;
                    const std::uint32_t nd = cur + weight[static_cast<std::size_t>(s)];
                    if (nd >= RoutingTables::kUnreachable)
                        throw InternalError("RoutingTables: a route is longer than the 16-bit distance table holds");
                    if (nd < dist[u]) {
                        dist[u] = static_cast<std::uint16_t>(nd);
                        buckets_[nd % kRing].push_back(u);
                        ++pending;
                    }
                }
            }
            b.clear();
        }
    }

private:
    std::vector<std::int32_t> buckets_[kRing];
};

}  // namespace

RoutingTables::RoutingTables(const topo::FrozenTopology& topology)
    : topo_(topology),
      scheme_(topology.kind() == "dragonfly" ? VcClassScheme::GlobalHops : VcClassScheme::HopIndex),
      vertices_(topology.num_vertices()) {
    const auto V = static_cast<std::size_t>(vertices_);
    group_.resize(V);
    port_offset_.assign(V + 1, 0);
    for (std::size_t v = 0; v < V; ++v) {
        const auto id = static_cast<topo::VertexId>(v);
        group_[v] = topology.vertex(id).group;
        groups_ = std::max(groups_, group_[v] + 1);
        const std::int32_t ports = topology.num_ports(id);
        if (ports > 64)
            throw InternalError(fmt::format("RoutingTables: router {} has {} ports, at most 64 are supported",
                                            topology.vertex_name(id), ports));
        port_offset_[v + 1] = port_offset_[v] + ports;
    }
    neighbor_.assign(static_cast<std::size_t>(port_offset_[V]), -1);
    weight_.assign(static_cast<std::size_t>(port_offset_[V]), 1);
    for (std::size_t v = 0; v < V; ++v) {
        const auto id = static_cast<topo::VertexId>(v);
        for (std::int32_t q = 0; q < topology.num_ports(id); ++q) {
            const topo::ChannelId c = topology.channel_at(id, q);
            if (c == topo::kNoChannel) continue;
            const auto slot = static_cast<std::size_t>(port_offset_[v] + q);
            const topo::VertexId u = topology.channel(c).dst;
            neighbor_[slot] = u;
            if (scheme_ == VcClassScheme::GlobalHops && group_[static_cast<std::size_t>(u)] != group_[v])
                weight_[slot] = kCrossingWeight;
        }
    }

    // Routes are symmetric (every link is two channels with one weight), so a search from d gives dist(v, d) for
    // every v: one column at a time, folded into the group distances, the class bounds and each router's palette of
    // (minimal ports, distance) pairs, so that no V x V distance matrix is kept (8.5 MB at 2,064 routers) unless a
    // router has more pairs than its palette holds.
    std::vector<std::uint16_t> col(V);
    gdist_.assign(static_cast<std::size_t>(groups_) * V, kUnreachable);
    std::int32_t max_route = 0, max_cross = 0;
    min_index_.assign(V * V, kNoPalette);
    std::vector<std::vector<std::pair<std::uint64_t, std::uint16_t>>> palettes(V);
    bool overflow = false;
    Dial dial;
    for (std::size_t d = 0; d < V; ++d) {
        dial.run(static_cast<std::int32_t>(d), port_offset_, neighbor_, weight_, col.data(), V);
        std::uint16_t* to_group = gdist_.data() + static_cast<std::size_t>(group_[d]) * V;
        for (std::size_t v = 0; v < V; ++v) {
            const std::uint16_t x = col[v];
            if (x == kUnreachable)
                throw InternalError(fmt::format("RoutingTables: {} cannot reach {}",
                                                topology.vertex_name(static_cast<topo::VertexId>(v)),
                                                topology.vertex_name(static_cast<topo::VertexId>(d))));
            to_group[v] = std::min(to_group[v], x);
            max_route = std::max(max_route, hops(x));
            max_cross = std::max(max_cross, crossings(x));
            const std::pair<std::uint64_t, std::uint16_t> entry{
                minimal_ports_from(col.data(), static_cast<topo::VertexId>(v)), x};
            auto& palette = palettes[v];
            const auto it = std::find(palette.begin(), palette.end(), entry);
            if (it != palette.end()) {
                min_index_[v * V + d] = static_cast<std::uint8_t>(it - palette.begin());
            } else if (palette.size() < kNoPalette) {
                min_index_[v * V + d] = static_cast<std::uint8_t>(palette.size());
                palette.push_back(entry);
            } else {
                overflow = true;
            }
        }
    }
    if (overflow) {
        dist_.resize(V * V);
        for (std::size_t d = 0; d < V; ++d)
            dial.run(static_cast<std::int32_t>(d), port_offset_, neighbor_, weight_, dist_.data() + d * V, V);
    }
    std::int32_t max_group_route = 0, max_group_cross = 0;
    for (std::size_t g = 0; g < static_cast<std::size_t>(groups_); ++g) {
        for (std::size_t v = 0; v < V; ++v) {
            const std::uint16_t x = gdist_[g * V + v];
            if (x == kUnreachable) continue;  // a group number with no router
            max_group_route = std::max(max_group_route, hops(x));
            max_group_cross = std::max(max_group_cross, crossings(x));
        }
    }
    palette_first_.assign(V, 0);
    for (std::size_t v = 0; v < V; ++v) {
        palette_first_[v] = static_cast<std::int32_t>(min_palette_.size());
        for (const auto& [mask, distance] : palettes[v]) {
            min_palette_.push_back(mask);
            palette_dist_.push_back(distance);
        }
    }

    if (scheme_ == VcClassScheme::GlobalHops) {
        minimal_classes_ = max_cross + 1;
        intermediate_classes_ = max_group_cross + max_cross + 1;
    } else {
        minimal_classes_ = std::max(1, max_route);
        intermediate_classes_ = std::max(1, max_group_route + max_route);
    }
}

std::uint64_t RoutingTables::minimal_ports_from(const std::uint16_t* col, topo::VertexId v) const {
    const std::uint32_t here = col[v];
    std::uint64_t mask = 0;
    const auto s0 = static_cast<std::size_t>(port_offset_[static_cast<std::size_t>(v)]);
    const auto s1 = static_cast<std::size_t>(port_offset_[static_cast<std::size_t>(v) + 1]);
    for (std::size_t s = s0; s < s1; ++s) {
        const topo::VertexId u = neighbor_[s];
        if (u >= 0 && std::uint32_t{col[u]} + weight_[s] == here) mask |= std::uint64_t{1} << (s - s0);
    }
    return mask;
}

std::uint64_t RoutingTables::compute_minimal_ports(topo::VertexId v, topo::VertexId d) const {
    return minimal_ports_from(dist_.data() + static_cast<std::size_t>(d) * static_cast<std::size_t>(vertices_), v);
}

std::uint16_t RoutingTables::stored_distance(topo::VertexId v, topo::VertexId d) const {
    return dist_[static_cast<std::size_t>(d) * static_cast<std::size_t>(vertices_) + static_cast<std::size_t>(v)];
}

std::uint64_t RoutingTables::group_ports(topo::VertexId v, std::int32_t g) const {
    const auto V = static_cast<std::size_t>(vertices_);
    const std::uint16_t* col = gdist_.data() + static_cast<std::size_t>(g) * V;
    const std::uint32_t here = col[v];
    std::uint64_t mask = 0;
    if (here == 0) return 0;
    const auto s0 = static_cast<std::size_t>(port_offset_[static_cast<std::size_t>(v)]);
    const auto s1 = static_cast<std::size_t>(port_offset_[static_cast<std::size_t>(v) + 1]);
    for (std::size_t s = s0; s < s1; ++s) {
        const topo::VertexId u = neighbor_[s];
        if (u >= 0 && std::uint32_t{col[u]} + weight_[s] == here) mask |= std::uint64_t{1} << (s - s0);
    }
    return mask;
}

}  // namespace loom::fabric
