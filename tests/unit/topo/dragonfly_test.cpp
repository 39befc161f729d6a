#include <catch2/catch.hpp>

#include <map>
#include <utility>

#include "loom/base/error.hpp"
#include "loom/config/document.hpp"
#include "loom/topo/dragonfly.hpp"
#include "loom/topo/hop_counts.hpp"

using loom::topo::build_dragonfly;
using loom::topo::DragonflyConfig;
using loom::topo::FrozenTopology;
using loom::topo::GlobalArrangement;
using loom::topo::LinkClass;

namespace {

DragonflyConfig df(int p, int a, int h, int g, GlobalArrangement arrangement) {
    DragonflyConfig c;
    c.p = p;
    c.a = a;
    c.h = h;
    c.g = g;
    c.arrangement = arrangement;
    return c;
}

std::map<std::pair<int, int>, int> group_pairs(const FrozenTopology& t) {
    std::map<std::pair<int, int>, int> out;
    for (loom::topo::ChannelId c = 0; c < t.num_channels(); c += 2) {
        const auto& ch = t.channel(c);
        int a = t.vertex(ch.src).group;
        int b = t.vertex(ch.dst).group;
        CHECK((ch.link_class == LinkClass::Global) == (a != b));
        if (a == b) continue;
        if (a > b) std::swap(a, b);
        ++out[{a, b}];
    }
    return out;
}

void check_ports(const FrozenTopology& t, const DragonflyConfig& c) {
    for (loom::topo::VertexId v = 0; v < t.num_vertices(); ++v) {
        int local = 0;
        int global = 0;
        for (auto ch : t.out_channels(v)) (t.channel(ch).link_class == LinkClass::Local ? local : global)++;
        CHECK(local == c.a - 1);
        CHECK(global <= c.h);
        CHECK(t.vertex(v).terminals == c.p);
    }
}

}  // namespace

TEST_CASE("A balanced Dragonfly p2 a4 h2 has 9 groups joined pairwise by exactly one global link") {
    for (auto arrangement : {GlobalArrangement::Absolute, GlobalArrangement::Relative}) {
        const DragonflyConfig c = df(2, 4, 2, 0, arrangement);
        const FrozenTopology t = build_dragonfly(c);
        CHECK(c.groups() == 9);
        CHECK(t.num_vertices() == 36);
        CHECK(t.num_groups() == 9);
        CHECK(t.link_count(LinkClass::Local) == 9 * 6);
        CHECK(t.link_count(LinkClass::Global) == 36);
        const auto pairs = group_pairs(t);
        CHECK(pairs.size() == 36);
        for (const auto& [p, n] : pairs) CHECK(n == 1);
        check_ports(t, c);
        // Every router uses all h global ports; minimal routes are local-global-local.
        CHECK(loom::topo::vertex_hops(t).diameter == 3);
        CHECK(t.vertex_name(35) == "group8.router3");
    }
}

TEST_CASE("A Dragonfly p4 a8 h4 g33 joins its 33 groups pairwise by one link") {
    for (auto arrangement : {GlobalArrangement::Absolute, GlobalArrangement::Relative}) {
        const DragonflyConfig c = df(4, 8, 4, 33, arrangement);
        const FrozenTopology t = build_dragonfly(c);
        CHECK(t.num_vertices() == 264);
        CHECK(t.link_count(LinkClass::Local) == 33 * 28);
        CHECK(t.link_count(LinkClass::Global) == 528);
        const auto pairs = group_pairs(t);
        CHECK(pairs.size() == 528);
        for (const auto& [p, n] : pairs) CHECK(n == 1);
        check_ports(t, c);
    }
}

TEST_CASE("Absolute and relative arrangements send a group's global ports to different groups") {
    const FrozenTopology abs = build_dragonfly(df(2, 4, 2, 0, GlobalArrangement::Absolute));
    const FrozenTopology rel = build_dragonfly(df(2, 4, 2, 0, GlobalArrangement::Relative));
    // Group 3, router 0, global port 0 is global port k = 0 of the group (port a-1 = 3 of the router).
    // Absolute: offset 0 -> group 0. Relative: group 3 + 0 + 1 = 4.
    const auto v = 3 * 4 + 0;
    CHECK(abs.vertex(abs.channel(abs.channel_at(v, 3)).dst).group == 0);
    CHECK(rel.vertex(rel.channel(rel.channel_at(v, 3)).dst).group == 4);
    // Relative: the far end is port g-2-t = 7 of group 4, i.e. router 3, global port 1 (router port 4).
    const auto far = rel.channel(rel.channel_at(v, 3));
    CHECK(far.dst == 4 * 4 + 3);
    CHECK(far.dst_port == 4);
    // Absolute: the far end in group 0 is offset 2 (groups 0..8 skipping 0: 3 is offset 2), router 1 port 0.
    const auto far_abs = abs.channel(abs.channel_at(v, 3));
    CHECK(far_abs.dst == 0 * 4 + 1);
    CHECK(far_abs.dst_port == 3);
}

TEST_CASE("With fewer groups every group pair gets floor(a*h / (g-1)) links or one more") {
    // a*h = 8 over 4 other groups: exactly 2 links per pair.
    for (auto arrangement : {GlobalArrangement::Absolute, GlobalArrangement::Relative}) {
        const FrozenTopology t = build_dragonfly(df(2, 4, 2, 5, arrangement));
        const auto pairs = group_pairs(t);
        CHECK(pairs.size() == 10);
        for (const auto& [p, n] : pairs) CHECK(n == 2);
        CHECK(t.link_count(LinkClass::Global) == 20);
    }
    // a*h = 8 over 5 other groups: 1 link per pair, plus one where the remainder copy exists at both ends.
    for (auto arrangement : {GlobalArrangement::Absolute, GlobalArrangement::Relative}) {
        const DragonflyConfig c = df(2, 4, 2, 6, arrangement);
        const FrozenTopology t = build_dragonfly(c);
        const auto pairs = group_pairs(t);
        CHECK(pairs.size() == 15);
        std::int64_t total = 0;
        for (const auto& [p, n] : pairs) {
            CHECK((n == 1 || n == 2));
            total += n;
        }
        CHECK(total == t.link_count(LinkClass::Global));
        check_ports(t, c);
    }
}

TEST_CASE("More groups than a*h + 1 is rejected at /topology/g with the limit") {
    try {
        build_dragonfly(df(2, 4, 2, 10, GlobalArrangement::Absolute));
        FAIL("expected a ConfigError");
    } catch (const loom::ConfigError& e) {
        REQUIRE(e.messages().size() == 1);
        CHECK(e.messages()[0] ==
              "/topology/g: 10 groups need 9 global links per group (one to every other group), a group has 8 (a = 4 "
              "routers x h = 2 global ports): at most 9 groups");
    }
}

TEST_CASE("The dragonfly section parses and reports shape errors at its pointer") {
    DragonflyConfig c;
    loom::config::Errors errors;
    loom::topo::dragonfly_schema().parse(
        loom::config::parse_json_text(R"({"p": 4, "a": 8, "h": 4, "g": 33, "arrangement": "relative"})", "test"),
        "/fabric/topology", c, errors);
    REQUIRE(errors.empty());
    CHECK(c.arrangement == GlobalArrangement::Relative);
    CHECK(c.routers() == 264);

    DragonflyConfig bad;
    loom::config::Errors errors2;
    loom::topo::dragonfly_schema().parse(loom::config::parse_json_text(R"({"a": 2, "h": 1, "g": 4})", "test"),
                                         "/fabric/topology", bad, errors2);
    REQUIRE(errors2.size() == 1);
    CHECK(errors2.messages()[0].rfind("/fabric/topology/g: 4 groups need 3 global links per group", 0) == 0);
}
