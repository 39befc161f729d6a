#include "reservation_table.hpp"

#include <algorithm>

#include "loom/base/assert.hpp"

namespace loom::sched::detail {

ReservationTable::ReservationTable(std::vector<Time> min_gap)
    : min_gap_(std::move(min_gap)), channels_(min_gap_.size()) {}

void ReservationTable::pull(std::int32_t t) {
    Node& n = node(t);
    n.max_gap = std::max({n.gap, max_gap(n.left), max_gap(n.right)});
}

std::int32_t ReservationTable::first_ending_after(std::int32_t t, Time s) const {
    std::int32_t found = kNil;
    while (t != kNil) {
        const Node& n = node(t);
        if (n.end > s) {
            found = t;
            t = n.left;
        } else {
            t = n.right;
        }
    }
    return found;
}

// Blocks ending after s form a suffix of the order; the first of them whose gap is at least `length`. A subtree
// whose largest gap is shorter is skipped whole, so the walk visits O(height) nodes.
std::int32_t ReservationTable::first_gap(std::int32_t t, Time s, Time length) const {
    if (t == kNil || max_gap(t) < length) return kNil;
    const Node& n = node(t);
    if (n.end <= s) return first_gap(n.right, s, length);
    if (const std::int32_t l = first_gap(n.left, s, length); l != kNil) return l;
    if (n.gap >= length) return t;
    return first_gap(n.right, s, length);
}

std::optional<Time> ReservationTable::conflict_end(std::int32_t c, Time s, Time e) const {
    const Channel& ch = channels_[static_cast<std::size_t>(c)];
    // Blocks are disjoint and sorted, so their ends are sorted too: the first block ending after s.
    const std::int32_t t = first_ending_after(ch.root, s);
    if (t != kNil && node(t).start < e) return node(t).end;
    return std::nullopt;
}

Time ReservationTable::first_fit(std::int32_t c, Time s, Time length) const {
    const Channel& ch = channels_[static_cast<std::size_t>(c)];
    // List scheduling asks mostly about times past everything booked: answer those without a search.
    if (ch.root == kNil || s >= ch.last_end) return s;
    // The first block ending after s; if [s, s + length) ends before it starts, s fits. Otherwise the train starts
    // at the end of the first block (from that one on) followed by a gap of at least `length` (the last block is
    // followed by an unbounded one), which is where a walk over the blocks, one at a time, would stop.
    const std::int32_t first = first_ending_after(ch.root, s);
    if (node(first).start >= s + length) return s;
    const std::int32_t t = first_gap(ch.root, s, length);
    LOOM_ASSERT(t != kNil, "reservation table: no gap after the last block");
    return node(t).end;
}

const Booking* ReservationTable::before(std::int32_t c, Time s) const {
    const auto& m = channels_[static_cast<std::size_t>(c)].bookings;
    auto it = m.lower_bound(s);
    if (it == m.begin()) return nullptr;
    return &std::prev(it)->second;
}

const Booking* ReservationTable::after(std::int32_t c, Time s) const {
    const auto& m = channels_[static_cast<std::size_t>(c)].bookings;
    const auto it = m.lower_bound(s);
    return it == m.end() ? nullptr : &it->second;
}

std::vector<Booking> ReservationTable::bookings(std::int32_t c) const {
    std::vector<Booking> v;
    for (const auto& [start, b] : channels_[static_cast<std::size_t>(c)].bookings) v.push_back(b);
    return v;
}

void ReservationTable::split(std::int32_t t, Time key, bool by_end, std::int32_t& lo, std::int32_t& hi) {
    if (t == kNil) {
        lo = hi = kNil;
        return;
    }
    Node& n = node(t);
    const bool goes_low = by_end ? n.end <= key : n.start < key;
    if (goes_low) {
        std::int32_t r = kNil;
        split(n.right, key, by_end, r, hi);
        node(t).right = r;
        lo = t;
    } else {
        std::int32_t l = kNil;
        split(n.left, key, by_end, lo, l);
        node(t).left = l;
        hi = t;
    }
    pull(t);
}

std::int32_t ReservationTable::merge(std::int32_t a, std::int32_t b) {
    if (a == kNil) return b;
    if (b == kNil) return a;
    if (node(a).priority > node(b).priority) {
        const std::int32_t r = merge(node(a).right, b);
        node(a).right = r;
        pull(a);
        return a;
    }
    const std::int32_t l = merge(a, node(b).left);
    node(b).left = l;
    pull(b);
    return b;
}

void ReservationTable::set_last_gap(std::int32_t t, Time next_start) {
    if (node(t).right == kNil) {
        node(t).gap = next_start - node(t).end;
    } else {
        set_last_gap(node(t).right, next_start);
    }
    pull(t);
}

Time ReservationTable::first_start(std::int32_t t) const {
    while (node(t).left != kNil) t = node(t).left;
    return node(t).start;
}

// Frees every node of subtree t, widening [lo, hi) to cover its blocks.
void ReservationTable::release(std::int32_t t, Time& lo, Time& hi) {
    if (t == kNil) return;
    lo = std::min(lo, node(t).start);
    hi = std::max(hi, node(t).end);
    release(node(t).left, lo, hi);
    release(node(t).right, lo, hi);
    free_.push_back(t);
    --blocks_;
}

std::int32_t ReservationTable::make_node(Time start, Time end, Time gap) {
    // splitmix64: a fixed sequence, so the tree's shape (and memory use) repeats from run to run.
    priority_state_ += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = priority_state_;
    z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
    Node n;
    n.start = start;
    n.end = end;
    n.gap = gap;
    n.max_gap = gap;
    n.priority = static_cast<std::uint32_t>(z >> 32U);
    ++blocks_;
    if (!free_.empty()) {
        const std::int32_t t = free_.back();
        free_.pop_back();
        node(t) = n;
        return t;
    }
    nodes_.push_back(n);
    return static_cast<std::int32_t>(nodes_.size() - 1);
}

void ReservationTable::insert(std::int32_t c, const Booking& b) {
    const auto ci = static_cast<std::size_t>(c);
    LOOM_DEBUG_ASSERT(!conflict_end(c, b.start, b.end), "reservation table: overlapping booking");
    Channel& ch = channels_[ci];
    ch.bookings.emplace_hint(ch.bookings.end(), b.start, b);
    ++size_;

    // Merge with every block closer than the minimum gap on either side: `mid` holds the blocks whose end is
    // within `gap` before b.start (end > start - gap) up to the last one starting within `gap` after b.end.
    const Time gap = min_gap_[ci];
    std::int32_t lo = kNil;
    std::int32_t rest = kNil;
    std::int32_t mid = kNil;
    std::int32_t hi = kNil;
    split(ch.root, b.start - gap, true, lo, rest);
    split(rest, b.end + gap, false, mid, hi);
    Time start = b.start;
    Time end = b.end;
    release(mid, start, end);
    const std::int32_t n = make_node(start, end, hi == kNil ? Time::max() : first_start(hi) - end);
    if (lo != kNil) set_last_gap(lo, start);
    if (hi == kNil) ch.last_end = end;
    ch.root = merge(merge(lo, n), hi);
}

}  // namespace loom::sched::detail
