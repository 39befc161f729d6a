#include <catch2/catch.hpp>

#include <map>
#include <utility>

#include "loom/topo/tsp_topology.hpp"

using loom::topo::build_tsp_topology;
using loom::topo::FrozenTopology;
using loom::topo::LinkClass;
using loom::topo::PortAssignment;
using loom::topo::TspKind;
using loom::topo::TspTopologyConfig;

namespace {

TspTopologyConfig shape(TspKind kind, std::int32_t racks = 145,
                        PortAssignment assignment = PortAssignment::RoundRobin) {
    TspTopologyConfig c;
    c.kind = kind;
    c.racks = racks;
    c.port_assignment = assignment;
    return c;
}

// Links between every two groups of `key` (node or rack), counted once per unordered pair.
std::map<std::pair<int, int>, int> pair_links(const FrozenTopology& t, LinkClass cls, bool by_rack) {
    std::map<std::pair<int, int>, int> out;
    for (loom::topo::ChannelId c = 0; c < t.num_channels(); c += 2) {
        const auto& ch = t.channel(c);
        if (ch.link_class != cls) continue;
        int a = by_rack ? t.vertex(ch.src).rack : t.vertex(ch.src).node;
        int b = by_rack ? t.vertex(ch.dst).rack : t.vertex(ch.dst).node;
        if (a > b) std::swap(a, b);
        ++out[{a, b}];
    }
    return out;
}

// Checks every TSP's ports against the config's limits: local links on ports 0..local-1, global ports after
// them, at most c2c_links_per_tsp in all.
void check_port_limits(const FrozenTopology& t, const TspTopologyConfig& c) {
    for (loom::topo::VertexId v = 0; v < t.num_vertices(); ++v) {
        int local = 0;
        int global = 0;
        for (auto ch : t.out_channels(v)) {
            const auto& channel = t.channel(ch);
            if (channel.link_class == LinkClass::InNode) {
                ++local;
                CHECK(channel.src_port < c.local_links_per_tsp);
            } else {
                ++global;
                CHECK(channel.src_port >= c.local_links_per_tsp);
                CHECK(channel.src_port < c.local_links_per_tsp + c.global_ports_per_tsp);
            }
        }
        CHECK(local == c.tsps_per_node - 1);
        CHECK(global <= c.global_ports_per_tsp);
        CHECK(local + global <= c.c2c_links_per_tsp);
    }
}

}  // namespace

TEST_CASE("A node is 8 TSPs fully connected by 28 in-node links") {
    const FrozenTopology t = build_tsp_topology(shape(TspKind::Node));
    CHECK(t.num_vertices() == 8);
    CHECK(t.num_links() == 28);
    CHECK(t.link_count(LinkClass::InNode) == 28);
    CHECK(t.num_nodes() == 1);
    CHECK(t.num_racks() == 0);
    for (loom::topo::VertexId v = 0; v < 8; ++v) CHECK(t.out_channels(v).size() == 7);
    // Link 0 joins TSP 0 (local port 0) and TSP 1 (local port 0); TSP t's local port q leads to q or q + 1.
    CHECK(t.channel(0).src == 0);
    CHECK(t.channel(0).dst == 1);
    CHECK(t.channel(0).dst_port == 0);
    const auto c = t.channel_at(5, 5);
    CHECK(t.channel(c).dst == 6);
    CHECK(t.channel(t.channel_at(5, 4)).dst == 4);
}

TEST_CASE("The 264-TSP system has 28 x 33 in-node links and one link per node pair") {
    for (auto assignment : {PortAssignment::RoundRobin, PortAssignment::Blocked}) {
        TspTopologyConfig c = shape(TspKind::System264, 145, assignment);
        const FrozenTopology t = build_tsp_topology(c);
        CHECK(t.num_vertices() == 264);
        CHECK(t.link_count(LinkClass::InNode) == 28 * 33);
        CHECK(t.link_count(LinkClass::RackToRack) == 528);
        CHECK(t.num_links() == 28 * 33 + 528);
        const auto pairs = pair_links(t, LinkClass::RackToRack, false);
        CHECK(pairs.size() == 528);
        for (const auto& [p, n] : pairs) CHECK(n == 1);
        check_port_limits(t, c);
        // Groups are nodes.
        CHECK(t.num_groups() == 33);
        CHECK(t.vertex(263).group == 32);
    }
}

TEST_CASE("A rack has 9 x 28 in-node links and every node pair linked twice") {
    for (auto assignment : {PortAssignment::RoundRobin, PortAssignment::Blocked}) {
        TspTopologyConfig c = shape(TspKind::Rack, 145, assignment);
        const FrozenTopology t = build_tsp_topology(c);
        CHECK(t.num_vertices() == 72);
        CHECK(t.link_count(LinkClass::InNode) == 9 * 28);
        CHECK(t.link_count(LinkClass::InRack) == 36 * 2);
        CHECK(t.num_links() == 9 * 28 + 36 * 2);
        const auto pairs = pair_links(t, LinkClass::InRack, false);
        CHECK(pairs.size() == 36);
        for (const auto& [p, n] : pairs) CHECK(n == 2);
        check_port_limits(t, c);
        CHECK(t.num_racks() == 1);
        CHECK(t.vertex_name(71) == "rack0.node8.tsp7");
    }
}

TEST_CASE("The largest system has 10,440 TSPs and one rack-to-rack link per rack pair") {
    for (auto assignment : {PortAssignment::RoundRobin, PortAssignment::Blocked}) {
        TspTopologyConfig c = shape(TspKind::Multirack, 145, assignment);
        const FrozenTopology t = build_tsp_topology(c);
        CHECK(t.num_vertices() == 10'440);
        CHECK(t.num_nodes() == 1'305);
        CHECK(t.num_racks() == 145);
        CHECK(t.num_groups() == 145);
        CHECK(t.link_count(LinkClass::InNode) == 1'305 * 28);
        CHECK(t.link_count(LinkClass::InRack) == 145 * 72);
        CHECK(t.link_count(LinkClass::RackToRack) == 145 * 144 / 2);
        const auto racks = pair_links(t, LinkClass::RackToRack, true);
        CHECK(racks.size() == 145 * 144 / 2);
        bool all_one = true;
        for (const auto& [p, n] : racks) all_one = all_one && n == 1;
        CHECK(all_one);
        check_port_limits(t, c);
        CHECK(t.vertex_name(10'439) == "rack144.node8.tsp7");
    }
}

TEST_CASE("Round robin gives every TSP 2 in-rack and 2 rack-to-rack ports") {
    const FrozenTopology t = build_tsp_topology(shape(TspKind::Multirack, 145));
    for (loom::topo::VertexId v = 0; v < t.num_vertices(); ++v) {
        int in_rack = 0;
        int r2r = 0;
        for (auto ch : t.out_channels(v)) {
            in_rack += t.channel(ch).link_class == LinkClass::InRack;
            r2r += t.channel(ch).link_class == LinkClass::RackToRack;
        }
        if (in_rack != 2 || r2r != 2) FAIL("vertex " << v << ": " << in_rack << " in-rack, " << r2r << " rack-to-rack");
    }
    SUCCEED();
}

TEST_CASE("Blocked puts a node's in-rack ports on TSPs 0-3 and rack-to-rack ports on TSPs 4-7") {
    const FrozenTopology t = build_tsp_topology(shape(TspKind::Multirack, 145, PortAssignment::Blocked));
    for (loom::topo::VertexId v = 0; v < t.num_vertices(); ++v) {
        const bool low = t.vertex(v).index < 4;
        for (auto ch : t.out_channels(v)) {
            const LinkClass cls = t.channel(ch).link_class;
            if (cls == LinkClass::InNode) continue;
            if (cls != (low ? LinkClass::InRack : LinkClass::RackToRack)) FAIL("vertex " << v << " holds a wrong port");
        }
    }
    SUCCEED();
}

TEST_CASE("Below 145 racks every rack spreads all 144 rack-to-rack ports over the other racks") {
    for (std::int32_t racks = 2; racks <= 145; ++racks) {
        INFO("racks = " << racks);
        const std::int32_t q = 144 / (racks - 1);
        for (std::int32_t i = 0; i < racks; ++i) {
            std::int32_t used = 0;
            for (std::int32_t j = 0; j < racks; ++j) {
                const std::int32_t n = loom::topo::rack_pair_links(i, j, racks, 144);
                CHECK(n == loom::topo::rack_pair_links(j, i, racks, 144));
                if (i != j) CHECK((n == q || n == q + 1));
                used += n;
            }
            // 144 is even, so the remainder is even whenever racks is odd: every port is used.
            CHECK(used == 144);
        }
    }
    // 2 racks: 144 parallel links; 11 racks: 14 per pair, plus one to the racks at distance 1 and 2.
    CHECK(loom::topo::rack_pair_links(0, 1, 2, 144) == 144);
    CHECK(loom::topo::rack_pair_links(0, 1, 11, 144) == 15);
    CHECK(loom::topo::rack_pair_links(0, 9, 11, 144) == 15);
    CHECK(loom::topo::rack_pair_links(0, 3, 11, 144) == 14);
    // 12 racks: 13 per pair, remainder 1 goes to the opposite rack.
    CHECK(loom::topo::rack_pair_links(2, 8, 12, 144) == 14);
    CHECK(loom::topo::rack_pair_links(2, 7, 12, 144) == 13);
    // An odd remainder with an odd number of racks leaves one port per rack unused: 3 racks, 145 ports.
    CHECK(loom::topo::rack_pair_links(0, 1, 3, 145) == 72);
}

TEST_CASE("Multirack systems below 145 racks build with the expected link counts and port limits") {
    for (auto [racks, r2r] : {std::pair{1, 0}, std::pair{2, 144}, std::pair{3, 216}, std::pair{11, 792},
                              std::pair{12, 864}}) {
        for (auto assignment : {PortAssignment::RoundRobin, PortAssignment::Blocked}) {
            INFO("racks = " << racks);
            TspTopologyConfig c = shape(TspKind::Multirack, racks, assignment);
            const FrozenTopology t = build_tsp_topology(c);
            CHECK(t.num_vertices() == 72 * racks);
            CHECK(t.link_count(LinkClass::InRack) == 72 * racks);
            CHECK(t.link_count(LinkClass::RackToRack) == r2r);
            check_port_limits(t, c);
        }
    }
}

TEST_CASE("Spare nodes are the last nodes of each rack and have no terminals") {
    TspTopologyConfig c = shape(TspKind::Multirack, 3);
    c.spare_nodes_per_rack = 1;
    const FrozenTopology t = build_tsp_topology(c);
    CHECK(t.num_vertices() == 216);
    CHECK(t.num_compute_vertices() == 192);
    for (loom::topo::VertexId v = 0; v < t.num_vertices(); ++v) {
        const bool last_node = (t.vertex(v).node % 9) == 8;
        CHECK(t.vertex(v).spare == last_node);
        CHECK(t.vertex(v).terminals == (last_node ? 0 : 1));
    }
    // Spares stay wired: they still hold their rack-to-rack ports.
    CHECK(t.out_channels(215).size() == 11);

    TspTopologyConfig s = shape(TspKind::System264);
    s.spare_nodes_per_rack = 1;
    const FrozenTopology t264 = build_tsp_topology(s);
    CHECK(t264.num_compute_vertices() == 256);
    CHECK(t264.vertex(263).spare);
    CHECK_FALSE(t264.vertex(255).spare);
}
