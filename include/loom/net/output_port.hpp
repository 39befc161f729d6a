// The packet-link layer's sending end: an output port of a component that carries variable-size packets of one
// payload type over one link, timed by base::LinkTiming, with queues, drop accounting and faults (PortEngine).
// The port owns the payload of every packet it carries; events carry a 32-bit handle into that storage.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

#include "loom/base/link_timing.hpp"
#include "loom/net/packet.hpp"
#include "loom/net/port_engine.hpp"
#include "loom/net/port_config.hpp"
#include "loom/sim/context.hpp"

namespace loom::net {

template <class Payload, class Header>
class InputPort;

// A member of the sending component, bound to one InputPort<Payload> by net::connect. send() copies the packet
// into one of the port's slots (so the sender may reuse or change its own copy at once), and the receiver reads
// it there at the arrival time (only reads; it copies what it keeps): no component writes another's payloads,
// and no pool spans a model.
//
// Payload choice: a template on a trivially copyable type (checked), not fixed-size byte blobs. A slot is
// exactly sizeof(Packet<Payload>), copies are memcpy-sized and typed, the event stays 24 bytes (the handle is
// its argument), and a model with several kinds of message uses a small tagged struct or one port per kind.
// Keep payloads small (tens of bytes): a slot lives until the packet (and any duplicate) has arrived.
// `Header` NoHeader: the payload is the whole per-hop record and send() is given its size; a packet of a
// power-of-two size up to 64 bytes then has a slot aligned to that size (one cache line per hop, not two).
template <class Payload, class Header = PacketHeader>
class alignas(64) OutputPort {
    static_assert(std::is_trivially_copyable_v<Payload>, "port payloads are plain data");

public:
    using PacketType = Packet<Payload, Header>;

    OutputPort(sim::Context& ctx, std::string_view name, const LinkTiming& timing, const PortConfig& config,
               std::uint64_t stream = 0, const DropReasons* reasons = nullptr)
        : engine_(ctx, name, timing, config, stream, reasons) {
        engine_.set_slot_storage(&OutputPort::grow_to, this);
    }

    // Sends `packet` (its header.bytes sets its size on the wire) through queue `queue` (0 = highest priority;
    // ignored without queues). See SendResult; a Collision is the caller's error to report.
    SendResult send(const PacketType& packet, std::uint32_t queue = 0) {
        return send(packet, packet.header.bytes, queue);
    }
    // The same with the size given apart (a NoHeader packet).
    SendResult send(const PacketType& packet, std::int64_t bytes, std::uint32_t queue) {
        const PortEngine::Sending s = engine_.send(bytes, queue);
        std::memcpy(static_cast<void*>(&slot(s.handle).packet), &packet, sizeof(PacketType));
        return s.result;
    }
    // A NoHeader packet given as its payload (no Packet built around it by the caller): one copy, into the slot.
    SendResult send(const Payload& payload, std::int64_t bytes, std::uint32_t queue)
        requires std::is_same_v<Header, NoHeader>
    {
        const PortEngine::Sending s = engine_.send(bytes, queue);
        std::memcpy(static_cast<void*>(&slot(s.handle).packet.payload), &payload, sizeof(Payload));
        return s.result;
    }
    // The same, then `edit(payload)` on the slot's copy before anyone reads it (a router's TTL decrement): the
    // sender forwards what it received without a copy of its own.
    template <class Edit>
    SendResult send_edited(const Payload& payload, std::int64_t bytes, std::uint32_t queue, Edit&& edit)
        requires std::is_same_v<Header, NoHeader>
    {
        const PortEngine::Sending s = engine_.send(bytes, queue);
        Payload& copy = slot(s.handle).packet.payload;
        std::memcpy(static_cast<void*>(&copy), &payload, sizeof(Payload));
        edit(copy);
        return s.result;
    }
    // Counts a packet the owner refused here (MTU, no route, overload) as sent and dropped for `reason`.
    void refuse(DropReason reason) { engine_.refuse(reason); }

    PortEngine& engine() { return engine_; }
    const PortEngine& engine() const { return engine_; }

private:
    friend class InputPort<Payload, Header>;
    template <class P, class H>
    friend void connect(sim::Simulator& sim, OutputPort<P, H>& from, InputPort<P, H>& to);

    static constexpr std::size_t kSlotAlign =
        std::has_single_bit(sizeof(PacketType)) && sizeof(PacketType) <= 64 ? sizeof(PacketType) : alignof(PacketType);
    struct alignas(kSlotAlign) Slot {
        PacketType packet;
    };

    // Slot `h` of a send (the engine made room for it first): its address from the engine's first line. The
    // copy in is a memcpy: a member-wise copy of a padded payload is one load and store per field.
    Slot& slot(std::uint32_t h) { return static_cast<Slot*>(engine_.slot_base())[h]; }
    // The engine's grow call: room for `n` slots; the engine and the connected InputPort learn where they are.
    static void grow_to(void* self, std::uint32_t n) {
        auto* port = static_cast<OutputPort*>(self);
        port->slots_.resize(n);
        port->engine_.set_slot_base(port->slots_.data());
        if (port->peer_slots_ != nullptr) *port->peer_slots_ = port->slots_.data();
    }

    // The engine first: its first cache line and its wire's are what a send touches (the port is aligned to a
    // 64-byte line), with the slot storage's address among them; the slot vector itself is read only to grow.
    PortEngine engine_;
    std::vector<Slot> slots_;
    const Slot** peer_slots_ = nullptr;  // the connected InputPort's copy of slots_.data() (net::connect)
};

}  // namespace loom::net
