// Cancellable, re-armable timers: one handler slot and a generation number each, so arming is one queue
// push and cancelling is a store; a cancelled or superseded expiry is discarded when it reaches the front.
#pragma once

#include <cstdint>

#include "loom/base/units.hpp"
#include "loom/sim/component.hpp"
#include "loom/sim/context.hpp"
#include "loom/sim/event.hpp"
#include "loom/sim/simulator.hpp"

namespace loom::sim {

// A member of the component it calls (`void on_timeout()`). At most one expiry is live at a time:
//   arm_at(t) / arm_in(d)  (re)arm for t >= now (d >= 0); a pending expiry is superseded.
//   cancel()               the pending expiry will not fire; no-op when not armed (e.g. after it fired).
// The handler runs in the timer's phase (Phase::Timer by default: after the deliveries of the same time) and
// the timer is already disarmed then, so it may re-arm itself. Superseded expiries stay in the queue until
// their time and are dropped there (counted as "timer_events_discarded"): removal would cost every queue a
// locate operation, while the stale entry costs one pop. Generations are 32-bit; a stale expiry could only
// be mistaken for a live one after exactly 2^32 re-arms while it is still pending.
class Timer {
public:
    template <class C, auto Method>
    Timer(Context& ctx, C* owner, Handler<Method>, Phase phase = Phase::Timer)
        : sim_(&ctx.sim()), ctx_(&ctx), owner_(owner), phase_(phase),
          slot_(ctx.sim().add_slot(&Timer::fire<C, Method>, this, &ctx)) {}
    Timer(const Timer&) = delete;
    Timer& operator=(const Timer&) = delete;

    void arm_at(Time when) {
        if (when.count() < ctx_->now_ps()) [[unlikely]] reject(when);
        ++generation_;
        armed_ = true;
        expiry_ = when;
        sim_->push(when.count(), ctx_->next_key(phase_), slot_, generation_);
    }
    void arm_in(Time delay) { arm_at(Time::ps(ctx_->now_ps() + delay.count())); }
    void cancel() { armed_ = false; }

    bool armed() const { return armed_; }
    Time expiry() const { return expiry_; }  // of the last arming
    // The handler slot its expiries target (for Simulator::set_slot_prefetch: a hook gets this timer as obj).
    std::uint32_t slot() const { return slot_; }

private:
    template <class C, auto Method>
    static void fire(void* obj, const Event& e) {
        auto* self = static_cast<Timer*>(obj);
        if (!self->armed_ || e.arg != self->generation_) {
            self->sim_->note_stale_timer_event();
            return;
        }
        self->armed_ = false;
        (static_cast<C*>(self->owner_)->*Method)();
    }
    [[noreturn]] void reject(Time when) const;

    Simulator* sim_;
    Context* ctx_;
    void* owner_;
    Phase phase_;
    bool armed_ = false;
    std::uint32_t generation_ = 0;
    std::uint32_t slot_;
    Time expiry_;
};

}  // namespace loom::sim
