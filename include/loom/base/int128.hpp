// The one 128-bit helper of exact time arithmetic: products of a picosecond count and a period numerator or a
// bit count overflow 64 bits, so they are formed in __int128 and divided once, rounding as each rule needs.
#pragma once

#include <cstdint>

namespace loom {

__extension__ using i128 = __int128;

constexpr i128 gcd128(i128 a, i128 b) {
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b != 0) {
        const i128 t = a % b;
        a = b;
        b = t;
    }
    return a;
}

// floor(a / b) and ceil(a / b) for b > 0 and any sign of a.
constexpr i128 floor_div(i128 a, i128 b) {
    i128 q = a / b;
    if ((a % b != 0) && (a < 0)) --q;
    return q;
}
constexpr i128 ceil_div(i128 a, i128 b) { return -floor_div(-a, b); }

// floor(a * b / c) and ceil(a * b / c) for c > 0, the product taken in 128 bits; the result must fit 64 bits.
constexpr std::int64_t muldiv_floor(std::int64_t a, std::int64_t b, std::int64_t c) {
    return static_cast<std::int64_t>(floor_div(static_cast<i128>(a) * b, c));
}
constexpr std::int64_t muldiv_ceil(std::int64_t a, std::int64_t b, std::int64_t c) {
    return static_cast<std::int64_t>(ceil_div(static_cast<i128>(a) * b, c));
}

}  // namespace loom
