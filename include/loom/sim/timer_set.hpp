// Many deadlines on one kernel timer: an indexed 4-ary min-heap of (expiry, arming order) per component, for
// components that hold 100,000+ timers (retransmissions, idle timeouts). Re-arming or cancelling a deadline
// moves it inside the heap and leaves nothing behind in the kernel's queue.
#pragma once

#include <cstdint>
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
    Time expiry(std::uint32_t id) const { return Time::ps(heap_[pos_[id]].time); }
    std::size_t size() const { return heap_.size(); }  // armed deadlines
    bool empty() const { return heap_.empty(); }
    // The earliest armed expiry (Time::max() when none).
    Time next_expiry() const { return heap_.empty() ? Time::max() : Time::ps(heap_.front().time); }
    // Reserves room for ids < n (optional: arming grows it).
    void reserve(std::uint32_t n);

    std::uint64_t fired() const { return fired_; }                  // handler calls
    std::uint64_t kernel_arms() const { return kernel_arms_; }      // kernel events pushed
    std::uint64_t early_wakeups() const { return early_wakeups_; }  // kernel firings with nothing due

private:
    static constexpr std::uint32_t kNotArmed = 0xffff'ffffU;
    static constexpr unsigned kArity = 4;
    struct Entry {
        std::int64_t time;   // ps
        std::uint64_t seq;   // arming order: ties fire first-armed first
        std::uint32_t id;
    };
    static bool less(const Entry& a, const Entry& b) {
        return a.time < b.time || (a.time == b.time && a.seq < b.seq);
    }

    template <class C, auto Method>
    static void call(void* owner, std::uint32_t id) {
        (static_cast<C*>(owner)->*Method)(id);
    }
    void on_kernel_timer();
    void sift_up(std::uint32_t i);
    void sift_down(std::uint32_t i);
    void place(std::uint32_t i, const Entry& e) {
        heap_[i] = e;
        pos_[e.id] = i;
    }
    void remove_at(std::uint32_t i);
    // Arms the kernel timer at the earliest deadline if that is earlier than its pending expiry.
    void update_kernel();
    [[noreturn]] void reject(std::uint32_t id, Time when) const;

    Context* ctx_;
    void* owner_;
    void (*call_)(void*, std::uint32_t);
    Timer kernel_;
    std::vector<Entry> heap_;
    std::vector<std::uint32_t> pos_;  // id -> heap index, kNotArmed when not armed
    std::uint64_t next_seq_ = 0;
    bool firing_ = false;
    std::uint64_t fired_ = 0, kernel_arms_ = 0, early_wakeups_ = 0;
};

}  // namespace loom::sim
