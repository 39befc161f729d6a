// Private: the builders' working graph, a Boost.Graph multigraph whose vertices carry VertexInfo and whose
// edges carry ports and link class, frozen into a FrozenTopology once complete.
#pragma once

#include <string>

#include <boost/graph/adjacency_list.hpp>

#include "loom/topo/frozen_topology.hpp"

namespace loom::topo::detail {

class GraphBuilder {
public:
    VertexId add_vertex(const VertexInfo& info, std::int32_t ports);
    // One physical link between port `port_a` of `a` and port `port_b` of `b`.
    void add_link(VertexId a, std::int32_t port_a, VertexId b, std::int32_t port_b, LinkClass c);
    std::size_t num_vertices() const { return boost::num_vertices(g_); }
    // Checks the graph is connected (InternalError otherwise: every shape the builders accept is) and freezes
    // it; link ids follow the order links were added.
    FrozenTopology freeze(std::string kind) const;

private:
    struct VertexProps {
        VertexInfo info;
        std::int32_t ports = 0;
    };
    struct EdgeProps {
        std::int32_t port_source = 0;  // port at boost::source(e)
        std::int32_t port_target = 0;
        LinkClass link_class = LinkClass::InNode;
    };
    // listS edge list: edges() iterates in insertion order, which fixes link ids deterministically.
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexProps, EdgeProps,
                                        boost::no_property, boost::listS>;
    Graph g_;
};

}  // namespace loom::topo::detail
