#include "loom/ananta/control_plane_config.hpp"

#include "loom/ananta/dc_config.hpp"

#include <fmt/format.h>

namespace loom::ananta {

config::Schema<ControlPlaneConfig> control_plane_schema() {
    using C = ControlPlaneConfig;
    config::Schema<C> s("Ananta Manager replicas inside the run: Paxos over a mesh of replica links (with net/ "
                        "faults), durable writes, VIP configuration, SNAT allocation and overload isolation "
                        "through the primary. Off by default (static configuration).");
    s.field("enabled", &C::enabled, "Run the manager replicas (off: VIPs and SNAT ports are configured statically).");
    s.field("replicas", &C::replicas, "Manager replicas (published: 5, a majority needed for progress).").range(1, 64);
    s.field("durable_write_latency", &C::durable_write_latency,
            "From a Paxos write's issue to its completion on stable storage (not published: 1 ms).")
        .at_least(Time::zero());
    s.field("heartbeat_interval", &C::heartbeat_interval, "Primary heartbeat period (not published: 50 ms).")
        .at_least(Time::ps(1));
    s.field("election_timeout", &C::election_timeout,
            "Silence after which a replica runs for primary (not published: 150 ms) ...")
        .at_least(Time::ps(1));
    s.field("election_jitter", &C::election_jitter, "... plus a uniform draw in [0, this) (not published: 150 ms).")
        .at_least(Time::ps(1));
    s.field("leader_lease", &C::leader_lease,
            "Leader lease: a deposed primary stops acting when its lease lapses (off as published).");
    s.field("lease_duration", &C::lease_duration, "Lease length, under election_timeout (not published: 120 ms).")
        .at_least(Time::ps(1));
    s.field("depose_on_write_only", &C::depose_on_write_only,
            "Without the lease, a primary learns it was deposed only when a Paxos write of its own is refused "
            "(Ananta's stale primary); false: from any higher ballot it hears of.");
    s.field("link_rate", &C::link_rate, "Rate of each replica-to-replica link (not published: 10 Gbps).")
        .at_least(Bandwidth::bps(1));
    s.field("link_latency", &C::link_latency, "One-way latency of a replica-to-replica link (not published: 50 us).")
        .range(Time::ps(1), Time::s(10));
    s.section("link", &C::link, net::port_schema(),
              "Port of each replica-to-replica link direction: queues and faults (loss, delay, duplicate, "
              "reorder_window, down).");
    s.field("control_latency", &C::control_latency,
            "One way between a replica and a Mux or Host Agent: command links (commands, acks) and requests, "
            "reports, keep-alives (not published: 50 us).")
        .at_least(Time::ps(1));
    s.field("command_link_rate", &C::command_link_rate,
            "Rate of each command link between a replica and a Mux or Host Agent (not published: 10 Gbps).")
        .at_least(Bandwidth::bps(1));
    s.field("request_timeout", &C::request_timeout,
            "A Host Agent or the operator with no answer this long asks the next replica (not published: 200 ms).")
        .at_least(Time::ps(1));
    s.field("snat_retry_interval", &C::snat_retry_interval,
            "A SNAT request the manager refused (rate or port limit) is asked again after this (not published: 100 ms).")
        .at_least(Time::ps(1));
    s.field("keepalive_interval", &C::keepalive_interval,
            "Muxes and Host Agents tell every replica they are alive this often (not published: 1 s).")
        .at_least(Time::ps(1));
    s.field("snat", &C::snat,
            "SNAT port ranges come from the manager (Host Agent requests, pre-allocation) instead of static blocks.");
    s.field("overload_isolation", &C::overload_isolation,
            "Mux overload reports reach the manager, which withdraws the top VIP from every Mux.");
    s.field("initial_primary", &C::initial_primary,
            "Replica that runs for primary at time 0 (-1: none, the election timers decide).")
        .range(-1, 63);
    s.field("replicas_down", &C::replicas_down,
            "Replicas down from time 0, the highest-numbered ones (recover them with replica_recover).")
        .range(0, 63);
    s.check("replicas_down", [](const C& c) -> std::optional<std::string> {
        if (c.replicas_down >= c.replicas)
            return fmt::format("expected fewer than replicas ({}), got {}", c.replicas, c.replicas_down);
        if (c.initial_primary >= c.replicas - c.replicas_down)
            return fmt::format("initial_primary {} would be down: expected at most {} replicas down", c.initial_primary,
                               c.replicas - 1 - c.initial_primary);
        return std::nullopt;
    });
    s.check("initial_primary", [](const C& c) -> std::optional<std::string> {
        if (c.initial_primary >= c.replicas)
            return fmt::format("expected -1 or a replica in 0..{}, got {}", c.replicas - 1, c.initial_primary);
        return std::nullopt;
    });
    s.check("lease_duration", [](const C& c) -> std::optional<std::string> {
        if (c.leader_lease && c.lease_duration >= c.election_timeout)
            return fmt::format("expected less than election_timeout ({}), got {}", to_string(c.election_timeout),
                               to_string(c.lease_duration));
        return std::nullopt;
    });
    return s;
}

void check_control_plane(const DcConfig& out, config::Errors& errors) {
    const ControlPlaneConfig& cp = out.control_plane;
    const auto nv = static_cast<std::int64_t>(out.vips.size());
    for (std::size_t i = 0; i < out.scenario.size(); ++i) {
        const ActionConfig& a = out.scenario[i];
        const std::string at = config::child_pointer("/scenario", i);
        const bool replica_action = a.action == ActionKind::ReplicaCrash || a.action == ActionKind::ReplicaRecover ||
                                    a.action == ActionKind::ReplicaFreeze || a.action == ActionKind::ReplicaThaw;
        const bool health = a.action == ActionKind::HealthReport;
        if (!replica_action && !health && a.action != ActionKind::ConfigureVip) continue;
        if (!cp.enabled) {
            errors.add(at + "/action", "needs the control plane: set control_plane.enabled to true");
            continue;
        }
        if (replica_action && (a.replica < 0 || a.replica >= cp.replicas))
            errors.add(at + "/replica", fmt::format("expected a replica in 0..{}, got {}", cp.replicas - 1, a.replica));
        if (health && a.dips.empty()) errors.add(at + "/dips", "expected at least one DIP to report on");
        if (a.action == ActionKind::ConfigureVip || health) {
            if (!health && a.replica >= cp.replicas)
                errors.add(at + "/replica", fmt::format("expected -1 or a replica in 0..{}, got {}", cp.replicas - 1, a.replica));
            if (!health && a.vip >= nv) errors.add(at + "/vip", fmt::format("VIP {} does not exist ({} VIPs)", a.vip, nv));
            const std::int64_t hosts = out.network.racks * out.network.hosts_per_rack;
            for (std::size_t d = 0; d < a.dips.size(); ++d) {
                const std::string p = config::child_pointer(at + "/dips", d);
                if (a.dips[d].host >= hosts)
                    errors.add(p + "/host", fmt::format("host {} does not exist (the network has {} hosts)", a.dips[d].host, hosts));
                if (a.dips[d].vm >= out.network.vms_per_host)
                    errors.add(p + "/vm", fmt::format("VM {} does not exist (hosts have {} VMs)", a.dips[d].vm,
                                                      out.network.vms_per_host));
            }
        }
    }
}

}  // namespace loom::ananta
