// The earliest train start at which every hop of a route has room: a fixed point of the hops' first fits
// (Scheduler::hops_fixed_point). `step(h, s)` is the least start no earlier than s that hop h alone allows (its first
// fit from s plus its offset, less the offset); it must never be earlier than s and keep order (a later s never gets
// an earlier answer), as first fits do.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "loom/base/units.hpp"

namespace loom::sched::detail {

// By rounds: each round asks every hop at the round's start and moves the start to the latest answer, until a round
// moves nothing, or `rounds` rounds (then the estimate reached).
template <class Step>
Time fixed_point_by_rounds(std::size_t hops, Time start, std::int64_t rounds, Step&& step) {
    for (std::int64_t round = 0; round < rounds; ++round) {
        Time next = start;
        for (std::size_t h = 0; h < hops; ++h) next = std::max(next, step(h, start));
        if (next == start) break;
        start = next;
    }
    return start;
}

// The same value, asking the hops one after another, cyclically, each at the start the hops before it moved to,
// until every hop in a row has left the start where it is.
// Why the same: the least fixed point from `start` is a fixed point of every hop's step, and the steps only move the
// start later and keep order, so applying them in any order until none moves reaches it. By rounds, a round's start
// is at least where one hop's step takes the round before's, so after k rounds it is at least where k moves took
// the start: when the cyclic order got to the fixed point in at most `rounds` moves, so did the rounds (which then
// return it); otherwise the rounds are done as such, from the first start.
// Cheaper: a hop behind a move is asked once, from the new start, where a round asked it from the old start and
// asked it again in the next round; the last round asked every hop again, here only the hops after the last move.
template <class Step>
Time fixed_point(std::size_t hops, Time start, std::int64_t rounds, Step&& step) {
    const Time from = start;
    std::int64_t moves = 0;
    std::size_t h = 0;
    for (std::size_t left = hops; left > 0; h = h + 1 == hops ? 0 : h + 1) {
        const Time next = step(h, start);
        if (next > start) {
            if (++moves > rounds) return fixed_point_by_rounds(hops, from, rounds, step);
            start = next;
            left = hops - 1;  // hop h holds at its own answer; every other hop is asked at it
        } else {
            --left;
        }
    }
    return start;
}

}  // namespace loom::sched::detail
