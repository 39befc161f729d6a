#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "loom/base/error.hpp"
#include "loom/stats/group.hpp"

using namespace loom::literals;
using loom::stats::Group;
using loom::stats::Json;

TEST_CASE("Group registering a name twice returns the same object") {
    Group g("sys.tsp0");
    CHECK(g.path() == "sys.tsp0");
    CHECK(&g.counter("sent") == &g.counter("sent"));
    CHECK(&g.histogram("lat", "ps") == &g.histogram("lat", "ps"));
    CHECK(&g.time_average("occ") == &g.time_average("occ"));
}

TEST_CASE("Group references stay valid while more stats are registered") {
    Group g("sys.tsp0");
    auto& first = g.counter("a");
    auto& hist = g.histogram("h");
    first.add(3);
    hist.record(5);
    for (int i = 0; i < 1'000; ++i) g.counter(std::to_string(i) + "_c").add(i);
    first.add(1);
    hist.record(6);
    CHECK(&g.counter("a") == &first);
    CHECK(g.counter("a").value() == 4);
    CHECK(g.histogram("h").count() == 2);
}

TEST_CASE("Group refuses a name already used by another kind of stat") {
    Group g("ananta.mux1");
    g.counter("packets");
    g.set("ratio", 0.5);
    CHECK_THROWS_AS(g.histogram("packets"), loom::InternalError);
    CHECK_THROWS_AS(g.time_average("packets"), loom::InternalError);
    CHECK_THROWS_AS(g.set("packets", 1), loom::InternalError);
    CHECK_THROWS_AS(g.counter("ratio"), loom::InternalError);
    CHECK_THROWS_WITH(g.histogram("packets"), Catch::Contains("ananta.mux1") && Catch::Contains("counter"));
}

TEST_CASE("Group refuses a histogram re-registered with another unit or precision") {
    Group g("x");
    g.histogram("lat", "ps", 7);
    CHECK_THROWS_AS(g.histogram("lat", "ns", 7), loom::InternalError);
    CHECK_THROWS_AS(g.histogram("lat", "ps", 5), loom::InternalError);
}

TEST_CASE("Group JSON holds every kind of stat sorted by name") {
    Group g("x");
    g.set("zeta", Json{{"k", 1}});
    g.time_average("queue").set(0_ns, 2);
    g.histogram("lat", "ps").record(722'000);
    g.counter("b_sent").add(3);
    g.counter("a_recv").add(2);
    g.set("ratio", 0.25);
    g.set("ratio", 0.5);  // setting again replaces
    const Json j = g.to_json(10_ns);
    std::vector<std::string> keys;
    for (const auto& [key, value] : j.items()) keys.push_back(key);
    CHECK(keys == std::vector<std::string>{"a_recv", "b_sent", "lat", "queue", "ratio", "zeta"});
    CHECK(j["a_recv"] == 2);
    CHECK(j["lat"]["p50_ps"] == 722'000);
    CHECK(j["queue"]["avg"] == 2.0);
    CHECK(j["ratio"] == 0.5);
    CHECK(j["zeta"]["k"] == 1);
}

TEST_CASE("Group makes a deferred value when its JSON is made, and each set replaces the other") {
    Group g("sys.a");
    int made = 0;
    g.set_deferred("ports", [&made] {
        ++made;
        return Json{{"port0", 3}};
    });
    CHECK(made == 0);
    const Json j = g.to_json(loom::Time::zero());
    CHECK(made == 1);
    CHECK(j == Json{{"ports", {{"port0", 3}}}});
    g.set("ports", 7);
    CHECK(g.to_json(loom::Time::zero()) == Json{{"ports", 7}});
    CHECK(made == 1);
    g.set_deferred("ports", [] { return Json(9); });
    CHECK(g.to_json(loom::Time::zero()) == Json{{"ports", 9}});
    g.counter("n");
    CHECK_THROWS_AS(g.set_deferred("n", [] { return Json(1); }), loom::InternalError);
}
