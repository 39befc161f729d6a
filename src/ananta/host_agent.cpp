#include "loom/ananta/host_agent.hpp"

#include <utility>

#include "loom/base/assert.hpp"

namespace loom::ananta {

HostAgent::HostAgent(const HostAgentConfig& config, IpAddr self, const FastpathConfig& fastpath)
    : config_(config), self_(self), fastpath_(fastpath, self) {}

bool HostAgent::handle_redirect(const FastpathRedirect& redirect, Time now) {
    const bool ok = fastpath_.accept(redirect, now);
    ++(ok ? counters_.redirects_accepted : counters_.redirects_refused);
    return ok;
}

std::size_t HostAgent::held(IpAddr dip) const {
    auto it = held_.find(dip);
    return it == held_.end() ? 0 : it->second.size();
}

void HostAgent::handle(const HostCommand& command, Time now, HostOutput& out) {
    const Epoch e = std::visit([](const auto& c) { return c.epoch; }, command);
    if (!epochs_.accept(e)) {
        ++counters_.commands_rejected;
        out.rejected.push_back(CommandRejected{e, epochs_.highest()});
        return;
    }
    std::visit([&](const auto& c) { apply(c, now, out); }, command);
}

void HostAgent::apply(const AddVm& c, Time, HostOutput&) { vms_.insert(c.dip); }

void HostAgent::apply(const SetNatRule& c, Time, HostOutput&) {
    const NatKey key{c.endpoint, c.dip};
    if (c.remove) {
        nat_.erase(key);
    } else {
        nat_[key] = c.dip_port;
    }
}

void HostAgent::apply(const SetSnatVip& c, Time, HostOutput&) { snat_vip_[c.dip] = c.vip; }

void HostAgent::apply(const SnatGrant& c, Time now, HostOutput& out) {
    grants_[c.dip].push_back(c);
    outstanding_.erase(c.dip);
    auto it = held_.find(c.dip);
    if (it == held_.end()) return;
    std::vector<IpPacket> waiting = std::move(it->second);
    held_.erase(it);
    for (const IpPacket& p : waiting) outbound(p, now, out);
}

void HostAgent::drop(const IpPacket& p, DropReason r, HostOutput& out) {
    ++counters_.drops[static_cast<std::size_t>(r)];
    out.drops.push_back(HostDrop{p, r});
}

void HostAgent::clamp(IpPacket& p) {
    const auto limit = static_cast<std::uint16_t>(config_.mss_clamp);
    if (p.is_syn() && p.mss > limit) {
        p.mss = limit;
        ++counters_.mss_clamped;
    }
}

std::uint32_t HostAgent::bind(const FiveTuple& outside, const FiveTuple& inside, Time now) {
    LOOM_DEBUG_ASSERT(inside.src == outside.src && inside.src_port == outside.src_port && inside.proto == outside.proto,
                "a NAT binding changes only the destination");
    // Callers bind only an outside tuple without a live binding (find_inbound removed an expired one).
    LOOM_DEBUG_ASSERT(inbound_.find(outside, outside_of()) == TupleIndex::kNone, "a second binding for one outside tuple");
    std::uint32_t i;
    if (free_.empty()) {
        pool_.emplace_back();
        i = static_cast<std::uint32_t>(pool_.size() - 1);
    } else {
        i = free_.back();
        free_.pop_back();
    }
    pool_[i].outside = outside;
    inbound_.insert(outside, i, outside_of());
    Binding& b = pool_[i];
    b.dip = inside.dst;
    b.dip_port = inside.dst_port;
    b.server_hint = HostDelivery::kNoServerHint;
    b.last_seen = now;
    // The reply tuple now leads to this binding (taking it over from another binding if one had it).
    const FiveTuple reply = b.reply();
    outbound_.erase(reply, reply_of());
    outbound_.insert(reply, i, reply_of());
    return i;
}

void HostAgent::unbind(const FiveTuple& outside) {
    const std::uint32_t i = inbound_.erase(outside, outside_of());
    if (i == TupleIndex::kNone) return;
    outbound_.erase(pool_[i].reply(), reply_of());
    pool_[i].dip = 0;
    free_.push_back(i);
}

std::uint32_t HostAgent::find_inbound_at(const FiveTuple& outside, Time now) {
    const std::uint32_t i = inbound_.find(outside, outside_of());
    if (i == TupleIndex::kNone) return i;
    if (now - pool_[i].last_seen >= config_.flow_idle_timeout) {
        unbind(outside);
        return TupleIndex::kNone;
    }
    return i;
}

void HostAgent::send_to_router(IpPacket p, Time now, HostOutput& out) {
    if (fastpath_.route(p, now)) ++counters_.fastpath_sent;
    if (check_mtu(p, static_cast<std::uint32_t>(config_.mtu)) != MtuVerdict::Fits) return drop(p, DropReason::Mtu, out);
    ++counters_.to_router;
    out.to_router.push_back(p);
}

void HostAgent::from_network(const IpPacket& packet, Time now, HostOutput& out) {
    ++counters_.from_network;
    if (!packet.encapsulated()) {
        // Addressed to a VM directly (no Mux on the way).
        if (!vms_.contains(packet.inner.dst)) return drop(packet, DropReason::NoRoute, out);
        ++counters_.delivered;
        out.to_vm.push_back(HostDelivery{packet, packet.inner.dst});
        return;
    }
    IpPacket q = packet;
    const IpAddr dip = q.wire_dst();
    q.decapsulate();
    if (!vms_.contains(dip)) return drop(q, DropReason::NoRoute, out);
    std::uint32_t at = find_inbound_at(q.inner, now);
    std::uint16_t hint = HostDelivery::kNoServerHint;
    if (at != TupleIndex::kNone) {
        Binding* b = &pool_[at];
        if (b->dip != dip) return drop(q, DropReason::NoFlow, out);
        b->last_seen = now;
        hint = b->server_hint;
        q.inner = b->inside();
    } else {
        auto rule = nat_.find(NatKey{Endpoint{q.inner.dst, q.inner.proto, q.inner.dst_port}, dip});
        if (rule == nat_.end()) return drop(q, DropReason::NoRoute, out);
        if (q.inner.proto == IpProto::Tcp && !q.is_syn()) return drop(q, DropReason::NoFlow, out);
        FiveTuple inside = q.inner;
        inside.dst = dip;
        inside.dst_port = rule->second;
        at = bind(q.inner, inside, now);
        q.inner = inside;
    }
    clamp(q);
    ++counters_.delivered;
    out.to_vm.push_back(HostDelivery{q, dip, at, hint});
}

void HostAgent::from_vm(const IpPacket& packet, Time now, HostOutput& out) {
    ++counters_.from_vm;
    outbound(packet, now, out);
}

bool HostAgent::try_snat(IpPacket& p, IpAddr vip, Time now) {
    auto git = grants_.find(p.inner.src);
    if (git == grants_.end()) return false;
    for (const SnatGrant& g : git->second) {
        if (g.vip != vip) continue;
        for (std::uint32_t i = 0; i < g.count; ++i) {
            const auto port = static_cast<std::uint16_t>(g.first + i);
            const FiveTuple outside{p.inner.dst, vip, p.inner.dst_port, port, p.inner.proto};
            if (find_inbound(outside, now) != nullptr) continue;  // in use toward this remote end
            bind(outside, p.inner.reversed(), now);
            p.inner.src = vip;
            p.inner.src_port = port;
            return true;
        }
    }
    return false;
}

void HostAgent::outbound(const IpPacket& packet, Time now, HostOutput& out) {
    IpPacket q = packet;
    if (const std::uint32_t i = outbound_.find(q.inner, reply_of()); i != TupleIndex::kNone) {
        // Both indexes name the same binding (bind and unbind keep them together), so the binding is read here
        // directly rather than looked up again by its outside tuple (one index line fewer per packet).
        Binding& b = pool_[i];
        const FiveTuple outside = b.outside;
        LOOM_DEBUG_ASSERT(inbound_.find(outside, outside_of()) == i, "the two NAT indexes disagree");
        if (now - b.last_seen < config_.flow_idle_timeout) {
            b.last_seen = now;
            q.inner = outside.reversed();
            clamp(q);
            return send_to_router(q, now, out);
        }
        unbind(outside);  // expired, as find_inbound would have found it
    }
    const IpAddr dip = q.inner.src;
    auto vit = snat_vip_.find(dip);
    if (vit == snat_vip_.end()) return drop(q, DropReason::NoRoute, out);
    const bool waiting = held_.contains(dip) || outstanding_.contains(dip);
    if (!waiting && try_snat(q, vit->second, now)) {
        clamp(q);
        return send_to_router(q, now, out);
    }
    held_[dip].push_back(q);
    ++counters_.held;
    if (!outstanding_.contains(dip)) {
        outstanding_.insert(dip);
        out.snat_requests.push_back(SnatRequest{dip, vit->second});
    }
}

void HostAgent::expire(Time now) {
    fastpath_.expire(now);
    std::vector<FiveTuple> gone;
    for (const Binding& b : pool_)
        if (b.dip != 0 && now - b.last_seen >= config_.flow_idle_timeout) gone.push_back(b.outside);
    for (const FiveTuple& t : gone) unbind(t);  // the set removed does not depend on the map's order
}

config::Schema<HostAgentConfig> host_agent_schema() {
    using C = HostAgentConfig;
    config::Schema<C> s("Ananta Host Agent: NAT, direct server return, SNAT, MSS clamping.");
    s.field("mss_clamp", &C::mss_clamp, "TCP MSS written into SYNs that offer more (published: 1440).")
        .range(88, 65495);
    s.field("flow_idle_timeout", &C::flow_idle_timeout, "NAT state idle this long is removed (not published).")
        .at_least(Time::ps(1));
    s.field("mtu", &C::mtu, "Largest packet sent toward the router; larger ones are dropped.").range(68, 65535);
    return s;
}

}  // namespace loom::ananta
