// Round-robin choice over a request mask: the allocator objects and the routers' in-place allocation pick the same
// way, so the two give identical grants.
#pragma once

#include <bit>
#include <cstdint>

namespace loom::fabric {

// The first set bit of `mask` at or after `ptr` going round (mask != 0, ptr below the mask's width).
inline std::int32_t first_from(std::uint64_t mask, std::int32_t ptr) {
    const std::uint64_t hi = mask & (~std::uint64_t{0} << ptr);
    return std::countr_zero(hi != 0 ? hi : mask);
}
inline std::int32_t first_from(std::uint32_t mask, std::int32_t ptr) {
    const std::uint32_t hi = mask & (~std::uint32_t{0} << ptr);
    return std::countr_zero(hi != 0 ? hi : mask);
}

}  // namespace loom::fabric
