#include <catch2/catch.hpp>

#include "loom/stats/histogram.hpp"
#include "loom/stats/table.hpp"

using loom::stats::Json;

namespace {

Json small_stats() {
    loom::stats::Histogram latency;
    for (int v = 1; v <= 4; ++v) latency.record(v);
    Json stats;
    stats["sys.tsp0"] = {{"sent", 3}, {"latency", latency.to_json("ps")}, {"queue", {{"avg", 1.5}, {"max", 3.0}, {"final", 0.0}}}};
    stats["ananta.mux1"] = {{"packets", 1200}, {"drop_ratio", 0.0123456}, {"rate", 12345.678}, {"state", "active"}};
    return stats;
}

}  // namespace

TEST_CASE("Stats table shows one row per leaf and one per histogram") {
    const char* expected =
        "path         name         value\n"
        "-----------  -----------  -----\n"
        "ananta.mux1  drop_ratio   0.01235\n"
        "ananta.mux1  packets      1200\n"
        "ananta.mux1  rate         1.235e+04\n"
        "ananta.mux1  state        active\n"
        "sys.tsp0     latency      count=4 mean_ps=2.5 p50_ps=2 p99_ps=4 max_ps=4\n"
        "sys.tsp0     queue.avg    1.5\n"
        "sys.tsp0     queue.final  0\n"
        "sys.tsp0     queue.max    3\n"
        "sys.tsp0     sent         3\n";
    CHECK(loom::stats::render_table(small_stats()) == expected);
}

TEST_CASE("Stats CSV flattens every leaf with full precision") {
    const char* expected =
        "path,name,value\n"
        "ananta.mux1,drop_ratio,0.0123456\n"
        "ananta.mux1,packets,1200\n"
        "ananta.mux1,rate,12345.678\n"
        "ananta.mux1,state,active\n"
        "sys.tsp0,latency.count,4\n"
        "sys.tsp0,latency.max_ps,4\n"
        "sys.tsp0,latency.mean_ps,2.5\n"
        "sys.tsp0,latency.min_ps,1\n"
        "sys.tsp0,latency.p50_ps,2\n"
        "sys.tsp0,latency.p90_ps,4\n"
        "sys.tsp0,latency.p999_ps,4\n"
        "sys.tsp0,latency.p99_ps,4\n"
        "sys.tsp0,latency.sum_ps,10\n"
        "sys.tsp0,queue.avg,1.5\n"
        "sys.tsp0,queue.final,0.0\n"
        "sys.tsp0,queue.max,3.0\n"
        "sys.tsp0,sent,3\n";
    CHECK(loom::stats::render_csv(small_stats()) == expected);
}

TEST_CASE("Stats CSV quotes fields with commas or quotes and writes arrays as JSON") {
    Json stats;
    stats["g"] = {{"note", "a,b \"c\""}, {"hops", {1, 2}}, {"ok", true}, {"none", nullptr}};
    stats["top"] = 5;
    const char* expected =
        "path,name,value\n"
        "g,hops,\"[1,2]\"\n"
        "g,none,null\n"
        "g,note,\"a,b \"\"c\"\"\"\n"
        "g,ok,true\n"
        "top,,5\n";
    CHECK(loom::stats::render_csv(stats) == expected);
}

TEST_CASE("Stats table of nested values, arrays and a bare path value") {
    Json stats;
    stats["g"] = {{"hops", {1, 2}}, {"link", {{"c2c", {{"busy", 0.5}}}}}};
    stats["top"] = 5;
    const char* expected =
        "path  name           value\n"
        "----  -------------  -----\n"
        "g     hops           [1,2]\n"
        "g     link.c2c.busy  0.5\n"
        "top                  5\n";
    CHECK(loom::stats::render_table(stats) == expected);
}

TEST_CASE("Stats table and CSV of no stats are just their headers") {
    CHECK(loom::stats::render_table(Json::object()) == "path  name  value\n----  ----  -----\n");
    CHECK(loom::stats::render_csv(Json::object()) == "path,name,value\n");
}

TEST_CASE("csv_field quotes a field only when it holds a comma, a quote, CR or LF (RFC 4180)") {
    using loom::stats::csv_field;
    CHECK(csv_field("") == "");
    CHECK(csv_field("plain text") == "plain text");
    CHECK(csv_field("a,b") == "\"a,b\"");
    CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
    CHECK(csv_field("line\nbreak") == "\"line\nbreak\"");
    CHECK(csv_field("carriage\rreturn") == "\"carriage\rreturn\"");
}
