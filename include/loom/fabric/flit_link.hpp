// One direction of a fabric channel (flits, or the credits flowing back): a FIFO delay line of timestamped
// 32-bit entries plus the sim link that wakes the receiver, so a busy channel costs no kernel event per flit.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/base/assert.hpp"
#include "loom/base/units.hpp"
#include "loom/sim/port.hpp"

namespace loom::fabric {

// The sender pushes (arrival cycle, payload) entries in non-decreasing arrival order, each arrival at least the
// channel's latency after the push (the lookahead); the receiver pops them at or after their arrival. The wake
// link (sender's OutPort -> receiver's InPort, same minimum latency) carries one event, timed at the entry's
// arrival, for every push onto an empty line. Contract of the receiver: whenever it needs an entry that is in
// the line it arms its own timer for the front entry's arrival; when the line is empty it relies on the next
// push's wake event. So a channel busy with back-to-back flits costs ring writes and reads, not kernel events,
// and the kernel queue holds a few events per active component instead of one per flit in flight.
// Partitioning: a line whose ends are on different processes ships its pushes at window boundaries (every
// entry arrives at least one latency after its push, which is the lookahead).
//
// The ring is shared; each end keeps its own Cursor (ring, slot, mask) and finds the other end's progress in
// the slots themselves: an occupied slot has its top arrival bit set and the reader clears each slot it pops.
// So the reader sees an entry by reading the slot it needs anyway, and the writer sees a full ring (its next
// slot occupied) or an empty line (its previous slot cleared) the same way. An end with many lines (a router)
// keeps the cursors next to its own per-port state (adopt_reader, writer_cursor + push_at) and then never
// touches the FlitLink object on the common path; other ends use the cursors kept here. A line has one writer
// and one reader. Entries keep the arrival cycle modulo 2^31 (8 bytes each): an entry is never in flight for
// 2^30 cycles. Aligned to a cache line.
class alignas(64) FlitLink {
public:
    struct Cursor {
        std::uint64_t* ring = nullptr;
        std::uint32_t pos = 0;   // writer: the next free slot; reader: the front slot
        std::uint32_t mask = 0;  // capacity - 1 (a power of two)
    };

    FlitLink() : storage_(kInitial, 0) {
        reader_own_ = writer_own_ = Cursor{storage_.data(), 0, kInitial - 1};
        reader_ = &reader_own_;
    }
    FlitLink(const FlitLink&) = delete;
    FlitLink& operator=(const FlitLink&) = delete;

    // The sender's wake port (connected by the builder to the receiver's wake InPort).
    void bind(sim::OutPort& wake) { wake_ = &wake; }
    // The reader keeps its cursor at `c` from now on (before the first push; `c` must outlive the line's use).
    void adopt_reader(Cursor& c) {
        c = *reader_;
        reader_ = &c;
    }
    // A writer cursor for push_at(), for a writer that keeps its own (before the first push; then push() is not
    // used on this line).
    Cursor writer_cursor() const { return writer_own_; }

    // `delay`: from now to `arrival` (the wake event's delay when the line is empty).
    [[gnu::always_inline]] void push(std::int64_t arrival, std::uint32_t payload, Time delay) {
        push_at(writer_own_, arrival, payload, delay);
        ++pushed_;
    }
    [[gnu::always_inline]] void push_at(Cursor& w, std::int64_t arrival, std::uint32_t payload, Time delay) {
        if (w.ring[w.pos] != 0) [[unlikely]] grow(w);
        if (w.ring[(w.pos - 1) & w.mask] == 0) wake_->send(0, delay);
        w.ring[w.pos] = (std::uint64_t{payload} << 32) | kOccupied | (static_cast<std::uint32_t>(arrival) & kArrivalBits);
        w.pos = (w.pos + 1) & w.mask;
    }

    // Reader side, on a cursor (the line's own or an adopted one).
    static bool has_front(const Cursor& r) { return r.ring[r.pos] != 0; }
    // The front entry's arrival cycle, given the current cycle. Requires has_front(r).
    static std::int64_t front_arrival(const Cursor& r, std::int64_t now) { return arrival_of(r.ring[r.pos], now); }
    static std::uint32_t take(Cursor& r) {
        const std::uint64_t e = r.ring[r.pos];
        r.ring[r.pos] = 0;
        r.pos = (r.pos + 1) & r.mask;
        return static_cast<std::uint32_t>(e >> 32);
    }

    bool empty() const { return !has_front(*reader_); }
    // Entries in the line (a scan: for checks and short lines).
    std::uint32_t size() const {
        const Cursor& r = *reader_;
        std::uint32_t n = 0;
        while (n <= r.mask && r.ring[(r.pos + n) & r.mask] != 0) ++n;
        return n;
    }
    // Whether the front entry has arrived by `cycle`.
    bool ready(std::int64_t cycle) const {
        const std::uint64_t e = reader_->ring[reader_->pos];
        return e != 0 && delta(e, cycle) >= 0;
    }
    // The front entry's arrival cycle, given the current cycle. Requires !empty().
    std::int64_t front_arrival(std::int64_t now) const { return front_arrival(*reader_, now); }
    std::uint32_t front_payload() const { return static_cast<std::uint32_t>(reader_->ring[reader_->pos] >> 32); }
    // Entry k (0 = front, k < size()).
    std::uint32_t payload_at(std::uint32_t k) const { return static_cast<std::uint32_t>(at(k) >> 32); }
    std::int64_t arrival_at(std::uint32_t k, std::int64_t now) const { return arrival_of(at(k), now); }
    std::uint32_t pop() { return take(*reader_); }
    // Payloads in flight, oldest first (checks and statistics).
    template <class F>
    void for_each_payload(F&& f) const {
        const std::uint32_t n = size();
        for (std::uint32_t k = 0; k < n; ++k) f(payload_at(k));
    }
    // Entries pushed through push() (not push_at()).
    std::uint64_t pushed() const { return pushed_; }

private:
    static constexpr std::uint32_t kInitial = 8;
    static constexpr std::uint64_t kOccupied = std::uint64_t{1} << 31;
    static constexpr std::uint32_t kArrivalBits = 0x7fffffffu;

    // Signed distance from the entry's arrival to `now`, from their low 31 bits.
    static std::int32_t delta(std::uint64_t e, std::int64_t now) {
        return static_cast<std::int32_t>((static_cast<std::uint32_t>(now) - static_cast<std::uint32_t>(e)) << 1) >> 1;
    }
    static std::int64_t arrival_of(std::uint64_t e, std::int64_t now) { return now - delta(e, now); }
    std::uint64_t at(std::uint32_t k) const { return reader_->ring[(reader_->pos + k) & reader_->mask]; }
    // Full: the writer's slot is the oldest entry (the reader's front). Double the ring, oldest entry first.
    [[gnu::noinline, gnu::cold]] void grow(Cursor& w) {
        const std::uint32_t cap = w.mask + 1;
        std::vector<std::uint64_t> bigger(std::size_t{cap} * 2, 0);
        for (std::uint32_t k = 0; k < cap; ++k) bigger[k] = w.ring[(w.pos + k) & w.mask];
        storage_.swap(bigger);
        w = Cursor{storage_.data(), cap, 2 * cap - 1};
        *reader_ = Cursor{storage_.data(), 0, 2 * cap - 1};
    }

    Cursor writer_own_;   // push()'s cursor
    Cursor reader_own_;   // the reader's cursor until adopt_reader()
    Cursor* reader_ = nullptr;
    sim::OutPort* wake_ = nullptr;
    std::uint64_t pushed_ = 0;
    std::vector<std::uint64_t> storage_;
};

}  // namespace loom::fabric
