#include <catch2/catch.hpp>

#include <string>

#include "loom/config/document.hpp"
#include "loom/topo/chip_config.hpp"
#include "loom/topo/link_class_timing.hpp"

using namespace loom::literals;
using loom::Bandwidth;
using loom::Time;
using loom::topo::LinkClass;
using loom::topo::LinkClassTiming;

namespace {
Time part(const loom::LinkTiming& t, const std::string& name) {
    for (const auto& p : t.latency_parts)
        if (p.name == name) return p.value;
    FAIL("no latency part " << name);
    return Time::zero();
}
}  // namespace

TEST_CASE("Default link timing is 4 lanes of 25 Gbps carrying 320-byte vectors as 328 bytes") {
    const LinkClassTiming links;
    for (LinkClass c : {LinkClass::InNode, LinkClass::InRack, LinkClass::RackToRack}) {
        const loom::LinkTiming t = links.timing(c);
        CHECK(t.rate == 100_Gbps);
        CHECK(t.unit_payload.count() == 320);
        CHECK(t.unit_wire.count() == 328);
        CHECK(t.serialization(1) == Time::ps(26'240));
        CHECK(t.jitter == Time::zero());
        CHECK(t.bit_error_rate == 0.0);
        CHECK(t.latency_parts.size() == 3);
    }
}

TEST_CASE("Cable latency is length times propagation per metre for each class") {
    const LinkClassTiming links;
    CHECK(part(links.timing(LinkClass::InNode), "cable") == Time::ps(3'750));   // 0.75 m x 5 ns/m
    CHECK(part(links.timing(LinkClass::InRack), "cable") == 10_ns);             // 2 m
    CHECK(part(links.timing(LinkClass::RackToRack), "cable") == 100_ns);        // 20 m, documented choice
    // Dragonfly classes reuse in-rack and rack-to-rack timing.
    CHECK(links.timing(LinkClass::Local).latency() == links.timing(LinkClass::InRack).latency());
    CHECK(links.timing(LinkClass::Global).latency() == links.timing(LinkClass::RackToRack).latency());
}

TEST_CASE("An in-node hop with default link and chip timing is within half a nanosecond of the paper's 722 ns") {
    const LinkClassTiming links;
    const loom::topo::ChipConfig chip;
    const loom::LinkTiming t = links.timing(LinkClass::InNode);
    const Time hop = t.serialization(1) + t.latency() + chip.forward_time();
    // 26.24 + 480 + 3.75 + 14 + 197.778 = 721.768 ns
    CHECK(hop == Time::ps(721'768));
    CHECK(hop > 721_ns);
    CHECK(hop < 722_ns);
}

TEST_CASE("The links section parses per-class overrides and keeps the other classes' defaults") {
    const auto doc = loom::config::parse_json_text(
        R"({"unit_wire": "330B", "in_rack": {"lane_rate": "25.78125Gbps", "cable_length_mm": 1500},
            "rack_to_rack": {"jitter": "2ns", "bit_error_rate": 1e-12}})",
        "test");
    LinkClassTiming links;
    loom::config::Errors errors;
    loom::topo::link_class_timing_schema().parse(doc, "/links", links, errors);
    REQUIRE(errors.empty());
    CHECK(links.timing(LinkClass::InRack).rate == Bandwidth::bps(103'125'000'000));
    CHECK(part(links.timing(LinkClass::InRack), "cable") == Time::ps(7'500));
    CHECK(links.timing(LinkClass::RackToRack).jitter == 2_ns);
    CHECK(links.timing(LinkClass::RackToRack).bit_error_rate == 1e-12);
    CHECK(links.timing(LinkClass::InNode).unit_wire.count() == 330);
    CHECK(part(links.timing(LinkClass::RackToRack), "cable") == 100_ns);
    CHECK(links.in_node.lanes == 4);
}

TEST_CASE("The links section defaults show each class's own cable length") {
    const auto defaults = loom::topo::link_class_timing_schema().defaults();
    CHECK(defaults.at("in_node").at("cable_length_mm") == 750);
    CHECK(defaults.at("in_rack").at("cable_length_mm") == 2000);
    CHECK(defaults.at("rack_to_rack").at("cable_length_mm") == 20000);
    CHECK(defaults.at("in_node").at("lane_rate") == "25Gbps");
}

TEST_CASE("Lane rates above the chip's 30 Gbps and wire units smaller than the payload are rejected") {
    const auto doc = loom::config::parse_json_text(R"({"in_node": {"lane_rate": "31Gbps"}})", "test");
    LinkClassTiming links;
    loom::config::Errors errors;
    loom::topo::link_class_timing_schema().parse(doc, "/links", links, errors);
    REQUIRE(errors.size() == 1);
    CHECK(errors.messages()[0].rfind("/links/in_node/lane_rate:", 0) == 0);

    loom::config::Errors errors2;
    LinkClassTiming links2;
    loom::topo::link_class_timing_schema().parse(loom::config::parse_json_text(R"({"unit_wire": "300B"})", "test"),
                                                 "/links", links2, errors2);
    REQUIRE(errors2.size() == 1);
    CHECK(errors2.messages()[0] == "/links/unit_wire: must be at least unit_payload (320B), got 300B");
}

TEST_CASE("The maximum system preset's links section parses") {
    const auto doc = loom::config::load_json_file(std::string(LOOM_SOURCE_DIR) + "/configs/tsp/max-10440.json");
    LinkClassTiming links;
    loom::config::Errors errors;
    loom::topo::link_class_timing_schema().parse(doc.at("links"), "/links", links, errors);
    CHECK(errors.empty());
    CHECK(links.rack_to_rack.cable_length_mm == 20'000);
}
