// Health probing by a Host Agent: it probes each local VM at a fixed interval, counts a probe without a reply
// within the timeout as a failure, and reports a change of health (after a threshold of consecutive results)
// to the manager, which relays it to the Muxes (SetDipHealth). A pure state machine like the Host Agent.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "loom/ananta/ip_packet.hpp"
#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"

namespace loom::ananta {

// The "health" config section. The paper says intervals and thresholds come from the VIP config without
// giving values; the defaults are those common in cloud load balancers' probe settings: a probe every 5 s,
// 1 s to answer, 2 consecutive failures to mark a VM down and 2 successes to mark it up again.
struct HealthProbeConfig {
    // Probing in the data-center run (off by default: no probe, no timer, outputs as before).
    bool enabled = false;
    Time interval = Time::s(5);
    Time timeout = Time::s(1);
    std::int64_t unhealthy_threshold = 2;
    std::int64_t healthy_threshold = 2;
    // Not published: a healthy VM answers a probe from its own Host Agent in 100 us (a local HTTP/TCP probe).
    Time reply_latency = Time::us(100);
    // The stand-in for the manager's relay of health changes when the control plane is off: a Host Agent's
    // report reaches the manager after report_delay (not published: 1 ms inside the data center) and every
    // Mux applies it update_delay later (not published: 50 ms, a Paxos write and one command round to the pool).
    Time report_delay = Time::ms(1);
    Time update_delay = Time::ms(50);
};
config::Schema<HealthProbeConfig> health_probe_schema();

// A probe for the adapter to send to the local VM `dip`; the VM's answer comes back through on_reply().
struct ProbeRequest {
    IpAddr dip = 0;
    std::uint32_t seq = 0;
    bool operator==(const ProbeRequest&) const = default;
};
// What the Host Agent tells the manager (the manager interface's health report).
struct HealthChange {
    IpAddr host = 0;
    IpAddr dip = 0;
    bool healthy = true;
    Time at;
    bool operator==(const HealthChange&) const = default;
};
struct ProbeOutput {
    std::vector<ProbeRequest> probes;
    std::vector<HealthChange> changes;
    void clear() {
        probes.clear();
        changes.clear();
    }
};

// A VM added at t is assumed healthy and probed at t + k*interval (k >= 0). A probe sent at s fails at
// s + timeout unless its reply arrived before (a reply at s + timeout - 1ps counts, one at s + timeout does
// not). timeout <= interval, so at most one probe per VM is outstanding.
class HealthProber {
public:
    HealthProber(const HealthProbeConfig& config, IpAddr host);

    void add_vm(IpAddr dip, Time now, ProbeOutput& out);
    void remove_vm(IpAddr dip);
    void on_reply(IpAddr dip, std::uint32_t seq, Time now, ProbeOutput& out);
    // Fails the probes whose timeout has come, then sends the probes due at or before `now`.
    void tick(Time now, ProbeOutput& out);
    Time next_deadline() const;

    bool healthy(IpAddr dip) const;
    std::uint64_t probes_sent() const { return sent_; }

private:
    struct Vm {
        Time next_probe;
        bool outstanding = false;
        std::uint32_t seq = 0;
        Time sent;
        std::int64_t failures = 0;   // consecutive
        std::int64_t successes = 0;  // consecutive
        bool healthy = true;
    };
    void result(IpAddr dip, Vm& vm, bool ok, Time now, ProbeOutput& out);

    HealthProbeConfig config_;
    IpAddr host_;
    std::map<IpAddr, Vm> vms_;
    std::uint64_t sent_ = 0;
};

}  // namespace loom::ananta
