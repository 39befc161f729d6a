// The scheduler's reservation table: for every directed channel, the trains booked on it as half-open intervals
// (one entry per train, never per vector), with what the far end's port needs to stay consistent: the cycle its
// consuming instruction issues and the span its vectors occupy the clock-crossing FIFO.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "chunked_sequence.hpp"
#include "loom/base/units.hpp"

namespace loom::sched::detail {

struct Booking {
    Time start;                        // first bit of the train on the channel
    Time end;                          // last bit out: start + S(count); the channel is busy over [start, end)
    std::int64_t consumer_cycle = 0;   // issue cycle of the Forward/Receive claiming the train at the far end
    Time first_arrival;                // first vector fully arrived at the far end (without jitter)
    Time last_leave;                   // last vector out of the far end's FIFO (latest, jitter allowed)
};

// Per channel: bookings sorted by start, and "blocks": maximal spans of bookings separated by gaps shorter than
// the channel's shortest train (one unit's serialization), which no train can use. A free-time query jumps a
// block at a time, so that finding room after a long run of back-to-back trains costs one binary search. Both are
// chunked sequences (chunked_sequence.hpp): a booking lands anywhere in a channel's history, and inserting into one
// long vector moved everything after it.
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
    // List scheduling asks mostly about times past everything booked: those are answered here, without a search.
    Time first_fit(std::int32_t c, Time s, Time length) const {
        return s >= last_end_[static_cast<std::size_t>(c)] ? s : first_fit_inside(c, s, length);
    }
    // The last booking that starts before s, and the first that starts at or after s.
    const Booking* before(std::int32_t c, Time s) const;
    const Booking* after(std::int32_t c, Time s) const;
    // Both at once (one search): {before(c, s), after(c, s)}.
    std::pair<const Booking*, const Booking*> around(std::int32_t c, Time s) const;
    void insert(std::int32_t c, const Booking& b);

    // Channel c's bookings in order (a copy; for tests).
    std::vector<Booking> bookings(std::int32_t c) const { return bookings_[static_cast<std::size_t>(c)].to_vector(); }
    std::int64_t size() const { return size_; }
    // How many bookings channel c has had (they are never removed): a channel whose count is unchanged answers every
    // query as before.
    std::int64_t inserts(std::int32_t c) const { return inserts_[static_cast<std::size_t>(c)]; }
    // Whether no booking channel c got after its first `since` could touch [s, e): none ends within min_gap[c] before
    // s or starts within min_gap[c] after e (then [s, e), if it overlapped no block then, overlaps none now: a
    // booking merges only with blocks closer than min_gap). False too when those bookings are no longer logged.
    bool untouched_since(std::int32_t c, std::int64_t since, Time s, Time e) const;
    std::int64_t blocks() const;

private:
    struct Block {
        Time start;
        Time end;
    };
    std::vector<Time> min_gap_;
    std::vector<ChunkedSequence<Booking>> bookings_;
    std::vector<ChunkedSequence<Block>> blocks_;
    // By channel, the end of its last block (the least Time when it has none): first_fit()'s answer from there on.
    std::vector<Time> last_end_;
    std::int64_t size_ = 0;
    std::vector<std::int64_t> inserts_;  // by channel
    // By channel, its last kLog bookings in the order they came, as (start, end): booking k (0-based) of channel c
    // at log_[c][k % kLog]. Enough for the queries placement repeats between two transfers of one pair of TSPs.
    static constexpr std::int64_t kLog = 256;
    std::vector<std::vector<std::pair<Time, Time>>> log_;
    using BlockPos = ChunkedSequence<Block>::Pos;
    using BookingPos = ChunkedSequence<Booking>::Pos;
    // Per channel, where the last searches of its blocks and of its bookings ended: the next starts there (a hint
    // only, never changes an answer). Blocks: several fingers per channel, as searches for trains of different
    // lengths work at different places of a channel; each holds the position found and the times [lo, hi) it
    // answers (from the end of the block before to the end of the block found), an interval emptied when the channel
    // gets a booking (the position stays, as a hint).
    static constexpr std::size_t kFingers = 4;
    struct Finger {
        Time lo;
        Time hi;
        BlockPos pos;
    };
    mutable std::vector<std::array<Finger, kFingers>> block_fingers_;
    mutable std::vector<std::uint8_t> next_finger_;
    mutable std::vector<BookingPos> booking_hint_;
    BlockPos first_block_ending_after(std::int32_t c, Time s) const;
    Time first_fit_inside(std::int32_t c, Time s, Time length) const;
    BookingPos first_booking_from(std::int32_t c, Time s) const;
};

}  // namespace loom::sched::detail
