#include "loom/stats/declaration.hpp"

#include <catch2/catch.hpp>

using loom::stats::Json;
using loom::stats::pointer_matches;
using loom::stats::StatDecls;
using loom::stats::StatShape;

TEST_CASE("a pattern token with a star matches any run of characters within one token", "[stats][declaration]") {
    CHECK(pointer_matches("/stats/ananta/muxes/*/forwarded", "/stats/ananta/muxes/mux12/forwarded"));
    CHECK(pointer_matches("/stats/sys.*/instructions", "/stats/sys.r0.n1.t5/instructions"));
    CHECK(pointer_matches("/stats/*.tsp*/x", "/stats/a.b.tsp5/x"));
    CHECK(pointer_matches("/a/*", "/a/"));  // an empty token is a run of no characters
    CHECK_FALSE(pointer_matches("/stats/ananta/muxes/*/forwarded", "/stats/ananta/muxes/mux1/received"));
    CHECK_FALSE(pointer_matches("/stats/ananta/muxes/*", "/stats/ananta/muxes/mux1/forwarded"));  // one token only
    CHECK_FALSE(pointer_matches("/stats/sys.*/instructions", "/stats/tsp/instructions"));
    CHECK(pointer_matches("/a/b", "/a/b"));
    CHECK_FALSE(pointer_matches("/a/b", "/a/bc"));
}

TEST_CASE("undeclared lists every leaf no declaration covers, in document order", "[stats][declaration]") {
    StatDecls d;
    d.scalar("/stats/m/count", "count", "a count");
    d.scalar("/stats/m/per/*/x", "packets", "per instance");
    d.histogram("/stats/m/latency", "ps", "a histogram");
    d.list("/stats/m/records", "mixed", "records");
    d.record("/stats/m/table", "ratio", "a table");
    const Json doc = Json::parse(R"({"stats": {"m": {
        "count": 3, "extra": 1,
        "per": {"a": {"x": 1, "y": 2}, "b": {"x": 3}},
        "latency": {"count": 2, "p50_ps": 4},
        "records": [{"t": 1}], "unlisted": [1, 2],
        "table": {"deep": {"deeper": 0.5}},
        "empty_per": {}
    }}, "top": true})");
    const std::vector<std::string> expected{"/stats/m/empty_per", "/stats/m/extra", "/stats/m/per/a/y",
                                            "/stats/m/unlisted", "/top"};
    CHECK(d.undeclared(doc) == expected);
}

TEST_CASE("an empty object is declared when its members would be", "[stats][declaration]") {
    StatDecls d;
    d.scalar("/stats/m/drops/*", "packets", "drops by reason");
    CHECK(d.undeclared(Json::parse(R"({"stats": {"m": {"drops": {}}}})")).empty());
    CHECK(d.undeclared(Json::parse(R"({"stats": {"m": {"drops": {"loss": 3}}}})")).empty());
}

TEST_CASE("a scalar declaration does not cover an object found at its pointer", "[stats][declaration]") {
    StatDecls d;
    d.scalar("/stats/m/x", "count", "a count");
    CHECK(d.undeclared(Json::parse(R"({"stats": {"m": {"x": {"a": 1}}}})")) == std::vector<std::string>{"/stats/m/x/a"});
}

TEST_CASE("keys with '/' or '~' are matched in their escaped form", "[stats][declaration]") {
    StatDecls d;
    d.scalar("/stats/a~1b/c~0d", "count", "escaped");
    CHECK(d.undeclared(Json::parse(R"({"stats": {"a/b": {"c~d": 1}}})")).empty());
}

TEST_CASE("find_scalar accepts concrete instances and the declared pattern itself", "[stats][declaration]") {
    StatDecls d;
    d.scalar("/stats/m/per/*/x", "packets", "per instance");
    d.histogram("/stats/m/latency", "ps", "a histogram");
    CHECK(d.find_scalar("/stats/m/per/a/x") != nullptr);
    CHECK(d.find_scalar("/stats/m/per/*/x") != nullptr);
    CHECK(d.find_scalar("/stats/m/per/a/y") == nullptr);
    CHECK(d.find_scalar("/stats/m/latency/p50_ps") == nullptr);
    REQUIRE(d.covering("/stats/m/latency/p50_ps") != nullptr);
    CHECK(d.covering("/stats/m/latency/p50_ps")->shape == StatShape::Histogram);
}

TEST_CASE("problems names declarations without unit or description, malformed or declared twice", "[stats][declaration]") {
    StatDecls d;
    d.scalar("/stats/ok", "count", "fine");
    d.scalar("/stats/no_unit", "", "no unit");
    d.scalar("/stats/no_doc", "count", "");
    d.scalar("stats/relative", "count", "not a pointer");
    d.scalar("/stats/two/lines", "count", "one\ntwo");
    d.scalar("/stats/ok", "count", "again");
    d.scalar("/stats/bad~tilde", "count", "unescaped tilde");
    const std::vector<std::string> expected{
        "/stats/no_unit: no unit", "/stats/no_doc: no description", "stats/relative: not a JSON Pointer (expected '/' first)",
        "/stats/two/lines: description of more than one line", "/stats/ok: declared twice",
        "/stats/bad~tilde: '~' must be escaped as ~0 (or ~1 for '/')"};
    CHECK(d.problems() == expected);
}

TEST_CASE("to_json lists pointer, shape, unit and description in declaration order", "[stats][declaration]") {
    StatDecls d;
    d.scalar("/b", "count", "second key, first declared").histogram("/a", "ps", "a histogram");
    CHECK(d.to_json() == Json::parse(R"([{"pointer": "/b", "shape": "scalar", "unit": "count", "doc": "second key, first declared"},
                                         {"pointer": "/a", "shape": "histogram", "unit": "ps", "doc": "a histogram"}])"));
}

TEST_CASE("an array is visited by index when declarations lie below it", "[stats][declaration]") {
    StatDecls d;
    d.scalar("/c/rows/*/name", "text", "row name");
    const Json doc = Json::parse(R"({"c": {"rows": [{"name": "a"}, {"name": "b", "extra": 1}], "plain": [1, 2]}})");
    CHECK(d.undeclared(doc) == std::vector<std::string>{"/c/plain", "/c/rows/1/extra"});
}
