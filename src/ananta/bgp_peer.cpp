#include "loom/ananta/bgp_peer.hpp"

#include "loom/base/assert.hpp"

namespace loom::ananta {

const char* bgp_event_name(BgpEventKind k) {
    switch (k) {
        case BgpEventKind::SessionUp: return "session_up";
        case BgpEventKind::HoldExpired: return "hold_expired";
        case BgpEventKind::FastDetection: return "fast_detection";
        case BgpEventKind::Closed: return "closed";
        case BgpEventKind::Announced: return "announced";
        case BgpEventKind::Withdrawn: return "withdrawn";
    }
    return "?";
}

BgpPeer::BgpPeer(const BgpConfig& bgp, const EcmpConfig& ecmp, IpAddr self) : router_(bgp, ecmp, self) {}

void BgpPeer::attach(IpAddr mux, std::uint32_t port) { ports_[mux] = port; }

std::optional<BgpMessage> BgpPeer::accepts(const IpPacket& p) const {
    if (p.wire_dst() != router_.address()) return std::nullopt;
    return bgp_message(p);
}

std::uint32_t BgpPeer::port_of(IpAddr mux) const {
    auto it = ports_.find(mux);
    LOOM_ASSERT(it != ports_.end(), "BGP peer: no port toward this Mux");
    return it->second;
}

void BgpPeer::note(const BgpRouterOutput& out, std::size_t changes_before, std::size_t down_before, Time now) {
    for (std::size_t i = down_before; i < out.down.size(); ++i) {
        const SessionDown& d = out.down[i];
        const BgpEventKind k = d.reason == SessionEnd::HoldExpired     ? BgpEventKind::HoldExpired
                               : d.reason == SessionEnd::FastDetection ? BgpEventKind::FastDetection
                                                                       : BgpEventKind::Closed;
        events_.push_back(BgpEvent{d.at, d.peer, k});
    }
    for (std::size_t i = changes_before; i < out.changes.size(); ++i) {
        const RouteChange& c = out.changes[i];
        std::size_t& n = hop_count_[c.prefix];
        if (n == 0 && !c.hops.empty()) ++routes_;
        if (n > 0 && c.hops.empty()) --routes_;
        n = c.hops.size();
    }
    (void)now;
}

void BgpPeer::receive(const BgpMessage& m, Time now, BgpRouterOutput& out) {
    ++received_[static_cast<std::size_t>(m.kind)];
    const std::size_t c0 = out.changes.size(), d0 = out.down.size();
    const bool had = router_.session_up(m.from);
    router_.handle(m, now, out);
    note(out, c0, d0, now);
    const bool has = router_.session_up(m.from);
    if (m.kind == BgpKind::Open && has) events_.push_back(BgpEvent{now, m.from, BgpEventKind::SessionUp});
    if (had && has && (m.kind == BgpKind::Update || m.kind == BgpKind::Withdraw)) {
        // Logged when the router's next hops changed for this peer.
        for (std::size_t i = c0; i < out.changes.size(); ++i)
            if (out.changes[i].prefix == m.prefix) {
                events_.push_back(BgpEvent{now, m.from, m.kind == BgpKind::Update ? BgpEventKind::Announced
                                                                                   : BgpEventKind::Withdrawn});
                break;
            }
    }
}

void BgpPeer::tick(Time now, BgpRouterOutput& out) {
    const std::size_t c0 = out.changes.size(), d0 = out.down.size();
    router_.tick(now, out);
    note(out, c0, d0, now);
}

std::int64_t BgpPeer::route(IpAddr dst, std::uint64_t flow_hash) const {
    const auto hop = router_.select(dst, flow_hash);
    if (!hop) return -1;
    auto it = ports_.find(*hop);
    return it == ports_.end() ? -1 : static_cast<std::int64_t>(it->second);
}

}  // namespace loom::ananta
