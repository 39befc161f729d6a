#include "loom/ananta/health_prober.hpp"

#include <algorithm>

namespace loom::ananta {

HealthProber::HealthProber(const HealthProbeConfig& config, IpAddr host) : config_(config), host_(host) {}

void HealthProber::add_vm(IpAddr dip, Time now, ProbeOutput& out) {
    Vm vm;
    vm.next_probe = now;
    vms_[dip] = vm;
    tick(now, out);
}

void HealthProber::remove_vm(IpAddr dip) { vms_.erase(dip); }

bool HealthProber::healthy(IpAddr dip) const {
    auto it = vms_.find(dip);
    return it != vms_.end() && it->second.healthy;
}

void HealthProber::result(IpAddr dip, Vm& vm, bool ok, Time now, ProbeOutput& out) {
    vm.outstanding = false;
    if (ok) {
        vm.failures = 0;
        ++vm.successes;
        if (!vm.healthy && vm.successes >= config_.healthy_threshold) {
            vm.healthy = true;
            out.changes.push_back(HealthChange{host_, dip, true, now});
        }
    } else {
        vm.successes = 0;
        ++vm.failures;
        if (vm.healthy && vm.failures >= config_.unhealthy_threshold) {
            vm.healthy = false;
            out.changes.push_back(HealthChange{host_, dip, false, now});
        }
    }
}

void HealthProber::on_reply(IpAddr dip, std::uint32_t seq, Time now, ProbeOutput& out) {
    auto it = vms_.find(dip);
    if (it == vms_.end()) return;
    Vm& vm = it->second;
    if (!vm.outstanding || vm.seq != seq || now >= vm.sent + config_.timeout) return;  // stale or late
    result(dip, vm, true, now, out);
}

void HealthProber::tick(Time now, ProbeOutput& out) {
    for (auto& [dip, vm] : vms_) {
        if (vm.outstanding && vm.sent + config_.timeout <= now) result(dip, vm, false, vm.sent + config_.timeout, out);
        while (vm.next_probe <= now) {
            // A probe skipped over by a late tick still counts: it is sent and, if already overdue, failed.
            vm.outstanding = true;
            vm.sent = vm.next_probe;
            ++vm.seq;
            ++sent_;
            vm.next_probe += config_.interval;
            if (vm.sent + config_.timeout <= now) {
                result(dip, vm, false, vm.sent + config_.timeout, out);
            } else {
                out.probes.push_back(ProbeRequest{dip, vm.seq});
            }
        }
    }
}

Time HealthProber::next_deadline() const {
    Time t = Time::max();
    for (const auto& [dip, vm] : vms_) {
        t = std::min(t, vm.next_probe);
        if (vm.outstanding) t = std::min(t, vm.sent + config_.timeout);
    }
    return t;
}

config::Schema<HealthProbeConfig> health_probe_schema() {
    using C = HealthProbeConfig;
    config::Schema<C> s("Host Agent health probing of local VMs (values not published; common cloud defaults).");
    s.field("enabled", &C::enabled, "Host Agents probe the VMs that are DIPs and report changes (off by default).");
    s.field("interval", &C::interval, "Time between probes of one VM (not published: 5 s).").at_least(Time::ps(1));
    s.field("timeout", &C::timeout, "A probe unanswered this long fails (not published: 1 s); at most interval.")
        .at_least(Time::ps(1));
    s.field("unhealthy_threshold", &C::unhealthy_threshold,
            "Consecutive failures that mark a VM unhealthy (not published: 2).")
        .range(1, 1000);
    s.field("healthy_threshold", &C::healthy_threshold,
            "Consecutive successes that mark an unhealthy VM healthy again (not published: 2).")
        .range(1, 1000);
    s.field("reply_latency", &C::reply_latency,
            "A healthy VM answers a probe this long after it was sent (not published: 100 us).")
        .at_least(Time::ps(1));
    s.field("report_delay", &C::report_delay,
            "Manager relay: a Host Agent's health report reaches the manager after this (not published: 1 ms).")
        .at_least(Time::ps(1));
    s.field("update_delay", &C::update_delay,
            "Manager relay: every Mux applies a health change this long after the manager got it (not published: "
            "50 ms).")
        .at_least(Time::ps(1));
    s.check("timeout", [](const C& c) -> std::optional<std::string> {
        if (c.timeout > c.interval) return "expected at most interval";
        return std::nullopt;
    });
    return s;
}

}  // namespace loom::ananta
