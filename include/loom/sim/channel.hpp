// Any-to-any channels: a fixed group of endpoints (PHOLD's logical processes, a switch fabric abstracted to
// its latency) any of which can send to any other, each send taking at least the channel's minimum latency.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "loom/base/units.hpp"
#include "loom/sim/component.hpp"
#include "loom/sim/context.hpp"
#include "loom/sim/event.hpp"
#include "loom/sim/port.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/sim/traffic.hpp"

namespace loom::sim {

class ChannelPort;

// Created by Simulator::add_channel. Endpoint i's handler is slot base + i, so a send addresses its
// destination with one add. The minimum latency is the channel's lookahead.
class Channel {
public:
    Channel(Simulator& sim, std::string path, std::uint32_t endpoints, Time min_latency);
    Channel(const Channel&) = delete;
    Channel& operator=(const Channel&) = delete;

    const std::string& path() const { return path_; }
    std::uint32_t size() const { return static_cast<std::uint32_t>(endpoints_.size()); }
    Time min_latency() const { return min_latency_; }
    // The port attached at `index`, nullptr if none yet.
    const ChannelPort* endpoint(std::uint32_t index) const { return endpoints_.at(index); }
    // Sums over the endpoints.
    TrafficTally sent() const;
    TrafficTally received() const;
    Occupancy occupancy(Time end) const { return sim::occupancy(sent(), received(), end); }
    // Throws InternalError naming the channel and the first endpoint index with no port attached.
    void check_bound() const;

private:
    friend class ChannelPort;

    std::string path_;
    Time min_latency_;
    std::uint32_t base_slot_;
    std::vector<ChannelPort*> endpoints_;
};

// A component's endpoint on a channel. Arrivals call the owner's handler with the event's argument during
// Phase::Delivery; send(to, arg, delay) needs delay >= the channel's minimum latency and to < size()
// (otherwise InternalError naming the port).
class ChannelPort : public PortBase {
public:
    template <class C, auto Method>
    ChannelPort(Context& ctx, std::string_view name, C* owner, Handler<Method>)
        : PortBase(ctx, name),
          ctx_(&ctx),
          owner_(owner),
          deliver_(sim_->queue_kind() == QueueKind::Radix ? &ChannelPort::deliver_batch<C, Method>
                                                          : &ChannelPort::deliver<C, Method>) {}

    // Binds this port as endpoint `index` of `channel` (once; the index must be free).
    void attach(Channel& channel, std::uint32_t index);

    void send(std::uint32_t to, std::uint32_t arg, Time delay) {
        if (delay < min_latency_ || to >= size_) [[unlikely]] reject(to, delay);
        // The tally first: nothing of the port is needed after the push (a tail call where send ends a handler).
        const std::int64_t now = sim_->now_ps();
        const std::uint64_t key = ctx_->next_key(Phase::Delivery);
        sent_.note(now);
        sim_->push_channel(now + delay.count(), key, base_slot_ + to, arg);
    }

    std::uint32_t index() const { return index_; }
    std::uint32_t channel_size() const { return size_; }
    Time min_latency() const { return min_latency_; }  // Time::max() while unattached
    const TrafficTally& sent() const { return sent_; }
    const TrafficTally& received() const { return received_; }

private:
    template <class C, auto Method>
    static void deliver(void* obj, const Event& e) {
        auto* self = static_cast<ChannelPort*>(obj);
        self->received_.note(e.time);
        (static_cast<C*>(self->owner_)->*Method)(e.arg);
    }
    // The trampoline with the radix queue (chosen when the port is built, so that the other queue kinds run
    // deliver unchanged): delivers the event, then the following events of the current window while they are
    // for endpoints with this same trampoline (Simulator::next_in_batch), without returning to the run loop.
    // Flattened: the handler and what it calls in its own translation unit are inlined into the batch loop
    // (g++ left the handler out of line here, and inlining it alone left its helpers out of line, which cost
    // more than the call: PHOLD 261.8 -> 256.8 instructions per event with it). The handler is called from
    // one place (the first event goes through the same loop as the rest), so it is inlined once.
    template <class C, auto Method>
    [[gnu::flatten]] static void deliver_batch(void* obj, const Event& first) {
        auto* self = static_cast<ChannelPort*>(obj);
        Simulator& sim = *self->sim_;
        Simulator::Batch batch = sim.begin_batch<&ChannelPort::deliver_batch<C, Method>>();  // before the first handler: no handler changes it
        const Event* e = &first;
        try {
            for (;;) {
                self->received_.note(e->time);
                (static_cast<C*>(self->owner_)->*Method)(e->arg);
                void* next = nullptr;
                e = sim.next_in_batch<&ChannelPort::deliver_batch<C, Method>>(batch, next);
                if (e == nullptr) break;
                self = static_cast<ChannelPort*>(next);
            }
        } catch (...) {
            sim.end_batch(batch);
            throw;
        }
        sim.end_batch(batch);
    }
    [[noreturn]] void reject(std::uint32_t to, Time delay) const;

    // Hot (with PortBase's 16 bytes: 80 bytes touched by send and deliver).
    Context* ctx_;
    void* owner_;
    std::uint32_t base_slot_ = 0;
    std::uint32_t size_ = 0;
    Time min_latency_ = Time::max();
    TrafficTally sent_;
    TrafficTally received_;
    // Cold.
    HandlerFn deliver_;
    std::uint32_t index_ = 0;
};

}  // namespace loom::sim
