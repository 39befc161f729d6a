#include <catch2/catch.hpp>

#include "loom/base/error.hpp"
#include "loom/topo/frozen_topology.hpp"

using loom::topo::Channel;
using loom::topo::FrozenTopology;
using loom::topo::kNoChannel;
using loom::topo::LinkClass;
using loom::topo::LinkSpec;
using loom::topo::VertexInfo;

namespace {

// Two nodes of two vertices each: 0-1 and 2-3 inside nodes, 1-2 twice (parallel) and 0-3 between nodes.
FrozenTopology two_nodes() {
    std::vector<VertexInfo> v(4);
    for (int i = 0; i < 4; ++i) {
        v[static_cast<std::size_t>(i)].node = i / 2;
        v[static_cast<std::size_t>(i)].index = i % 2;
        v[static_cast<std::size_t>(i)].group = i / 2;
    }
    std::vector<LinkSpec> links{{0, 0, 1, 0, LinkClass::InNode},
                                {2, 0, 3, 0, LinkClass::InNode},
                                {1, 2, 2, 1, LinkClass::InRack},
                                {1, 1, 2, 2, LinkClass::InRack},
                                {3, 1, 0, 3, LinkClass::RackToRack}};
    return FrozenTopology("test", v, {4, 3, 3, 2}, links);
}

}  // namespace

TEST_CASE("Each link becomes two channels 2l and 2l+1 in opposite directions") {
    const FrozenTopology t = two_nodes();
    REQUIRE(t.num_links() == 5);
    REQUIRE(t.num_channels() == 10);
    const Channel& a = t.channel(8);
    const Channel& b = t.channel(9);
    CHECK(a.src == 3);
    CHECK(a.dst == 0);
    CHECK(a.src_port == 1);
    CHECK(a.dst_port == 3);
    CHECK(b.src == 0);
    CHECK(b.dst == 3);
    CHECK(b.src_port == 3);
    CHECK(b.dst_port == 1);
    CHECK(a.link_class == LinkClass::RackToRack);
    CHECK(FrozenTopology::reverse(8) == 9);
    CHECK(FrozenTopology::reverse(9) == 8);
    CHECK(FrozenTopology::link_of(9) == 4);
}

TEST_CASE("Out-channels of a vertex come in port order and unwired ports have no channel") {
    const FrozenTopology t = two_nodes();
    const auto out = t.out_channels(1);
    REQUIRE(out.size() == 3);
    CHECK(t.channel(out[0]).src_port == 0);
    CHECK(t.channel(out[1]).src_port == 1);
    CHECK(t.channel(out[2]).src_port == 2);
    CHECK(t.num_ports(0) == 4);
    CHECK(t.channel_at(0, 2) == kNoChannel);
    CHECK(t.channel_at(0, 3) == 9);
    CHECK(t.channel_at(0, 7) == kNoChannel);
    // Adjacency targets are parallel to out-channels (parallel links repeat).
    const auto nb = t.adjacency().neighbors(1);
    REQUIRE(nb.size() == 3);
    CHECK(nb[0] == 0);
    CHECK(nb[1] == 2);
    CHECK(nb[2] == 2);
}

TEST_CASE("The node graph joins two nodes once however many links run between them") {
    const FrozenTopology t = two_nodes();
    REQUIRE(t.num_nodes() == 2);
    CHECK(t.node_adjacency().neighbors(0).size() == 1);
    CHECK(t.node_adjacency().neighbors(0)[0] == 1);
    CHECK(t.first_vertex_of_node(1) == 2);
    CHECK(t.link_count(LinkClass::InRack) == 2);
    CHECK(t.link_count(LinkClass::InNode) == 2);
    CHECK(t.link_count(LinkClass::RackToRack) == 1);
    CHECK(t.num_groups() == 2);
    CHECK(t.num_racks() == 0);
    CHECK(t.num_compute_vertices() == 4);
    CHECK(t.vertex_name(3) == "node1.tsp1");
}

TEST_CASE("Wiring one port twice or a vertex to itself is an internal error") {
    std::vector<VertexInfo> v(2);
    v[1].node = 1;
    CHECK_THROWS_AS(FrozenTopology("t", v, {1, 1}, {{0, 0, 1, 0, LinkClass::InNode}, {0, 0, 1, 0, LinkClass::InNode}}),
                    loom::InternalError);
    CHECK_THROWS_AS(FrozenTopology("t", v, {2, 2}, {{0, 0, 0, 1, LinkClass::InNode}}), loom::InternalError);
    CHECK_THROWS_AS(FrozenTopology("t", v, {1, 1}, {{0, 1, 1, 0, LinkClass::InNode}}), loom::InternalError);
}
