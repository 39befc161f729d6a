#include "loom/topo/tsp_topology.hpp"

#include <vector>

#include "graph_builder.hpp"
#include "loom/base/error.hpp"

namespace loom::topo {
namespace {

struct Place {
    std::int32_t first;  // first index of the block (node or TSP)
    std::int32_t slot;   // slot within it
};

// Where demand k of a list goes when `units` units of `capacity` slots each share it (see PortAssignment).
Place place(PortAssignment p, std::int32_t k, std::int32_t units, std::int32_t capacity) {
    if (p == PortAssignment::RoundRobin) return {k % units, k / units};
    return {k / capacity, k % capacity};
}

class TspWiring {
public:
    explicit TspWiring(const TspTopologyConfig& c) : c_(c) {}

    FrozenTopology build() {
        add_vertices();
        add_in_node_links();
        switch (c_.kind) {
            case TspKind::Node: break;
            case TspKind::System264: add_system264_links(); break;
            case TspKind::Rack:
            case TspKind::Multirack:
                add_in_rack_links();
                if (c_.kind == TspKind::Multirack) add_rack_to_rack_links();
                break;
        }
        return b_.freeze(std::string(tsp_kind_name(c_.kind)));
    }

private:
    std::int32_t t() const { return c_.tsps_per_node; }
    std::int32_t g() const { return c_.global_ports_per_tsp; }
    VertexId vertex(std::int32_t node, std::int32_t tsp) const { return node * t() + tsp; }

    void add_vertices() {
        const auto nodes = static_cast<std::int32_t>(c_.num_nodes());
        const bool racked = c_.kind == TspKind::Rack || c_.kind == TspKind::Multirack;
        const std::int32_t per_group = racked ? c_.nodes_per_rack : nodes;  // sparing group
        for (std::int32_t n = 0; n < nodes; ++n) {
            VertexInfo info;
            info.node = n;
            info.rack = racked ? n / c_.nodes_per_rack : -1;
            info.group = racked ? info.rack : (c_.kind == TspKind::System264 ? n : 0);
            info.spare = n % per_group >= per_group - c_.spare_nodes_per_rack;
            info.terminals = info.spare ? 0 : 1;
            for (std::int32_t i = 0; i < t(); ++i) {
                info.index = i;
                b_.add_vertex(info, c_.local_links_per_tsp + g());
            }
        }
    }

    void add_in_node_links() {
        const auto nodes = static_cast<std::int32_t>(c_.num_nodes());
        for (std::int32_t n = 0; n < nodes; ++n)
            for (std::int32_t i = 0; i < t(); ++i)
                for (std::int32_t j = i + 1; j < t(); ++j) b_.add_link(vertex(n, i), j - 1, vertex(n, j), i, LinkClass::InNode);
    }

    // Vertex and port of demand k of node n's global-port list.
    std::pair<VertexId, std::int32_t> global_port(std::int32_t n, std::int32_t k) const {
        const Place p = place(c_.port_assignment, k, t(), g());
        LOOM_ASSERT(p.first < t() && p.slot < g(), "global port demand beyond the node's ports");
        return {vertex(n, p.first), c_.local_links_per_tsp + p.slot};
    }

    void link_nodes(std::int32_t n, std::int32_t kn, std::int32_t m, std::int32_t km, LinkClass cls) {
        const auto [a, pa] = global_port(n, kn);
        const auto [b, pb] = global_port(m, km);
        b_.add_link(a, pa, b, pb, cls);
    }

    void add_system264_links() {
        // Node n's demands: one per peer node, in increasing order (peer m is demand m - (m > n)).
        for (std::int32_t n = 0; n < c_.nodes; ++n)
            for (std::int32_t m = n + 1; m < c_.nodes; ++m) link_nodes(n, m - 1, m, n, LinkClass::RackToRack);
    }

    std::int32_t in_rack_demands() const { return (c_.nodes_per_rack - 1) * c_.links_per_node_pair; }

    void add_in_rack_links() {
        const std::int32_t nr = c_.nodes_per_rack;
        const std::int32_t lp = c_.links_per_node_pair;
        for (std::int32_t r = 0; r < c_.num_racks(); ++r)
            for (std::int32_t i = 0; i < nr; ++i)
                for (std::int32_t j = i + 1; j < nr; ++j)
                    for (std::int32_t copy = 0; copy < lp; ++copy)
                        link_nodes(r * nr + i, (j - 1) * lp + copy, r * nr + j, i * lp + copy, LinkClass::InRack);
    }

    void add_rack_to_rack_links() {
        const std::int32_t racks = c_.racks;
        if (racks < 2) return;
        const std::int32_t nr = c_.nodes_per_rack;
        const std::int32_t free_per_node = t() * g() - in_rack_demands();
        const std::int32_t ports = nr * free_per_node;
        // offset[a][b]: position of rack a's first link to rack b in a's list (peers in increasing order).
        std::vector<std::int32_t> offset(static_cast<std::size_t>(racks) * static_cast<std::size_t>(racks), 0);
        auto at = [&](std::int32_t a, std::int32_t b) -> std::int32_t& {
            return offset[static_cast<std::size_t>(a) * static_cast<std::size_t>(racks) + static_cast<std::size_t>(b)];
        };
        for (std::int32_t a = 0; a < racks; ++a) {
            std::int32_t pos = 0;
            for (std::int32_t b = 0; b < racks; ++b) {
                at(a, b) = pos;
                if (b != a) pos += rack_pair_links(a, b, racks, ports);
            }
            LOOM_ASSERT(pos <= ports, "rack-to-rack links exceed the rack's ports");
        }
        // Rack position -> (node, demand index in that node's list).
        auto end = [&](std::int32_t rack, std::int32_t pos) {
            const Place p = place(c_.port_assignment, pos, nr, free_per_node);
            return std::pair{rack * nr + p.first, in_rack_demands() + p.slot};
        };
        for (std::int32_t a = 0; a < racks; ++a)
            for (std::int32_t b = a + 1; b < racks; ++b) {
                const std::int32_t m = rack_pair_links(a, b, racks, ports);
                for (std::int32_t copy = 0; copy < m; ++copy) {
                    const auto [na, ka] = end(a, at(a, b) + copy);
                    const auto [nb, kb] = end(b, at(b, a) + copy);
                    link_nodes(na, ka, nb, kb, LinkClass::RackToRack);
                }
            }
    }

    const TspTopologyConfig& c_;
    detail::GraphBuilder b_;
};

}  // namespace

std::int32_t rack_pair_links(std::int32_t i, std::int32_t j, std::int32_t racks, std::int32_t ports) {
    if (racks < 2 || i == j) return 0;
    const std::int32_t q = ports / (racks - 1);
    std::int32_t r = ports % (racks - 1);
    if (r % 2 == 1 && racks % 2 == 1) --r;  // no r-regular circulant exists: one port per rack stays unused
    const std::int32_t d = i > j ? i - j : j - i;
    const std::int32_t dist = d < racks - d ? d : racks - d;
    const bool extra = dist <= r / 2 || (r % 2 == 1 && 2 * dist == racks);
    return q + (extra ? 1 : 0);
}

FrozenTopology build_tsp_topology(const TspTopologyConfig& c) {
    config::Errors errors;
    validate(c, "/topology", errors);
    errors.throw_if_any();
    return TspWiring(c).build();
}

}  // namespace loom::topo
