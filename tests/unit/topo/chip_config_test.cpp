#include <catch2/catch.hpp>

#include "loom/config/document.hpp"
#include "loom/topo/chip_config.hpp"

using namespace loom::literals;
using loom::Time;
using loom::topo::ChipConfig;

TEST_CASE("The chip section defaults to 900 MHz and 220 MiB with documented forwarding and FIFO defaults") {
    ChipConfig c;
    loom::config::Errors errors;
    loom::topo::chip_schema().parse(loom::config::parse_json_text("{}", "test"), "/chip", c, errors);
    REQUIRE(errors.empty());
    CHECK(c.core_clock == 900_MHz);
    CHECK(c.memory == 220_MiB);
    CHECK(c.forward_cycles == 178);
    CHECK(c.reduce_cycles == 20);
    CHECK(c.issue_cycles == 0);
    CHECK(c.crossing_cycles == 0);
    CHECK(c.fifo_depth == 4);
    CHECK(c.clock_offset_ppm == 0.0);
}

TEST_CASE("Forwarding time is forward_cycles at the core clock rounded up to a picosecond") {
    ChipConfig c;
    // 178 cycles x 10^4/9 ps = 197777.7.. -> 197778 ps
    CHECK(c.forward_time() == Time::ps(197'778));
    c.forward_cycles = 9;
    CHECK(c.forward_time() == 10_ns);
    // The clock domain agrees on edges: edge 9 at 10 ns.
    CHECK(c.clock().edge(9) == 10_ns);
}

TEST_CASE("A clock offset in ppm reaches the clock domain in ppb") {
    ChipConfig c;
    loom::config::Errors errors;
    loom::topo::chip_schema().parse(loom::config::parse_json_text(R"({"clock_offset_ppm": -2.5})", "test"), "/chip", c,
                                    errors);
    REQUIRE(errors.empty());
    CHECK(c.clock_offset_ppb() == -2'500);
    CHECK(c.clock().offset_ppb() == -2'500);
}

TEST_CASE("A FIFO depth of zero is rejected at /chip/fifo_depth") {
    ChipConfig c;
    loom::config::Errors errors;
    loom::topo::chip_schema().parse(loom::config::parse_json_text(R"({"fifo_depth": 0})", "test"), "/chip", c, errors);
    REQUIRE(errors.size() == 1);
    CHECK(errors.messages()[0].rfind("/chip/fifo_depth:", 0) == 0);
}
