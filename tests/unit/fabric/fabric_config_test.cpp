#include <catch2/catch.hpp>

#include "loom/fabric/fabric_config.hpp"

using namespace loom;
using namespace loom::fabric;

TEST_CASE("The fabric section defaults are the reference Dragonfly router") {
    const FabricConfig f;
    CHECK(f.vcs == 2);
    CHECK(f.vc_buffer_flits == 256);
    CHECK(f.pipeline_cycles() == 3);
    CHECK(f.latency_cycles(topo::LinkClass::Local) == 10);
    CHECK(f.latency_cycles(topo::LinkClass::Global) == 100);
    CHECK(f.latency_cycles(topo::LinkClass::InNode) == 10);
    CHECK(f.latency_cycles(topo::LinkClass::RackToRack) == 100);
    CHECK(fabric_schema().defaults()["internal_speedup"] == 2.0);
}

TEST_CASE("Internal speed-up gives whole switch allocation rounds per cycle, alternating for fractions") {
    FabricConfig f;
    f.internal_speedup = 2.0;
    CHECK(f.rounds_at(0) == 2);
    CHECK(f.rounds_at(12345) == 2);
    f.internal_speedup = 1.5;
    CHECK(f.rounds_at(0) == 1);
    CHECK(f.rounds_at(1) == 2);
    CHECK(f.rounds_at(2) == 1);
    CHECK(f.rounds_at(3) == 2);
    f.internal_speedup = 1.0;
    CHECK(f.rounds_at(77) == 1);
}

TEST_CASE("The fabric section rejects more than 16 VCs and an unknown allocator at their pointers") {
    FabricConfig f;
    config::Errors errors;
    fabric_schema().parse(config::Json::parse(R"({"vcs": 17, "sw_allocator": "wavefront"})"), "/fabric", f, errors);
    REQUIRE(errors.size() == 2);
    CHECK(errors.messages()[0].rfind("/fabric/sw_allocator: ", 0) == 0);
    CHECK(errors.messages()[1].rfind("/fabric/vcs: ", 0) == 0);
}
