// Parameters of an output port (its queues, scheduling, link-level retry and fault parameters), declared once
// with descriptors so that a model exposing a port section shows them in `loom list`. The link's timing
// (rate, units, latency, jitter, BER and FEC strength) is not here: it is the link class's base::LinkTiming.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"

namespace loom::net {

// One queue of a port. A limit of 0 is "unbounded" for that measure; byte limits count packet bytes
// (PacketHeader::bytes), not framing.
struct QueueConfig {
    // Linux's default txqueuelen (1000 packets): the usual host queue when a model gives none.
    std::int64_t max_packets = 1000;
    Bytes max_bytes{0};
    // Weighted round robin: packets this queue may send per round (ignored by strict priority).
    std::int64_t weight = 1;
};

// How a port picks the next packet among its queues.
//   StrictPriority      queue 0 first, then 1, ...: a lower queue sends only when all before it are empty.
//   WeightedRoundRobin  queues take turns; queue i sends up to weight_i packets per turn, skipping empty ones.
//   None                no queue at all (a scheduled network): a send while the link is busy is a collision,
//                       dropped as DropReason::Collision and reported to the caller, which treats it as an
//                       error of its schedule. Each send starts its own train at exactly the send time.
//                       The queue list is ignored.
enum class Scheduling { StrictPriority, WeightedRoundRobin, None };

// A half-open interval [from, to) during which a link is down.
struct DownInterval {
    Time from;
    Time to = Time::max();
};

// Faults of one link direction. Every random draw is counter-based: derived from (run seed, port path,
// packet sequence number), so it does not depend on event order or on the other links.
struct FaultConfig {
    double loss = 0.0;         // probability a packet is lost on the wire (it still occupies the link)
    Time delay{};              // added to every arrival
    double duplicate = 0.0;    // probability the receiver gets the packet twice (same arrival time)
    // Each arrival is delayed by an extra uniform draw in [0, reorder_window]: a packet can be overtaken
    // only by packets sent after it that arrive at most reorder_window before it. 0: no reordering.
    Time reorder_window{};
    std::vector<DownInterval> down;  // down times; a packet survives only if the link is up over the whole
                                     // [first bit out, last bit in)
};

struct PortConfig {
    std::vector<QueueConfig> queues{QueueConfig{}};
    Scheduling scheduling = Scheduling::StrictPriority;
    // Bytes of per-packet framing carried with the packet's bytes (Ethernet: preamble 8 + FCS 4 + inter-frame
    // gap 12 = 24). A packet of b bytes is ceil((b + packet_overhead) / unit_payload) units of the link's
    // LinkTiming (at least one); per-unit framing is the LinkTiming's own (unit_wire - unit_payload).
    Bytes packet_overhead{0};
    // Link-level retry: a packet with a unit FEC could not correct is replayed from that unit (go-back-N),
    // starting replay_latency after the failed attempt's last bit left; the link sends nothing else
    // meanwhile, so nothing is ever reordered. Without retry such a packet is dropped (FecUncorrectable).
    bool link_retry = false;
    // No public figure for the modelled links: the order of a short link's NAK round trip (SerDes, FEC and
    // cable both ways). Set it per link class.
    Time replay_latency = Time::ns(100);
    std::int64_t max_retries = 8;  // replays of one packet before it is dropped as FecUncorrectable
    FaultConfig faults;
};

// A partition: every link whose port path starts with one of `links` (comma-separated path prefixes, e.g.
// "dc.rack3,dc.mux1.out") is down over [from, to). Crash and recovery of a component are the model's.
struct Partition {
    std::string links;
    Time from;
    Time to = Time::max();
    // True if the port at `path` is one of this partition's links (a prefix ending at a '.' or the path's end).
    bool covers(const std::string& path) const;
};
// Adds to `config` the down times of every partition that covers the port at `path`.
void apply_partitions(PortConfig& config, const std::string& path, const std::vector<Partition>& partitions);

// Descriptors ("queues", "scheduling", "packet_overhead", "link_retry", "replay_latency", "max_retries",
// "faults": {loss, delay, duplicate, reorder_window, down: [{from, to}]}), with cross-field checks (at
// least one queue unless scheduling is none; each down interval has from < to).
config::Schema<PortConfig> port_schema();
config::Schema<Partition> partition_schema();

}  // namespace loom::net
