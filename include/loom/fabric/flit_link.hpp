// One direction of a fabric channel (flits, or the credits flowing back): a FIFO delay line of timestamped
// 32-bit entries plus the wake-up it sends the receiver, so a busy channel costs no kernel event per flit.
#pragma once

#include <cstdint>

#include "loom/base/assert.hpp"
#include "loom/base/units.hpp"
#include "loom/sim/channel.hpp"

namespace loom::fabric {

// The sender pushes (arrival cycle, payload) entries in non-decreasing arrival order, each arrival at least the
// channel's latency after the push (the lookahead); the receiver pops them at or after their arrival. The wake
// link (sender's OutPort -> receiver's InPort, same minimum latency) carries one event, timed at the entry's
// arrival, for every push onto an empty line. The wake-ups of a run travel on one any-to-any sim channel
// ("fabric.wake": an endpoint per router and terminal, each line naming its receiver and what to wake), so a
// router has one port instead of four per channel; the channel's minimum latency is the shortest line's. Contract of the receiver: whenever it needs an entry that is in
// the line it arms its own timer for the front entry's arrival; when the line is empty it relies on the next
// push's wake event. So a channel busy with back-to-back flits costs ring writes and reads, not kernel events,
// and the kernel queue holds a few events per active component instead of one per flit in flight.
// Partitioning: a line whose ends are on different processes ships its pushes at window boundaries (every
// entry arrives at least one latency after its push, which is the lookahead).
// Entries keep the arrival cycle modulo 2^32 (8 bytes each): an entry is never in flight for 2^31 cycles.
// Aligned to a cache line: the sender's push and the receiver's pop touch the header and one ring line.
class alignas(64) FlitLink {
public:
    FlitLink() = default;
    FlitLink(const FlitLink&) = delete;
    FlitLink& operator=(const FlitLink&) = delete;

    FlitLink(FlitLink&&) = delete;
    ~FlitLink() { delete[] ring_; }

    // The sender's endpoint on the wake channel, the receiver's endpoint index and the argument it is woken with.
    void bind(sim::ChannelPort& wake, std::uint32_t to, std::uint32_t arg) {
        wake_ = &wake;
        to_ = to;
        arg_ = arg;
    }

    // `delay`: from now to `arrival` (the wake event's delay when the line is empty).
    [[gnu::always_inline]] void push(std::int64_t arrival, std::uint32_t payload, Time delay) {
        if (size_ == capacity_) grow();
        if (size_ == 0) wake_->send(to_, arg_, delay);
        ring_[(head_ + size_) & (capacity_ - 1)] = (std::uint64_t{payload} << 32) | static_cast<std::uint32_t>(arrival);
        ++size_;
        ++pushed_;
    }
    bool empty() const { return size_ == 0; }
    std::uint32_t size() const { return size_; }
    // Whether the front entry has arrived by `cycle`.
    bool ready(std::int64_t cycle) const {
        return size_ != 0 && static_cast<std::int32_t>(static_cast<std::uint32_t>(cycle) -
                                                       static_cast<std::uint32_t>(ring_[head_])) >= 0;
    }
    // The front entry's arrival cycle, given the current cycle. Requires !empty().
    std::int64_t front_arrival(std::int64_t now) const { return arrival_of(ring_[head_], now); }
    std::uint32_t front_payload() const { return static_cast<std::uint32_t>(ring_[head_] >> 32); }
    // Entry k (0 = front, k < size()).
    std::uint32_t payload_at(std::uint32_t k) const {
        return static_cast<std::uint32_t>(ring_[(head_ + k) & (capacity_ - 1)] >> 32);
    }
    std::int64_t arrival_at(std::uint32_t k, std::int64_t now) const {
        return arrival_of(ring_[(head_ + k) & (capacity_ - 1)], now);
    }
    std::uint32_t pop() {
        const std::uint32_t p = static_cast<std::uint32_t>(ring_[head_] >> 32);
        head_ = (head_ + 1) & (capacity_ - 1);
        --size_;
        return p;
    }
    // Payloads in flight, oldest first (checks and statistics).
    template <class F>
    void for_each_payload(F&& f) const {
        for (std::uint32_t k = 0; k < size_; ++k) f(static_cast<std::uint32_t>(ring_[(head_ + k) & (capacity_ - 1)] >> 32));
    }
    std::uint64_t pushed() const { return pushed_; }

private:
    static std::int64_t arrival_of(std::uint64_t e, std::int64_t now) {
        return now + static_cast<std::int32_t>(static_cast<std::uint32_t>(e) - static_cast<std::uint32_t>(now));
    }
    [[gnu::noinline, gnu::cold]] void grow() {
        const std::uint32_t cap = capacity_ == 0 ? 8 : capacity_ * 2;
        auto* bigger = new std::uint64_t[cap];
        for (std::uint32_t k = 0; k < size_; ++k) bigger[k] = ring_[(head_ + k) & (capacity_ - 1)];
        delete[] ring_;
        ring_ = bigger;
        capacity_ = cap;
        head_ = 0;
    }

    std::uint64_t* ring_ = nullptr;  // owned: payload << 32 | arrival mod 2^32
    std::uint32_t head_ = 0, size_ = 0, capacity_ = 0;
    std::uint32_t to_ = 0, arg_ = 0;
    sim::ChannelPort* wake_ = nullptr;
    std::uint64_t pushed_ = 0;
};

}  // namespace loom::fabric
