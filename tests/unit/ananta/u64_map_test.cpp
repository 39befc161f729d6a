#include <catch2/catch.hpp>

#include <cstdint>
#include <map>

#include "loom/ananta/rate_math.hpp"
#include "loom/ananta/u64_map.hpp"
#include "loom/base/rng.hpp"

using namespace loom;
using namespace loom::ananta;

TEST_CASE("U64Map agrees with a map under random sets, overwrites and erases, through growth and backward shifts") {
    U64Map<std::uint32_t> table;
    std::map<std::uint64_t, std::uint32_t> reference;
    std::uint64_t state = 777;
    for (std::uint32_t step = 0; step < 30000; ++step) {
        state = mix64(state + 1);
        // Keys shaped like SNAT keys (VIP << 24 | proto << 16 | port), few VIPs and ports: clusters and hits.
        const std::uint64_t key = (std::uint64_t{0x64400001 + (state & 3)} << 24) | (6u << 16) | ((state >> 8) % 3000);
        if ((state >> 40) % 4 == 0) {
            table.erase(key);
            reference.erase(key);
        } else {
            table.set(key, step);
            reference[key] = step;
        }
        if (step % 1999 == 0) {
            REQUIRE(table.size() == reference.size());
            for (std::uint64_t v = 0; v < 4; ++v)
                for (std::uint64_t port = 0; port < 3000; ++port) {
                    const std::uint64_t k = (std::uint64_t{0x64400001 + v} << 24) | (6u << 16) | port;
                    const std::uint32_t* got = table.find(k);
                    const auto it = reference.find(k);
                    REQUIRE((got == nullptr) == (it == reference.end()));
                    if (got != nullptr) CHECK(*got == it->second);
                }
        }
    }
    CHECK(table.find(1) == nullptr);
}

TEST_CASE("ceil_product_div equals the 128-bit rounding up, on both sides of the 64-bit range") {
    __extension__ using I128 = __int128;
    auto wide = [](std::uint64_t a, std::uint64_t b, std::uint64_t c, std::int64_t rate) {
        return static_cast<std::int64_t>((static_cast<I128>(a) * b * c + rate - 1) / rate);
    };
    constexpr std::uint64_t kPsPerS = 1'000'000'000'000;
    // A segment index, its bytes, 8 * 10^12 ps per bit-second, and rates from 1 bit/s to 400 Gbit/s: products up to
    // about 2^70, so both paths are taken.
    std::uint64_t state = 99;
    for (int i = 0; i < 20000; ++i) {
        state = mix64(state + 1);
        const std::uint64_t index = state % 2'000'000;
        const std::uint64_t bytes = 1 + (state >> 24) % 9000;
        const auto rate = static_cast<std::int64_t>(1 + (state >> 40) % 400'000'000'000ULL);
        CHECK(ceil_product_div(index, bytes, 8 * kPsPerS, rate) == wide(index, bytes, 8 * kPsPerS, rate));
    }
    CHECK(ceil_product_div(0, 1440, 8 * kPsPerS, 1'000'000'000) == 0);
    CHECK(ceil_product_div(1, 1440, 8 * kPsPerS, 1'000'000'000) == 11'520'000);
    CHECK(ceil_product_div(1, 1, 1, 3) == 1);
}
