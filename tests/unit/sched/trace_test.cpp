#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "loom/sched/scheduler.hpp"
#include "loom/sched/trace.hpp"
#include "sched_fixtures.hpp"

namespace fx = loom::sched::test;
using loom::sched::compile;
using loom::sched::trace_json;
using loom::topo::ChipConfig;
using loom::topo::LinkClassTiming;

namespace {

// Thread names of process `pid` by thread id, and the X slices of that process.
struct Tracks {
    std::map<std::int64_t, std::string> names;
    std::vector<nlohmann::json> slices;
};

Tracks tracks(const nlohmann::json& trace, int pid) {
    Tracks out;
    for (const auto& e : trace.at("traceEvents")) {
        if (e.at("pid") != pid) continue;
        if (e.at("ph") == "M" && e.at("name") == "thread_name")
            out.names[e.at("tid").get<std::int64_t>()] = e.at("args").at("name").get<std::string>();
        if (e.at("ph") == "X") out.slices.push_back(e);
    }
    return out;
}

}  // namespace

TEST_CASE("The trace names every link that carried traffic and shows its reservations by transfer") {
    const auto t = fx::chain3();
    loom::workload::TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {2}, 3));
    const auto s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    const auto trace = nlohmann::json::parse(trace_json(s, t, LinkClassTiming{}, ChipConfig{}).dump());

    const Tracks links = tracks(trace, 1);
    std::set<std::int64_t> used;
    for (const auto& r : s.reservations) used.insert(std::int64_t{r.channel} + 1);
    REQUIRE(used.size() == 2);
    for (std::int64_t tid : used) CHECK(links.names.count(tid) == 1);
    CHECK(links.names.at(std::int64_t{t.channel_at(0, 0)} + 1) == "node0.tsp0 p0 -> node0.tsp1 p0 (in_node)");
    REQUIRE(links.slices.size() == s.reservations.size());
    for (const auto& sl : links.slices) {
        CHECK(sl.at("name") == "transfer 0");
        // Three vectors of 26240 ps each: 0.07872 us.
        CHECK(sl.at("dur").get<double>() == Approx(0.07872));
    }
    // The second link's train starts at 723333 ps (scheduler_test's two-hop case).
    bool second = false;
    for (const auto& sl : links.slices)
        if (sl.at("tid") == std::int64_t{t.channel_at(1, 1)} + 1)
            second = sl.at("ts").get<double>() == Approx(0.723333);
    CHECK(second);
}

TEST_CASE("The trace has one named track per active TSP with its instructions") {
    const auto t = fx::chain3();
    loom::workload::TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {2}, 3));
    const auto s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    const auto trace = trace_json(s, t, LinkClassTiming{}, ChipConfig{});
    const Tracks tsps = tracks(trace, 2);
    std::set<std::string> names;
    for (const auto& [tid, name] : tsps.names) names.insert(name);
    CHECK(names == std::set<std::string>{"node0.tsp0", "node0.tsp1", "node0.tsp2"});
    std::set<std::string> ops;
    for (const auto& sl : tsps.slices) {
        ops.insert(sl.at("name").get<std::string>());
        CHECK(sl.at("dur").get<double>() > 0);
    }
    CHECK(ops == std::set<std::string>{"send transfer 0", "forward transfer 0", "receive transfer 0"});
}

TEST_CASE("Overlapping instructions of one TSP go to separate lanes of its track") {
    const auto t = fx::node_of(3);
    loom::workload::TransferSet set;
    set.transfers.push_back(fx::transfer(0, 0, {1}, 50));
    set.transfers.push_back(fx::transfer(1, 0, {2}, 50));
    const auto s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    const Tracks tsps = tracks(trace_json(s, t, LinkClassTiming{}, ChipConfig{}), 2);
    // Both sends start together on different ports: the source needs two lanes.
    std::set<std::string> names;
    for (const auto& [tid, name] : tsps.names) names.insert(name);
    CHECK(names.count("node0.tsp0") == 1);
    CHECK(names.count("node0.tsp0 #2") == 1);
    // No two slices on one lane overlap.
    std::map<std::int64_t, std::vector<std::pair<double, double>>> by_lane;
    for (const auto& sl : tsps.slices)
        by_lane[sl.at("tid").get<std::int64_t>()].push_back(
            {sl.at("ts").get<double>(), sl.at("ts").get<double>() + sl.at("dur").get<double>()});
    for (auto& [tid, v] : by_lane) {
        std::sort(v.begin(), v.end());
        for (std::size_t i = 1; i < v.size(); ++i) CHECK(v[i].first >= v[i - 1].second - 1e-9);
    }
}

TEST_CASE("The trace of a schedule is deterministic") {
    const auto t = fx::node_of(8);
    const auto set = fx::random_set(t, 40, loom::Bytes(3200), 5);
    const auto s = compile(t, LinkClassTiming{}, ChipConfig{}, set);
    CHECK(trace_json(s, t, LinkClassTiming{}, ChipConfig{}).dump() ==
          trace_json(compile(t, LinkClassTiming{}, ChipConfig{}, set), t, LinkClassTiming{}, ChipConfig{}).dump());
}
