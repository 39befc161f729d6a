#include "manager_world.hpp"

#include "loom/base/assert.hpp"

namespace loom::ananta::test {

WorldSpec::WorldSpec() {
    paxos.heartbeat_interval = Time::ms(1);
    paxos.election_timeout = Time::ms(5);
    paxos.election_jitter = Time::ms(5);
    paxos.lease_duration = Time::ms(4);
    paxos.depose_on_write_only = true;  // Ananta's stale primary: learns only when a write of its own is refused
    manager.mux_down_after = Time::s(1000);
    manager.host_down_after = Time::s(1000);
}

World::World(const WorldSpec& spec) : wakes_(spec.managers), delay_(spec.net_delay) {
    paxos::Config pc = spec.paxos;
    pc.replicas = spec.managers;
    std::vector<IpAddr> mux_addrs, host_addrs;
    for (std::uint32_t i = 0; i < spec.muxes; ++i) mux_addrs.push_back(ip(10, 1, 0, static_cast<std::uint8_t>(i + 1)));
    for (std::uint32_t i = 0; i < spec.hosts; ++i) host_addrs.push_back(ip(10, 2, 0, static_cast<std::uint8_t>(i + 1)));
    for (IpAddr a : mux_addrs) muxes_.emplace_back(MuxConfig{}, a);
    for (IpAddr a : host_addrs) hosts_.emplace_back(HostAgentConfig{}, a);
    for (std::uint32_t i = 0; i < spec.managers; ++i)
        managers_.emplace_back(spec.manager, spec.snat, pc, i, mux_addrs, host_addrs);
    snat_shadow.resize(spec.muxes);
}

void World::start(std::size_t leader) {
    for (std::size_t i = 0; i < managers_.size(); ++i) {
        ManagerActions a;
        managers_[i].start(now_, a);
        if (i == leader) managers_[i].campaign(now_, a);
        absorb(i, a, now_);
    }
}

void World::campaign(std::size_t m) {
    ManagerActions a;
    managers_[m].campaign(now_, a);
    absorb(m, a, now_);
}

void World::push(Time at, Event e) { events_.emplace(std::make_pair(at, seq_++), std::move(e)); }

void World::input(std::size_t manager, ManagerInput in, Time at) {
    Event e;
    e.kind = Kind::Input;
    e.target = manager;
    e.input = std::move(in);
    push(at, std::move(e));
}

void World::vm_send(std::size_t host, const IpPacket& p, Time at) {
    Event e;
    e.kind = Kind::VmPacket;
    e.target = host;
    e.packet = p;
    push(at, std::move(e));
}

std::size_t World::mux_index(IpAddr a) const {
    for (std::size_t i = 0; i < muxes_.size(); ++i)
        if (muxes_[i].address() == a) return i;
    LOOM_ASSERT(false, "unknown Mux");
    return 0;
}
std::size_t World::host_index(IpAddr a) const {
    for (std::size_t i = 0; i < hosts_.size(); ++i)
        if (hosts_[i].address() == a) return i;
    LOOM_ASSERT(false, "unknown host");
    return 0;
}

void World::absorb(std::size_t m, ManagerActions& a, Time now) {
    for (const auto& s : a.paxos.sends) input(s.message.to, s.message, now + delay_);
    for (const auto& t : a.paxos.timers) {
        if (t.cancel) continue;  // a stale Timeout is ignored by the replica
        paxos::Message msg;
        msg.type = paxos::MessageType::Timeout;
        msg.timer = t.kind;
        msg.from = msg.to = static_cast<paxos::ReplicaId>(m);
        input(m, msg, t.at);
    }
    if (!a.paxos.writes.empty()) {
        paxos::Message msg;
        msg.type = paxos::MessageType::DurableDone;
        msg.token = a.paxos.writes.back().token;
        msg.from = msg.to = static_cast<paxos::ReplicaId>(m);
        input(m, msg, now);
    }
    for (const auto& c : a.to_mux) {
        Event e;
        e.kind = Kind::MuxApply;
        e.issuer = m;
        e.mux = c;
        push(c.at, std::move(e));
    }
    for (const auto& c : a.to_host) {
        Event e;
        e.kind = Kind::HostApply;
        e.issuer = m;
        e.host = c;
        push(c.at, std::move(e));
    }
    vip_done.insert(vip_done.end(), a.vip_done.begin(), a.vip_done.end());
    snat_done.insert(snat_done.end(), a.snat_done.begin(), a.snat_done.end());
    isolation_done.insert(isolation_done.end(), a.isolation_done.begin(), a.isolation_done.end());
    routes.insert(routes.end(), a.routes.begin(), a.routes.end());
    if (a.wake && wakes_[m].insert(*a.wake).second) input(m, ManagerTick{}, *a.wake);
}

void World::host_output(std::size_t h, HostOutput& out, Time now) {
    for (const auto& r : out.snat_requests) input(snat_to, SnatAsk{hosts_[h].address(), r}, now + delay_);
    to_router.insert(to_router.end(), out.to_router.begin(), out.to_router.end());
}

void World::run_until(Time t) {
    while (!events_.empty() && events_.begin()->first.first <= t) {
        auto node = events_.extract(events_.begin());
        now_ = node.key().first;
        Event& e = node.mapped();
        switch (e.kind) {
            case Kind::Input: {
                if (frozen.contains(e.target)) break;
                if (std::holds_alternative<ManagerTick>(e.input)) wakes_[e.target].erase(now_);
                ManagerActions a;
                managers_[e.target].handle(e.input, now_, a);
                absorb(e.target, a, now_);
                break;
            }
            case Kind::MuxApply: {
                if (frozen.contains(e.issuer)) break;  // a frozen manager's sends are not out yet: dropped
                const std::size_t i = mux_index(e.mux.mux);
                MuxOutput out;
                muxes_[i].handle(e.mux.command, now_, out);
                CommandAck ack{e.mux.mux, e.mux.token, std::nullopt};
                if (!out.rejected.empty()) {
                    ack.rejected = out.rejected.front();
                    mux_rejections.push_back(e.issuer);
                } else {
                    mux_applied.emplace_back(e.issuer, e.mux);
                    if (const auto* s = std::get_if<SetSnatRange>(&e.mux.command))
                        for (std::uint32_t p = 0; p < s->count; ++p) {
                            const auto key = std::make_pair(s->vip, static_cast<std::uint16_t>(s->first_port + p));
                            if (s->remove) snat_shadow[i].erase(key);
                            else snat_shadow[i][key] = s->target.dip;
                        }
                }
                if (!mute.contains(e.mux.mux)) input(e.issuer, ack, now_ + delay_);
                break;
            }
            case Kind::HostApply: {
                if (frozen.contains(e.issuer)) break;
                const std::size_t h = host_index(e.host.host);
                HostOutput out;
                hosts_[h].handle(e.host.command, now_, out);
                CommandAck ack{e.host.host, e.host.token, std::nullopt};
                if (!out.rejected.empty()) ack.rejected = out.rejected.front();
                host_output(h, out, now_);
                if (!mute.contains(e.host.host)) input(e.issuer, ack, now_ + delay_);
                break;
            }
            case Kind::VmPacket: {
                HostOutput out;
                hosts_[e.target].from_vm(e.packet, now_, out);
                host_output(e.target, out, now_);
                break;
            }
        }
        if (after_event) after_event(*this, after_arg);
    }
    now_ = t;
}

}  // namespace loom::ananta::test
