// Random numbers written in the repo so that results never depend on the standard library's distributions:
// xoshiro256** seeded by splitmix64, per-component streams via derive(seed, path), and stateless
// counter-based draws for outcomes that must not depend on the order of simulation (FEC, jitter).
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

namespace loom {

// splitmix64 finalizer: a bijective 64-bit mixer.
constexpr std::uint64_t mix64(std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// Seed of the stream for the component at `path` ("sys.rack3.node2.tsp5") of a run with seed `seed`.
std::uint64_t derive(std::uint64_t seed, std::string_view path);
// Seed of sub-stream `index` of stream `stream` (e.g. one per link, one per vector index).
constexpr std::uint64_t derive(std::uint64_t stream, std::uint64_t index) {
    return mix64(stream ^ mix64(index + 0x632be59bd9b4e019ULL));
}
// A uniform double in [0, 1) from 64 random bits (the top 53).
constexpr double to_unit_double(std::uint64_t bits) {
    return static_cast<double>(bits >> 11) * 0x1.0p-53;
}
// Stateless draw: a uniform double in [0, 1) that depends only on (stream, index).
constexpr double counter_uniform(std::uint64_t stream, std::uint64_t index) {
    return to_unit_double(derive(stream, index));
}

// xoshiro256**: fast, 256-bit state, passes BigCrush. One per component; not thread-shared.
class Rng {
public:
    explicit Rng(std::uint64_t seed = 1);

    std::uint64_t next_u64() {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    // Uniform integer in [0, n), n > 0, unbiased (Lemire's multiply-and-reject). Inline: the rejection
    // branch is taken with probability < n / 2^64.
    std::uint64_t uniform(std::uint64_t n) {
        __extension__ using U128 = unsigned __int128;
        const U128 m = static_cast<U128>(next_u64()) * n;
        if (static_cast<std::uint64_t>(m) >= n) [[likely]] return static_cast<std::uint64_t>(m >> 64);
        return uniform_rejecting(n, static_cast<std::uint64_t>(m >> 64), static_cast<std::uint64_t>(m));
    }
    // Uniform integer in [lo, hi], lo <= hi.
    std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);
    // Uniform double in [0, 1).
    double uniform01() { return to_unit_double(next_u64()); }
    // Exponential with the given mean (> 0), by inversion: -mean * log(1 - u). 1 - u is exact for
    // u = k * 2^-53, so this is -mean * log1p(-u) mathematically, at a quarter of log1p's cost.
    double exponential(double mean) { return -mean * std::log(1.0 - uniform01()); }
    // True with probability p.
    bool bernoulli(double p) { return uniform01() < p; }

private:
    // uniform()'s rare path: the first draw gave (high, low) with low < n.
    std::uint64_t uniform_rejecting(std::uint64_t n, std::uint64_t high, std::uint64_t low);
    static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t s_[4];
};

}  // namespace loom
