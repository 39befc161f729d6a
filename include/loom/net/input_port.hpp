// The packet-link layer's receiving end: copies each arriving packet out of the sending port's storage into its
// own and hands the copy to its component; net::connect binds an OutputPort to it over a link.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "loom/net/output_port.hpp"
#include "loom/net/packet.hpp"
#include "loom/net/port_engine.hpp"
#include "loom/sim/component.hpp"
#include "loom/sim/port.hpp"
#include "loom/sim/simulator.hpp"

namespace loom::net {

// A member of the receiving component, calling `void on_packet(const Packet<Payload, Header>&, const Delivery&)`
// or, for a receiver with no use for the link's timing, `void on_packet(const Packet<Payload, Header>&)`, during
// Phase::Delivery of each arrival. The packet reference is valid until the handler returns (the component copies
// what it keeps): it is the sending port's slot, only read, at the arrival time, which the sender reuses only
// once the simulation is past that arrival (a port feeding its own component gets a copy instead, as its
// handler's sends could move the slots).
template <class Payload, class Header = PacketHeader>
class alignas(64) InputPort {
public:
    using PacketType = Packet<Payload, Header>;

    template <class C, auto Method>
    InputPort(sim::Context& ctx, std::string_view name, C* owner, sim::Handler<Method>)
        : ctx_(&ctx),
          reads_delivery_(!std::is_invocable_v<decltype(Method), C*, const PacketType&>),
          in_(ctx, name, this, sim::handler<&InputPort::on_arrival>),
          owner_(owner),
          call_(&InputPort::call<C, Method>) {}
    InputPort(const InputPort&) = delete;
    InputPort& operator=(const InputPort&) = delete;

    std::uint64_t received() const { return in_.received().count; }  // the InPort counts every arrival
    const sim::InPort& in() const { return in_; }

    // Optional, before init: the kernel's run loop calls `owner->prefetch_packet(packet)` (a const member of the
    // component, `C` the type the port was made with) for an arrival guessed to come next, before the current
    // event runs, so that the component can prefetch what that packet will look up (sim::PrefetchFn). The packet
    // is read from the sending port's slot and may be stale (a wrong guess, a slot already reused): the member
    // must only read, and bound-check whatever it derives from the packet.
    template <class C>
    void enable_prefetch() {
        ctx_->sim().set_slot_prefetch(in_.slot(), &InputPort::prefetch_arrival<C>);
    }

private:
    template <class P, class H>
    friend void connect(sim::Simulator& sim, OutputPort<P, H>& from, InputPort<P, H>& to);
    using Slot = typename OutputPort<Payload, Header>::Slot;

    // The handler, called with the packet and the arrival's event argument (its slot handle, bit 31: a
    // duplicate): the Delivery is read from the sending port only for handlers that take it.
    template <class C, auto Method>
    static void call(void* owner, const PacketType& packet, const InputPort& self, std::uint32_t arg) {
        if constexpr (std::is_invocable_v<decltype(Method), C*, const PacketType&>) {
            (static_cast<C*>(owner)->*Method)(packet);
        } else {
            Delivery d = self.from_->engine_.delivery(arg & ~kDuplicateBit);
            d.duplicate = (arg & kDuplicateBit) != 0;
            (static_cast<C*>(owner)->*Method)(packet, d);
        }
    }
    template <class C>
    static void prefetch_arrival(const void* obj, const sim::Event& e) {
        // The slot's object is in_; the port is at its fixed offset before it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
        constexpr std::size_t kInOffset = offsetof(InputPort, in_);
#pragma GCC diagnostic pop
        const auto* self = reinterpret_cast<const InputPort*>(static_cast<const char*>(obj) - kInOffset);
        const Slot* slots = self->slots_;
        if (slots == nullptr) return;
        static_cast<const C*>(self->owner_)->prefetch_packet(slots[e.arg & ~kDuplicateBit].packet);
    }
    void on_arrival(std::uint32_t arg) {
        const PacketType& slot = slots_[arg & ~kDuplicateBit].packet;
        if (!copy_) return call_(owner_, slot, *this, arg);
        const PacketType copy = slot;
        call_(owner_, copy, *this, arg);
    }

    static constexpr std::uint32_t kDuplicateBit = 0x8000'0000U;

    // Layout (the port is aligned to a cache line): an arrival touches the InPort's owner and tally and the
    // fields after it, all in the second line; the InPort's first 16 bytes (simulator pointer, id, read by no
    // arrival) and the cold fields fill the first. So an arrival costs one line of the receiving port, and
    // none of the sending port's (the slot storage's address is kept here; the sender updates it when it
    // grows the storage).
    const OutputPort<Payload, Header>* from_ = nullptr;
    const sim::Context* ctx_;
    bool reads_delivery_;  // the handler takes the Delivery
    // Cold padding: puts in_'s hot fields (16 bytes into it) at the start of the second line.
    std::byte pad_[64 - 16 - 2 * sizeof(void*) - 1];
    sim::InPort in_;
    void* owner_;
    void (*call_)(void*, const PacketType&, const InputPort&, std::uint32_t);
    const Slot* slots_ = nullptr;  // the sending port's slot storage
    bool copy_ = false;            // the sending port is its own component's
};

// Binds `from` to `to` over a link whose minimum latency is the LinkTiming's fixed latency (the lookahead).
template <class Payload, class Header>
void connect(sim::Simulator& sim, OutputPort<Payload, Header>& from, InputPort<Payload, Header>& to) {
    sim.connect(from.engine_.wire(), to.in_, from.engine_.timing().latency());
    to.from_ = &from;
    to.copy_ = &from.engine_.context() == to.ctx_;
    to.slots_ = from.slots_.data();
    from.peer_slots_ = &to.slots_;
    from.engine_.set_deliveries_read(to.reads_delivery_);
}

}  // namespace loom::net
