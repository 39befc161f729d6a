// The payload-independent half of an output port: queues, scheduling, the link's serialization and FEC (a
// net::Transmitter on base::LinkTiming), link-level retry, faults, drop accounting and the handles of the
// port's payload slots. OutputPort<Payload> adds the slots themselves.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "loom/base/link_timing.hpp"
#include "loom/base/units.hpp"
#include "loom/net/drop_reason.hpp"
#include "loom/net/port_config.hpp"
#include "loom/net/transmitter.hpp"
#include "loom/sim/context.hpp"
#include "loom/sim/port.hpp"
#include "loom/sim/timer.hpp"

namespace loom::stats {
class Group;
}

namespace loom::net {

// What happened to a packet handed to a port, as far as the port knows at the send.
enum class SendResult : std::uint8_t {
    Sent,       // on the wire now; its arrival (or a loss on the wire, counted by reason) is decided
    Queued,     // waiting behind others
    Dropped,    // dropped at the port (queue full, link down); counted by reason
    Collision,  // a queueless port was busy: the caller's schedule is wrong (also counted, as "collision")
};

// How a delivered packet went over the link, for receivers that time its units (a TSP train) or study it.
struct Delivery {
    std::uint64_t seq = 0;         // the port's packet number (0-based, in order of sends)
    Time start;                    // first bit of the last attempt out
    std::uint64_t first_unit = 0;  // link-wide index of the last attempt's first unit
    std::int64_t units = 0;        // units of the last attempt
    std::uint32_t attempts = 1;    // 1 + link-level replays
    bool duplicate = false;        // the second copy of a duplicated packet
};

// Contract: every packet handed to submit() ends in exactly one of delivered (an arrival event scheduled,
// counted when scheduled), dropped (by reason), queued, or on the wire; duplicates add a delivery. So at any
// time sent() + duplicated() == delivered() + drops().total() + queued() (checked by conservation()).
// One event per packet while the port is idle (the arrival); a busy port adds one wake-up per packet it
// takes from a queue. Events carry the slot handle (bit 31: duplicate copy).
class alignas(64) PortEngine {
public:
    // `name` is the port's name inside its component ("out", "port3"): the port path is "<component>.<name>".
    // `stream` seeds the FEC, jitter and fault draws; 0 means derive(run seed, port path). `reasons` names the
    // drop reasons for stats (nullptr: the built-ins only); it must outlive the port.
    PortEngine(sim::Context& ctx, std::string_view name, const LinkTiming& timing, const PortConfig& config,
               std::uint64_t stream = 0, const DropReasons* reasons = nullptr);
    PortEngine(const PortEngine&) = delete;
    PortEngine& operator=(const PortEngine&) = delete;

    // ---- used by OutputPort<Payload> ----

    // A free slot handle (slots are reused once every copy of their packet has arrived).
    std::uint32_t acquire();
    // Offers the packet in slot `handle` of `bytes` bytes to queue `queue` (ignored by a queueless port).
    SendResult submit(std::uint32_t handle, std::int64_t bytes, std::uint32_t queue);
    // acquire() and submit() in one call: the handle taken and what happened. The caller fills the slot after
    // the call (nothing reads a slot before its arrival, which is later than now; a dropped slot is free, and
    // writing it is harmless).
    struct Sending {
        std::uint32_t handle;
        SendResult result;
    };
    Sending send(std::int64_t bytes, std::uint32_t queue);
    // A queue argument meaning "the port's data queue" (set_data_queue, default 0): a sender that keeps no
    // per-port queue number passes it, and the port reads its own only off the fast path (a packet that must
    // wait), so the send reads no table of the sender's.
    static constexpr std::uint32_t kDataQueue = 0xffff'ffffU;
    void set_data_queue(std::uint32_t queue) { data_queue_ = queue; }
    std::uint32_t data_queue() const { return data_queue_; }
    // Counts a packet the owner refused at this port (MTU, no route) as sent and dropped for `reason`.
    void refuse(DropReason reason);
    std::uint32_t slots() const { return slot_count_; }
    // The owner's slot storage: `grow(owner, n)` is called when a send needs slot n - 1 for the first time (it
    // makes room for n slots and calls set_slot_base with their address); slot_base() is that address.
    void set_slot_storage(void (*grow)(void*, std::uint32_t), void* owner) {
        grow_slots_ = grow;
        slot_owner_ = owner;
    }
    void set_slot_base(void* base) { slot_base_ = base; }
    void* slot_base() const { return slot_base_; }
    // How the packet in slot `handle` went over the link; kept only while set_deliveries_read(true) (the default).
    const Delivery& delivery(std::uint32_t handle) const { return info_[handle]; }
    const sim::Context& context() const { return *ctx_; }
    // Whether the receiver reads delivery() (net::connect sets it before any send): when not, a port without
    // faults does not keep the per-slot Delivery records.
    void set_deliveries_read(bool read);

    // ---- state and control ----

    // Takes the link down (queued packets are dropped as LinkDown, later sends too) or brings it up, from
    // now on. Packets already on the wire are not affected; scheduled down times (faults.down) are.
    void set_down(bool down);
    // Down at time t: forced down, or inside one of faults.down.
    bool down_at(Time t) const;
    bool idle() const;                   // nothing queued and the link free now
    Time free_at() const { return plain_ ? Time::ps(busy_until_) : tx_.free_at(); }
    std::uint64_t units_sent() const { return plain_ ? next_index_ : tx_.units_sent(); }
    // Serialization so far: on a plain port every unit took exactly ps_per_unit_.
    Time busy_time() const {
        return plain_ ? Time::ps(static_cast<std::int64_t>(next_index_) * ps_per_unit_) : tx_.busy_time();
    }
    // Queued, no faults, no jitter, no bit errors, and a rate that times a unit in whole picoseconds: timed by
    // the port's own arithmetic (see busy_until_).
    bool plain() const { return plain_; }
    const LinkTiming& timing() const { return tx_.timing(); }
    const PortConfig& config() const { return config_; }
    const std::string& path() const { return wire_.path(); }
    // Units a packet of `bytes` bytes takes on this link.
    std::int64_t units_of(std::int64_t bytes) const;

    std::uint64_t sent() const { return sent_; }            // packets handed to the port (refused ones too)
    // Arrival events scheduled, duplicates included: the wire counts each.
    std::uint64_t delivered() const { return wire_.sent().count; }
    std::uint64_t duplicated() const { return duplicated_; }
    std::uint64_t retries() const { return retries_; }      // link-level replays
    const DropCounts& drops() const { return drops_; }
    std::uint64_t queued() const;                           // packets waiting in the queues now
    std::uint64_t queued_packets(std::uint32_t queue) const { return queues_[queue].items.size(); }
    std::int64_t queued_bytes(std::uint32_t queue) const { return queues_[queue].bytes; }
    bool conservation() const { return sent_ + duplicated_ == delivered() + drops_.total() + queued(); }
    // Writes {sent, delivered, duplicated, retries, dropped:{reason: n}, busy_ps, units, fec_corrected,
    // fec_uncorrectable} under this port's name in `group` (the owner calls it from finish()).
    void write_stats(stats::Group& group) const;

    sim::OutPort& wire() { return wire_; }

private:
    static constexpr std::uint32_t kNoSlot = 0xffff'ffffU;
    struct Item {
        std::uint32_t handle;
        std::int64_t bytes;
    };
    struct Queue {
        std::deque<Item> items;
        std::int64_t bytes = 0;
    };
    struct InFlight {
        std::int64_t arrival;  // ps: the slot is free once the simulation is past it
        std::uint32_t handle;
    };
    // Slots on the wire in order of sending, a ring of power-of-two capacity: acquire() reuses the front once it
    // has arrived (arrivals are nearly in order, so a FIFO reclaims slots promptly). 24 bytes, after the wire.
    struct InFlightRing {
        std::unique_ptr<InFlight[]> items;
        std::uint32_t capacity = 0, head = 0, count = 0;
        bool empty() const { return count == 0; }
        const InFlight& front() const { return items[head]; }
        void pop_front() {
            head = (head + 1) & (capacity - 1);
            --count;
        }
        void push_back(const InFlight& f) {
            if (count == capacity) grow();
            items[(head + count) & (capacity - 1)] = f;
            ++count;
        }
        void grow();
    };

    // acquire()'s and submit()'s bodies (inlined into them and send()) and their rare cases.
    std::uint32_t take_slot(std::int64_t now);
    std::uint32_t take_spare();
    SendResult offer(std::uint32_t handle, std::int64_t bytes, std::uint32_t queue, std::int64_t now);
    SendResult offer_general(std::uint32_t handle, std::int64_t bytes, std::uint32_t queue);
    // Puts the packet on the wire now (or drops it); returns Sent or Dropped.
    SendResult transmit(std::uint32_t handle, std::int64_t bytes);
    SendResult transmit_plain(std::uint32_t handle, std::int64_t bytes);
    // transmit_plain() on a fast port with its link free at `now`, from the hot fields.
    SendResult transmit_fast(std::uint32_t handle, std::int64_t bytes, std::int64_t now);
    // Recomputes fast_ (after a change of what it depends on).
    void refresh_fast();
    // Records slot `handle` as on the wire until `arrival` (ps): it becomes the back, the former back goes
    // to in_flight_.
    void on_wire(std::int64_t arrival, std::uint32_t handle) {
        if (back_slot_ != kNoSlot) in_flight_.push_back({back_arrival_, back_slot_});
        back_arrival_ = arrival;
        back_slot_ = handle;
    }
    // Serialization time of a train of k units on a plain port (LinkTiming::serialization).
    void drop(std::uint32_t handle, DropReason reason);
    void release(std::uint32_t handle) { free_.push_back(handle); }
    std::uint32_t pick();  // next queue to serve (some queue is non-empty)
    void on_wake();
    void arm_wake();
    bool down_during(Time from, Time to) const;

    // Hot: what a send on an idle fast port touches is the engine's first cache line (the engine, and an
    // OutputPort with it at its start, is aligned to a line) and the wire's hot fields (its first 56 bytes:
    // simulator, context, target, latency, tally), which fill the second; the in-flight ring in the third is read
    // only when the most recent packet is still on the wire.
    sim::Context* ctx_;
    void* slot_base_ = nullptr;      // the owner's slot storage (set_slot_storage; kept current as it grows)
    std::uint64_t sent_ = 0;         // also the next packet's seq
    // A plain port's serialization: its link is free from busy_until_ (ps) on. Every packet starts when it is
    // handed to the link (the link is free then) and takes its units times ps_per_unit_, exactly as
    // Transmitter::send's train arithmetic gives at such a rate; arrivals (that plus the fixed latency) are in
    // order of sending, so no train start or last arrival needs keeping.
    std::int64_t busy_until_ = 0;
    std::uint64_t next_index_ = 0;   // units sent (plain)
    // The most recent packet put on the wire (its slot is kNoSlot when none): kept here, not in in_flight_, so
    // that a port whose last packet has arrived reuses its slot without reading the ring. Older packets on the
    // wire are in in_flight_.
    std::int64_t back_arrival_ = 0;
    std::uint32_t back_slot_ = kNoSlot;
    std::int32_t fast_ps_per_unit_ = 0;  // ps_per_unit_, when fast_
    std::int32_t overhead_bytes_ = 0;    // config_.packet_overhead, when fast_
    std::int8_t unit_shift_ = -1;        // log2(unit_bytes64_) when a power of two (a shift, not a division); else -1
    // A plain port whose receiver does not read deliveries, with a power-of-two unit, a per-unit time that fits
    // 32 bits, connected, not forced down and with nothing queued: a send when its link is free is
    // transmit_fast(), from the fields above and the wire's (refresh_fast keeps it).
    bool fast_ = false;
    sim::OutPort wire_;
    // Warm: the rest of the send path (the ring when the last packet is still flying; the rest for ports that
    // are not fast).
    InFlightRing in_flight_;
    std::int64_t ps_per_unit_ = 0;   // exact serialization ps per unit, when the rate divides a unit's bits
    std::int64_t latency_ps_;        // the link's fixed latency
    std::uint64_t waiting_ = 0;      // packets in all queues
    bool plain_;                    // see plain()
    bool keep_info_ = true;         // info_ is written (the receiver reads it, or the fault draws need seq)
    bool forced_down_ = false;
    // Cold: slot bookkeeping beyond the in-flight ring, settings read only off the fast path.
    std::int64_t unit_bytes64_;      // payload bytes per unit
    std::int64_t overhead_bytes64_;  // config_.packet_overhead
    std::uint32_t slot_count_ = 0;
    std::uint32_t data_queue_ = 0;  // what kDataQueue stands for
    bool queueless_;
    bool deliveries_read_ = true;
    bool scheduled_down_ = false;  // config_.faults.down is not empty
    bool faulty_ = false;          // some fault (loss, delay, duplicates, reordering, down times) is configured
    std::vector<std::uint32_t> free_;
    std::vector<Delivery> info_;  // by handle, while keep_info_
    void (*grow_slots_)(void*, std::uint32_t) = nullptr;  // set_slot_storage's
    void* slot_owner_ = nullptr;
    // Warm: queues, the general transmitter.
    std::vector<Queue> queues_;
    Transmitter tx_;
    std::uint32_t rr_ = 0;        // WRR: queue whose turn it is
    std::int64_t rr_credit_ = 0;  // WRR: packets it may still send this turn
    // Counters.
    std::uint64_t duplicated_ = 0, retries_ = 0;
    DropCounts drops_;
    // Cold.
    sim::Timer wake_;
    PortConfig config_;
    const DropReasons* reasons_;
    std::uint64_t fault_stream_;
    std::string name_;
};

}  // namespace loom::net
