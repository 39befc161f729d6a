#include "reservation_table.hpp"

#include <algorithm>

#include "loom/base/assert.hpp"

namespace loom::sched::detail {

ReservationTable::ReservationTable(std::vector<Time> min_gap)
    : min_gap_(std::move(min_gap)), bookings_(min_gap_.size()), blocks_(min_gap_.size()) {}

std::optional<Time> ReservationTable::conflict_end(std::int32_t c, Time s, Time e) const {
    const auto& blocks = blocks_[static_cast<std::size_t>(c)];
    // Blocks are disjoint and sorted, so their ends are sorted too: the first block ending after s.
    const auto it = std::upper_bound(blocks.begin(), blocks.end(), s, [](Time t, const Block& b) { return t < b.end; });
    if (it != blocks.end() && it->start < e) return it->end;
    return std::nullopt;
}

Time ReservationTable::first_fit(std::int32_t c, Time s, Time length) const {
    const auto& blocks = blocks_[static_cast<std::size_t>(c)];
    // List scheduling asks mostly about times past everything booked: answer those without a search.
    if (blocks.empty() || s >= blocks.back().end) return s;
    auto it = std::upper_bound(blocks.begin(), blocks.end(), s, [](Time t, const Block& b) { return t < b.end; });
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
    const auto it = std::lower_bound(v.begin(), v.end(), s, [](const Booking& b, Time t) { return b.start < t; });
    return it == v.begin() ? nullptr : &*(it - 1);
}

const Booking* ReservationTable::after(std::int32_t c, Time s) const {
    const auto& v = bookings_[static_cast<std::size_t>(c)];
    if (v.empty() || v.back().start < s) return nullptr;
    const auto it = std::lower_bound(v.begin(), v.end(), s, [](const Booking& b, Time t) { return b.start < t; });
    return it == v.end() ? nullptr : &*it;
}

void ReservationTable::insert(std::int32_t c, const Booking& b) {
    const auto ci = static_cast<std::size_t>(c);
    LOOM_DEBUG_ASSERT(!conflict_end(c, b.start, b.end), "reservation table: overlapping booking");
    auto& v = bookings_[ci];
    if (v.empty() || v.back().start <= b.start) {
        v.push_back(b);  // the common case: after every booking (the same place upper_bound finds)
    } else {
        const auto pos =
            std::upper_bound(v.begin(), v.end(), b.start, [](Time t, const Booking& x) { return t < x.start; });
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
        first = std::upper_bound(blocks.begin(), blocks.end(), b.start - gap,
                                 [](Time t, const Block& x) { return t < x.end; });
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
