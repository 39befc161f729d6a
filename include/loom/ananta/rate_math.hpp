// Times at a rate, rounded up: ceil(a * b * c / rate) picoseconds, as the model's per-packet and per-segment
// timing needs them. Computed in 64 bits when the product and the rounding fit (every packet and segment time
// of a run: the product of a segment index, its bytes and 8 * 10^12 ps), else in 128 bits; the same value
// either way, without the 128-bit division's library call on the common path.
#pragma once

#include <cstdint>

namespace loom::ananta {

inline std::int64_t ceil_product_div(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::int64_t rate) {
    const auto r = static_cast<std::uint64_t>(rate);
    std::uint64_t ab = 0, abc = 0, num = 0;
    if (!__builtin_mul_overflow(a, b, &ab) && !__builtin_mul_overflow(ab, c, &abc) &&
        !__builtin_add_overflow(abc, r - 1, &num))
        return static_cast<std::int64_t>(num / r);
    __extension__ using I128 = __int128;
    const I128 wide = static_cast<I128>(a) * static_cast<I128>(b) * static_cast<I128>(c);
    return static_cast<std::int64_t>((wide + rate - 1) / rate);
}

}  // namespace loom::ananta
