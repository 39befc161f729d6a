// Packets: a small fixed header plus a typed payload slot that a model fills with its own struct (an IP header,
// a TSP vector's value). net::OutputPort carries them in its own slots; PacketPool is a free-list store for a
// component that keeps packets itself. Either way a packet travels through events as a 32-bit handle.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "loom/base/assert.hpp"
#include "loom/base/units.hpp"
#include "loom/sim/owner.hpp"

namespace loom::net {

// Index of a packet in its pool. kNone marks "no packet".
struct PacketHandle {
    std::uint32_t index = kNone;
    static constexpr std::uint32_t kNone = 0xffff'ffffU;
    constexpr bool valid() const { return index != kNone; }
    constexpr bool operator==(const PacketHandle&) const = default;
};

// What every packet carries, whatever the model.
struct PacketHeader {
    std::uint64_t id = 0;        // unique per pool: allocation counter (deterministic)
    std::uint32_t src = 0;       // source endpoint id (model-defined numbering)
    std::uint32_t dst = 0;       // destination endpoint id
    std::int64_t bytes = 0;      // payload bytes (framing is the link's business)
    Time created;                // when the source made it
    std::uint32_t flow = 0;      // model-defined: transfer, connection or flow number
    std::uint32_t seq = 0;       // position within the flow
};

// The header of a packet whose payload is its whole per-hop record (the model keeps size and identity in the
// payload and passes the size to OutputPort::send): no bytes at all, so a 64-byte payload's port slot is one
// cache line.
struct NoHeader {};

// A packet with a model's payload. Payload must be trivially copyable so pools stay flat arrays.
template <class Payload, class Header = PacketHeader>
struct Packet {
    static_assert(std::is_trivially_copyable_v<Payload>, "packet payloads are plain data");
    [[no_unique_address]] Header header;
    Payload payload;
};
static_assert(sizeof(Packet<std::uint64_t, NoHeader>) == sizeof(std::uint64_t), "NoHeader takes no room");

// A free-list pool of packets of one payload type. Handles stay valid until released; storage grows in place
// (handles, not pointers, survive growth). Single-threaded, like the component that owns it. Bound to its
// owner (bind_owner), a debug build checks every access: a handler of another component touching it is an
// InternalError naming both (sim::Owner).
template <class Payload>
class PacketPool {
public:
    void bind_owner(const sim::Context& owner) { owner_.bind(owner); }
    const sim::Owner& owner() const { return owner_; }

    PacketHandle allocate() {
        owner_.check("a packet pool");
        std::uint32_t i;
        if (free_.empty()) {
            LOOM_ASSERT(slots_.size() < PacketHandle::kNone, "packet pool exhausted");
            i = static_cast<std::uint32_t>(slots_.size());
            slots_.emplace_back();
        } else {
            i = free_.back();
            free_.pop_back();
        }
        slots_[i] = Packet<Payload>{};
        slots_[i].header.id = next_id_++;
        ++live_;
        return PacketHandle{i};
    }
    void release(PacketHandle h) {
        owner_.check("a packet pool");
        LOOM_DEBUG_ASSERT(h.valid() && h.index < slots_.size(), "release of an invalid packet handle");
        free_.push_back(h.index);
        --live_;
    }
    Packet<Payload>& operator[](PacketHandle h) {
        owner_.check("a packet pool");
        return slots_[h.index];
    }
    const Packet<Payload>& operator[](PacketHandle h) const {
        owner_.check("a packet pool");
        return slots_[h.index];
    }

    std::uint64_t live() const { return live_; }           // allocated and not released
    std::uint64_t allocated_total() const { return next_id_; }
    std::size_t capacity() const { return slots_.size(); }

private:
    std::vector<Packet<Payload>> slots_;
    std::vector<std::uint32_t> free_;
    std::uint64_t next_id_ = 0;
    std::uint64_t live_ = 0;
    sim::Owner owner_;
};

}  // namespace loom::net
