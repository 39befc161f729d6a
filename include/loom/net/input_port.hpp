// The packet-link layer's receiving end: copies each arriving packet out of the sending port's storage into its
// own and hands the copy to its component; net::connect binds an OutputPort to it over a link.
#pragma once

#include <cstdint>
#include <string_view>

#include "loom/net/output_port.hpp"
#include "loom/net/packet.hpp"
#include "loom/net/port_engine.hpp"
#include "loom/sim/component.hpp"
#include "loom/sim/port.hpp"
#include "loom/sim/simulator.hpp"

namespace loom::net {

// A member of the receiving component, calling `void on_packet(const Packet<Payload>&, const Delivery&)` during
// Phase::Delivery of each arrival. The packet reference is to this port's own copy, valid until the handler
// returns (the component copies what it keeps). The sending port's storage is only read, at the arrival time,
// and the sender reuses a slot only once the simulation is past its arrival.
template <class Payload>
class InputPort {
public:
    template <class C, auto Method>
    InputPort(sim::Context& ctx, std::string_view name, C* owner, sim::Handler<Method>)
        : owner_(owner), call_(&InputPort::call<C, Method>), in_(ctx, name, this, sim::handler<&InputPort::on_arrival>) {}
    InputPort(const InputPort&) = delete;
    InputPort& operator=(const InputPort&) = delete;

    std::uint64_t received() const { return received_; }
    const sim::InPort& in() const { return in_; }

private:
    template <class P>
    friend void connect(sim::Simulator& sim, OutputPort<P>& from, InputPort<P>& to);

    template <class C, auto Method>
    static void call(void* owner, const Packet<Payload>& packet, const Delivery& delivery) {
        (static_cast<C*>(owner)->*Method)(packet, delivery);
    }
    void on_arrival(std::uint32_t arg) {
        constexpr std::uint32_t kDuplicateBit = 0x8000'0000U;
        const std::uint32_t h = arg & ~kDuplicateBit;
        packet_ = from_->slots_[h];
        delivery_ = from_->engine_.delivery(h);
        delivery_.duplicate = (arg & kDuplicateBit) != 0;
        ++received_;
        call_(owner_, packet_, delivery_);
    }

    void* owner_;
    void (*call_)(void*, const Packet<Payload>&, const Delivery&);
    const OutputPort<Payload>* from_ = nullptr;
    Packet<Payload> packet_{};
    Delivery delivery_{};
    std::uint64_t received_ = 0;
    sim::InPort in_;
};

// Binds `from` to `to` over a link whose minimum latency is the LinkTiming's fixed latency (the lookahead).
template <class Payload>
void connect(sim::Simulator& sim, OutputPort<Payload>& from, InputPort<Payload>& to) {
    sim.connect(from.engine_.wire(), to.in_, from.engine_.timing().latency());
    to.from_ = &from;
}

}  // namespace loom::net
