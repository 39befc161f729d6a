#include <catch2/catch.hpp>

#include <string>

#include "loom/base/error.hpp"
#include "loom/scenario/scenario.hpp"

using loom::scenario::CompareOptions;
using loom::scenario::Json;

namespace {

// A hierarchical all-reduce of 128 KiB per TSP on one node (8 TSPs): small enough for many seeds, large enough
// that each TSP has several transfers under way at once.
Json node_allreduce() {
    return Json::parse(R"({
      "model": "tsp",
      "topology": {"kind": "node"},
      "workload": {"collective": {"kind": "all_reduce", "algorithm": "hierarchical", "bytes": "128KiB"}}
    })");
}

const Json& row(const Json& doc, const std::string& network) {
    for (const Json& r : doc.at("comparison").at("networks"))
        if (r.at("network") == network) return r;
    FAIL("no row " << network);
    static const Json kNone;
    return kNone;
}

}  // namespace

TEST_CASE("On one node the schedule has zero spread and UGAL-L a non-zero spread over several seeds") {
    const auto result = loom::scenario::schedule(node_allreduce(), {}, CompareOptions{"dynamic", 4, "ugal_l"});
    const Json& doc = result.report.document;
    const Json& sched = row(doc, "scheduled");
    CHECK(sched.at("runs") == 1);
    CHECK(sched.at("makespan_stddev_ns").get<double>() == 0.0);
    CHECK(sched.at("makespan_min_ns") == sched.at("makespan_max_ns"));
    // The scheduled row is the schedule's own makespan.
    CHECK(sched.at("makespan_ps").at(0) == doc.at("stats").at("tsp").at("makespan_ps"));
    const Json& ugal = row(doc, "dynamic-ugal_l");
    CHECK(ugal.at("runs") == 4);
    CHECK(ugal.at("seeds") == Json::array({1, 2, 3, 4}));
    CHECK(ugal.at("makespan_stddev_ns").get<double>() > 0.0);
    CHECK(ugal.at("makespan_min_ns").get<double>() < ugal.at("makespan_max_ns").get<double>());
    // A dynamic network cannot beat the schedule's lower bound.
    const double bound_ns = doc.at("stats").at("tsp").at("schedule").at("lower_bound_ps").get<double>() / 1000.0;
    CHECK(ugal.at("makespan_min_ns").get<double>() >= bound_ns);
    CHECK(loom::scenario::table_text(result.report).find("dynamic-ugal_l") != std::string::npos);
    CHECK(result.report.csv.find("network,routing,runs") == 0);
}

TEST_CASE("The same config and seed give a byte-identical document with the comparison") {
    const CompareOptions compare{"dynamic", 2, "min,valiant"};
    const auto a = loom::scenario::schedule(node_allreduce(), {}, compare);
    const auto b = loom::scenario::schedule(node_allreduce(), {}, compare);
    REQUIRE(a.report.document.contains("comparison"));
    CHECK(a.report.document.at("comparison").at("networks").size() == 3);
    CHECK(a.report.document.dump() == b.report.document.dump());
    CHECK(a.report.csv == b.report.csv);
}

TEST_CASE("Round-robin injection makes every seed of minimal routing on a node give the same makespan") {
    Json c = node_allreduce();
    c["fabric"] = {{"injection_order", "round_robin"}};
    const auto result = loom::scenario::schedule(c, {}, CompareOptions{"dynamic", 3, "minimal"});
    CHECK(row(result.report.document, "dynamic-minimal").at("makespan_stddev_ns").get<double>() == 0.0);
}

TEST_CASE("Bad comparison settings are errors naming the JSON pointer or the flag") {
    Json c = node_allreduce();
    c["routing"] = {{"functions", "minimal,adaptive"}};
    c["fabric"] = {{"seeds", 0}};
    try {
        loom::scenario::schedule(c, {}, CompareOptions{"dynamic", CompareOptions::kSeedsUnset, ""});
        FAIL("expected a ConfigError");
    } catch (const loom::ConfigError& e) {
        std::string what;
        for (const auto& m : e.messages()) what += m + "\n";
        CHECK(what.find("/routing/functions") != std::string::npos);
        CHECK(what.find("/fabric/seeds") != std::string::npos);
    }
    CHECK_THROWS_AS(loom::scenario::schedule(node_allreduce(), {}, CompareOptions{"static", 0, ""}), loom::InputError);
    CHECK_THROWS_AS(loom::scenario::schedule(node_allreduce(), {}, CompareOptions{"dynamic", 0, "foo"}),
                    loom::InputError);
    CHECK_THROWS_WITH(loom::scenario::schedule(node_allreduce(), {}, CompareOptions{"", 3, ""}),
                      "--seeds: only with --compare dynamic");
}

TEST_CASE("Too few virtual channels for a routing function is reported at /fabric/vcs") {
    Json c = node_allreduce();
    c["topology"] = {{"kind", "system264"}, {"nodes", 3}};
    c["fabric"] = {{"vcs", 1}};
    CHECK_THROWS_WITH(loom::scenario::schedule(c, {}, CompareOptions{"dynamic", 1, "valiant"}),
                      Catch::Contains("/fabric/vcs"));
}
