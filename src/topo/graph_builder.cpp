#include "graph_builder.hpp"

#include <vector>

#include <boost/graph/connected_components.hpp>

#include "loom/base/error.hpp"

namespace loom::topo::detail {

VertexId GraphBuilder::add_vertex(const VertexInfo& info, std::int32_t ports) {
    const auto v = boost::add_vertex(VertexProps{info, ports}, g_);
    return static_cast<VertexId>(v);
}

void GraphBuilder::add_link(VertexId a, std::int32_t port_a, VertexId b, std::int32_t port_b, LinkClass c) {
    boost::add_edge(static_cast<std::size_t>(a), static_cast<std::size_t>(b), EdgeProps{port_a, port_b, c}, g_);
}

FrozenTopology GraphBuilder::freeze(std::string kind) const {
    const std::size_t n = boost::num_vertices(g_);
    if (n > 1) {
        std::vector<std::size_t> component(n);
        const std::size_t parts = boost::connected_components(g_, component.data());
        if (parts != 1) throw InternalError(kind + " topology: the built graph is not connected");
    }
    std::vector<VertexInfo> vertices;
    std::vector<std::int32_t> ports;
    vertices.reserve(n);
    ports.reserve(n);
    for (std::size_t v = 0; v < n; ++v) {
        vertices.push_back(g_[v].info);
        ports.push_back(g_[v].ports);
    }
    std::vector<LinkSpec> links;
    links.reserve(boost::num_edges(g_));
    for (auto [it, end] = boost::edges(g_); it != end; ++it) {
        const EdgeProps& e = g_[*it];
        links.push_back({static_cast<VertexId>(boost::source(*it, g_)), e.port_source,
                         static_cast<VertexId>(boost::target(*it, g_)), e.port_target, e.link_class});
    }
    return FrozenTopology(std::move(kind), std::move(vertices), std::move(ports), links);
}

}  // namespace loom::topo::detail
