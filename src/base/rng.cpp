#include "loom/base/rng.hpp"

#include "loom/base/assert.hpp"

namespace loom {

std::uint64_t derive(std::uint64_t seed, std::string_view path) {
    // FNV-1a over the path, then mixed with the seed: distinct paths give independent streams.
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : path) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return mix64(mix64(seed) ^ h);
}

Rng::Rng(std::uint64_t seed) {
    std::uint64_t x = seed;
    for (auto& s : s_) {
        x += 0x9e3779b97f4a7c15ULL;
        s = mix64(x);
    }
}

std::uint64_t Rng::uniform_rejecting(std::uint64_t n, std::uint64_t high, std::uint64_t low) {
    LOOM_DEBUG_ASSERT(n > 0, "uniform(0)");
    __extension__ using u128 = unsigned __int128;
    const std::uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
        const u128 m = static_cast<u128>(next_u64()) * n;
        low = static_cast<std::uint64_t>(m);
        high = static_cast<std::uint64_t>(m >> 64);
    }
    return high;
}

std::int64_t Rng::uniform_int(std::int64_t lo, std::int64_t hi) {
    LOOM_DEBUG_ASSERT(lo <= hi, "uniform_int: lo > hi");
    const auto span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
    if (span == 0) return static_cast<std::int64_t>(next_u64());  // the full 64-bit range
    return lo + static_cast<std::int64_t>(uniform(span));
}

}  // namespace loom
