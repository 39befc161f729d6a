#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "loom/base/rng.hpp"
#include "loom/topo/dragonfly.hpp"
#include "loom/workload/traffic_pattern.hpp"

using namespace loom;
using namespace loom::workload;

namespace {
// 72 terminals: p=2, a=4, h=2, g=9.
topo::FrozenTopology small() { return topo::build_dragonfly(topo::DragonflyConfig{}); }
}  // namespace

TEST_CASE("Terminals are numbered router by router with their router's group") {
    const auto t = small();
    TrafficConfig c;
    TrafficPattern p(c, t, 1);
    REQUIRE(p.terminals() == 72);
    CHECK(p.groups() == 9);
    CHECK(p.router_of(0) == 0);
    CHECK(p.router_of(1) == 0);
    CHECK(p.router_of(2) == 1);
    CHECK(p.first_terminal(5) == 10);
    CHECK(p.group_of(7) == 0);
    CHECK(p.group_of(8) == 1);
    CHECK(p.group_of(71) == 8);
}

TEST_CASE("Uniform traffic never picks the source and reaches every other terminal") {
    const auto t = small();
    TrafficPattern p(TrafficConfig{}, t, 1);
    Rng rng(7);
    std::set<std::int32_t> seen;
    for (int i = 0; i < 20000; ++i) {
        const std::int32_t d = p.destination(5, rng);
        REQUIRE(d != 5);
        REQUIRE(d >= 0);
        REQUIRE(d < 72);
        seen.insert(d);
    }
    CHECK(seen.size() == 71);
}

TEST_CASE("A random permutation is a single cycle fixed by the seed") {
    const auto t = small();
    TrafficConfig c;
    c.pattern = TrafficPatternKind::Permutation;
    TrafficPattern p(c, t, 3), q(c, t, 3), r(c, t, 4);
    Rng rng(1);
    std::set<std::int32_t> image;
    bool differs = false;
    for (std::int32_t s = 0; s < 72; ++s) {
        const std::int32_t d = p.destination(s, rng);
        CHECK(d != s);
        CHECK(d == q.destination(s, rng));
        differs = differs || d != r.destination(s, rng);
        image.insert(d);
    }
    CHECK(image.size() == 72);
    CHECK(differs);
    // One cycle: following the permutation from 0 visits every terminal before returning.
    std::int32_t x = 0;
    int steps = 0;
    do {
        x = p.destination(x, rng);
        ++steps;
    } while (x != 0 && steps < 100);
    CHECK(steps == 72);
}

TEST_CASE("Group shift sends every packet of group i to group i plus the shift") {
    const auto t = small();
    TrafficConfig c;
    c.pattern = TrafficPatternKind::GroupShift;
    TrafficPattern p(c, t, 1);
    Rng rng(11);
    for (std::int32_t s = 0; s < 72; ++s) {
        for (int k = 0; k < 20; ++k) CHECK(p.group_of(p.destination(s, rng)) == (p.group_of(s) + 1) % 9);
    }
    c.shift = 9;
    config::Errors errors;
    TrafficPattern::validate(c, t, "/traffic", errors);
    REQUIRE(errors.size() == 1);
    CHECK(errors.messages()[0].rfind("/traffic/shift: ", 0) == 0);
}

TEST_CASE("Hotspot traffic sends about its fraction to the hotspots and rejects unknown terminals") {
    const auto t = small();
    TrafficConfig c;
    c.pattern = TrafficPatternKind::Hotspot;
    c.hotspots = {10, 20};
    c.hotspot_fraction = 0.5;
    TrafficPattern p(c, t, 1);
    Rng rng(5);
    int hot = 0;
    const int n = 40000;
    for (int i = 0; i < n; ++i) {
        const std::int32_t d = p.destination(3, rng);
        hot += (d == 10 || d == 20);
    }
    // 0.5 directly plus the uniform share 2/71 of the other half.
    const double expected = 0.5 + 0.5 * 2.0 / 71.0;
    CHECK(static_cast<double>(hot) / n == Approx(expected).margin(0.015));

    c.hotspots = {10, 72};
    config::Errors errors;
    TrafficPattern::validate(c, t, "/traffic", errors);
    REQUIRE(errors.size() == 1);
    CHECK(errors.messages()[0] == "/traffic/hotspots/1: expected a terminal id in 0..71, got 72");
}
