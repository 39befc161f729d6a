// HostNode's Fastpath redirects, health probing of its VMs and failed VMs.
#include "loom/ananta/endpoint_node.hpp"
#include "loom/ananta/fastpath_wire.hpp"
#include "loom/ananta/health_relay.hpp"

namespace loom::ananta {

void HostNode::enable_fastpath(std::vector<IpAddr> ananta, bool count_by_vip) {
    agent_.set_ananta_addresses(std::move(ananta));
    count_by_vip_ = count_by_vip;
}

void HostNode::count_sent() {
    for (const IpPacket& q : out_.to_router) {
        VipWork& w = work_by_vip_[q.inner.src];
        ++w.agent_packets;
        if (q.encapsulated()) ++w.host_to_host;
    }
}

void HostNode::on_redirect(const IpPacket& p) {
    const std::optional<FastpathRedirect> r = read_redirect(p);
    if (r && agent_.handle_redirect(*r, now())) return consumed(p);
    drop(p, shared_.redirect_refused);
}

void HostNode::set_vm_down(IpAddr dip, bool down) {
    if (down) {
        down_.insert(dip);
    } else {
        down_.erase(dip);
    }
}

void HostNode::probe(IpAddr dip) {
    if (!prober_) {
        prober_ = std::make_unique<HealthProber>(shared_.config.dynamics.health, agent_.address());
        probe_timer_ = std::make_unique<sim::Timer>(ctx(), this, sim::handler<&HostNode::on_probe_timer>);
        reply_timer_ = std::make_unique<sim::Timer>(ctx(), this, sim::handler<&HostNode::on_reply_timer>);
    }
    probed_.push_back(dip);
}

std::uint64_t HostNode::probes_sent() const { return prober_ ? prober_->probes_sent() : 0; }

sim::ChannelPort& HostNode::health_port() {
    if (!health_)
        health_ = std::make_unique<sim::ChannelPort>(ctx(), "health", this, sim::handler<&HostNode::on_health_message>);
    return *health_;
}

void HostNode::init() {
    EndpointNode::init();
    if (!prober_) return;
    probe_out_.clear();
    for (IpAddr dip : probed_) prober_->add_vm(dip, now(), probe_out_);
    probe_output();
}

void HostNode::probe_output() {
    const HealthProbeConfig& hc = shared_.config.dynamics.health;
    for (const ProbeRequest& r : probe_out_.probes) {
        if (down_.contains(r.dip)) continue;  // a failed VM never answers
        replies_.emplace_back(now() + hc.reply_latency, r);
        if (!reply_timer_->armed()) reply_timer_->arm_at(replies_.front().first);
    }
    for (const HealthChange& c : probe_out_.changes) {
        health_changes_.push_back(c);
        if (control_ != nullptr) {
            control_->health_report(c.dip, agent_.address(), c.healthy);  // to the manager replicas
        } else {
            health_->send(0, health_arg(c.dip, c.healthy, shared_.config.network), hc.report_delay);
        }
    }
    probe_out_.clear();
    const Time next = prober_->next_deadline();
    if (next != Time::max() && (!probe_timer_->armed() || probe_timer_->expiry() != next)) probe_timer_->arm_at(next);
}

void HostNode::on_probe_timer() {
    prober_->tick(now(), probe_out_);
    probe_output();
}

void HostNode::on_reply_timer() {
    while (!replies_.empty() && replies_.front().first <= now()) {
        const ProbeRequest r = replies_.front().second;
        replies_.pop_front();
        prober_->on_reply(r.dip, r.seq, now(), probe_out_);
    }
    if (!replies_.empty()) reply_timer_->arm_at(replies_.front().first);
    probe_output();
}

}  // namespace loom::ananta
