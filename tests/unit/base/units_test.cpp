#include <catch2/catch.hpp>

#include "loom/base/units.hpp"

using namespace loom::literals;
using loom::Time;

TEST_CASE("Time literals convert to integer picoseconds") {
    CHECK((722_ns).count() == 722'000);
    CHECK((3_us).count() == 3'000'000);
    CHECK((1_s).count() == 1'000'000'000'000);
    CHECK((5_ps + 1_ns).count() == 1'005);
}

TEST_CASE("Units render in the largest exact unit") {
    CHECK(loom::to_string(722_ns) == "722ns");
    CHECK(loom::to_string(1'500_ps) == "1500ps");
    CHECK(loom::to_string(Time::zero()) == "0ps");
    CHECK(loom::to_string(220_MiB) == "220MiB");
    CHECK(loom::to_string(loom::Bytes(328)) == "328B");
    CHECK(loom::to_string(25_Gbps) == "25Gbps");
    CHECK(loom::to_string(loom::Bandwidth::bps(25'781'250'000)) == "25.78125Gbps");
    CHECK(loom::to_string(900_MHz) == "900MHz");
}
