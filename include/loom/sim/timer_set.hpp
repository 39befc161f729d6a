// Many deadlines on one kernel timer: an indexed 4-ary min-heap of (expiry, arming order) per component, for
// components that hold 100,000+ timers (retransmissions, idle timeouts). Re-arming or cancelling a deadline
// moves it inside the heap and leaves nothing behind in the kernel's queue. A heap entry is 16 bytes and the
// four children of a node share one 64-byte line (the array is line-aligned with three entries in front), so a
// level of a sift reads one line of entries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "loom/base/units.hpp"
#include "loom/sim/component.hpp"
#include "loom/sim/context.hpp"
#include "loom/sim/event.hpp"
#include "loom/sim/timer.hpp"

namespace loom::sim {

// A member of the component it calls (`void on_expiry(std::uint32_t id)`). Deadlines are named by dense ids
// the owner chooses (a connection's slot, a flow's index); the set grows to the largest id armed.
//   arm_at(id, t) / arm_in(id, d)   (re)arm deadline `id` for t >= now; a pending expiry of `id` is replaced.
//   cancel(id)                      `id` will not fire; no-op when it is not armed.
// Costs: arm, re-arm and cancel are O(log n) moves inside the heap; no kernel event is pushed unless the
// earliest deadline moves EARLIER than the kernel timer's expiry (then the one kernel timer is re-armed, and
// its superseded expiry is the only stale entry: at most one per such decrease, none per re-arm to a later
// time). When the earliest deadline moves later or goes away, the kernel timer stays where it is and, on
// firing with nothing due, re-arms itself at the new earliest (counted in early_wakeups()).
// Firing: at time t (in the set's phase, Phase::Timer by default) every deadline with expiry t fires, in
// the order of arming (ties by earliest arm_* call), each disarmed before its handler runs; a handler may
// arm or cancel any id, and an id armed for t itself fires in the same round.
class TimerSet {
public:
    template <class C, auto Method>
    TimerSet(Context& ctx, C* owner, Handler<Method>, Phase phase = Phase::Timer)
        : ctx_(&ctx), owner_(owner), call_(&TimerSet::call<C, Method>),
          kernel_(ctx, this, handler<&TimerSet::on_kernel_timer>, phase) {}
    TimerSet(const TimerSet&) = delete;
    TimerSet& operator=(const TimerSet&) = delete;

    void arm_at(std::uint32_t id, Time when);
    void arm_in(std::uint32_t id, Time delay) { arm_at(id, Time::ps(ctx_->now_ps() + delay.count())); }
    void cancel(std::uint32_t id);

    bool armed(std::uint32_t id) const { return id < pos_.size() && pos_[id] != kNotArmed; }
    // Expiry of `id`; `id` must be armed.
    Time expiry(std::uint32_t id) const { return Time::ps(static_cast<std::int64_t>(at(pos_[id]).time)); }
    std::size_t size() const { return size_ - (root_pending_ ? 1 : 0); }  // armed deadlines
    bool empty() const { return size() == 0; }
    // The earliest armed expiry (Time::max() when none).
    Time next_expiry() const;
    // Reserves room for ids < n (optional: arming grows it).
    void reserve(std::uint32_t n);

    std::uint64_t fired() const { return fired_; }                  // handler calls
    std::uint64_t kernel_arms() const { return kernel_arms_; }      // kernel events pushed
    std::uint64_t early_wakeups() const { return early_wakeups_; }  // kernel firings with nothing due
    // Tests: the next arming's order number (renumbering happens when it reaches 2^32).
    void set_next_order_for_test(std::uint64_t seq) { next_seq_ = seq; }

private:
    static constexpr std::uint32_t kNotArmed = 0xffff'ffffU;
    static constexpr unsigned kArity = 4;
    // Entries in front of node 0, so that the children of node i (4i+1 .. 4i+4) start a 64-byte line.
    static constexpr std::uint32_t kFront = kArity - 1;
    // (expiry, arming order, id), compared as one 128-bit integer: `order` is seq << 32 | id, and seq is unique
    // among armed deadlines, so the id never decides.
    struct Entry {
        std::uint64_t time;   // ps (never negative)
        std::uint64_t order;  // arming order (seq, 32 bits) above the id
        std::uint32_t id() const { return static_cast<std::uint32_t>(order); }
    };
    static_assert(sizeof(Entry) == 16 && 64 % sizeof(Entry) == 0);
    static bool less(const Entry& a, const Entry& b) {
        __extension__ using U128 = unsigned __int128;
        return ((static_cast<U128>(a.time) << 64) | a.order) < ((static_cast<U128>(b.time) << 64) | b.order);
    }

    template <class C, auto Method>
    static void call(void* owner, std::uint32_t id) {
        (static_cast<C*>(owner)->*Method)(id);
    }
    void on_kernel_timer();
    void sift_up(std::uint32_t i, Entry e);
    void sift_down(std::uint32_t i, Entry e);
    // Removes the earliest deadline (node 0): its hole goes down the smaller children to a leaf, where the last
    // entry fills it and rises (it is among the latest, so it seldom moves).
    void pop_front();
    // Node 0's hole taken down the smaller children of the first n nodes to a leaf; returns the leaf.
    std::uint32_t descend(std::uint32_t n);
    Entry& at(std::uint32_t i) { return heap_[i]; }
    const Entry& at(std::uint32_t i) const { return heap_[i]; }
    void place(std::uint32_t i, const Entry& e) {
        heap_[i] = e;
        pos_[e.id()] = i;
    }
    void remove_at(std::uint32_t i);
    void grow();
    // Renumbers the arming order of the armed deadlines 0 .. n-1, in the same order, when seq would pass 32 bits.
    void renumber();
    // Arms the kernel timer at the earliest deadline if that is earlier than its pending expiry.
    void update_kernel();
    [[noreturn]] void reject(std::uint32_t id, Time when) const;

    struct Free {
        void operator()(Entry* p) const;
    };

    Context* ctx_;
    void* owner_;
    void (*call_)(void*, std::uint32_t);
    Timer kernel_;
    Entry* heap_ = nullptr;  // node 0; the block starts kFront entries before it, 64-byte aligned
    std::uint32_t size_ = 0;
    std::uint32_t capacity_ = 0;  // nodes the block holds
    std::unique_ptr<Entry[], Free> block_;
    std::vector<std::uint32_t> pos_;  // id -> heap index, kNotArmed when not armed
    std::uint64_t next_seq_ = 0;      // below 2^32 (renumber)
    bool firing_ = false;
    // While a handler runs, the deadline it fires for still sits at node 0 (disarmed: its position is kNotArmed):
    // re-arming it there replaces it by one sift from the top instead of a removal and an insertion. Nothing
    // can pass it, it is the smallest entry. Removed after the handler when it was not re-armed.
    bool root_pending_ = false;
    std::uint32_t firing_id_ = kNotArmed;
    std::uint64_t fired_ = 0, kernel_arms_ = 0, early_wakeups_ = 0;
};

}  // namespace loom::sim
