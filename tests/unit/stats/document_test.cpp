#include <catch2/catch.hpp>

#include <string>

#include "loom/stats/document.hpp"

using namespace loom::literals;
using loom::stats::DocumentHeader;
using loom::stats::Json;

TEST_CASE("Stats document carries the run header and the stats") {
    const DocumentHeader header{"abc123", 42, 1_us};
    const Json doc = loom::stats::make_document(header, Json{{"sys.tsp0", {{"sent", 3}}}});
    CHECK(doc["schema_version"] == loom::stats::kSchemaVersion);
    CHECK(doc["loom_version"] == LOOM_EXPECTED_VERSION);
    CHECK(doc["config_hash"] == "abc123");
    CHECK(doc["seed"] == 42);
    CHECK(doc["sim_time_ps"] == 1'000'000);
    CHECK(doc["stats"]["sys.tsp0"]["sent"] == 3);
    CHECK(doc.size() == 6);
}

TEST_CASE("Version is the project version") {
    CHECK(std::string(loom::stats::version()) == LOOM_EXPECTED_VERSION);
}

TEST_CASE("Stats document text has sorted keys, 2-space indent and a trailing newline") {
    const DocumentHeader header{"abc123", 42, 1_us};
    const Json doc = loom::stats::make_document(header, Json{{"sys.tsp0", {{"util", 0.1}, {"sent", 3}}}});
    const std::string expected = std::string(R"({
  "config_hash": "abc123",
  "loom_version": ")") + LOOM_EXPECTED_VERSION + R"(",
  "schema_version": 2,
  "seed": 42,
  "sim_time_ps": 1000000,
  "stats": {
    "sys.tsp0": {
      "sent": 3,
      "util": 0.1
    }
  }
}
)";
    CHECK(loom::stats::dump(doc) == expected);
}

TEST_CASE("Stats document text is byte-identical for equal inputs built in any order") {
    Json a = Json::object(), b = Json::object();
    a["z"] = {{"y", 1.0 / 3.0}, {"x", 2.0}};
    a["m"] = 18'446'744'073'709'551'615ULL;
    b["m"] = 18'446'744'073'709'551'615ULL;
    b["z"]["x"] = 2.0;
    b["z"]["y"] = 1.0 / 3.0;
    const DocumentHeader header{"ff", 7, 5_ns};
    const std::string ta = loom::stats::dump(loom::stats::make_document(header, a));
    const std::string tb = loom::stats::dump(loom::stats::make_document(header, b));
    CHECK(ta == tb);
    CHECK(ta.find("\"m\": 18446744073709551615") != std::string::npos);
}

TEST_CASE("Stats document prints doubles as their shortest round-trip text") {
    CHECK(loom::stats::dump(Json(0.1)) == "0.1\n");
    CHECK(loom::stats::dump(Json(2.0)) == "2.0\n");
    CHECK(loom::stats::dump(Json(1.0 / 3.0)) == "0.3333333333333333\n");
    CHECK(loom::stats::dump(Json(1e-7)) == "1e-07\n");
    CHECK(loom::stats::dump(Json(6.02214076e23)) == "6.02214076e+23\n");
    const double third = 1.0 / 3.0;
    CHECK(std::stod(loom::stats::dump(Json(third))) == third);
}
