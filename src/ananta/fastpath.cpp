#include "loom/ananta/fastpath.hpp"

#include <utility>

#include "loom/ananta/mux.hpp"

namespace loom::ananta {

MuxFastpath::MuxFastpath(const FastpathConfig& config, IpAddr self, std::vector<IpAddr> ananta_addresses)
    : config_(config), self_(self), ananta_(ananta_addresses.begin(), ananta_addresses.end()) {}

void MuxFastpath::set_enabled(IpAddr vip, bool on) {
    if (on) {
        enabled_.insert(vip);
    } else {
        enabled_.erase(vip);
    }
}

void MuxFastpath::observe(const IpPacket& packet, const FlowTarget& target, Time now,
                          std::vector<FastpathRedirect>& out) {
    const FiveTuple& t = packet.inner;
    if (t.proto != IpProto::Tcp || !enabled(t.src) || !enabled(t.dst)) return;
    // Handshakes that never complete (a SYN flood, a lost ACK) are forgotten at most one timeout late.
    if (now >= next_expiry_) {
        expire(now);
        next_expiry_ = now + config_.handshake_timeout;
    }
    if (packet.is_syn()) {
        if (!packet.has(tcp_flag::kAck)) pending_[t] = now;
        return;
    }
    auto it = pending_.find(t);
    if (it == pending_.end() || !packet.has(tcp_flag::kAck)) return;
    const bool live = now - it->second < config_.handshake_timeout;
    pending_.erase(it);
    if (!live) return;
    ++counters_.handshakes;
    out.push_back(FastpathRedirect{self_, t.src, t, FlowTarget{}, target});
}

void MuxFastpath::handle(const FastpathRedirect& r, const Mux& mux, Time, std::vector<FastpathRedirect>& out) {
    if (!ananta_.contains(r.from)) {
        ++counters_.refused;
        return;
    }
    if (!enabled(r.tuple.src) || !enabled(r.tuple.dst)) return;
    const FlowTarget* src = mux.snat_target(r.tuple.src, r.tuple.proto, r.tuple.src_port);
    if (src == nullptr) {
        ++counters_.unresolved;
        return;
    }
    ++counters_.resolved;
    FastpathRedirect h{self_, src->host, r.tuple, *src, r.destination};
    out.push_back(h);
    if (r.destination.host != src->host) {
        h.to = r.destination.host;
        out.push_back(h);
    }
}

void MuxFastpath::expire(Time now) {
    std::erase_if(pending_, [&](const auto& kv) { return now - kv.second >= config_.handshake_timeout; });
}

bool HostFastpath::accept(const FastpathRedirect& r, Time now) {
    if (!ananta_.contains(r.from)) return false;
    const bool is_source = r.source.host == self_;
    const bool is_destination = r.destination.host == self_;
    if (!is_source && !is_destination) return false;
    if (r.source.dip == 0 || r.destination.dip == 0) return false;
    if (is_source) peers_[r.tuple] = Peer{r.destination.dip, now};
    if (is_destination) peers_[r.tuple.reversed()] = Peer{r.source.dip, now};
    return true;
}

bool HostFastpath::route(IpPacket& p, Time now) {
    if (p.encapsulated()) return false;
    auto it = peers_.find(p.inner);
    if (it == peers_.end()) return false;
    if (now - it->second.last_used >= config_.idle_timeout) {
        peers_.erase(it);
        return false;
    }
    it->second.last_used = now;
    p.encapsulate(self_, it->second.dip);
    return true;
}

void HostFastpath::expire(Time now) {
    std::erase_if(peers_, [&](const auto& kv) { return now - kv.second.last_used >= config_.idle_timeout; });
}

config::Schema<FastpathConfig> fastpath_schema() {
    using C = FastpathConfig;
    config::Schema<C> s("Fastpath: VIP-to-VIP connections inside the data center bypass the Muxes once redirected.");
    s.field("enabled", &C::enabled,
            "Fastpath for every VIP (a VIP's own \"fastpath\": true enables it for that VIP); needs both ends on.");
    s.field("handshake_timeout", &C::handshake_timeout,
            "How long a Mux waits after a SYN for the handshake's ACK (not published: 10 s).")
        .at_least(Time::ps(1));
    s.field("idle_timeout", &C::idle_timeout, "A host forgets a redirect unused this long (not published: 240 s).")
        .at_least(Time::ps(1));
    return s;
}

}  // namespace loom::ananta
