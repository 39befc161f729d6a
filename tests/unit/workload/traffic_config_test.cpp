#include <catch2/catch.hpp>

#include "loom/config/schema.hpp"
#include "loom/workload/traffic_config.hpp"

using loom::config::Errors;
using loom::config::Json;
using namespace loom::workload;

TEST_CASE("The traffic section parses every pattern with its parameters") {
    TrafficConfig t;
    Errors errors;
    traffic_schema().parse(Json::parse(R"({"pattern": "hotspot", "rate": 0.25, "packet_flits": 4,
        "hotspots": [3, 5], "hotspot_fraction": 0.5, "measurement": {"sample_cycles": 500, "measure_cycles": 2000}})"),
                           "/traffic", t, errors);
    REQUIRE(errors.empty());
    CHECK(t.pattern == TrafficPatternKind::Hotspot);
    CHECK(t.rate == 0.25);
    CHECK(t.packet_flits == 4);
    CHECK(t.hotspots == std::vector<std::int64_t>{3, 5});
    CHECK(t.measurement.sample_cycles == 500);
    CHECK(t.measurement.measure_cycles == 2000);
    CHECK(traffic_pattern_name(TrafficPatternKind::GroupShift) == "group_shift");
}

TEST_CASE("The traffic section rejects a rate above one flit per cycle and names the pointer") {
    TrafficConfig t;
    Errors errors;
    traffic_schema().parse(Json::parse(R"({"rate": 1.5})"), "/traffic", t, errors);
    REQUIRE(errors.size() == 1);
    CHECK(errors.messages()[0].rfind("/traffic/rate: ", 0) == 0);
}

TEST_CASE("A trace pattern without a file and a window that is not whole samples are reported") {
    TrafficConfig t;
    Errors errors;
    traffic_schema().parse(Json::parse(R"({"pattern": "trace"})"), "/traffic", t, errors);
    REQUIRE(errors.size() == 1);
    CHECK(errors.messages()[0].rfind("/traffic/trace: pattern \"trace\" needs", 0) == 0);
    Errors window;
    traffic_schema().parse(Json::parse(R"({"measurement": {"measure_cycles": 1500}})"), "/traffic", t, window);
    REQUIRE(window.size() == 1);
    CHECK(window.messages()[0].rfind("/traffic/measurement/measure_cycles: must be a multiple of sample_cycles", 0) == 0);
}
