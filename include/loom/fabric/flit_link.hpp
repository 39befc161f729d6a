// One direction of a fabric channel (flits, or the credits flowing back): a FIFO delay line of timestamped
// 32-bit entries plus the wake-up it sends the receiver, so a busy channel costs no kernel event per flit; a flit
// line also holds the records of the packets whose head flits it carries.
#pragma once

#include <algorithm>
#include <cstdint>

#include "loom/base/assert.hpp"
#include "loom/base/units.hpp"
#include "loom/fabric/fabric_packet.hpp"
#include "loom/fabric/flit.hpp"
#include "loom/sim/channel.hpp"
#include "loom/sim/owner.hpp"

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
// Records: the line is the storage of the packet records it carries (DESIGN principle 5): the sender fills a
// slot (push_record) and names it in the head flit's packet field; the receiver reads and updates the record
// there from the head's arrival on and releases the slot when it is done with it (the head leaves the router,
// or the tail reaches the terminal). Slots are reused most recently released first; a free slot holds the next
// free one's index in its `id`, so pushing and releasing touch no line but the header and the slot.
// One cache line: the sender's push and the receiver's pop touch the header and one ring line, a head flit one
// record slot more.
class alignas(64) FlitLink {
public:
    FlitLink() = default;
    FlitLink(const FlitLink&) = delete;
    FlitLink& operator=(const FlitLink&) = delete;

    FlitLink(FlitLink&&) = delete;
    ~FlitLink() {
        delete[] ring_;
        delete[] slots_;
    }

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
        ring_[wrap(head_ + size_)] = (std::uint64_t{payload} << 32) | static_cast<std::uint32_t>(arrival);
        ++size_;
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
        return static_cast<std::uint32_t>(ring_[wrap(head_ + k)] >> 32);
    }
    std::int64_t arrival_at(std::uint32_t k, std::int64_t now) const {
        return arrival_of(ring_[wrap(head_ + k)], now);
    }
    std::uint32_t pop() {
        const std::uint32_t p = static_cast<std::uint32_t>(ring_[head_] >> 32);
        if (++head_ == capacity_) head_ = 0;
        --size_;
        return p;
    }
    // Payloads in flight, oldest first (checks and statistics).
    template <class F>
    void for_each_payload(F&& f) const {
        for (std::uint32_t k = 0; k < size_; ++k) f(static_cast<std::uint32_t>(ring_[wrap(head_ + k)] >> 32));
    }

    // The receiving component: in a debug build, record()/release_record() from any other component's handler
    // throw InternalError naming both (sim::Owner).
    void bind_receiver(const sim::Context& receiver) { receiver_.bind(receiver); }
    // A free record slot for the sender to fill in place; its handle in `handle` (below Flit::kMaxPackets).
    [[gnu::always_inline]] FabricRecord& push_record(std::uint32_t& handle) {
        if (free_ == kNoSlot) [[unlikely]] grow_slots();
        handle = free_;
        FabricRecord& r = slots_[handle];
        free_ = static_cast<std::uint32_t>(r.id);
        return r;
    }
    // The record of `handle` (the receiver's).
    FabricRecord& record(std::uint32_t handle) {
        receiver_.check("a line's packet records");
        LOOM_DEBUG_ASSERT(handle < slot_count_, "a line's record read at an invalid handle");
        return slots_[handle];
    }
    // Asks the cache for the record of `handle` ahead of reading it (no access: no owner check).
    void prefetch_record(std::uint32_t handle) const { __builtin_prefetch(slots_ + handle); }
    void release_record(std::uint32_t handle) {
        receiver_.check("a line's packet records");
        LOOM_DEBUG_ASSERT(handle < slot_count_, "a line's record released at an invalid handle");
        slots_[handle].id = free_;
        free_ = handle;
    }
    // Record slots allocated (pushed at some time; a line holds as many records at once at most).
    std::uint32_t record_slots() const { return slot_count_; }
    // Entries the ring holds before it grows (the most the line held, rounded up to its growth step).
    std::uint32_t capacity() const { return capacity_; }

private:
    static constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};
    static constexpr std::uint32_t kGrowEntries = 8;  // one 64-byte cache line of 8-byte entries
    static std::int64_t arrival_of(std::uint64_t e, std::int64_t now) {
        return now + static_cast<std::int32_t>(static_cast<std::uint32_t>(e) - static_cast<std::uint32_t>(now));
    }
    // A ring position from head_ + k (k < capacity_).
    std::uint32_t wrap(std::uint32_t i) const { return i >= capacity_ ? i - capacity_ : i; }
    // The ring grows by a cache line of entries, or by an eighth once it holds more than 64, so that it stays
    // within a few percent of the most the line ever held (a line keeps its ring at that peak: doubling left
    // 30 % of the rings of the 16,512-terminal network unused).
    [[gnu::noinline, gnu::cold]] void grow() {
        const std::uint32_t eighth = (capacity_ / 8 + kGrowEntries - 1) / kGrowEntries * kGrowEntries;
        const std::uint32_t step = std::max(kGrowEntries, eighth);
        const std::uint32_t cap = capacity_ + step;
        auto* bigger = new std::uint64_t[cap];
        for (std::uint32_t k = 0; k < size_; ++k) bigger[k] = ring_[wrap(head_ + k)];
        delete[] ring_;
        ring_ = bigger;
        capacity_ = cap;
        head_ = 0;
    }
    // Adds one record slot, free (a line holds a few records at once: 2-15 on the 16,512-terminal network; growing
    // one at a time keeps each line at its peak, and hands out the same handles as growing several would).
    [[gnu::noinline, gnu::cold]] void grow_slots() {
        const std::uint32_t cap = slot_count_ + 1;
        LOOM_ASSERT(cap <= Flit::kMaxPackets, "more packets on a line than a flit can name");
        auto* bigger = new FabricRecord[cap];
        for (std::uint32_t k = 0; k < slot_count_; ++k) bigger[k] = slots_[k];
        bigger[slot_count_].id = free_;
        delete[] slots_;
        slots_ = bigger;
        free_ = slot_count_;
        slot_count_ = cap;
    }

    std::uint64_t* ring_ = nullptr;  // owned: payload << 32 | arrival mod 2^32
    FabricRecord* slots_ = nullptr;  // owned: the records (flit lines), free ones chained through `id`
    sim::ChannelPort* wake_ = nullptr;
    std::uint32_t head_ = 0, size_ = 0, capacity_ = 0;
    std::uint32_t to_ = 0, arg_ = 0;
    std::uint32_t free_ = kNoSlot;  // first free record slot
    std::uint32_t slot_count_ = 0;
    sim::Owner receiver_;
};
static_assert(sizeof(FlitLink) == 64, "a line's header is one cache line");

}  // namespace loom::fabric
