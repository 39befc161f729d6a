#include <catch2/catch.hpp>

#include "loom/base/link_timing.hpp"
#include "loom/base/rng.hpp"
#include "loom/base/serializer.hpp"

using namespace loom;

namespace {

// S(k) straight from its definition, in 128 bits.
Time reference(std::int64_t wire_bits, std::int64_t rate, std::int64_t k) {
    const i128 num = static_cast<i128>(k) * wire_bits * 1'000'000'000'000LL;
    return Time::ps(static_cast<std::int64_t>((num + rate - 1) / rate));
}

}  // namespace

TEST_CASE("Serialization equals exact 128-bit arithmetic for random rates, unit sizes and train lengths") {
    Rng rng(12);
    for (int i = 0; i < 20'000; ++i) {
        const std::int64_t rate = rng.uniform_int(1, std::int64_t{1} << 40);
        const std::int64_t bits = 8 * rng.uniform_int(1, 10'000);
        // Short trains take the 64-bit path, long ones the 128-bit one; keep S(k) within 64 bits of ps.
        const std::int64_t k = rng.uniform_int(0, i % 2 == 0 ? std::int64_t{4'000} : std::int64_t{1} << 30);
        if (static_cast<i128>(k) * bits * 1'000'000'000'000LL / rate > (std::int64_t{1} << 62)) continue;
        const Serializer s(bits, rate);
        REQUIRE(s(k) == reference(bits, rate, k));
        LinkTiming t;
        t.rate = Bandwidth::bps(rate);
        t.unit_wire = Bytes(bits / 8);
        REQUIRE(t.serialization(k) == s(k));
    }
}

TEST_CASE("Stepped serialization equals exact 128-bit arithmetic from random starts far into a train") {
    Rng rng(13);
    for (std::int64_t rate : {std::int64_t{100'000'000'000}, std::int64_t{103'125'000'000},
                              std::int64_t{120'000'000'000}, std::int64_t{7}, std::int64_t{999'999'999'989}}) {
        LinkTiming t;
        t.rate = Bandwidth::bps(rate);
        const Serializer s(t);
        for (int start = 0; start < 8; ++start) {
            const std::int64_t k0 =
                start == 0 ? 0 : rng.uniform_int(0, rate == 7 ? std::int64_t{1'000} : std::int64_t{1'000'000'007});
            SerialStepper st(s, k0);
            for (std::int64_t k = k0; k < k0 + 2'000; ++k) {
                REQUIRE(st.value() == reference(t.unit_wire.bits(), rate, k));
                st.next();
            }
        }
    }
}
