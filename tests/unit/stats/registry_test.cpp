#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "loom/stats/registry.hpp"

using namespace loom::literals;
using loom::stats::Json;
using loom::stats::Registry;

TEST_CASE("Registry creates a group once per path") {
    Registry r;
    auto& g = r.group("sys.rack0.node0.tsp0");
    CHECK(&r.group("sys.rack0.node0.tsp0") == &g);
    CHECK(g.path() == "sys.rack0.node0.tsp0");
    CHECK(r.size() == 1);
    CHECK(r.find("sys.rack0.node0.tsp0") == &g);
    CHECK(r.find("sys.rack0.node0.tsp1") == nullptr);
}

TEST_CASE("Registry group and stat references stay valid as groups are added") {
    Registry r;
    auto& sent = r.group("m.tsp5").counter("sent");
    auto& group = r.group("m.tsp5");
    for (int i = 0; i < 1'000; ++i) r.group("m.tsp" + std::to_string(1'000 + i)).counter("sent").add(1);
    sent.add(7);
    CHECK(&r.group("m.tsp5") == &group);
    CHECK(r.group("m.tsp5").counter("sent").value() == 7);
}

TEST_CASE("Registry JSON is sorted by path whatever the creation order") {
    Registry a, b;
    const std::vector<std::string> paths{"sys.b10", "sys.b2", "ananta.mux1", "sys.a"};
    for (const auto& p : paths) a.group(p).counter("n").add(1);
    for (auto it = paths.rbegin(); it != paths.rend(); ++it) b.group(*it).counter("n").add(1);
    const Json ja = a.to_json(1_us);
    std::vector<std::string> keys;
    for (const auto& [key, value] : ja.items()) keys.push_back(key);
    CHECK(keys == std::vector<std::string>{"ananta.mux1", "sys.a", "sys.b10", "sys.b2"});
    CHECK(ja.dump() == b.to_json(1_us).dump());
}

TEST_CASE("Registry JSON of an empty registry is an empty object") {
    const Registry r;
    CHECK(r.to_json(loom::Time::zero()) == Json::object());
}
