// The Ananta run with BGP sessions between Muxes and ToRs: wiring the speakers and peers, the scenario's Mux
// failures and recoveries through the Muxes' lifecycles, re-spreading the spines when a ToR gains or loses
// its last route, and the "bgp" part of the report.
#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "loom/ananta/ananta_model.hpp"
#include "loom/ananta/bgp_wire.hpp"

namespace loom::ananta {

namespace {

const char* mux_action_name(ActionKind a) {
    switch (a) {
        case ActionKind::MuxDown: return "mux_down";
        case ActionKind::MuxUp: return "mux_up";
        case ActionKind::MuxState: return "mux_state";
        default: return "?";
    }
}

// A duration or time for a person: s, ms or us with three decimals.
std::string bgp_time(Time t) {
    if (t == Time::max()) return "never";
    const double ps = static_cast<double>(t.count());
    if (t >= Time::s(1)) return fmt::format("{:.3f} s", ps / 1e12);
    if (t >= Time::ms(1)) return fmt::format("{:.3f} ms", ps / 1e9);
    return fmt::format("{:.3f} us", ps / 1e6);
}

// What the ToR saw of one Mux after a failure or recovery at `at`.
struct MuxOutcome {
    Time removed = Time::max();  // the ToR took the Mux out of its next hops
    BgpEventKind removed_by = BgpEventKind::Withdrawn;
    Time announced = Time::max();  // the ToR took it back in
};

MuxOutcome outcome_of(const std::vector<BgpEvent>& events, IpAddr mux, Time at) {
    MuxOutcome o;
    for (const BgpEvent& e : events) {
        if (e.mux != mux || e.at < at) continue;
        const bool removal = e.kind == BgpEventKind::Withdrawn || e.kind == BgpEventKind::HoldExpired ||
                             e.kind == BgpEventKind::FastDetection || e.kind == BgpEventKind::Closed;
        if (removal && o.removed == Time::max()) {
            o.removed = e.at;
            o.removed_by = e.kind;
        }
        if (e.kind == BgpEventKind::Announced && o.announced == Time::max()) o.announced = e.at;
    }
    return o;
}

}  // namespace

void AnantaModel::build_bgp() {
    const DcConfig& c = shared_->config;
    const auto racks = static_cast<std::size_t>(c.network.mux_racks);
    for (std::size_t r = 0; r < racks && r < tors_.size(); ++r) {
        auto peer = std::make_unique<BgpPeer>(c.dynamics.bgp, c.params.ecmp, tor_bgp_address(static_cast<std::uint32_t>(r)));
        for (std::size_t m = r; m < muxes_.size(); m += racks)
            peer->attach(addr::mux(static_cast<std::uint32_t>(m)),
                         static_cast<std::uint32_t>(tors_[r]->mux_port(static_cast<std::uint32_t>(m))));
        tors_[r]->enable_bgp(std::move(peer), this);
    }
    for (MuxNode* m : muxes_) m->enable_bgp();
    // Spines learn which ToRs lead to Muxes from BGP: none until the first announcement arrives.
    for (RouterNode* s : spines_) s->set_vip_ports({});
}

void AnantaModel::bgp_route_changed(std::uint32_t rack, const RouteChange& change, Time now) {
    ecmp_changes_.push_back(EcmpChange{now, tors_[rack]->path(), change.share_moved});
    // A ToR that gained its first route or lost its last one changes the spines' VIP group (iBGP inside the
    // fabric is not modelled: the spines follow at once).
    std::vector<NextHop> ports;
    for (std::size_t r = 0; r < tors_.size(); ++r)
        if (tors_[r]->bgp() != nullptr && tors_[r]->bgp()->any_route()) ports.push_back(static_cast<NextHop>(r));
    for (RouterNode* s : spines_) {
        if (s->vip_ports() == ports.size()) continue;
        const bool had = s->vip_ports() > 0;
        const double moved = s->set_vip_ports(ports);
        if (had && moved > 0) ecmp_changes_.push_back(EcmpChange{now, s->path(), moved});
    }
}

void AnantaModel::apply_bgp(const ActionConfig& a) {
    MuxNode& m = *muxes_[static_cast<std::size_t>(a.mux)];
    mux_events_.push_back(MuxEventRecord{sim_.now(), m.number(), a.action, a.withdraw});
    switch (a.action) {
        case ActionKind::MuxDown: m.go_down(a.withdraw); break;
        case ActionKind::MuxUp: m.come_up(); break;
        case ActionKind::MuxState: m.install_state(); break;
        default: break;
    }
}

stats::Json AnantaModel::bgp_summary() const {
    const DcConfig& c = shared_->config;
    const BgpConfig& bgp = c.dynamics.bgp;
    const Time end = sim_.now();
    std::array<std::uint64_t, 6> events{};
    std::array<std::uint64_t, 6> received{};
    std::uint64_t at_end = 0;
    stats::Json routers = stats::Json::object();
    for (const RouterNode* t : tors_) {
        const BgpPeer* p = t->bgp();
        if (p == nullptr) continue;
        std::array<std::uint64_t, 6> mine{};
        for (const BgpEvent& e : p->events()) ++mine[static_cast<std::size_t>(e.kind)];
        stats::Json r = {{"sessions_at_end", p->router().sessions()}};
        for (std::size_t k = 0; k < mine.size(); ++k) {
            r[bgp_event_name(static_cast<BgpEventKind>(k))] = mine[k];
            events[k] += mine[k];
        }
        for (std::size_t k = 0; k < received.size(); ++k) received[k] += p->received()[k];
        at_end += p->router().sessions();
        routers[fmt::format("tor{}", t->number())] = r;
    }
    std::uint64_t sent = 0, lost = 0, reopens = 0;
    stats::Json muxes = stats::Json::object();
    for (const MuxNode* m : muxes_) {
        sent += m->bgp_sent();
        lost += m->bgp_lost();
        reopens += m->lifecycle().speaker().reopens();
        muxes[fmt::format("mux{}", m->number())] = {{"state", mux_state_name(m->lifecycle().state())},
                                                    {"boots", m->lifecycle().boots()},
                                                    {"black_holed_packets", m->black_holed()},
                                                    {"bgp_sent", m->bgp_sent()},
                                                    {"bgp_lost_in_overload", m->bgp_lost()},
                                                    {"session_reopens", m->lifecycle().speaker().reopens()}};
    }
    stats::Json received_j = stats::Json::object();
    for (std::size_t k = 0; k < received.size(); ++k) received_j[bgp_kind_name(static_cast<BgpKind>(k))] = received[k];

    stats::Json evs = stats::Json::array();
    const auto racks = static_cast<std::uint32_t>(c.network.mux_racks);
    for (const MuxEventRecord& e : mux_events_) {
        const IpAddr mux = addr::mux(e.mux);
        const MuxOutcome o = outcome_of(tors_[e.mux % racks]->bgp()->events(), mux, e.at);
        stats::Json j = {{"at_ps", e.at.count()}, {"mux", e.mux}, {"action", mux_action_name(e.action)}};
        if (e.action == ActionKind::MuxDown) {
            // The Mux stops forwarding at once (silent) or after the drain (graceful); traffic the ToR still
            // sends it after that is black-holed.
            const Time stop = e.graceful ? e.at + bgp.drain_time : e.at;
            const Time removed = std::min(o.removed, end);
            j["mode"] = e.graceful ? "graceful" : "silent";
            j["removed_after_ps"] = o.removed == Time::max() ? -1 : (o.removed - e.at).count();
            j["removed_by"] = o.removed == Time::max() ? "not_removed" : bgp_event_name(o.removed_by);
            j["black_hole_ps"] = removed > stop ? (removed - stop).count() : 0;
            // The connections the Mux carried when it went (opened before, not finished): kept (completed),
            // broken (failed) or still open at the end; in all and by VIP.
            std::vector<std::array<std::uint64_t, 3>> by_vip(c.vips.size(), {0, 0, 0});
            std::array<std::uint64_t, 3> all{0, 0, 0};
            for (const ConnectionReport& r : records_) {
                const ConnectionRecord& x = r.record;
                if (x.mux != mux || x.opened >= e.at || (x.finished != kNever && x.finished < e.at)) continue;
                const std::size_t k = x.outcome == ConnectionOutcome::Completed ? 0
                                      : x.outcome == ConnectionOutcome::Failed  ? 1
                                                                                : 2;
                ++all[k];
                ++by_vip[static_cast<std::size_t>(c.traffic[r.traffic].to_vip)][k];
            }
            auto counts = [](const std::array<std::uint64_t, 3>& a) {
                return stats::Json{{"kept", a[0]}, {"broken", a[1]}, {"open", a[2]}};
            };
            j["connections"] = counts(all);
            stats::Json v = stats::Json::object();
            for (std::size_t i = 0; i < c.vips.size(); ++i) v[c.vips[i].name] = counts(by_vip[i]);
            j["connections_by_vip"] = v;
        } else {
            j["announced_after_ps"] = o.announced == Time::max() ? -1 : (o.announced - e.at).count();
        }
        evs.push_back(j);
    }
    return {{"sessions_opened", events[static_cast<std::size_t>(BgpEventKind::SessionUp)]},
            {"sessions_down", events[static_cast<std::size_t>(BgpEventKind::HoldExpired)] +
                                  events[static_cast<std::size_t>(BgpEventKind::FastDetection)] +
                                  events[static_cast<std::size_t>(BgpEventKind::Closed)]},
            {"hold_expiries", events[static_cast<std::size_t>(BgpEventKind::HoldExpired)]},
            {"fast_detections", events[static_cast<std::size_t>(BgpEventKind::FastDetection)]},
            {"sessions_closed", events[static_cast<std::size_t>(BgpEventKind::Closed)]},
            {"announcements", events[static_cast<std::size_t>(BgpEventKind::Announced)]},
            {"withdrawals", events[static_cast<std::size_t>(BgpEventKind::Withdrawn)]},
            {"sessions_at_end", at_end},
            {"messages_sent_by_muxes", sent},
            {"messages_lost_in_mux_overload", lost},
            {"messages_received_by_routers", received_j},
            {"session_reopens", reopens},
            {"routers", routers},
            {"muxes", muxes},
            {"mux_events", evs}};
}

std::string AnantaModel::bgp_text() const {
    const stats::Json& b = summary_.at("bgp");
    auto u = [&](const char* k) { return b.at(k).get<std::uint64_t>(); };
    std::string out = fmt::format(
        "  bgp: {} sessions up at end; {} opened, {} went down ({} hold expiries, {} fast detections, {} closed); "
        "{} announcements, {} withdrawals\n",
        u("sessions_at_end"), u("sessions_opened"), u("sessions_down"), u("hold_expiries"), u("fast_detections"),
        u("sessions_closed"), u("announcements"), u("withdrawals"));
    out += fmt::format("  bgp messages: {} sent by Muxes, {} lost in a Mux's overloaded data path, {} re-opens\n",
                       u("messages_sent_by_muxes"), u("messages_lost_in_mux_overload"), u("session_reopens"));
    for (const auto& e : b.at("mux_events")) {
        const Time at = Time::ps(e.at("at_ps").get<std::int64_t>());
        const auto mux = e.at("mux").get<std::uint32_t>();
        const std::string action = e.at("action").get<std::string>();
        if (action == "mux_down") {
            const auto after = e.at("removed_after_ps").get<std::int64_t>();
            const auto& k = e.at("connections");
            out += fmt::format(
                "  mux{} {} down at {}: removed after {} ({}); black hole {}, {} packets; its connections: {} kept, "
                "{} broken, {} open\n",
                mux, e.at("mode").get<std::string>(), bgp_time(at),
                after < 0 ? std::string("never") : bgp_time(Time::ps(after)), e.at("removed_by").get<std::string>(),
                bgp_time(Time::ps(e.at("black_hole_ps").get<std::int64_t>())),
                b.at("muxes").at(fmt::format("mux{}", mux)).at("black_holed_packets").get<std::uint64_t>(),
                k.at("kept").get<std::uint64_t>(), k.at("broken").get<std::uint64_t>(), k.at("open").get<std::uint64_t>());
            if (e.at("connections_by_vip").size() > 1)
                for (auto it = e.at("connections_by_vip").begin(); it != e.at("connections_by_vip").end(); ++it)
                    out += fmt::format("    vip {}: {} kept, {} broken, {} open\n", it.key(),
                                       it.value().at("kept").get<std::uint64_t>(),
                                       it.value().at("broken").get<std::uint64_t>(),
                                       it.value().at("open").get<std::uint64_t>());
        } else {
            const auto after = e.at("announced_after_ps").get<std::int64_t>();
            out += fmt::format("  mux{} {} at {}: routes back after {}\n", mux, action, bgp_time(at),
                               after < 0 ? std::string("never") : bgp_time(Time::ps(after)));
        }
    }
    // Session losses in time order (the cascade's sequence), at most a dozen lines.
    std::vector<std::tuple<Time, std::uint32_t, BgpEventKind>> downs;
    for (const RouterNode* t : tors_)
        if (t->bgp() != nullptr)
            for (const BgpEvent& e : t->bgp()->events())
                if (e.kind == BgpEventKind::HoldExpired || e.kind == BgpEventKind::FastDetection)
                    downs.emplace_back(e.at, addr::decode(e.mux).index, e.kind);
    std::stable_sort(downs.begin(), downs.end(),
                     [](const auto& x, const auto& y) { return std::get<0>(x) < std::get<0>(y); });
    if (!downs.empty()) {
        out += "  sessions lost:";
        for (std::size_t i = 0; i < downs.size() && i < 12; ++i)
            out += fmt::format(" mux{}@{}", std::get<1>(downs[i]), bgp_time(std::get<0>(downs[i])));
        if (downs.size() > 12) out += fmt::format(" (+{} more)", downs.size() - 12);
        out += "\n";
    }
    std::size_t shown = 0;
    for (const EcmpChange& e : ecmp_changes_) {
        if (++shown > 8) break;
        out += fmt::format("  ecmp change at {}: {} moved {:.4f} of flows\n", bgp_time(e.at), e.router, e.share_moved);
    }
    if (ecmp_changes_.size() > 8) out += fmt::format("  ... {} more ecmp changes\n", ecmp_changes_.size() - 8);
    return out;
}

}  // namespace loom::ananta
