#include "reservation_table.hpp"

#include <algorithm>

#include "loom/base/assert.hpp"

namespace loom::sched::detail {

namespace {

// The first element of [first, last) that is `past` (false, then true, along the range), found by galloping from the
// end: placement asks mostly about the latest bookings of a channel, so a query touches O(log distance from the end)
// elements instead of O(log size) spread over the whole table.
template <class It, class Past>
It first_past(It first, It last, Past past) {
    It hi = last;  // every element in [hi, last) is past
    std::ptrdiff_t step = 1;
    while (hi != first) {
        const It probe = hi - std::min<std::ptrdiff_t>(step, hi - first);
        if (!past(*probe)) return std::partition_point(probe + 1, hi, [&](const auto& x) { return !past(x); });
        hi = probe;
        step *= 2;
    }
    return first;
}

// The same, galloping from `hint` (any position in [first, last]) in the direction of the answer: queries of one
// transfer's placement come in runs near the same place of a channel, so a query starts where the last one ended.
template <class It, class Past>
It first_past_near(It first, It last, It hint, Past past) {
    if (hint == last || past(*hint)) return first_past(first, hint, past);
    It lo = hint + 1;  // every element in [first, lo) is not past
    std::ptrdiff_t step = 1;
    while (lo != last) {
        const It probe = lo + (std::min<std::ptrdiff_t>(step, last - lo) - 1);
        if (past(*probe)) return std::partition_point(lo, probe, [&](const auto& x) { return !past(x); });
        lo = probe + 1;
        step *= 2;
    }
    return last;
}

}  // namespace

ReservationTable::ReservationTable(std::vector<Time> min_gap)
    : min_gap_(std::move(min_gap)),
      bookings_(min_gap_.size()),
      blocks_(min_gap_.size()),
      block_finger_(min_gap_.size(), 0),
      booking_finger_(min_gap_.size(), 0) {}

ReservationTable::Blocks::const_iterator ReservationTable::first_block_ending_after(std::int32_t c,
                                                                                                Time s) const {
    const auto ci = static_cast<std::size_t>(c);
    const auto& blocks = blocks_[ci];
    const auto hint = blocks.begin() + static_cast<std::ptrdiff_t>(std::min(block_finger_[ci], blocks.size()));
    const auto it = first_past_near(blocks.begin(), blocks.end(), hint, [s](const Block& b) { return b.end > s; });
    block_finger_[ci] = static_cast<std::size_t>(it - blocks.begin());
    return it;
}

ReservationTable::Bookings::const_iterator ReservationTable::first_booking_from(std::int32_t c, Time s) const {
    const auto ci = static_cast<std::size_t>(c);
    const auto& v = bookings_[ci];
    const auto hint = v.begin() + static_cast<std::ptrdiff_t>(std::min(booking_finger_[ci], v.size()));
    const auto it = first_past_near(v.begin(), v.end(), hint, [s](const Booking& b) { return b.start >= s; });
    booking_finger_[ci] = static_cast<std::size_t>(it - v.begin());
    return it;
}

std::optional<Time> ReservationTable::conflict_end(std::int32_t c, Time s, Time e) const {
    const auto& blocks = blocks_[static_cast<std::size_t>(c)];
    // Blocks are disjoint and sorted, so their ends are sorted too: the first block ending after s.
    const auto it = first_block_ending_after(c, s);
    if (it != blocks.end() && it->start < e) return it->end;
    return std::nullopt;
}

Time ReservationTable::first_fit(std::int32_t c, Time s, Time length) const {
    const auto& blocks = blocks_[static_cast<std::size_t>(c)];
    // List scheduling asks mostly about times past everything booked: answer those without a search.
    if (blocks.empty() || s >= blocks.back().end) return s;
    auto it = first_block_ending_after(c, s);
    while (it != blocks.end() && it->start < s + length) {
        s = std::max(s, it->end);
        ++it;
    }
    return s;
}

const Booking* ReservationTable::before(std::int32_t c, Time s) const {
    const auto& v = bookings_[static_cast<std::size_t>(c)];
    if (v.empty()) return nullptr;
    if (v.back().start < s) return &v.back();  // the common case: s past every booking's start
    const auto it = first_booking_from(c, s);
    return it == v.begin() ? nullptr : &*(it - 1);
}

const Booking* ReservationTable::after(std::int32_t c, Time s) const {
    const auto& v = bookings_[static_cast<std::size_t>(c)];
    if (v.empty() || v.back().start < s) return nullptr;
    const auto it = first_booking_from(c, s);
    return it == v.end() ? nullptr : &*it;
}

void ReservationTable::insert(std::int32_t c, const Booking& b) {
    const auto ci = static_cast<std::size_t>(c);
    LOOM_DEBUG_ASSERT(!conflict_end(c, b.start, b.end), "reservation table: overlapping booking");
    auto& v = bookings_[ci];
    if (v.empty() || v.back().start <= b.start) {
        v.push_back(b);  // the common case: after every booking (the same place upper_bound finds)
    } else {
        const auto pos = first_past(v.begin(), v.end(), [&b](const Booking& x) { return x.start > b.start; });
        v.insert(pos, b);
    }
    ++size_;

    // Merge with every block closer than the minimum gap on either side.
    auto& blocks = blocks_[ci];
    const Time gap = min_gap_[ci];
    Block merged{b.start, b.end};
    // First block whose end is within `gap` before b.start (end > start - gap).
    auto first = blocks.end();
    if (!blocks.empty() && blocks.back().end > b.start - gap) {
        first = first_past(blocks.begin(), blocks.end(), [t = b.start - gap](const Block& x) { return x.end > t; });
    }
    auto last = first;
    while (last != blocks.end() && last->start < b.end + gap) {
        merged.start = std::min(merged.start, last->start);
        merged.end = std::max(merged.end, last->end);
        ++last;
    }
    if (first == last) {
        blocks.insert(first, merged);
    } else {
        *first = merged;
        blocks.erase(first + 1, last);
    }
}

std::int64_t ReservationTable::blocks() const {
    std::int64_t n = 0;
    for (const auto& b : blocks_) n += static_cast<std::int64_t>(b.size());
    return n;
}

}  // namespace loom::sched::detail
