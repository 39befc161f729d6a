#include <catch2/catch.hpp>

#include "loom/base/error.hpp"
#include "loom/base/link_timing.hpp"

using namespace loom::literals;
using loom::Bandwidth;
using loom::LinkTiming;
using loom::Time;

namespace {
LinkTiming c2c(Bandwidth lane) {
    LinkTiming t;
    t.rate = lane * 4;
    t.latency_parts = {{"serdes_fec", 200_ns}, {"cable", 5_ns}};
    return t;
}
}  // namespace

TEST_CASE("One 328-byte vector serializes in ceil(2624 bits / rate)") {
    // 2624 bits at 100 Gbps = 26.24 ns exactly
    CHECK(c2c(25_Gbps).serialization(1) == Time::ps(26'240));
    // at 4 x 25.78125 Gbps = 103.125 Gbps: 2624e12/103.125e9 = 25444.84.. -> 25445 ps
    CHECK(c2c(Bandwidth::bps(25'781'250'000)).serialization(1) == Time::ps(25'445));
    // at 120 Gbps: 21866.66.. -> 21867
    CHECK(c2c(30_Gbps).serialization(1) == Time::ps(21'867));
}

TEST_CASE("A train is timed from its start, so rounding never accumulates") {
    const LinkTiming t = c2c(Bandwidth::bps(25'781'250'000));
    const Time start = 1_us;
    // per-unit rounding would give 3 * 25445 = 76335; exact train: ceil(3*2624e12/103.125e9) = 76335 too,
    // but at 1000 units the difference shows: 25444.848..*1000 = 25444848.48 -> 25444849, not 25445000
    CHECK(t.unit_sent(start, 1000) == start + Time::ps(25'444'849));
    CHECK(t.unit_sent(start, 1000) < start + t.serialization(1) * 1000);
    // 10 million vectors (needs 128-bit arithmetic)
    CHECK(t.serialization(10'000'000) == Time::ps(254'448'484'849));
}

TEST_CASE("Arrival adds the sum of the latency parts after the last bit") {
    const LinkTiming t = c2c(25_Gbps);
    CHECK(t.latency() == 205_ns);
    CHECK(t.unit_arrival(Time::zero(), 1) == Time::ps(26'240 + 205'000));
    CHECK(t.unit_arrival(Time::zero(), 2) == Time::ps(2 * 26'240 + 205'000));
}

TEST_CASE("Payload bandwidth accounts for framing") {
    CHECK(c2c(25_Gbps).payload_bytes_per_s() == Approx(12.5e9 * 320.0 / 328.0));
}

TEST_CASE("Invalid link timing is rejected with the place named") {
    LinkTiming t = c2c(25_Gbps);
    t.latency_parts.clear();
    CHECK_THROWS_WITH(t.validate("/links/in_node"), "/links/in_node: link latency must be at least 1 ps (it is the lookahead)");
    t = c2c(25_Gbps);
    t.unit_wire = loom::Bytes(100);
    CHECK_THROWS_AS(t.validate("x"), loom::InputError);
}
