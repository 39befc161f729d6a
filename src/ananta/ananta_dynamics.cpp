// The Ananta run's Fastpath, health probing and hashing study: wiring at build time, the scenario's
// vm_unhealthy / vm_healthy / spoof_redirect actions, and what the summary reports of them.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "loom/ananta/ananta_model.hpp"
#include "loom/ananta/control_plane.hpp"
#include "loom/ananta/fastpath_wire.hpp"
#include "loom/ananta/hash_study.hpp"
#include "loom/ananta/health_relay.hpp"

namespace loom::ananta {

namespace {

double ratio(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b); }

const char* scheme_name(MuxHashKind k) { return k == MuxHashKind::Ananta ? "ananta" : "maglev"; }

}  // namespace

void AnantaModel::build_dynamics() {
    const DcConfig& c = shared_->config;
    const DynamicsParameters& d = c.dynamics;
    const NetworkConfig& n = c.network;
    for (std::size_t v = 0; v < c.vips.size(); ++v)
        if (c.vips[v].fastpath || d.fastpath.enabled) fastpath_vips_.push_back(vip_address(c.vips, v));
    const bool spoof = std::any_of(c.scenario.begin(), c.scenario.end(),
                                   [](const ActionConfig& a) { return a.action == ActionKind::SpoofRedirect; });
    if (!fastpath_vips_.empty() || spoof) {
        // Ananta's own addresses: the Muxes' (the manager has none in the run yet).
        std::vector<IpAddr> ananta;
        for (MuxNode* m : muxes_) ananta.push_back(m->mux().address());
        for (MuxNode* m : muxes_) m->enable_fastpath(ananta, fastpath_vips_);
        for (HostNode* h : hosts_) h->enable_fastpath(ananta, !fastpath_vips_.empty());
    }
    if (d.health.enabled) {
        // Without the control plane a relay stands for the manager; with it Host Agents report to the manager
        // replicas and the primary updates the Muxes by command packets.
        if (!c.control_plane.enabled) {
            relay_ = &sim_.add<HealthRelay>("ananta.health_relay", c);
            const auto hosts = static_cast<std::uint32_t>(hosts_.size());
            sim::Channel& ch = sim_.add_channel("ananta.health", 1 + hosts + static_cast<std::uint32_t>(muxes_.size()),
                                                std::min(d.health.report_delay, d.health.update_delay));
            relay_->port().attach(ch, 0);
            for (std::uint32_t h = 0; h < hosts; ++h) hosts_[h]->health_port().attach(ch, 1 + h);
            for (std::uint32_t m = 0; m < muxes_.size(); ++m) muxes_[m]->health_port().attach(ch, 1 + hosts + m);
        }
        std::set<IpAddr> probed;
        for (const auto& list : vip_dips_)
            for (const WeightedDip& w : list) {
                if (!probed.insert(w.dip).second) continue;
                const addr::Decoded h = addr::decode(w.host);
                hosts_[h.rack * static_cast<std::uint32_t>(n.hosts_per_rack) + h.slot]->probe(w.dip);
            }
    }
}

void AnantaModel::apply_dynamics(const ActionConfig& a) {
    const DcConfig& c = shared_->config;
    const NetworkConfig& n = c.network;
    auto host_node = [&](IpAddr host) -> HostNode& {
        const addr::Decoded h = addr::decode(host);
        return *hosts_[h.rack * static_cast<std::uint32_t>(n.hosts_per_rack) + h.slot];
    };
    switch (a.action) {
        case ActionKind::VmUnhealthy:
        case ActionKind::VmHealthy: {
            const bool down = a.action == ActionKind::VmUnhealthy;
            for (const WeightedDip& w : dips_of(a.dips)) {
                host_node(w.host).set_vm_down(w.dip, down);
                vm_events_.push_back(VmEvent{sim_.now(), w.dip, down});
            }
            break;
        }
        case ActionKind::SpoofRedirect: {
            DcNode* forger = nullptr;
            IpAddr from = 0;
            for (std::size_t k = 0; k < clients_.size(); ++k)
                if (clients_[k]->path() == a.target) forger = clients_[k], from = addr::client(static_cast<std::uint32_t>(k), 0);
            for (HostNode* h : hosts_)
                if (h->path() == a.target) forger = h, from = h->agent().address();
            if (forger == nullptr) break;  // validated at build: a client node or a host
            const auto v = static_cast<std::size_t>(a.vip);
            const IpAddr vip = vip_address(c.vips, v);
            const auto port = static_cast<std::uint16_t>(c.vips[v].port);
            // A forged stage-2 redirect to every host of the VIP: "send this VIP's connection to the forger".
            for (const WeightedDip& w : vip_dips_[v]) {
                const FastpathRedirect r{from, w.host, FiveTuple{vip, vip, 1024, port, IpProto::Tcp},
                                         FlowTarget{w.dip, 0, w.host}, FlowTarget{from, port, from}};
                forger->send_forged(redirect_packet(r));
                ++spoofs_sent_;
            }
            break;
        }
        default: break;
    }
}

void AnantaModel::dynamics_summary(stats::Json& s) const {
    const DcConfig& c = shared_->config;
    const DynamicsParameters& d = c.dynamics;
    if (!fastpath_vips_.empty() || spoofs_sent_ > 0) {
        MuxFastpathCounters mc;
        std::map<IpAddr, std::uint64_t> mux_by_vip;
        for (const MuxNode* m : muxes_) {
            if (m->fastpath() == nullptr) continue;
            const MuxFastpathCounters& x = m->fastpath()->counters();
            mc.handshakes += x.handshakes;
            mc.resolved += x.resolved;
            mc.unresolved += x.unresolved;
            mc.refused += x.refused;
            for (const auto& [vip, k] : m->packets_by_vip()) mux_by_vip[vip] += k;
        }
        std::uint64_t accepted = 0, refused = 0, h2h = 0;
        std::map<IpAddr, HostNode::VipWork> host_by_vip;
        for (const HostNode* h : hosts_) {
            accepted += h->agent().counters().redirects_accepted;
            refused += h->agent().counters().redirects_refused;
            h2h += h->agent().counters().fastpath_sent;
            for (const auto& [vip, w] : h->work_by_vip()) {
                host_by_vip[vip].agent_packets += w.agent_packets;
                host_by_vip[vip].host_to_host += w.host_to_host;
            }
        }
        stats::Json vips = stats::Json::array();
        for (std::size_t v = 0; v < c.vips.size(); ++v)
            if (c.vips[v].fastpath || d.fastpath.enabled) vips.push_back(c.vips[v].name);
        std::vector<std::uint64_t> opened(c.traffic.size(), 0);
        for (const ConnectionReport& r : records_) ++opened[r.traffic];
        stats::Json by_traffic = stats::Json::object();
        for (std::size_t t = 0; t < c.traffic.size(); ++t) {
            const TrafficConfig& tc = c.traffic[t];
            if (tc.source != TrafficSource::Vip) continue;
            const IpAddr from = vip_address(c.vips, static_cast<std::size_t>(tc.from_vip));
            const IpAddr to = vip_address(c.vips, static_cast<std::size_t>(tc.to_vip));
            auto get = [](const auto& m, IpAddr k) {
                auto it = m.find(k);
                return it == m.end() ? typename std::decay_t<decltype(m)>::mapped_type{} : it->second;
            };
            const std::uint64_t mux = get(mux_by_vip, to) + (from != to ? get(mux_by_vip, from) : 0);
            const HostNode::VipWork a = get(host_by_vip, from), b = from != to ? get(host_by_vip, to) : HostNode::VipWork{};
            const std::uint64_t agent = a.agent_packets + b.agent_packets, direct = a.host_to_host + b.host_to_host;
            const bool on = std::find(fastpath_vips_.begin(), fastpath_vips_.end(), from) != fastpath_vips_.end() &&
                            std::find(fastpath_vips_.begin(), fastpath_vips_.end(), to) != fastpath_vips_.end();
            by_traffic[tc.name] = {{"fastpath", on}, {"connections", opened[t]}, {"mux_packets", mux},
                                   {"host_agent_packets", agent}, {"host_to_host_packets", direct},
                                   {"mux_packets_per_connection", ratio(mux, opened[t])},
                                   {"host_agent_packets_per_connection", ratio(agent, opened[t])},
                                   {"host_to_host_packets_per_connection", ratio(direct, opened[t])}};
        }
        s["fastpath"] = {{"vips", vips},
                         {"mux", {{"handshakes", mc.handshakes}, {"resolved", mc.resolved},
                                  {"unresolved", mc.unresolved}, {"refused", mc.refused}}},
                         {"hosts", {{"redirects_accepted", accepted}, {"redirects_refused", refused},
                                    {"host_to_host_packets", h2h}}},
                         {"spoofed_sent", spoofs_sent_},
                         {"by_traffic", by_traffic}};
    }
    if (d.health.enabled) {
        std::uint64_t probes = 0;
        stats::Json reports = stats::Json::array();
        std::vector<HealthChange> changes;
        for (const HostNode* h : hosts_) {
            probes += h->probes_sent();
            changes.insert(changes.end(), h->health_changes().begin(), h->health_changes().end());
        }
        std::stable_sort(changes.begin(), changes.end(), [](const HealthChange& x, const HealthChange& y) {
            return std::tie(x.at, x.dip) < std::tie(y.at, y.dip);
        });
        for (const HealthChange& ch : changes)
            reports.push_back({{"at_ps", ch.at.count()}, {"dip", format_ip(ch.dip)}, {"healthy", ch.healthy}});
        // Per failure: when the Host Agent reported it, when the last Mux stopped choosing the DIP, and the new
        // connections that reached it in between (new NAT bindings at its host).
        stats::Json failures = stats::Json::array();
        for (std::size_t i = 0; i < vm_events_.size(); ++i) {
            const VmEvent& e = vm_events_[i];
            if (!e.down) continue;
            Time until = kNever;  // the VM's recovery, if any
            for (std::size_t j = i + 1; j < vm_events_.size(); ++j)
                if (vm_events_[j].dip == e.dip && !vm_events_[j].down) {
                    until = vm_events_[j].at;
                    break;
                }
            Time reported = kNever, updated = Time::zero();
            std::uint64_t muxes_updated = 0;
            for (const HealthChange& ch : changes)
                if (ch.dip == e.dip && !ch.healthy && ch.at >= e.at && ch.at < until) {
                    reported = ch.at;
                    break;
                }
            for (const MuxNode* m : muxes_)
                for (const auto& ap : m->health_applied())
                    if (ap.dip == e.dip && !ap.healthy && ap.at >= e.at && ap.at < until) {
                        updated = std::max(updated, ap.at);
                        ++muxes_updated;
                        break;
                    }
            std::uint64_t sent_to_it = 0, completed = 0, failed = 0;
            Time last = kNever;
            for (const HostNode* h : hosts_)
                for (const Sighting& sg : h->sightings())
                    if (sg.who == e.dip && sg.at >= e.at && sg.at < until) {
                        ++sent_to_it;
                        last = last == kNever ? sg.at : std::max(last, sg.at);
                        // Its connection: the latest one with that outside tuple opened by then.
                        const ConnectionReport* conn = nullptr;
                        for (const ConnectionReport& r : records_)
                            if (r.outside == sg.outside && r.record.opened <= sg.at &&
                                (conn == nullptr || r.record.opened > conn->record.opened))
                                conn = &r;
                        if (conn != nullptr && conn->record.outcome == ConnectionOutcome::Completed) ++completed;
                        if (conn != nullptr && conn->record.outcome == ConnectionOutcome::Failed) ++failed;
                    }
            const bool all = muxes_updated == muxes_.size() && muxes_updated > 0;
            failures.push_back({{"dip", format_ip(e.dip)}, {"failed_at_ps", e.at.count()},
                                {"reported_at_ps", reported == kNever ? -1 : reported.count()},
                                {"detection_ps", reported == kNever ? -1 : (reported - e.at).count()},
                                {"muxes_updated_at_ps", all ? updated.count() : -1},
                                {"stop_ps", all ? (updated - e.at).count() : -1},
                                {"new_connections_after_failure", sent_to_it},
                                {"of_which_completed", completed}, {"of_which_failed", failed},
                                {"last_new_connection_ps", last == kNever ? -1 : last.count()}});
        }
        std::uint64_t relayed = relay_ != nullptr ? relay_->relayed().size() : 0;
        if (control_ != nullptr)
            for (const ManagerNode* m : control_->replicas()) relayed += m->counters().health_relays;
        s["health"] = {{"probes_sent", probes}, {"reports", reports}, {"relayed", relayed}, {"failures", failures}};
    }
    if (d.hash_study.enabled) {
        const HashStudyConfig& hs = d.hash_study;
        const auto v = static_cast<std::size_t>(hs.vip);
        // The VIP's DIP list as configured (a set_dips action may have changed it since).
        std::vector<DipSpec> spec = c.vips[v].dips;
        for (std::int64_t i = 0; i < c.vips[v].dip_hosts_count; ++i)
            spec.push_back(DipSpec{c.vips[v].dip_hosts_first + i, c.vips[v].dip_vm, c.vips[v].dip_port, 1});
        const std::vector<WeightedDip> dips = dips_of(spec);
        // The listed sizes and the pool's own (mux.maglev_table_size), each once, in increasing order.
        const auto pool = static_cast<std::uint32_t>(c.params.mux.maglev_table_size);
        std::set<std::uint32_t> size_set{pool};
        for (std::int64_t m : hs.maglev_table_sizes) size_set.insert(static_cast<std::uint32_t>(m));
        const std::vector<std::uint32_t> sizes(size_set.begin(), size_set.end());
        const auto cases = run_hash_study(dips, hs, sizes, static_cast<std::uint64_t>(c.params.mux.hash_seed));
        auto one = [](const HashStudyCase& k) {
            return stats::Json{{"table_size", k.table_size},
                               {"max_over_mean", k.balance.max_over_mean},
                               {"removed", {{"disrupted_share", k.removed.share()}, {"forced_share", k.removed.forced_share()}}},
                               {"added", {{"disrupted_share", k.added.share()}, {"forced_share", k.added.forced_share()}}}};
        };
        stats::Json maglev = stats::Json::object();
        stats::Json pool_row;
        for (std::size_t i = 1; i < cases.size(); ++i) {
            maglev[std::to_string(cases[i].table_size)] = one(cases[i]);
            if (cases[i].table_size == pool) pool_row = one(cases[i]);
        }
        // Measured in the run: connections of the VIP per DIP (the Host Agents' sightings), over those opened
        // before the VIP's DIP list first changed (set_dips).
        Time change = kNever;
        for (const ActionConfig& a : actions_)
            if (a.action == ActionKind::SetDips && static_cast<std::size_t>(a.vip) == v) {
                change = a.at;
                break;
            }
        std::map<IpAddr, std::uint64_t> per_dip;
        std::uint64_t total = 0;
        for (const ConnectionReport& r : records_)
            if (static_cast<std::size_t>(c.traffic[r.traffic].to_vip) == v && r.record.dip != 0 &&
                r.record.opened < change)
                ++per_dip[r.record.dip], ++total;
        std::uint64_t weight = 0, lo = ~std::uint64_t{0}, hi = 0;
        for (const WeightedDip& w : dips) weight += w.weight;
        double worst = 0;
        for (const WeightedDip& w : dips) {
            const std::uint64_t k = per_dip.count(w.dip) ? per_dip.at(w.dip) : 0;
            lo = std::min(lo, k);
            hi = std::max(hi, k);
            const double fair = static_cast<double>(total) * w.weight / static_cast<double>(weight);
            if (fair > 0) worst = std::max(worst, static_cast<double>(k) / fair);
        }
        s["hash_study"] = {{"vip", c.vips[v].name}, {"dips", dips.size()}, {"flows", hs.flows},
                           {"remove", hs.remove}, {"add", hs.add}, {"pool_hash", scheme_name(c.params.mux.hash)},
                           {"ananta", one(cases[0])}, {"maglev", maglev}, {"pool", pool_row},
                           {"measured", {{"connections", total}, {"min_per_dip", dips.empty() ? 0 : lo},
                                         {"max_per_dip", hi}, {"max_over_mean", worst}}}};
    }
}

std::string AnantaModel::dynamics_text() const {
    const stats::Json& s = summary_;
    std::string out;
    if (s.contains("fastpath")) {
        const stats::Json& f = s["fastpath"];
        std::string names;
        for (const auto& v : f["vips"]) names += (names.empty() ? "" : ", ") + v.get<std::string>();
        out += fmt::format("  fastpath: on for {}; {} handshakes redirected ({} resolved, {} unresolved); hosts accepted {} "
                           "redirects, refused {}; Muxes refused {}\n",
                           names.empty() ? "no VIP" : names, f["mux"]["handshakes"].get<std::uint64_t>(),
                           f["mux"]["resolved"].get<std::uint64_t>(), f["mux"]["unresolved"].get<std::uint64_t>(),
                           f["hosts"]["redirects_accepted"].get<std::uint64_t>(),
                           f["hosts"]["redirects_refused"].get<std::uint64_t>(), f["mux"]["refused"].get<std::uint64_t>());
        for (auto it = f["by_traffic"].begin(); it != f["by_traffic"].end(); ++it) {
            const stats::Json& t = it.value();
            out += fmt::format("  traffic {} (fastpath {}): {} connections; per connection {:.2f} packets through Muxes, "
                               "{:.2f} Host Agent packets ({:.2f} sent host to host)\n",
                               it.key(), t["fastpath"].get<bool>() ? "on" : "off", t["connections"].get<std::uint64_t>(),
                               t["mux_packets_per_connection"].get<double>(),
                               t["host_agent_packets_per_connection"].get<double>(),
                               t["host_to_host_packets_per_connection"].get<double>());
        }
    }
    if (s.contains("health")) {
        const stats::Json& h = s["health"];
        out += fmt::format("  health: {} probes, {} changes reported\n", h["probes_sent"].get<std::uint64_t>(),
                           h["reports"].size());
        // Whole milliseconds print as to_string does ("321ms"); others to the microsecond ("301.120ms").
        auto when = [](std::int64_t ps) {
            if (ps < 0) return std::string("never");
            if (ps % 1'000'000'000 == 0) return loom::to_string(Time::ps(ps));
            return fmt::format("{:.3f}ms", static_cast<double>(ps) / 1e9);
        };
        for (const auto& e : h["failures"]) {
            out += fmt::format("  vm {} failed at {}: reported after {}, Muxes stop choosing it after {}; {} new "
                               "connections reached it after it failed ({} then completed elsewhere on a resent SYN, "
                               "{} failed)\n",
                               e["dip"].get<std::string>(), when(e["failed_at_ps"].get<std::int64_t>()),
                               when(e["detection_ps"].get<std::int64_t>()), when(e["stop_ps"].get<std::int64_t>()),
                               e["new_connections_after_failure"].get<std::uint64_t>(),
                               e["of_which_completed"].get<std::uint64_t>(), e["of_which_failed"].get<std::uint64_t>());
        }
    }
    if (s.contains("hash_study")) {
        const stats::Json& h = s["hash_study"];
        out += fmt::format("  hash study (vip {}, {} DIPs, {} sampled connections; {} removed, {} added):\n",
                           h["vip"].get<std::string>(), h["dips"].get<std::uint64_t>(), h["flows"].get<std::int64_t>(),
                           h["remove"].get<std::int64_t>(), h["add"].get<std::int64_t>());
        out += "    scheme  table     max/mean  moved(remove)  forced(remove)  moved(add)\n";
        auto row = [&](const char* name, const stats::Json& k) {
            out += fmt::format("    {:<7} {:<9} {:<9.4f} {:<14.4f} {:<15.4f} {:.4f}\n", name,
                               k["table_size"].get<std::uint64_t>(), k["max_over_mean"].get<double>(),
                               k["removed"]["disrupted_share"].get<double>(), k["removed"]["forced_share"].get<double>(),
                               k["added"]["disrupted_share"].get<double>());
        };
        row("ananta", h["ananta"]);
        std::vector<std::pair<std::uint64_t, const stats::Json*>> rows;
        for (auto it = h["maglev"].begin(); it != h["maglev"].end(); ++it)
            rows.emplace_back(it.value()["table_size"].get<std::uint64_t>(), &it.value());
        std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& [size, k] : rows) row("maglev", *k);
        const stats::Json& m = h["measured"];
        out += fmt::format("  measured ({} hash): {} connections of the VIP before its DIP list changed, per DIP min {} max "
                           "{}, max/mean {:.3f}\n",
                           h["pool_hash"].get<std::string>(), m["connections"].get<std::uint64_t>(),
                           m["min_per_dip"].get<std::uint64_t>(), m["max_per_dip"].get<std::uint64_t>(),
                           m["max_over_mean"].get<double>());
    }
    return out;
}

}  // namespace loom::ananta
