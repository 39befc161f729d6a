// The "control_plane" config section of the Ananta run: whether Ananta Manager replicas run inside the packet
// model, how many, their Paxos timers, the links between them (with net/'s fault parameters), the durable-write
// latency, and how Host Agents and the operator reach the primary. Off by default: the data plane is then
// configured statically, as before the manager ran in the model.
#pragma once

#include <cstdint>

#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"
#include "loom/net/port_config.hpp"

namespace loom::ananta {

struct ControlPlaneConfig {
    bool enabled = false;
    // Published: 5 replicas, 3 needed for progress.
    std::int64_t replicas = 5;
    // Not published: a flush to a local SSD (about 1 ms).
    Time durable_write_latency = Time::ms(1);
    // Paxos timers (not published; see paxos::Config: heartbeats every 50 ms, elections after 150-300 ms).
    Time heartbeat_interval = Time::ms(50);
    Time election_timeout = Time::ms(150);
    Time election_jitter = Time::ms(150);
    // Off as published: a deposed primary can go on acting (the split-brain study needs it).
    bool leader_lease = false;
    Time lease_duration = Time::ms(120);
    // true: a primary learns it was deposed only when one of its own Paxos writes is refused (Ananta's stale
    // primary); false: from any higher ballot it hears of.
    bool depose_on_write_only = true;
    // The replica links: a full mesh, each direction one net/ port (faults: loss, delay, duplication,
    // reordering, down times). Not published: 10 Gbps, 50 us one way (replicas in different racks).
    Bandwidth link_rate = Bandwidth::gbps(10);
    Time link_latency = Time::us(50);
    net::PortConfig link;
    // One way between a replica and a Mux or Host Agent: the latency of the command links (commands and their
    // acknowledgements are packets; a command is applied mux/host_programming_latency after it arrives) and of
    // requests, reports and keep-alives. Not published: 50 us.
    Time control_latency = Time::us(50);
    // The command links (one per direction between each replica and each Mux or Host Agent): their rate (not
    // published: 10 Gbps); one queue, no faults.
    Bandwidth command_link_rate = Bandwidth::gbps(10);
    // A Host Agent (or the operator) that has no answer this long asks the next replica (not published: 200 ms).
    Time request_timeout = Time::ms(200);
    // A refused SNAT request (rate or port limit) is asked again after this (not published: 100 ms).
    Time snat_retry_interval = Time::ms(100);
    // Muxes and Host Agents tell every replica they are alive this often (kept under manager.mux_down_after).
    Time keepalive_interval = Time::s(1);
    // SNAT port ranges come from the manager (requested by Host Agents, pre-allocated at VIP configuration)
    // instead of a static block per DIP.
    bool snat = true;
    // Mux overload reports reach the manager, which withdraws the top VIP from every Mux.
    bool overload_isolation = true;
    // Replica that runs for primary at time 0 (-1: none; the first election timer decides).
    std::int64_t initial_primary = 0;
    // Replicas down from time 0: the highest-numbered ones (the availability study's knob).
    std::int64_t replicas_down = 0;
};
config::Schema<ControlPlaneConfig> control_plane_schema();

}  // namespace loom::ananta
