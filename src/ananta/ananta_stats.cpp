// Ananta's statistics: their declarations (what AnantaModel::make_summary writes under /stats/ananta), and the
// probes that read them during a run for time series.
#include "loom/ananta/ananta_stats.hpp"

#include <memory>

#include <fmt/format.h>

#include "loom/ananta/ananta_model.hpp"
#include "loom/ananta/bgp_peer.hpp"

namespace loom::ananta {

stats::StatDecls stat_declarations() {
    stats::StatDecls d;
    // Packets, all components together.
    d.scalar("/stats/ananta/packets/created", "packets", "packets endpoints, Muxes and Host Agents created (sent first)");
    d.scalar("/stats/ananta/packets/consumed", "packets", "packets that reached their endpoint and were consumed");
    d.scalar("/stats/ananta/packets/dropped", "packets", "packets dropped, in components and at ports, every reason");
    d.scalar("/stats/ananta/packets/packet_hops", "packets", "packet arrivals at any component input (one per link crossed)");
    d.scalar("/stats/ananta/drops/*", "packets", "packets dropped for this reason (key: drop reason, e.g. mux_down; only reasons seen)");
    // Muxes, one entry per Mux (key mux<i>).
    d.scalar("/stats/ananta/muxes/*/received", "packets", "packets that reached the Mux");
    d.scalar("/stats/ananta/muxes/*/forwarded", "packets", "packets the Mux encapsulated and sent on to a DIP (or SNAT host)");
    d.scalar("/stats/ananta/muxes/*/new_connections", "connections", "DIPs chosen by hash (a SYN or a flow-table miss)");
    d.scalar("/stats/ananta/muxes/*/flow_hits", "packets", "packets whose DIP came from the flow table");
    d.scalar("/stats/ananta/muxes/*/stateless_fallbacks", "packets", "DIPs chosen by hash but not recorded (untrusted flow quota full)");
    d.scalar("/stats/ananta/muxes/*/snat_returns", "packets", "return packets of SNAT connections sent to their host");
    d.scalar("/stats/ananta/muxes/*/flow_entries", "entries", "entries in the Mux's flow table");
    d.scalar("/stats/ananta/muxes/*/overload_reports", "count", "overload reports the Mux sent (top talkers over capacity)");
    d.scalar("/stats/ananta/muxes/*/commands_rejected", "count", "manager commands rejected for a stale epoch");
    d.scalar("/stats/ananta/muxes/*/epoch", "count", "highest manager epoch the Mux has seen");
    d.scalar("/stats/ananta/muxes/*/failed", "bool", "the Mux is down (drops every packet reaching it)");
    d.scalar("/stats/ananta/mux_load/min_packets", "packets", "fewest packets forwarded by one Mux");
    d.scalar("/stats/ananta/mux_load/max_packets", "packets", "most packets forwarded by one Mux");
    d.scalar("/stats/ananta/mux_load/mean_packets", "packets", "mean packets forwarded per Mux");
    d.scalar("/stats/ananta/mux_load/max_over_mean", "ratio", "max_packets / mean_packets (1: perfectly even)");
    d.scalar("/stats/ananta/mux_load/cov", "ratio", "coefficient of variation of packets forwarded over the Muxes");
    // Epochs (stale-primary commands).
    d.scalar("/stats/ananta/epochs/mux_commands_rejected", "count", "commands Muxes rejected for a stale epoch");
    d.scalar("/stats/ananta/epochs/host_commands_rejected", "count", "commands Host Agents rejected for a stale epoch");
    d.list("/stats/ananta/epochs/rejections", "mixed", "each Mux rejection: at_ps (ps), mux (path), command_epoch and highest_seen (epochs)");
    // Connections.
    d.scalar("/stats/ananta/connections/opened", "connections", "connections (TCP and UDP) opened by clients and VMs");
    d.scalar("/stats/ananta/connections/completed", "connections", "connections that completed their transfer");
    d.scalar("/stats/ananta/connections/failed", "connections", "connections that gave up (retries exhausted)");
    d.scalar("/stats/ananta/connections/open", "connections", "connections still open");
    d.scalar("/stats/ananta/connections/retransmissions", "packets", "TCP retransmissions by the opening ends");
    d.scalar("/stats/ananta/connections/with_mux", "connections", "connections a Mux was seen handling");
    d.scalar("/stats/ananta/connections/with_dip", "connections", "connections a Host Agent delivered to a DIP");
    d.scalar("/stats/ananta/connections/setup_latency_ps/count", "connections", "TCP connections established");
    d.scalar("/stats/ananta/connections/setup_latency_ps/p50", "ps", "median SYN-to-established time");
    d.scalar("/stats/ananta/connections/setup_latency_ps/p90", "ps", "90th percentile SYN-to-established time");
    d.scalar("/stats/ananta/connections/setup_latency_ps/p99", "ps", "99th percentile SYN-to-established time");
    d.scalar("/stats/ananta/connections/setup_latency_ps/max", "ps", "longest SYN-to-established time");
    d.scalar("/stats/ananta/connections_by_mux/*", "connections", "connections first seen by the Mux at this address");
    d.list("/stats/ananta/connection_records", "mixed", "with /trace/records: one record per connection (times in ps, bytes, addresses)");
    // VIPs, one entry per VIP (key: its name).
    d.scalar("/stats/ananta/vips/*/address", "text", "the VIP's address");
    d.scalar("/stats/ananta/vips/*/connections", "connections", "connections opened to the VIP");
    d.scalar("/stats/ananta/vips/*/completed", "connections", "connections to the VIP that completed");
    d.scalar("/stats/ananta/vips/*/failed", "connections", "connections to the VIP that failed");
    d.scalar("/stats/ananta/vips/*/bytes_delivered", "bytes", "payload bytes delivered over the VIP's connections");
    d.scalar("/stats/ananta/vips/*/throughput_bps", "bit/s", "bytes_delivered * 8 over the simulated time");
    d.scalar("/stats/ananta/vips/*/dips", "count", "DIPs currently behind the VIP");
    d.list("/stats/ananta/ecmp_changes", "mixed", "each router ECMP change: at_ps (ps), router (path), share_moved (ratio of flows)");
    // State per open connection.
    d.scalar("/stats/ananta/state/open_connections", "connections", "connections open at the end");
    d.scalar("/stats/ananta/state/connection_state_bytes", "bytes", "bytes endpoints, Host Agents and Muxes hold for connections");
    d.scalar("/stats/ananta/state/bytes_per_open_connection", "bytes", "connection_state_bytes / open_connections");
    d.scalar("/stats/ananta/state/by_part/*", "bytes", "connection_state_bytes by part (openers, servers, timers, nat_bindings, mux_flows, sightings, udp)");
    // BGP between Muxes and their ToRs (with BGP sessions configured).
    d.scalar("/stats/ananta/bgp/sessions_opened", "count", "BGP sessions the ToRs brought up");
    d.scalar("/stats/ananta/bgp/sessions_down", "count", "sessions that went down: hold expiries + fast detections + closes");
    d.scalar("/stats/ananta/bgp/hold_expiries", "count", "sessions a ToR took down when the hold timer expired");
    d.scalar("/stats/ananta/bgp/fast_detections", "count", "sessions taken down by fast failure detection");
    d.scalar("/stats/ananta/bgp/sessions_closed", "count", "sessions a Mux closed (graceful shutdown)");
    d.scalar("/stats/ananta/bgp/announcements", "count", "VIP routes the ToRs installed from a Mux's announcement");
    d.scalar("/stats/ananta/bgp/withdrawals", "count", "VIP routes the ToRs removed (withdrawal or session down)");
    d.scalar("/stats/ananta/bgp/sessions_at_end", "count", "sessions up when the run stopped");
    d.scalar("/stats/ananta/bgp/messages_sent_by_muxes", "messages", "BGP messages the Muxes sent");
    d.scalar("/stats/ananta/bgp/messages_lost_in_mux_overload", "messages", "BGP messages lost in an overloaded Mux's data path");
    d.scalar("/stats/ananta/bgp/messages_received_by_routers/*", "messages", "BGP messages the ToRs received, by kind (open, keepalive, update, withdraw, notification, hello)");
    d.scalar("/stats/ananta/bgp/session_reopens", "count", "sessions a Mux's speaker re-opened");
    d.scalar("/stats/ananta/bgp/routers/*/sessions_at_end", "count", "this ToR's sessions up at the end (key tor<r>)");
    d.scalar("/stats/ananta/bgp/routers/*/*", "count", "this ToR's BGP events of one kind (session_up, hold_expired, fast_detection, closed, announced, withdrawn)");
    d.scalar("/stats/ananta/bgp/muxes/*/state", "text", "the Mux's lifecycle state at the end (key mux<i>)");
    d.scalar("/stats/ananta/bgp/muxes/*/boots", "count", "times the Mux booted");
    d.scalar("/stats/ananta/bgp/muxes/*/black_holed_packets", "packets", "packets routed to the Mux while it no longer forwarded");
    d.scalar("/stats/ananta/bgp/muxes/*/bgp_sent", "messages", "BGP messages the Mux sent");
    d.scalar("/stats/ananta/bgp/muxes/*/bgp_lost_in_overload", "messages", "the Mux's BGP messages lost in its overloaded data path");
    d.scalar("/stats/ananta/bgp/muxes/*/session_reopens", "count", "sessions the Mux's speaker re-opened");
    d.list("/stats/ananta/bgp/mux_events", "mixed", "each Mux down/up: at_ps, mux, action, mode, removed_after_ps / announced_after_ps and black_hole_ps (ps, -1: never), removed_by, connections (kept, broken, open) in all and by VIP");
    // Fastpath (with fastpath VIPs or spoofed redirects).
    d.list("/stats/ananta/fastpath/vips", "text", "names of the VIPs with Fastpath on");
    d.scalar("/stats/ananta/fastpath/mux/handshakes", "count", "Fastpath redirect handshakes the Muxes started");
    d.scalar("/stats/ananta/fastpath/mux/resolved", "count", "redirects whose both DIPs the Muxes resolved");
    d.scalar("/stats/ananta/fastpath/mux/unresolved", "count", "redirects the Muxes could not resolve");
    d.scalar("/stats/ananta/fastpath/mux/refused", "count", "redirects the Muxes refused");
    d.scalar("/stats/ananta/fastpath/hosts/redirects_accepted", "count", "redirects Host Agents accepted");
    d.scalar("/stats/ananta/fastpath/hosts/redirects_refused", "count", "redirects Host Agents refused (spoofed or unknown)");
    d.scalar("/stats/ananta/fastpath/hosts/host_to_host_packets", "packets", "packets Host Agents sent directly to the other host");
    d.scalar("/stats/ananta/fastpath/spoofed_sent", "count", "spoofed redirects sent by the scenario");
    d.record("/stats/ananta/fastpath/by_traffic", "mixed", "per VIP-to-VIP traffic source: fastpath (bool), connections, mux/host_agent/host_to_host packets (packets) and the same per connection");
    // Health probing (with health.enabled).
    d.scalar("/stats/ananta/health/probes_sent", "count", "health probes the Host Agents sent to their VMs");
    d.list("/stats/ananta/health/reports", "mixed", "each health change a Host Agent reported: at_ps (ps), dip, healthy (bool)");
    d.scalar("/stats/ananta/health/relayed", "count", "health reports the relay passed on to the Muxes");
    d.list("/stats/ananta/health/failures", "mixed", "each VM failure: failed_at_ps, reported_at_ps, detection_ps, muxes_updated_at_ps, stop_ps (ps, -1: never), new connections after the failure and their outcomes");
    // The hashing study (with hash_study.enabled).
    d.record("/stats/ananta/hash_study", "mixed", "Ananta's hash and Maglev per table size on one VIP: balance (max_over_mean, ratio), disrupted and forced shares (ratio) when a DIP is removed or added, and the run's measured connections per DIP");
        // The control plane (with control_plane.enabled): manager replicas, VIP configuration, SNAT, isolation.
    const std::string cp = "/stats/ananta/control_plane/";
    d.scalar(cp + "replicas/*/up", "bool", "the replica is running at the end (key manager<i>)");
    d.scalar(cp + "replicas/*/frozen", "bool", "the replica is frozen at the end");
    d.scalar(cp + "replicas/*/believes_primary", "bool", "the replica believes it is the primary at the end");
    d.scalar(cp + "replicas/*/epoch", "epochs", "the epoch of the replica's ballot at the end (0: never led)");
    d.scalar(cp + "replicas/*/commit_index", "count", "log slots the replica knows committed at the end");
    d.scalar(cp + "replicas/*/rejections", "count", "commands of this replica that Muxes or Host Agents rejected, as it learned");
    d.scalar(cp + "replicas/*/fence_writes", "count", "Paxos writes the replica made because a command of its was rejected");
    d.scalar(cp + "replicas/*/not_primary", "count", "requests the replica turned away because it was not the primary");
    d.scalar(cp + "replicas/*/snat_dropped", "count", "SNAT requests the replica dropped (a second outstanding request of a DIP, or over a limit)");
    d.scalar(cp + "replicas/*/inputs_lost", "count", "inputs that reached the replica while it was down or frozen");
    d.scalar(cp + "replicas/*/commands_rejected_at_peers", "count", "commands this replica issued that Muxes or Host Agents rejected");
    d.scalar(cp + "paxos_links/packets_sent", "packets", "Paxos messages the replicas sent over their links");
    d.scalar(cp + "paxos_links/packets_dropped", "packets", "Paxos messages the links dropped (faults, links down)");
    d.scalar(cp + "primary/elections_won", "count", "times a replica became primary");
    d.scalar(cp + "primary/first_primary_ps", "ps", "when the first primary was elected (-1: never)");
    d.scalar(cp + "primary/time_without_primary_ps", "ps", "time after the first election with no replica believing it leads");
    d.scalar(cp + "primary/time_with_two_believing_primaries_ps", "ps", "time during which two or more replicas believed they led (frozen ones included)");
    d.scalar(cp + "primary/time_with_two_acting_primaries_ps", "ps", "time during which two or more running (not frozen) replicas believed they led");
    for (const char* dist : {"vip_configuration/latency_ps", "vip_configuration/manager_latency_ps", "snat/latency_ps",
                             "snat/by_vip/*/latency_ps"})
        d.record(cp + dist, "ps", "a latency distribution: count, p50, p90, p99, max (nearest rank)");
    d.scalar(cp + "vip_configuration/requested", "count", "configure_vip requests of the scenario");
    d.scalar(cp + "vip_configuration/done", "count", "VIP configurations every Mux and Host Agent applied");
    d.scalar(cp + "vip_configuration/not_done", "count", "VIP configurations still pending at the end");
    d.scalar(cp + "vip_configuration/invalid", "count", "VIP configurations the manager refused as invalid");
    d.list(cp + "vip_configuration/operations", "mixed", "each configure_vip: vip, requested_ps and latency_ps (ps, -1: not done), outcome, attempts, replica");
    d.scalar(cp + "vip_configuration/initial_done", "count", "VIPs of the config that the first primary configured");
    d.scalar(cp + "vip_configuration/initial_done_at_ps", "ps", "when the last of the config's VIPs was configured");
    d.scalar(cp + "vip_configuration/timeouts", "count", "configure_vip attempts that timed out and were retried");
    d.scalar(cp + "snat/requests", "count", "SNAT port-range requests Host Agents made");
    d.scalar(cp + "snat/granted", "count", "SNAT requests granted");
    d.scalar(cp + "snat/waiting", "count", "SNAT requests not granted by the end");
    d.scalar(cp + "snat/ranges_on_request", "count", "port ranges granted to requests (pre-allocation not counted)");
    d.scalar(cp + "snat/multi_range_grants", "count", "grants of more than one range (demand prediction)");
    d.scalar(cp + "snat/ranges_installed", "count", "port ranges installed on the Muxes, pre-allocation included");
    d.scalar(cp + "snat/ports_installed", "count", "ports of those ranges");
    d.scalar(cp + "snat/refused", "count", "SNAT requests refused (a per-VM limit on ports or on rate)");
    d.scalar(cp + "snat/not_primary", "count", "SNAT requests that reached a replica that was not the primary");
    d.scalar(cp + "snat/timeouts", "count", "SNAT requests a Host Agent sent again after no answer");
    d.scalar(cp + "snat/duplicate_requests", "count", "second outstanding requests of a DIP, dropped");
    d.scalar(cp + "snat/invariant_violations", "count", "times a (VIP, port) mapped to two DIPs or two live connections shared a 5-tuple (0 expected)");
    d.list(cp + "snat/violations", "text", "each SNAT invariant violation, described");
    d.scalar(cp + "snat/by_vip/*/waiting", "count", "this source VIP's SNAT requests not granted by the end");
    d.scalar(cp + "snat/ranges_held", "count", "port ranges Host Agents hold at the end");
    d.scalar(cp + "snat/ranges_returned", "count", "port ranges Host Agents gave back after snat.idle_return without use");
    d.scalar(cp + "snat/ranges_reclaimed", "count", "port ranges the manager freed through Paxos and removed from the Muxes");
    d.scalar(cp + "snat/ranges_reused", "count", "grants of a range some DIP had given back before");
    d.scalar(cp + "command_links/command_packets_sent", "packets", "command packets the replicas sent to Muxes and Host Agents");
    d.scalar(cp + "command_links/command_packets_dropped", "packets", "command packets the links dropped (a Mux or Host Agent link down)");
    d.scalar(cp + "command_links/command_packets_received", "packets", "command packets Muxes and Host Agents received");
    d.scalar(cp + "command_links/malformed", "count", "command packets that could not be read (0 expected)");
    d.scalar(cp + "command_links/incomplete_commands", "count", "commands with parts still missing at the end");
    d.scalar(cp + "command_links/ack_packets_sent", "packets", "acknowledgements Muxes and Host Agents sent back");
    d.scalar(cp + "isolation/overload_reports", "count", "overload reports the primary received from Muxes");
    d.scalar(cp + "isolation/reports_without_action", "count", "overload reports that led to no withdrawal");
    d.list(cp + "isolation/withdrawals", "mixed", "each overload isolation: vip, mux, overload_start_ps, reported_ps, withdrawn_ps, detect_ps, withdraw_ps, isolate_ps (ps)");
    d.scalar(cp + "isolation/muxes_withdrawn", "count", "Muxes that withdrew an isolated VIP");
    d.scalar(cp + "commands/mux_applied", "count", "manager commands Muxes applied");
    d.scalar(cp + "commands/mux_rejected", "count", "manager commands Muxes rejected for a stale epoch");
    d.scalar(cp + "commands/host_applied", "count", "manager commands Host Agents applied");
    d.scalar(cp + "commands/host_rejected", "count", "manager commands Host Agents rejected for a stale epoch");
    d.scalar(cp + "commands/rejections_seen", "count", "rejections the replicas learned of");
    d.scalar(cp + "commands/fence_writes", "count", "Paxos writes made because a command was rejected (the stale-primary fix)");
    d.scalar(cp + "commands/inputs_lost", "count", "inputs that reached replicas while they were down or frozen");
    return d;
}

namespace {

// Connection counts as the end-of-run summary counts them, from every opener's records.
struct AnantaConnectionCounts {
    std::uint64_t opened = 0, completed = 0, failed = 0, open = 0, retransmissions = 0;
};

}  // namespace

std::vector<sim::Probe> AnantaModel::probes(const std::string& key) const { return probes_.select(key); }

void AnantaModel::add_probes() {
    using stats::Json;
    // Packets and drops, summed over the components and their ports (as make_summary does).
    probes_.add("/stats/ananta/packets/created", [this](Time) {
        std::uint64_t n = 0;
        for (const DcNode* node : nodes_) n += node->tally().created;
        return Json(n);
    });
    probes_.add("/stats/ananta/packets/consumed", [this](Time) {
        std::uint64_t n = 0;
        for (const DcNode* node : nodes_) n += node->tally().consumed;
        return Json(n);
    });
    // Drops are summed once per sample time, however many reasons are sampled (sample times only increase).
    struct DropCache {
        Time at = Time::ps(-1);  // before any sample time
        net::DropCounts drops;
    };
    const auto drop_cache = std::make_shared<DropCache>();
    const auto all_drops = [this, drop_cache](Time at) -> const net::DropCounts& {
        if (drop_cache->at != at) {
            drop_cache->at = at;
            drop_cache->drops = net::DropCounts();
            for (DcNode* node : nodes_) {
                drop_cache->drops.merge(node->tally().drops);
                for (std::uint32_t p = 0; p < node->ports(); ++p) drop_cache->drops.merge(node->out(p).engine().drops());
            }
        }
        return drop_cache->drops;
    };
    probes_.add("/stats/ananta/packets/dropped", [all_drops](Time at) { return Json(all_drops(at).total()); });
    probes_.add("/stats/ananta/packets/packet_hops", [this](Time) { return Json(packet_hops()); });
    for (std::size_t r = 0; r < shared_->reasons.size(); ++r) {
        const net::DropReason reason{static_cast<std::uint16_t>(r)};
        probes_.add("/stats/ananta/drops/" + shared_->reasons.name(reason),
                    [all_drops, reason](Time at) { return Json(all_drops(at)[reason]); });
    }
    // Per Mux.
    for (const MuxNode* m : muxes_) {
        const std::string at = fmt::format("/stats/ananta/muxes/mux{}/", m->number());
        probes_.add(at + "received", [m](Time) { return Json(m->mux().counters().received); });
        probes_.add(at + "forwarded", [m](Time) { return Json(m->mux().counters().forwarded); });
        probes_.add(at + "new_connections", [m](Time) { return Json(m->mux().counters().new_connections); });
        probes_.add(at + "flow_hits", [m](Time) { return Json(m->mux().counters().flow_hits); });
        probes_.add(at + "stateless_fallbacks", [m](Time) { return Json(m->mux().counters().stateless_fallbacks); });
        probes_.add(at + "snat_returns", [m](Time) { return Json(m->mux().counters().snat_returns); });
        probes_.add(at + "flow_entries", [m](Time) { return Json(m->mux().flows().size()); });
        probes_.add(at + "overload_reports", [m](Time) { return Json(m->overload_reports()); });
        probes_.add(at + "commands_rejected", [m](Time) { return Json(m->mux().counters().commands_rejected); });
        probes_.add(at + "epoch", [m](Time) { return Json(m->mux().epoch()); });
        probes_.add(at + "failed", [m](Time) { return Json(m->failed()); });
    }
    probes_.add("/stats/ananta/epochs/mux_commands_rejected", [this](Time) {
        std::uint64_t n = 0;
        for (const MuxNode* m : muxes_) n += m->mux().counters().commands_rejected;
        return Json(n);
    });
    probes_.add("/stats/ananta/epochs/host_commands_rejected", [this](Time) {
        std::uint64_t n = 0;
        for (const HostNode* h : hosts_) n += h->rejections();
        return Json(n);
    });
    // Connections, from the openers' records (retired and open): one pass over the connections per sample time.
    struct ConnectionCache {
        Time at = Time::ps(-1);  // before any sample time
        AnantaConnectionCounts counts;
    };
    const auto connection_cache = std::make_shared<ConnectionCache>();
    const auto connections = [this, connection_cache](Time at) -> const AnantaConnectionCounts& {
        if (connection_cache->at == at) return connection_cache->counts;
        connection_cache->at = at;
        AnantaConnectionCounts& c = connection_cache->counts;
        c = AnantaConnectionCounts();
        const auto count = [&c](const Openers& o) {
            for (const ConnectionReport& r : o.reports()) {
                ++c.opened;
                c.retransmissions += r.record.retransmissions;
                if (r.record.outcome == ConnectionOutcome::Completed) ++c.completed;
                if (r.record.outcome == ConnectionOutcome::Failed) ++c.failed;
                if (r.record.outcome == ConnectionOutcome::Open) ++c.open;
            }
        };
        for (const ClientNode* k : clients_) count(k->openers());
        for (const HostNode* h : hosts_) count(h->openers());
        return c;
    };
    probes_.add("/stats/ananta/connections/opened", [connections](Time at) { return Json(connections(at).opened); });
    probes_.add("/stats/ananta/connections/completed", [connections](Time at) { return Json(connections(at).completed); });
    probes_.add("/stats/ananta/connections/failed", [connections](Time at) { return Json(connections(at).failed); });
    probes_.add("/stats/ananta/connections/open", [connections](Time at) { return Json(connections(at).open); });
    probes_.add("/stats/ananta/connections/retransmissions",
                [connections](Time at) { return Json(connections(at).retransmissions); });
    probes_.add("/stats/ananta/state/open_connections", [connections](Time at) { return Json(connections(at).open); });
    probes_.add("/stats/ananta/state/connection_state_bytes", [this](Time) {
        std::size_t bytes = 0;
        for (const ClientNode* k : clients_) bytes += k->bytes_of_state().total();
        for (const HostNode* h : hosts_) bytes += h->bytes_of_state().total();
        for (const MuxNode* m : muxes_) bytes += m->bytes_of_state().total();
        return Json(bytes);
    });
    // BGP: sessions up and each Mux's black-holed packets and messages, for failure and withdrawal timelines.
    if (bgp_sessions()) {
        probes_.add("/stats/ananta/bgp/sessions_at_end", [this](Time) {
            std::uint64_t n = 0;
            for (const RouterNode* t : tors_)
                if (const BgpPeer* p = t->bgp()) n += p->router().sessions();
            return Json(n);
        });
        for (const MuxNode* m : muxes_) {
            const std::string at = fmt::format("/stats/ananta/bgp/muxes/mux{}/", m->number());
            probes_.add(at + "black_holed_packets", [m](Time) { return Json(m->black_holed()); });
            probes_.add(at + "bgp_sent", [m](Time) { return Json(m->bgp_sent()); });
            probes_.add(at + "bgp_lost_in_overload", [m](Time) { return Json(m->bgp_lost()); });
            probes_.add(at + "boots", [m](Time) { return Json(m->lifecycle().boots()); });
        }
    }
    // Per VIP: the DIPs behind it now.
    for (std::size_t v = 0; v < shared_->config.vips.size(); ++v) {
        probes_.add(fmt::format("/stats/ananta/vips/{}/dips", shared_->config.vips[v].name),
                    [this, v](Time) { return Json(vip_dips_[v].size()); });
    }
}

}  // namespace loom::ananta
