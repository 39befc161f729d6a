// The scheduler's reservation table: for every directed channel, the trains booked on it as half-open intervals
// (one entry per train, never per vector), with what the far end's port needs to stay consistent: the cycle its
// consuming instruction issues and the span its vectors occupy the clock-crossing FIFO.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "loom/base/units.hpp"

namespace loom::sched::detail {

struct Booking {
    Time start;                        // first bit of the train on the channel
    Time end;                          // last bit out: start + S(count); the channel is busy over [start, end)
    std::int64_t consumer_cycle = 0;   // issue cycle of the Forward/Receive claiming the train at the far end
    Time first_arrival;                // first vector fully arrived at the far end (without jitter)
    Time last_leave;                   // last vector out of the far end's FIFO (latest, jitter allowed)
};

// Per channel: bookings ordered by start, and "blocks": maximal spans of bookings separated by gaps shorter than
// the channel's shortest train (one unit's serialization), which no train can use. The blocks of a channel sit in
// a treap ordered by time whose nodes also know the largest gap after any block of their subtree, so that finding
// the first gap of a given length after a given time costs O(log blocks) however fragmented the channel is (a scan
// over blocks made compiling n transfers on one node cost O(n^2)); bookings sit in an ordered map, so inserting
// one in the middle costs O(log n) too. Every answer is the one the plain sorted-vector scan gives.
// Invariants kept by the scheduler (checked before insert): bookings on a channel do not overlap, their consumer
// cycles do not decrease and their FIFO spans [first_arrival, last_leave) do not overlap.
class ReservationTable {
public:
    // min_gap[c]: serialization of one unit on channel c.
    explicit ReservationTable(std::vector<Time> min_gap);

    // If [s, e) on channel c overlaps a block, the end of the first such block (the earliest a train that
    // starts at or after s could start); nullopt if [s, e) is free. Requires e - s >= min_gap[c].
    std::optional<Time> conflict_end(std::int32_t c, Time s, Time e) const;
    // The earliest t >= s at which [t, t + length) overlaps no block of channel c. Requires length >= min_gap[c].
    Time first_fit(std::int32_t c, Time s, Time length) const;
    // The last booking that starts before s, and the first that starts at or after s.
    const Booking* before(std::int32_t c, Time s) const;
    const Booking* after(std::int32_t c, Time s) const;
    void insert(std::int32_t c, const Booking& b);

    // Channel c's bookings in order of start (a copy: for tests and reports, not the scheduler's inner loop).
    std::vector<Booking> bookings(std::int32_t c) const;
    std::int64_t size() const { return size_; }
    std::int64_t blocks() const { return blocks_; }

private:
    static constexpr std::int32_t kNil = -1;
    struct Node {
        Time start;
        Time end;
        Time gap;       // start of the next block minus this block's end; Time::max() after the last block
        Time max_gap;   // the largest gap in this subtree
        std::int32_t left = kNil;
        std::int32_t right = kNil;
        std::uint32_t priority = 0;
    };
    struct Channel {
        std::int32_t root = kNil;
        Time last_end;   // end of the last block (meaningful when root != kNil)
        std::map<Time, Booking> bookings;   // keyed by start (starts are distinct: bookings do not overlap)
    };

    static constexpr Time kNoGap = Time::ps(std::numeric_limits<std::int64_t>::min());   // below any length
    Time max_gap(std::int32_t t) const { return t == kNil ? kNoGap : nodes_[static_cast<std::size_t>(t)].max_gap; }
    Node& node(std::int32_t t) { return nodes_[static_cast<std::size_t>(t)]; }
    const Node& node(std::int32_t t) const { return nodes_[static_cast<std::size_t>(t)]; }
    void pull(std::int32_t t);
    // The first block in order with end > s, and among those the first whose gap is at least `length`.
    std::int32_t first_ending_after(std::int32_t root, Time s) const;
    std::int32_t first_gap(std::int32_t t, Time s, Time length) const;
    // Splits t into blocks with end <= key and the rest (by_end), or with start < key and the rest (!by_end).
    void split(std::int32_t t, Time key, bool by_end, std::int32_t& lo, std::int32_t& hi);
    std::int32_t merge(std::int32_t a, std::int32_t b);
    void set_last_gap(std::int32_t t, Time next_start);   // the last block of t is now followed by next_start
    Time first_start(std::int32_t t) const;
    void release(std::int32_t t, Time& lo, Time& hi);
    std::int32_t make_node(Time start, Time end, Time gap);

    std::vector<Time> min_gap_;
    std::vector<Channel> channels_;
    std::vector<Node> nodes_;
    std::vector<std::int32_t> free_;
    std::uint64_t priority_state_ = 0x9E3779B97F4A7C15ULL;   // treap priorities: a fixed sequence, so runs repeat
    std::int64_t size_ = 0;
    std::int64_t blocks_ = 0;
};

}  // namespace loom::sched::detail
