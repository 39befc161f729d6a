#include <fmt/format.h>

#include "loom/ananta/control_plane.hpp"

namespace loom::ananta {

ManagerNode::ManagerNode(sim::Context& ctx, ControlPlane& plane, std::uint32_t replica)
    : sim::Component(ctx),
      plane_(plane),
      replica_(replica),
      timers_(ctx, this, sim::handler<&ManagerNode::on_timer>),
      write_timer_(ctx, this, sim::handler<&ManagerNode::on_write>),
      wake_timer_(ctx, this, sim::handler<&ManagerNode::on_wake>) {
    const auto n = static_cast<std::uint32_t>(plane.config().replicas);
    for (std::uint32_t p = 0; p < n; ++p) {
        if (p == replica) {
            outs_.emplace_back();
            ins_.emplace_back();
            continue;
        }
        outs_.push_back(std::make_unique<PaxosOut>(ctx, fmt::format("replica{}", p), plane.link_timing(),
                                                   plane.config().link));
        ins_.push_back(std::make_unique<PaxosIn>(ctx, fmt::format("replica{}_in", p), this,
                                                 sim::handler<&ManagerNode::on_paxos>));
    }
    const std::uint32_t muxes = static_cast<std::uint32_t>(plane.mux_addresses().size());
    for (std::uint32_t q = 0; q < plane.peers(); ++q) {
        const std::string name = q < muxes ? fmt::format("mux{}", q) : fmt::format("host{}", q - muxes);
        cmd_outs_.push_back(std::make_unique<ControlOut>(ctx, name, plane.command_timing(), plane.command_port()));
        ack_ins_.push_back(std::make_unique<ControlIn>(ctx, name + "_ack", this, sim::handler<&ManagerNode::on_ack>));
    }
}

void ManagerNode::send_command(std::uint32_t peer, const std::vector<ControlMessage>& parts) {
    for (const ControlMessage& m : parts) {
        net::Packet<ControlMessage> p;
        p.header.bytes = static_cast<std::int64_t>(sizeof(ControlMessage));
        p.header.created = now();
        p.header.src = replica_;
        p.header.dst = peer;
        p.payload = m;
        cmd_outs_[peer]->send(p);
    }
}

void ManagerNode::on_ack(const net::Packet<ControlMessage>& p, const net::Delivery&) {
    const std::uint32_t peer = p.header.src;
    const auto& muxes = plane_.mux_addresses();
    const IpAddr from = peer < muxes.size() ? muxes[peer] : plane_.host_addresses()[peer - muxes.size()];
    deliver(CommandAck{from, p.payload.token, ack_rejection(p.payload)});
}

void ManagerNode::init() {
    const ControlPlaneConfig& c = plane_.config();
    if (static_cast<std::int64_t>(replica_) >= c.replicas - c.replicas_down) return;  // down from the start
    manager_.emplace(plane_.manager_config(), plane_.shared().config.params.snat, plane_.paxos_config(), replica_,
                     plane_.mux_addresses(), plane_.host_addresses(), disk_);
    actions_.clear();
    manager_->start(now(), actions_);
    if (static_cast<std::int64_t>(replica_) == plane_.config().initial_primary) manager_->campaign(now(), actions_);
    take(actions_);
}

ManagerCounters ManagerNode::counters() const {
    ManagerCounters c = past_;
    if (manager_) {
        const ManagerCounters& m = manager_->counters();
        c.rejections += m.rejections;
        c.fence_writes += m.fence_writes;
        c.snat_dropped += m.snat_dropped;
        c.snat_reclaimed += m.snat_reclaimed;
        c.health_relays += m.health_relays;
        c.not_primary += m.not_primary;
    }
    return c;
}

void ManagerNode::deliver(const ManagerInput& input) {
    if (!manager_ || frozen_) {
        ++lost_;
        return;
    }
    actions_.clear();
    manager_->handle(input, now(), actions_);
    take(actions_);
}

void ManagerNode::on_paxos(const net::Packet<paxos::Message>& p, const net::Delivery&) { deliver(p.payload); }

void ManagerNode::on_timer(std::uint32_t kind) {
    if (!manager_ || frozen_) return;  // a frozen replica takes its due timers on thaw
    paxos::Message m;
    m.type = paxos::MessageType::Timeout;
    m.timer = static_cast<paxos::TimerKind>(kind);
    m.from = m.to = replica_;
    deliver(m);
}

void ManagerNode::on_write() {
    std::uint64_t token = 0;
    std::size_t n = 0;
    while (n < writes_.size() && writes_[n].at <= now()) {
        disk_.apply(writes_[n].record);
        token = writes_[n].token;
        ++n;
    }
    writes_.erase(writes_.begin(), writes_.begin() + static_cast<std::ptrdiff_t>(n));
    if (!writes_.empty()) write_timer_.arm_at(writes_.front().at);
    if (n == 0 || !manager_) return;
    if (frozen_) {
        done_while_frozen_ = token;  // on disk; the process hears of it when it runs again
        return;
    }
    paxos::Message m;
    m.type = paxos::MessageType::DurableDone;
    m.token = token;
    m.from = m.to = replica_;
    deliver(m);
}

void ManagerNode::on_wake() {
    if (!manager_ || frozen_) return;
    deliver(ManagerTick{});
}

void ManagerNode::take(ManagerActions& a) {
    for (const paxos::SendAction& s : a.paxos.sends) {
        if (s.message.to >= outs_.size() || !outs_[s.message.to]) continue;
        net::Packet<paxos::Message> p;
        p.header.bytes = static_cast<std::int64_t>(sizeof(paxos::Message));
        p.header.created = now();
        p.header.src = replica_;
        p.header.dst = s.message.to;
        p.payload = s.message;
        outs_[s.message.to]->send(p);
    }
    for (const paxos::TimerAction& t : a.paxos.timers) {
        const auto id = static_cast<std::uint32_t>(t.kind);
        if (t.cancel) {
            timers_.cancel(id);
        } else {
            timers_.arm_at(id, std::max(t.at, now()));
        }
    }
    for (const paxos::DurableWriteAction& w : a.paxos.writes) {
        writes_.push_back(Pending{now() + plane_.config().durable_write_latency, w.token, w.record});
        if (!write_timer_.armed() || write_timer_.expiry() > writes_.back().at) write_timer_.arm_at(writes_.front().at);
    }
    for (const paxos::LeadershipAction& l : a.paxos.leadership) plane_.leadership(replica_, l);
    if (a.wake) {
        if (!wake_timer_.armed() || wake_timer_.expiry() != *a.wake) wake_timer_.arm_at(std::max(*a.wake, now()));
    } else {
        wake_timer_.cancel();
    }
    plane_.from_manager(replica_, a);
}

void ManagerNode::crash() {
    if (!manager_) return;
    if (manager_->is_primary(now())) plane_.leadership(replica_, paxos::LeadershipAction{false, manager_->replica().ballot()});
    const ManagerCounters c = counters();
    past_ = c;
    manager_.reset();
    writes_.clear();  // not yet durable: lost with the process
    write_timer_.cancel();
    wake_timer_.cancel();
    for (std::uint32_t k = 0; k < paxos::kTimerKinds; ++k) timers_.cancel(k);
    frozen_ = false;
    done_while_frozen_ = 0;
}

void ManagerNode::recover() {
    if (manager_) return;
    manager_.emplace(plane_.manager_config(), plane_.shared().config.params.snat, plane_.paxos_config(), replica_,
                     plane_.mux_addresses(), plane_.host_addresses(), disk_);
    actions_.clear();
    manager_->start(now(), actions_);
    take(actions_);
    // The peers' keep-alives reach the new process at once (they are sent to every replica).
    for (IpAddr a : plane_.mux_addresses()) deliver(PeerAlive{a});
    for (IpAddr a : plane_.host_addresses()) deliver(PeerAlive{a});
}

void ManagerNode::freeze() { frozen_ = manager_.has_value(); }

void ManagerNode::thaw() {
    if (!frozen_) return;
    frozen_ = false;
    // What waited in the socket buffers: the peers' latest keep-alives.
    for (IpAddr a : plane_.mux_addresses()) deliver(PeerAlive{a});
    for (IpAddr a : plane_.host_addresses()) deliver(PeerAlive{a});
    if (done_while_frozen_ != 0) {
        paxos::Message m;
        m.type = paxos::MessageType::DurableDone;
        m.token = done_while_frozen_;
        m.from = m.to = replica_;
        done_while_frozen_ = 0;
        deliver(m);
    }
    // Timers that came due while frozen fire now (the replica ignores those not due).
    for (std::uint32_t k = 0; k < paxos::kTimerKinds; ++k) on_timer(k);
    deliver(ManagerTick{});
}

}  // namespace loom::ananta
