#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "fixed_point.hpp"

// fixed_point() asks the hops one after another, each at the start the hops before it moved to; it must return what
// fixed_point_by_rounds() (every hop at each round's start) returns, also when the rounds are bounded and stop short
// of the fixed point.

using loom::Time;
using loom::sched::detail::fixed_point;
using loom::sched::detail::fixed_point_by_rounds;

namespace {

// A hop: its offset from the train's start, its length and the busy intervals of its channel (sorted, disjoint).
struct Hop {
    std::int64_t offset = 0;
    std::int64_t length = 0;
    std::vector<std::pair<std::int64_t, std::int64_t>> busy;
    // The least start s' >= s at which [s' + offset, s' + offset + length) meets no busy interval.
    Time step(Time s) const {
        std::int64_t t = s.count() + offset;
        for (const auto& [a, b] : busy) {
            if (a >= t + length) break;
            if (b > t) t = b;
        }
        return Time::ps(t - offset);
    }
};

std::vector<Hop> random_route(std::mt19937_64& rng) {
    std::uniform_int_distribution<int> hop_count(1, 6);
    std::uniform_int_distribution<std::int64_t> offset(0, 40);
    std::uniform_int_distribution<std::int64_t> length(1, 12);
    std::uniform_int_distribution<std::int64_t> gap(0, 14);
    std::uniform_int_distribution<int> blocks(0, 30);
    std::vector<Hop> hops(static_cast<std::size_t>(hop_count(rng)));
    std::int64_t at = 0;
    for (Hop& h : hops) {
        at += offset(rng);
        h.offset = at;
        h.length = length(rng);
        std::int64_t t = gap(rng);
        for (int b = blocks(rng); b > 0; --b) {
            const std::int64_t len = length(rng);
            h.busy.emplace_back(t, t + len);
            t += len + gap(rng);
        }
    }
    return hops;
}

}  // namespace

TEST_CASE("fixed_point: the value of the rounds, fewer hop searches", "[sched][fixed_point]") {
    std::mt19937_64 rng(20261207);
    std::uniform_int_distribution<std::int64_t> first(0, 200);
    std::uniform_int_distribution<int> bound(1, 5);
    std::int64_t cyclic_asks = 0;
    std::int64_t round_asks = 0;
    int moved = 0;
    int capped = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        const std::vector<Hop> hops = random_route(rng);
        const Time start = Time::ps(first(rng));
        std::int64_t asks = 0;
        const auto step = [&](std::size_t h, Time s) {
            ++asks;
            return hops[h].step(s);
        };
        INFO("trial " << trial);
        // Unbounded: the least start >= start at which every hop has room, by both.
        asks = 0;
        const Time fixed = fixed_point_by_rounds(hops.size(), start, std::numeric_limits<std::int64_t>::max(), step);
        round_asks += asks;
        asks = 0;
        REQUIRE(fixed_point(hops.size(), start, std::numeric_limits<std::int64_t>::max(), step) == fixed);
        cyclic_asks += asks;
        for (std::size_t h = 0; h < hops.size(); ++h) REQUIRE(hops[h].step(fixed) == fixed);
        if (fixed > start) ++moved;
        // Bounded rounds: the same estimate, whether or not the rounds reach the fixed point.
        const std::int64_t rounds = bound(rng);
        const Time estimate = fixed_point_by_rounds(hops.size(), start, rounds, step);
        if (estimate != fixed) ++capped;
        REQUIRE(fixed_point(hops.size(), start, rounds, step) == estimate);
    }
    // The cases are not all trivial, and asking hop after hop saves searches overall.
    CHECK(moved > 1000);
    CHECK(capped > 100);
    CHECK(cyclic_asks < round_asks);
}

TEST_CASE("fixed_point: one hop, and a start that already fits", "[sched][fixed_point]") {
    const Hop busy{5, 3, {{0, 10}, {12, 20}, {30, 31}}};
    const auto one = [&](std::size_t, Time s) { return busy.step(s); };
    // From 0: 5..8 meets [0, 10) -> 10..13 meets [12, 20) -> 20..23 is free: start 15.
    CHECK(fixed_point(1, Time::ps(0), 100, one) == Time::ps(15));
    CHECK(fixed_point(1, Time::ps(15), 100, one) == Time::ps(15));
    CHECK(fixed_point(1, Time::ps(0), 1, one) == Time::ps(15));  // one move: one round does it
    // Two hops that push each other: the second needs [s + 10, s + 12) clear of [20, 26), the first [s, s + 4)
    // clear of [13, 17).
    const Hop a{0, 4, {{13, 17}}};
    const Hop b{10, 2, {{20, 26}}};
    const auto two = [&](std::size_t h, Time s) { return h == 0 ? a.step(s) : b.step(s); };
    // From 10: a -> 17; b at 17 (27..29) is free: 17.
    CHECK(fixed_point(2, Time::ps(10), 100, two) == Time::ps(17));
    CHECK(fixed_point_by_rounds(2, Time::ps(10), 100, two) == Time::ps(17));
    // From 9: a holds ([9, 13) ends where [13, 17) starts); b: [19, 21) meets [20, 26) -> 16; a at 16: [16, 20) meets
    // [13, 17) -> 17; b at 17 holds: 17, in two moves. One round stops at 16.
    CHECK(fixed_point(2, Time::ps(9), 100, two) == Time::ps(17));
    CHECK(fixed_point(2, Time::ps(9), 1, two) == fixed_point_by_rounds(2, Time::ps(9), 1, two));
    CHECK(fixed_point_by_rounds(2, Time::ps(9), 1, two) == Time::ps(16));
}
