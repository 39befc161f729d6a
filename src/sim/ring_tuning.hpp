// Private to the kernel's adaptive queues (CalendarQueue, RadixQueue): the power-of-two arithmetic and the
// rule by which a ring of time slots re-tunes its slot width and length from what one tuning window measured.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "loom/sim/event.hpp"

namespace loom::sim::ring {

inline std::int64_t align_down(std::int64_t t, int shift) { return t & ~((std::int64_t{1} << shift) - 1); }

inline std::size_t floor_pow2(std::size_t n) { return n == 0 ? 1 : std::bit_floor(n); }

// What a rebuild re-pushes: every pending event of `queue` (in no order), and the least of their times and of
// `floor` (the time the rebuilt ring starts from, aligned down by the caller).
template <class Queue>
std::vector<Event> take_all(const Queue& queue, std::size_t size, std::int64_t floor, std::int64_t& least) {
    std::vector<Event> all;
    all.reserve(size);
    queue.for_each([&all](const Event& e) { all.push_back(e); });
    least = floor;
    for (const Event& e : all) least = std::min(least, e.time);
    return all;
}

// A ring's tuning: slots of 2^shift ps, `slots` of them (a power of two).
struct Shape {
    int shift = 0;
    std::size_t slots = 0;
};

// The fixed bounds of one queue's ring.
struct Limits {
    std::uint64_t target_per_slot;  // events popped per activated slot the width aims at
    std::size_t min_slots, max_slots;
    int max_shift;
};

// The next shape after a tuning window in which `loaded` events were popped over `elapsed` ps (loaded > 0) and
// `overflowed` pushes fell beyond the ring; `cap` bounds the slot count by the queue's memory rule, and
// `min_year_log2` (the shortest ring length, log2 ps, known to overflow) is raised when the ring overflows.
//   Width: target_per_slot events per slot at the observed pop rate, rounded to the nearest power of two (in
//   log scale: w rounds up when w^2 >= 2^(2s+1)).
//   Length (slots * width): doubled while over 1/16 of pushes overflow; halved (never back below a length that
//   overflowed) when overflow is negligible and the length is what forces slots wider than wanted.
inline Shape retune(const Shape& now, const Limits& lim, std::int64_t elapsed, std::uint64_t loaded,
                    std::uint64_t overflowed, std::size_t cap, int& min_year_log2) {
    __extension__ using U128 = unsigned __int128;
    const U128 w = static_cast<U128>(static_cast<std::uint64_t>(elapsed)) * lim.target_per_slot / loaded;
    int want_shift = 0;
    if (w > 1) {
        const auto w64 = static_cast<std::uint64_t>(std::min<U128>(w, U128{1} << 62));
        want_shift = static_cast<int>(std::bit_width(w64)) - 1;
        if (static_cast<U128>(w64) * w64 >= U128{1} << (2 * want_shift + 1)) ++want_shift;
    }
    want_shift = std::min(want_shift, lim.max_shift);

    int year_log2 = now.shift + std::countr_zero(now.slots);
    if (overflowed * 16 > loaded) {
        min_year_log2 = year_log2 + 1;
        ++year_log2;
    } else if (overflowed * 4096 < loaded && year_log2 - want_shift > std::countr_zero(cap) &&
               year_log2 - 1 >= min_year_log2) {
        --year_log2;
    }
    year_log2 = std::min(year_log2, lim.max_shift + std::countr_zero(lim.max_slots));

    int new_shift = want_shift;
    int slots_log2 = year_log2 - want_shift;
    if (slots_log2 > std::countr_zero(cap)) {
        slots_log2 = std::countr_zero(cap);
        new_shift = year_log2 - slots_log2;
    } else if (slots_log2 < std::countr_zero(lim.min_slots)) {
        slots_log2 = std::countr_zero(lim.min_slots);
    }
    return Shape{std::clamp(new_shift, 0, lim.max_shift), std::size_t{1} << slots_log2};
}

}  // namespace loom::sim::ring
