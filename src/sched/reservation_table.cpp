#include "reservation_table.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "loom/base/assert.hpp"

namespace loom::sched::detail {

ReservationTable::ReservationTable(std::vector<Time> min_gap)
    : min_gap_(std::move(min_gap)),
      bookings_(min_gap_.size()),
      blocks_(min_gap_.size()),
      last_end_(min_gap_.size(), Time::ps(std::numeric_limits<std::int64_t>::min())),
      inserts_(min_gap_.size(), 0),
      log_(min_gap_.size()),
      block_fingers_(min_gap_.size()),
      next_finger_(min_gap_.size(), 0),
      booking_hint_(min_gap_.size()) {}

ReservationTable::BlockPos ReservationTable::first_block_ending_after(std::int32_t c, Time s) const {
    const auto ci = static_cast<std::size_t>(c);
    auto& fingers = block_fingers_[ci];
    // A finger that answers s already: no search (about half the searches).
    for (const Finger& f : fingers) {
        if (f.lo <= s && s < f.hi) return f.pos;
    }
    const auto& blocks = blocks_[ci];
    // Else start from the finger nearest s in time; move it to the answer, or, when the answer is in another chunk,
    // the oldest finger.
    std::size_t best = 0;
    std::uint64_t best_d = std::numeric_limits<std::uint64_t>::max();
    for (std::size_t f = 0; f < kFingers; ++f) {
        // |lo - s| in unsigned arithmetic: a finger's lo may be the least Time, where the signed difference
        // overflows.
        const std::int64_t lo = fingers[f].lo.count();
        const std::int64_t at = s.count();
        const std::uint64_t d = lo > at ? static_cast<std::uint64_t>(lo) - static_cast<std::uint64_t>(at)
                                        : static_cast<std::uint64_t>(at) - static_cast<std::uint64_t>(lo);
        const bool closer = d < best_d;
        best = closer ? f : best;
        best_d = closer ? d : best_d;
    }
    const BlockPos hint = fingers[best].pos;
    BlockPos p = blocks.end();
    bool found = false;
    if (hint.chunk < blocks.chunks()) {
        // Most answers lie within a few blocks of the finger, in its chunk: step there one block at a time (at most
        // kSteps; further, or into another chunk, the chunked search gallops).
        constexpr std::size_t kSteps = 8;
        const auto& chunk = blocks.chunk(hint.chunk);
        const Block* b = chunk.data();
        const std::size_t n = chunk.size();
        std::size_t i = std::min(hint.i, n - 1);
        if (b[i].end > s) {
            const std::size_t stop = i > kSteps ? i - kSteps : 0;
            while (i > stop && b[i - 1].end > s) --i;
            // b[i] is the answer unless a block before it (in this chunk, or the one before) also ends after s.
            found = i > 0 ? b[i - 1].end <= s : hint.chunk == 0 || blocks.chunk_back(hint.chunk - 1).end <= s;
        } else {
            const std::size_t stop = std::min(n, i + 1 + kSteps);
            ++i;
            while (i < stop && b[i].end <= s) ++i;
            found = i < n && b[i].end > s;
        }
        if (found) p = BlockPos{hint.chunk, i};
    }
    if (!found) p = blocks.first_past([s](const Block& b) { return b.end > s; }, hint);
    if (p.chunk != hint.chunk) {
        best = next_finger_[ci];
        next_finger_[ci] = static_cast<std::uint8_t>((best + 1) % kFingers);
    }
    // The times with this answer: from the end of the block before (or the least Time) to the end of this one (or
    // the greatest).
    const Time least = Time::ps(std::numeric_limits<std::int64_t>::min());
    Time lo = least;
    Time hi = Time::max();
    if (!blocks.at_end(p)) {
        hi = blocks[p].end;
        if (p.i > 0) {
            lo = blocks.chunk(p.chunk)[p.i - 1].end;
        } else if (p.chunk > 0) {
            lo = blocks.chunk_back(p.chunk - 1).end;
        }
    } else if (!blocks.empty()) {
        lo = blocks.back().end;
    }
    fingers[best] = Finger{lo, hi, p};
    return p;
}

ReservationTable::BookingPos ReservationTable::first_booking_from(std::int32_t c, Time s) const {
    const auto ci = static_cast<std::size_t>(c);
    const BookingPos p = bookings_[ci].first_past([s](const Booking& b) { return b.start >= s; }, booking_hint_[ci]);
    booking_hint_[ci] = p;
    return p;
}

std::optional<Time> ReservationTable::conflict_end(std::int32_t c, Time s, Time e) const {
    const auto& blocks = blocks_[static_cast<std::size_t>(c)];
    // Blocks are disjoint and sorted, so their ends are sorted too: the first block ending after s.
    const BlockPos p = first_block_ending_after(c, s);
    if (!blocks.at_end(p) && blocks[p].start < e) return blocks[p].end;
    return std::nullopt;
}

// first_fit() where s is before the last block's end: from the first block ending after s, skip blocks while the next
// starts too soon (a chunk at a time, walking its array).
Time ReservationTable::first_fit_inside(std::int32_t c, Time s, Time length) const {
    const auto& blocks = blocks_[static_cast<std::size_t>(c)];
    const BlockPos p = first_block_ending_after(c, s);
    std::size_t i = p.i;
    for (std::size_t k = p.chunk; k < blocks.chunks(); ++k, i = 0) {
        const auto& chunk = blocks.chunk(k);
        const Block* b = chunk.data();
        const std::size_t n = chunk.size();
        // Every block from the first ending after s on ends after the s reached so far (blocks are disjoint and
        // sorted), so s moves to its end.
        for (; i < n; ++i) {
            if (b[i].start >= s + length) return s;
            s = b[i].end;
        }
    }
    return s;
}

const Booking* ReservationTable::before(std::int32_t c, Time s) const {
    const auto& v = bookings_[static_cast<std::size_t>(c)];
    if (v.empty()) return nullptr;
    if (v.back().start < s) return &v.back();  // the common case: s past every booking's start
    const BookingPos p = first_booking_from(c, s);
    return p == v.begin() ? nullptr : &v[v.prev(p)];
}

const Booking* ReservationTable::after(std::int32_t c, Time s) const {
    const auto& v = bookings_[static_cast<std::size_t>(c)];
    if (v.empty() || v.back().start < s) return nullptr;
    const BookingPos p = first_booking_from(c, s);
    return v.at_end(p) ? nullptr : &v[p];
}

std::pair<const Booking*, const Booking*> ReservationTable::around(std::int32_t c, Time s) const {
    const auto& v = bookings_[static_cast<std::size_t>(c)];
    if (v.empty()) return {nullptr, nullptr};
    if (v.back().start < s) return {&v.back(), nullptr};
    const BookingPos p = first_booking_from(c, s);
    return {p == v.begin() ? nullptr : &v[v.prev(p)], v.at_end(p) ? nullptr : &v[p]};
}

void ReservationTable::insert(std::int32_t c, const Booking& b) {
    const auto ci = static_cast<std::size_t>(c);
    LOOM_DEBUG_ASSERT(!conflict_end(c, b.start, b.end), "reservation table: overlapping booking");
    auto& v = bookings_[ci];
    if (v.empty() || v.back().start <= b.start) {
        v.insert(v.end(), b);  // the common case: after every booking (the same place upper_bound finds)
    } else {
        v.insert(v.first_past([&b](const Booking& x) { return x.start > b.start; }, booking_hint_[ci]), b);
    }
    ++size_;
    auto& log = log_[ci];
    if (static_cast<std::int64_t>(log.size()) < kLog) {
        log.emplace_back(b.start, b.end);
    } else {
        log[static_cast<std::size_t>(inserts_[ci] % kLog)] = {b.start, b.end};
    }
    ++inserts_[ci];

    // Merge with every block closer than the minimum gap on either side. The fingers' answers may change.
    for (Finger& f : block_fingers_[ci]) f.hi = f.lo;
    auto& blocks = blocks_[ci];
    const Time gap = min_gap_[ci];
    Block merged{b.start, b.end};
    // First block whose end is within `gap` before b.start (end > start - gap).
    BlockPos first = blocks.end();
    if (!blocks.empty() && blocks.back().end > b.start - gap) {
        first = blocks.first_past([t = b.start - gap](const Block& x) { return x.end > t; }, block_fingers_[ci][0].pos);
    }
    std::size_t merging = 0;
    for (BlockPos p = first; !blocks.at_end(p) && blocks[p].start < b.end + gap; p = blocks.next(p)) {
        merged.start = std::min(merged.start, blocks[p].start);
        merged.end = std::max(merged.end, blocks[p].end);
        ++merging;
    }
    if (merging == 0) {
        blocks.insert(first, merged);
    } else {
        blocks.set(first, merged);
        BlockPos p = blocks.next(first);
        for (std::size_t k = 1; k < merging; ++k) p = blocks.erase(p);
    }
    last_end_[ci] = blocks.back().end;
}

bool ReservationTable::untouched_since(std::int32_t c, std::int64_t since, Time s, Time e) const {
    const auto ci = static_cast<std::size_t>(c);
    const std::int64_t now = inserts_[ci];
    if (since < now - kLog) return false;
    const Time gap = min_gap_[ci];
    const auto& log = log_[ci];
    for (std::int64_t k = since; k < now; ++k) {
        const auto& [bs, be] = log[static_cast<std::size_t>(k % kLog)];
        if (bs < e + gap && be > s - gap) return false;
    }
    return true;
}

std::int64_t ReservationTable::blocks() const {
    std::int64_t n = 0;
    for (const auto& b : blocks_) n += static_cast<std::int64_t>(b.size());
    return n;
}

}  // namespace loom::sched::detail
