// Ports and point-to-point links: an OutPort sends 32-bit payloads to the one InPort it is connected to,
// arriving no sooner than the link's minimum latency (>= 1 ps, the lookahead a partitioned run may use).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "loom/base/units.hpp"
#include "loom/sim/component.hpp"
#include "loom/sim/context.hpp"
#include "loom/sim/event.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/sim/traffic.hpp"

namespace loom::sim {

// What every port shares: its path ("<component path>.<name>", kept by the simulator: only messages need
// it), whether the builder bound it, and registration with the simulator so that init() can name any port
// left unbound. Derived ports put the fields their send/deliver paths touch right after these 16 bytes.
class PortBase {
public:
    PortBase(const PortBase&) = delete;
    PortBase& operator=(const PortBase&) = delete;

    const std::string& path() const { return sim_->port_path(id_); }
    bool bound() const { return bound_; }

protected:
    PortBase(Context& ctx, std::string_view name);
    ~PortBase() = default;

    Simulator* sim_;
    std::uint32_t id_;
    bool bound_ = false;
};

// Receiving end. Every arrival calls the owner's handler with the event's argument, during Phase::Delivery
// of the arrival time.
class InPort : public PortBase {
public:
    template <class C, auto Method>
    InPort(Context& ctx, std::string_view name, C* owner, Handler<Method>)
        : PortBase(ctx, name), owner_(owner), slot_(sim_->add_slot(&InPort::deliver<C, Method>, this, &ctx)) {}

    std::uint32_t slot() const { return slot_; }
    const TrafficTally& received() const { return received_; }

private:
    friend class Simulator;

    template <class C, auto Method>
    static void deliver(void* obj, const Event& e) {
        auto* self = static_cast<InPort*>(obj);
        self->received_.note(e.time);
        (static_cast<C*>(self->owner_)->*Method)(e.arg);
    }

    void* owner_;
    TrafficTally received_;
    std::uint32_t slot_;
};

// Sending end. send() schedules the arrival at now + delay, delay >= latency(); a shorter delay (a model
// bug: it would break the lookahead) or a send on an unbound port throws InternalError naming the port.
class OutPort : public PortBase {
public:
    OutPort(Context& ctx, std::string_view name);

    void send(std::uint32_t arg) { send(arg, latency_); }
    void send(std::uint32_t arg, Time delay) {
        if (delay < latency_) [[unlikely]] reject(delay);
        // The tally first: nothing of the port is needed after the push (a tail call where send ends a handler).
        const std::int64_t now = sim_->now_ps();
        const std::uint64_t key = ctx_->next_key(Phase::Delivery);
        sent_.note(now);
        sim_->push(now + delay.count(), key, target_, arg);
    }
    // The link's minimum latency (Time::max() while unbound).
    Time latency() const { return latency_; }
    const TrafficTally& sent() const { return sent_; }
    // The connected InPort's path ("" while unbound).
    const std::string& peer() const { return peer_; }

private:
    friend class Simulator;
    [[noreturn]] void reject(Time delay) const;

    Context* ctx_;
    std::uint32_t target_ = 0;
    Time latency_ = Time::max();
    TrafficTally sent_;
    std::string peer_;
};

}  // namespace loom::sim
