#include "loom/ananta/bgp.hpp"

#include <algorithm>
#include <utility>

#include "loom/base/assert.hpp"

namespace loom::ananta {

const char* bgp_kind_name(BgpKind k) {
    switch (k) {
        case BgpKind::Open: return "open";
        case BgpKind::Keepalive: return "keepalive";
        case BgpKind::Update: return "update";
        case BgpKind::Withdraw: return "withdraw";
        case BgpKind::Notification: return "notification";
        case BgpKind::Hello: return "hello";
    }
    return "?";
}

std::uint32_t wire_bytes(const BgpMessage& m) {
    constexpr std::uint32_t kTcpIp = kIpHeaderBytes + kTcpHeaderBytes;
    switch (m.kind) {
        case BgpKind::Open: return 29 + kTcpIp;
        case BgpKind::Keepalive: return 19 + kTcpIp;
        case BgpKind::Update: return 27 + 5 + kTcpIp;
        case BgpKind::Withdraw: return 23 + 5 + kTcpIp;
        case BgpKind::Notification: return 21 + kTcpIp;
        case BgpKind::Hello: return 24 + kIpHeaderBytes + kUdpHeaderBytes;
    }
    return kTcpIp;
}

// ---- speaker ---------------------------------------------------------------------------------------------

BgpSpeaker::BgpSpeaker(const BgpConfig& config, IpAddr self, std::vector<IpAddr> routers)
    : config_(config), self_(self), routers_(std::move(routers)) {}

void BgpSpeaker::send(BgpKind k, const Prefix& p, std::vector<BgpMessage>& out) const {
    for (IpAddr r : routers_)
        if (!reopen_at_.contains(r)) send_to(r, k, p, out);
}

void BgpSpeaker::send_to(IpAddr router, BgpKind k, const Prefix& p, std::vector<BgpMessage>& out) const {
    out.push_back(BgpMessage{k, self_, router, p, config_.control_queue});
}

void BgpSpeaker::handle(const BgpMessage& m, Time now) {
    if (!running_ || m.kind != BgpKind::Notification) return;
    if (std::find(routers_.begin(), routers_.end(), m.from) == routers_.end()) return;
    if (reopen_at_.contains(m.from)) return;  // already closed: the first Notification set the re-open time
    reopen_at_[m.from] = now + config_.connect_retry;
}

void BgpSpeaker::start(Time now, std::vector<BgpMessage>& out) {
    running_ = true;
    installed_ = false;
    reopen_at_.clear();
    send(BgpKind::Open, Prefix{}, out);
    next_keepalive_ = now + config_.keepalive_interval;
    next_hello_ = config_.fast_detection ? now + config_.fast_interval : Time::max();
}

void BgpSpeaker::state_installed(Time, std::vector<BgpMessage>& out) {
    if (!running_ || installed_) return;
    installed_ = true;
    for (const Prefix& p : prefixes_) send(BgpKind::Update, p, out);
}

void BgpSpeaker::announce(const Prefix& p, Time, std::vector<BgpMessage>& out) {
    if (!prefixes_.insert(p).second) return;
    if (announcing()) send(BgpKind::Update, p, out);
}

void BgpSpeaker::withdraw(const Prefix& p, Time, std::vector<BgpMessage>& out) {
    if (prefixes_.erase(p) == 0) return;
    if (announcing()) send(BgpKind::Withdraw, p, out);
}

void BgpSpeaker::withdraw_all(Time, std::vector<BgpMessage>& out) {
    if (!announcing()) return;
    for (const Prefix& p : prefixes_) send(BgpKind::Withdraw, p, out);
    installed_ = false;
}

void BgpSpeaker::shutdown(Time, std::vector<BgpMessage>& out) {
    if (!running_) return;
    if (installed_)
        for (const Prefix& p : prefixes_) send(BgpKind::Withdraw, p, out);
    send(BgpKind::Notification, Prefix{}, out);
    go_silent();
}

void BgpSpeaker::go_silent() {
    running_ = false;
    installed_ = false;
    next_keepalive_ = Time::max();
    next_hello_ = Time::max();
    reopen_at_.clear();
}

void BgpSpeaker::tick(Time now, std::vector<BgpMessage>& out) {
    if (!running_) return;
    // In time order, so a long gap between ticks still sends every message that fell due.
    while (std::min(next_keepalive_, next_hello_) <= now) {
        if (next_hello_ < next_keepalive_) {
            send(BgpKind::Hello, Prefix{}, out);
            next_hello_ += config_.fast_interval;
        } else {
            send(BgpKind::Keepalive, Prefix{}, out);
            next_keepalive_ += config_.keepalive_interval;
        }
    }
    // Re-opens due, in router address order (the map's).
    for (auto it = reopen_at_.begin(); it != reopen_at_.end();) {
        if (it->second > now) {
            ++it;
            continue;
        }
        const IpAddr r = it->first;
        it = reopen_at_.erase(it);
        ++reopens_;
        send_to(r, BgpKind::Open, Prefix{}, out);
        if (installed_)
            for (const Prefix& p : prefixes_) send_to(r, BgpKind::Update, p, out);
    }
}

Time BgpSpeaker::next_deadline() const {
    if (!running_) return Time::max();
    Time t = std::min(next_keepalive_, next_hello_);
    for (const auto& [r, at] : reopen_at_) t = std::min(t, at);
    return t;
}

// ---- router ----------------------------------------------------------------------------------------------

BgpRouter::BgpRouter(const BgpConfig& bgp, const EcmpConfig& ecmp, IpAddr self, std::uint64_t share_samples)
    : bgp_(bgp), ecmp_(ecmp), self_(self), share_samples_(share_samples) {}

Time BgpRouter::expiry(const Session& s) const {
    Time t = s.last_heard + bgp_.hold_time;
    if (bgp_.fast_detection) t = std::min(t, s.last_hello + bgp_.fast_interval * bgp_.fast_multiplier);
    return t;
}

void BgpRouter::set_hop(const Prefix& p, IpAddr peer, bool present, BgpRouterOutput& out) {
    auto it = routes_.find(p);
    if (it == routes_.end()) {
        if (!present) return;
        it = routes_.emplace(p, Route{{}, make_ecmp(ecmp_)}).first;
    }
    Route& r = it->second;
    const bool changed = present ? r.hops.insert(peer).second : r.hops.erase(peer) > 0;
    if (!changed) return;
    const std::vector<NextHop> hops(r.hops.begin(), r.hops.end());
    const double moved =
        change_next_hops(*r.selector, hops, share_samples_, static_cast<std::uint64_t>(ecmp_.hash_seed));
    out.changes.push_back(RouteChange{p, hops, moved});
}

void BgpRouter::end(IpAddr peer, SessionEnd reason, Time now, BgpRouterOutput& out) {
    auto it = sessions_.find(peer);
    if (it == sessions_.end()) return;
    const std::set<Prefix> announced = std::move(it->second.announced);
    sessions_.erase(it);
    for (const Prefix& p : announced) set_hop(p, peer, false, out);
    out.down.push_back(SessionDown{peer, reason, now});
    if (reason != SessionEnd::Notification)
        out.replies.push_back(BgpMessage{BgpKind::Notification, self_, peer, Prefix{}, bgp_.control_queue});
}

void BgpRouter::handle(const BgpMessage& m, Time now, BgpRouterOutput& out) {
    tick(now, out);  // a message cannot revive a session that had already expired
    if (m.kind == BgpKind::Open) {
        end(m.from, SessionEnd::Notification, now, out);  // a fresh Open replaces an old session
        sessions_[m.from] = Session{now, now, {}};
        return;
    }
    auto it = sessions_.find(m.from);
    if (it == sessions_.end()) {
        // No session: ignored until the peer opens one; a BGP message (not a hello, not a Notification) is
        // answered with a Notification, as a closed TCP connection would answer with a reset.
        if (m.kind != BgpKind::Hello && m.kind != BgpKind::Notification)
            out.replies.push_back(BgpMessage{BgpKind::Notification, self_, m.from, Prefix{}, bgp_.control_queue});
        return;
    }
    Session& s = it->second;
    s.last_heard = now;
    switch (m.kind) {
        case BgpKind::Hello: s.last_hello = now; break;
        case BgpKind::Update:
            s.announced.insert(m.prefix);
            set_hop(m.prefix, m.from, true, out);
            break;
        case BgpKind::Withdraw:
            s.announced.erase(m.prefix);
            set_hop(m.prefix, m.from, false, out);
            break;
        case BgpKind::Notification: end(m.from, SessionEnd::Notification, now, out); break;
        case BgpKind::Open:
        case BgpKind::Keepalive: break;
    }
}

void BgpRouter::tick(Time now, BgpRouterOutput& out) {
    std::vector<std::pair<IpAddr, SessionEnd>> expired;  // in address order (the map's)
    for (const auto& [peer, s] : sessions_) {
        if (expiry(s) > now) continue;
        const bool by_hold = s.last_heard + bgp_.hold_time <= now;
        expired.emplace_back(peer, by_hold ? SessionEnd::HoldExpired : SessionEnd::FastDetection);
    }
    for (const auto& [peer, reason] : expired) end(peer, reason, now, out);
}

Time BgpRouter::next_deadline() const {
    Time t = Time::max();
    for (const auto& [peer, s] : sessions_) t = std::min(t, expiry(s));
    return t;
}

const BgpRouter::Route* BgpRouter::lookup(IpAddr dst) const {
    const Route* best = nullptr;
    int best_len = -1;
    for (const auto& [p, r] : routes_) {
        if (r.hops.empty() || !p.contains(dst) || p.length <= best_len) continue;
        best = &r;
        best_len = p.length;
    }
    return best;
}

std::vector<NextHop> BgpRouter::next_hops(IpAddr dst) const {
    const Route* r = lookup(dst);
    return r == nullptr ? std::vector<NextHop>{} : std::vector<NextHop>(r->hops.begin(), r->hops.end());
}

std::optional<NextHop> BgpRouter::select(IpAddr dst, std::uint64_t flow_hash) const {
    const Route* r = lookup(dst);
    if (r == nullptr) return std::nullopt;
    return r->selector->select(flow_hash);
}

config::Schema<BgpConfig> bgp_schema() {
    using C = BgpConfig;
    config::Schema<C> s("BGP between Muxes and routers: hold timer, keepalives, fast (BFD-like) detection.");
    s.field("hold_time", &C::hold_time, "A router drops a Mux not heard from for this long (published: typically 30 s).")
        .at_least(Time::ps(1));
    s.field("keepalive_interval", &C::keepalive_interval,
            "Interval of a Mux's keepalives (not published: a third of the hold time).")
        .at_least(Time::ps(1));
    s.field("fast_detection", &C::fast_detection,
            "Also run a BFD-like detector: hellos every fast_interval, down after fast_multiplier missed.");
    s.field("fast_interval", &C::fast_interval, "Hello interval of fast detection (not published: 100 ms).")
        .at_least(Time::ps(1));
    s.field("fast_multiplier", &C::fast_multiplier, "Missed hellos that end a session (not published: 3).")
        .range(1, 255);
    s.field("control_queue", &C::control_queue,
            "Send keepalives and hellos through a separate control queue instead of the Mux's data queue.");
    s.field("sessions", &C::sessions,
            "Run BGP sessions between each Mux and its ToR as packets (TCP 179, hellos UDP 3784): routers follow "
            "announcements, withdrawals and timers; off: routers follow mux_down/mux_up directly.");
    s.field("drain_time", &C::drain_time,
            "Graceful mux_down: time between the withdrawal and the stop (not published: 1 s).")
        .at_least(Time::zero());
    s.choice("state_source", &C::state_source,
             {{"delay", C::StateSource::Delay}, {"action", C::StateSource::Action}},
             "A recovering Mux gets its state state_delay after mux_up (delay) or from a mux_state action.");
    s.field("state_delay", &C::state_delay,
            "Time from a Mux's boot to its state being installed, with state_source delay (not published: 500 ms).")
        .at_least(Time::zero());
    s.field("connect_retry", &C::connect_retry,
            "A session a router closed is opened again this much later (not published: 5 s).")
        .at_least(Time::ps(1));
    s.check("keepalive_interval", [](const C& c) -> std::optional<std::string> {
        if (c.keepalive_interval >= c.hold_time) return "expected less than hold_time";
        return std::nullopt;
    });
    return s;
}

}  // namespace loom::ananta
