#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "loom/base/error.hpp"
#include "loom/config/sweep.hpp"

using loom::config::Json;
using loom::config::make_sweep;
using loom::config::SweepSpec;

namespace {

const Json kBase = Json::parse(R"({"model": "phold", "phold": {"lps": 8, "lookahead": "10ns"}})");

std::vector<std::string> sweep_errors(const Json& doc) {
    try {
        make_sweep(doc, "s.sweep.json", kBase);
    } catch (const loom::ConfigError& e) {
        return e.messages();
    }
    return {};
}

Json sweep_doc(const std::string& axes, bool zip = false) {
    Json doc = Json::parse(R"({"base": "base.json", "command": "run", "report": ["/stats/sim/events"]})");
    doc["axes"] = Json::parse(axes);
    doc["zip"] = zip;
    return doc;
}

}  // namespace

TEST_CASE("A sweep file loads with its base config resolved next to it") {
    const std::filesystem::path dir = std::filesystem::path(LOOM_BINARY_DIR) / "test_scratch" / "config_sweep";
    std::filesystem::create_directories(dir / "configs");
    std::ofstream(dir / "configs" / "base.json") << kBase.dump();
    std::ofstream(dir / "configs" / "lps.sweep.json") << R"({"base": "base.json", "command": "schedule",
        "axes": [{"path": "phold.lps", "values": [1, 2]}], "report": ["/stats/x"]})";
    const SweepSpec spec = loom::config::load_sweep((dir / "configs" / "lps.sweep.json").string());
    CHECK(spec.base_path == (dir / "configs" / "base.json").string());
    CHECK(spec.base == kBase);
    CHECK(spec.command == loom::config::SweepCommand::Schedule);
    CHECK_FALSE(spec.zip);
    CHECK(spec.report == std::vector<std::string>{"/stats/x"});
    REQUIRE(spec.axes.size() == 1);
    CHECK(spec.axes[0].values == std::vector<Json>{1, 2});

    std::ofstream(dir / "configs" / "nobase.sweep.json") << R"({"base": "absent.json", "axes": [{"path": "a", "values": [1]}]})";
    CHECK_THROWS_WITH(loom::config::load_sweep((dir / "configs" / "nobase.sweep.json").string()),
                      (dir / "configs" / "absent.json").string() + ": cannot open file");
}

TEST_CASE("Cartesian expansion varies the first axis slowest") {
    const SweepSpec spec = make_sweep(
        sweep_doc(R"([{"path": "phold.lps", "values": [1, 2]}, {"path": "phold.lookahead", "values": ["1ns", "2ns", "3ns"]}])"),
        "s.sweep.json", kBase);
    const auto points = loom::config::expand(spec);
    REQUIRE(points.size() == 6);
    CHECK(loom::config::point_count(spec) == 6);
    const std::vector<std::pair<int, std::string>> expected{{1, "1ns"}, {1, "2ns"}, {1, "3ns"},
                                                            {2, "1ns"}, {2, "2ns"}, {2, "3ns"}};
    for (std::size_t i = 0; i < points.size(); ++i) {
        INFO(i);
        CHECK(points[i].index == i);
        CHECK(points[i].config["phold"]["lps"] == expected[i].first);
        CHECK(points[i].config["phold"]["lookahead"] == expected[i].second);
        CHECK(points[i].config["model"] == "phold");
        REQUIRE(points[i].assignments.size() == 2);
        CHECK(points[i].assignments[0] == std::pair<std::string, Json>{"phold.lps", expected[i].first});
    }
    CHECK(points[3].id == "p0003");
    CHECK(points[0].id == "p0000");
}

TEST_CASE("Zipped expansion takes the i-th value of every axis") {
    const SweepSpec spec = make_sweep(
        sweep_doc(R"([{"path": "phold.lps", "values": [1, 2, 3]}, {"path": "phold.lookahead", "values": ["1ns", "2ns", "3ns"]}])",
                  true),
        "s.sweep.json", kBase);
    const auto points = loom::config::expand(spec);
    REQUIRE(points.size() == 3);
    CHECK(points[2].config["phold"] == Json::parse(R"({"lps": 3, "lookahead": "3ns"})"));
    CHECK(points[0].config["phold"] == Json::parse(R"({"lps": 1, "lookahead": "1ns"})"));
}

TEST_CASE("Sweep axes are applied exactly like --set, creating missing objects") {
    const SweepSpec spec = make_sweep(sweep_doc(R"([{"path": "kernel.queue", "values": ["heap", "calendar"]}])"),
                                      "s.sweep.json", kBase);
    const auto points = loom::config::expand(spec);
    CHECK(points[1].config["kernel"]["queue"] == "calendar");
    CHECK_FALSE(spec.base.contains("kernel"));
}

TEST_CASE("Zipped axes of different lengths are an error at the shorter axis") {
    CHECK(sweep_errors(sweep_doc(R"([{"path": "a", "values": [1, 2, 3]}, {"path": "b", "values": [1, 2]}])", true)) ==
          std::vector<std::string>{
              "s.sweep.json: /axes/1/values: zip needs axes of equal length: this one has 2 values, /axes/0 has 3"});
}

TEST_CASE("Every problem in a sweep file is reported with its pointer") {
    Json doc = Json::parse(R"({"command": "walk", "zip": 1, "report": ["stats/x", 3], "extra": true,
                               "axes": [{"path": "a", "values": [1]}, {"path": "b", "values": []}, {"path": "a..b", "values": [1]},
                                        {"path": "a", "values": [2], "vals": 1}, 5, {"values": [1]}]})");
    CHECK(sweep_errors(doc) ==
          std::vector<std::string>{
              "s.sweep.json: /extra: unknown key 'extra' (expected one of: base, command, axes, zip, report, replications)",
              "s.sweep.json: /: missing required key 'base'",
              "s.sweep.json: /command: expected one of \"run\", \"schedule\", \"compare\", got \"walk\"",
              "s.sweep.json: /zip: expected true or false, got 1",
              "s.sweep.json: /report/0: expected a JSON Pointer like \"/stats/sim/events\", got \"stats/x\"",
              "s.sweep.json: /report/1: expected a JSON Pointer like \"/stats/sim/events\", got 3",
              "s.sweep.json: /axes/1/values: expected a non-empty array, got []",
              "s.sweep.json: /axes/2/path: expected a dotted path like \"phold.lps\", got \"a..b\"",
              "s.sweep.json: /axes/3/vals: unknown key 'vals' (expected one of: path, values)",
              "s.sweep.json: /axes/3/path: 'a' is already swept by /axes/0",
              "s.sweep.json: /axes/4: expected an axis {\"path\": ..., \"values\": [...]}, got 5",
              "s.sweep.json: /axes/5: missing required key 'path'"});
    CHECK(sweep_errors(Json::parse(R"({"base": "b.json", "axes": []})")) ==
          std::vector<std::string>{"s.sweep.json: /axes: expected a non-empty array of axes, got []"});
    CHECK(sweep_errors(Json::parse(R"({"base": "b.json"})")) ==
          std::vector<std::string>{"s.sweep.json: /: missing required key 'axes'"});
}

TEST_CASE("An axis path that cannot apply to the base config is reported at the axis") {
    CHECK(sweep_errors(sweep_doc(R"([{"path": "phold.lps.x", "values": [1]}])")) ==
          std::vector<std::string>{"s.sweep.json: /axes/0/path: 'phold.lps' is a number, not an object or array"});
}

TEST_CASE("A sweep with too many points is refused") {
    Json axes = Json::array();
    for (int i = 0; i < 7; ++i) axes.push_back({{"path", std::string(1, static_cast<char>('a' + i))}, {"values", Json::array({1, 2, 3, 4, 5, 6, 7, 8, 9, 10})}});
    Json doc = sweep_doc("[]");
    doc["axes"] = axes;
    CHECK(sweep_errors(doc) == std::vector<std::string>{"s.sweep.json: /axes: the sweep has more than 1000000 points"});
}

TEST_CASE("A sweep's replications must be an integer from 1 up, and default to 1") {
    Json doc = sweep_doc(R"([{"path": "phold.lps", "values": [8]}])");
    CHECK(make_sweep(doc, "s.sweep.json", kBase).replications == 1);
    doc["replications"] = 5;
    CHECK(make_sweep(doc, "s.sweep.json", kBase).replications == 5);
    doc["replications"] = 0;
    CHECK(sweep_errors(doc) == std::vector<std::string>{"s.sweep.json: /replications: expected an integer in "
                                                        "1..10000, got 0"});
    doc["replications"] = "3";
    CHECK(sweep_errors(doc).size() == 1);
}
