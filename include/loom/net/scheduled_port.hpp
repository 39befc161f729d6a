// The sending end of a link in a scheduled network (the TSP executor's C2C links): an output port with no
// queue. Each scheduled instruction opens its own train of fixed-size units at the instant the schedule gives;
// a train that finds the link busy is a collision, which the caller reports as a schedule error (the run then
// exits 3). Timing is the link's base::LinkTiming: exact serialization of the train from its start, the fixed
// latency, and per unit a jitter draw and an FEC outcome (an uncorrectable unit is replayed by link-level retry
// and arrives replay_latency later; units never overtake one another), drawn statelessly from (link stream,
// link-wide unit index) so that every way of simulating the same traffic sees the same noise.
#pragma once

#include <cstdint>
#include <string_view>

#include "loom/base/link_timing.hpp"
#include "loom/net/link_store.hpp"
#include "loom/net/transmitter.hpp"
#include "loom/sim/context.hpp"
#include "loom/sim/port.hpp"

namespace loom::net {

// The payload-independent half: the link's trains, their units' arrivals and FEC outcomes, and the
// collisions. A receiver keeps one of its own ("view") on the same timing and stream to time the units of a
// train from the train's description alone (unit_arrival, arrival_after), exactly as the sender did.
class ScheduledLink {
public:
    ScheduledLink() = default;
    ScheduledLink(const LinkTiming& timing, std::uint64_t stream) : tx_(timing, stream) {}

    // Opens a train of `k` >= 1 units at exactly `start` (its own train: never continuing the previous one).
    // If the link is still busy at `start` it is a collision: `on_collision(busy_until)` is called (the caller
    // reports it) and the units queue behind the busy ones so the run can go on to the error's time.
    template <class OnCollision>
    Transmission open_train(Time start, std::int64_t k, OnCollision&& on_collision) {
        Transmission t{};
        if (tx_.start_train(start, k, t)) return t;
        ++collisions_;
        on_collision(tx_.free_at());
        return tx_.send(start, k);
    }

    // Arrival of unit `k` (1-based) of the train started at `start` whose unit 1 has link-wide index
    // `first_index`, no earlier than `floor` (the arrival of the unit before it): jitter and replay included.
    Time unit_arrival(Time start, std::int64_t k, std::uint64_t first_index, Time floor) const {
        return tx_.unit_arrival(start, k, first_index, floor);
    }
    // The same given the unit's last-bit-out time `sent` and its link-wide `index`.
    Time arrival_after(Time sent, std::uint64_t index, Time floor) const { return tx_.arrival_after(sent, index, floor); }
    // FEC outcome of the unit with link-wide index `index`.
    FecOutcome outcome(std::uint64_t index) const { return tx_.outcome(index); }

    // Arrival of the last unit sent so far (Time::zero() before any): the floor of the next train's unit 1.
    Time last_arrival() const { return tx_.last_arrival(); }
    Time free_at() const { return tx_.free_at(); }
    const LinkTiming& timing() const { return tx_.timing(); }
    std::uint64_t stream() const { return tx_.stream(); }

    std::uint64_t units_sent() const { return tx_.units_sent(); }
    Time busy_time() const { return tx_.busy_time(); }
    std::uint64_t corrected() const { return tx_.corrected(); }
    std::uint64_t uncorrectable() const { return tx_.uncorrectable(); }  // each replayed once
    std::uint64_t collisions() const { return collisions_; }

private:
    Transmitter tx_;
    std::uint64_t collisions_ = 0;
};

// The port a component owns per scheduled link: the link, the storage of what it carries (net::LinkStore,
// bound to both ends by the builder) and the wire, whose events carry a 32-bit argument naming an entry.
template <class Entry>
class ScheduledPort {
public:
    ScheduledPort(sim::Context& ctx, std::string_view name, const LinkTiming& timing, std::uint64_t stream)
        : link_(timing, stream), wire_(ctx, name) {}

    ScheduledLink& link() { return link_; }
    const ScheduledLink& link() const { return link_; }
    // The entry to fill for the next post(); its handle in `handle`.
    Entry& push(std::uint32_t& handle) { return store_.push(handle); }
    // Announces an entry to the receiver with `arg` (the entry's handle, possibly with bits of the caller's),
    // arriving at `arrival` (no sooner than the wire's latency from now).
    void post(std::uint32_t arg, Time arrival, Time now) {
        const Time delay = arrival - now;
        wire_.send(arg, delay < wire_.latency() ? wire_.latency() : delay);
    }

    LinkStore<Entry>& store() { return store_; }
    const LinkStore<Entry>& store() const { return store_; }
    sim::OutPort& wire() { return wire_; }

private:
    ScheduledLink link_;
    LinkStore<Entry> store_;
    sim::OutPort wire_;
};

}  // namespace loom::net
