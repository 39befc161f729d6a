// Two's-complement addition without signed overflow: the data check's and the chip's sums wrap as the hardware's do.
#pragma once

#include <cstdint>

namespace loom::tsp {

inline std::int64_t add_wrapping(std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

}  // namespace loom::tsp
