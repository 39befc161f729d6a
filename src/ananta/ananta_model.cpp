#include "loom/ananta/ananta_model.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "loom/ananta/ananta_stats.hpp"
#include "loom/ananta/control_plane.hpp"
#include "loom/base/assert.hpp"
#include "loom/base/error.hpp"
#include "loom/stats/group.hpp"

namespace loom::ananta {

namespace {

double wall_now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

auto tuple_key(const FiveTuple& t) { return std::make_tuple(t.src, t.dst, t.src_port, t.dst_port, t.proto); }

std::string pct_line(const std::vector<std::int64_t>& sorted) {
    if (sorted.empty()) return "none";
    auto at = [&](double q) {
        const auto i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size()))) ;
        return sorted[std::min(sorted.size() - 1, i == 0 ? 0 : i - 1)];
    };
    auto ms = [](std::int64_t ps) { return static_cast<double>(ps) / 1e9; };
    return fmt::format("p50 {:.3f} ms  p90 {:.3f} ms  p99 {:.3f} ms  max {:.3f} ms", ms(at(0.5)), ms(at(0.9)),
                       ms(at(0.99)), ms(sorted.back()));
}

}  // namespace

// ---- ScenarioDriver ----

ScenarioDriver::ScenarioDriver(sim::Context& ctx, AnantaModel& model)
    : sim::Component(ctx), model_(model), timer_(ctx, this, sim::handler<&ScenarioDriver::on_timer>, sim::Phase::Delivery) {}

void ScenarioDriver::init() {
    wall_start_ = wall_now();
    if (!model_.actions().empty()) timer_.arm_at(model_.actions().front().at);
}

void ScenarioDriver::finish() { wall_end_ = wall_now(); }

void ScenarioDriver::on_timer() {
    const auto& a = model_.actions();
    while (next_ < a.size() && a[next_].at <= now()) model_.apply(a[next_++]);
    if (next_ < a.size()) timer_.arm_at(a[next_].at);
}

// ---- AnantaModel ----

AnantaModel::AnantaModel(sim::Simulator& sim, const DcConfig& config)
    : sim_(sim), shared_(std::make_unique<DcShared>(config)), actions_(config.scenario) {
    std::stable_sort(actions_.begin(), actions_.end(),
                     [](const ActionConfig& x, const ActionConfig& y) { return x.at < y.at; });
    build();
    add_probes();
}

std::vector<WeightedDip> AnantaModel::dips_of(const std::vector<DipSpec>& dips) const {
    const NetworkConfig& n = shared_->config.network;
    std::vector<WeightedDip> out;
    for (const DipSpec& d : dips) {
        const auto rack = static_cast<std::uint32_t>(d.host / n.hosts_per_rack);
        const auto slot = static_cast<std::uint32_t>(d.host % n.hosts_per_rack);
        out.push_back(WeightedDip{addr::vm(rack, slot, static_cast<std::uint32_t>(d.vm)),
                                  static_cast<std::uint16_t>(d.port), addr::host(rack, slot),
                                  static_cast<std::uint32_t>(d.weight)});
    }
    return out;
}

void AnantaModel::build() {
    const DcConfig& c = shared_->config;
    const NetworkConfig& n = c.network;
    DcShared& sh = *shared_;
    driver_ = &sim_.add<ScenarioDriver>("ananta.scenario", *this);
    auto index = [this] { return static_cast<std::uint32_t>(nodes_.size()); };
    for (std::int64_t b = 0; b < n.borders; ++b) {
        borders_.push_back(&sim_.add<RouterNode>(fmt::format("ananta.border{}", b), sh, index(), Tier::Border,
                                                 static_cast<std::uint32_t>(b)));
        nodes_.push_back(borders_.back());
    }
    for (std::int64_t s = 0; s < n.spines; ++s) {
        spines_.push_back(&sim_.add<RouterNode>(fmt::format("ananta.spine{}", s), sh, index(), Tier::Spine,
                                                static_cast<std::uint32_t>(s)));
        nodes_.push_back(spines_.back());
    }
    for (std::int64_t r = 0; r < n.racks; ++r) {
        tors_.push_back(&sim_.add<RouterNode>(fmt::format("ananta.tor{}", r), sh, index(), Tier::Tor,
                                              static_cast<std::uint32_t>(r)));
        nodes_.push_back(tors_.back());
    }
    for (std::int64_t m = 0; m < n.muxes; ++m) {
        muxes_.push_back(&sim_.add<MuxNode>(fmt::format("ananta.mux{}", m), sh, index(), static_cast<std::uint32_t>(m)));
        nodes_.push_back(muxes_.back());
    }
    for (std::int64_t r = 0; r < n.racks; ++r)
        for (std::int64_t s = 0; s < n.hosts_per_rack; ++s) {
            hosts_.push_back(&sim_.add<HostNode>(fmt::format("ananta.rack{}.host{}", r, s), sh, index(),
                                                 addr::host(static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(s))));
            nodes_.push_back(hosts_.back());
        }
    for (std::int64_t k = 0; k < n.client_nodes; ++k) {
        clients_.push_back(&sim_.add<ClientNode>(fmt::format("ananta.client{}", k), sh, index(), static_cast<std::uint32_t>(k)));
        nodes_.push_back(clients_.back());
    }

    // Links: each a pair of ports, one per direction. They are planned first (a port's number is the count of
    // ports planned on its component before it), so that each component can reserve one block for all its ports
    // (DcNode::reserve_ports); then they are made in the planned order, the order of the loops below.
    struct PlannedLink {
        DcNode* a;
        DcNode* b;
        std::string an, bn;
        const LinkTiming* timing;
        const net::PortConfig* config;
        std::uint32_t pa, pb;
    };
    std::vector<PlannedLink> planned;
    std::vector<std::uint32_t> port_count(nodes_.size(), 0);
    auto link = [&](DcNode& a, const std::string& an, DcNode& b, const std::string& bn, const LinkTiming& t,
                    const net::PortConfig* config = nullptr) {
        const std::uint32_t pa = port_count[a.index()]++;
        const std::uint32_t pb = port_count[b.index()]++;
        planned.push_back(PlannedLink{&a, &b, an, bn, &t, config, pa, pb});
        return std::make_pair(pa, pb);
    };
    for (std::int64_t r = 0; r < n.racks; ++r) {
        RouterNode& tor = *tors_[static_cast<std::size_t>(r)];
        for (std::int64_t s = 0; s < n.hosts_per_rack; ++s) {
            HostNode& h = *hosts_[static_cast<std::size_t>(r * n.hosts_per_rack + s)];
            tor.set_down_port(static_cast<std::uint32_t>(s), link(tor, fmt::format("host{}", s), h, "up", sh.host_link).first);
        }
    }
    const BgpConfig& bgp = c.dynamics.bgp;
    const net::PortConfig* mux_port = bgp.sessions && bgp.control_queue ? &*sh.control_port : nullptr;
    for (std::int64_t m = 0; m < n.muxes; ++m) {
        RouterNode& tor = *tors_[static_cast<std::size_t>(m % n.mux_racks)];
        tor.set_mux_port(static_cast<std::uint32_t>(m),
                         link(tor, fmt::format("mux{}", m), *muxes_[static_cast<std::size_t>(m)], "up", sh.host_link,
                              mux_port).first);
    }
    std::vector<std::vector<NextHop>> tor_up(tors_.size());
    std::vector<std::vector<NextHop>> spine_up(spines_.size());
    for (std::size_t r = 0; r < tors_.size(); ++r)
        for (std::size_t s = 0; s < spines_.size(); ++s) {
            auto [pt, ps] = link(*tors_[r], fmt::format("spine{}", s), *spines_[s], fmt::format("tor{}", r), sh.fabric_link);
            tor_up[r].push_back(pt);
            spines_[s]->set_down_port(static_cast<std::uint32_t>(r), ps);
            for (std::int64_t m = static_cast<std::int64_t>(r); m < n.muxes; m += n.mux_racks)
                if (static_cast<std::int64_t>(r) < n.mux_racks) spines_[s]->set_mux_port(static_cast<std::uint32_t>(m), ps);
        }
    std::vector<std::vector<NextHop>> border_up(borders_.size());
    for (std::size_t s = 0; s < spines_.size(); ++s)
        for (std::size_t b = 0; b < borders_.size(); ++b) {
            auto [ps, pb] = link(*spines_[s], fmt::format("border{}", b), *borders_[b], fmt::format("spine{}", s), sh.fabric_link);
            spine_up[s].push_back(ps);
            border_up[b].push_back(pb);
        }
    for (std::size_t k = 0; k < clients_.size(); ++k)
        for (std::size_t b = 0; b < borders_.size(); ++b) {
            auto [pb, pc] = link(*borders_[b], fmt::format("client{}", k), *clients_[k], fmt::format("border{}", b), sh.internet_link);
            (void)pc;
            borders_[b]->set_down_port(static_cast<std::uint32_t>(k), pb);
        }
    for (DcNode* node : nodes_) node->reserve_ports(port_count[node->index()]);
    for (const PlannedLink& l : planned) {
        const std::uint32_t dq = l.config != nullptr ? 1 : 0;  // data behind the control queue
        const std::uint32_t pa = l.a->add_port(l.an, *l.timing, l.config, dq);
        const std::uint32_t pb = l.b->add_port(l.bn, *l.timing, l.config, dq);
        LOOM_ASSERT(pa == l.pa && pb == l.pb, "a link's ports are numbered as planned");
        net::connect(sim_, l.a->out(l.pa), l.b->in(l.pb));
        net::connect(sim_, l.b->out(l.pb), l.a->in(l.pa));
    }
    for (std::size_t r = 0; r < tors_.size(); ++r) tors_[r]->set_up_ports(tor_up[r]);
    for (std::size_t s = 0; s < spines_.size(); ++s) spines_[s]->set_up_ports(spine_up[s]);
    for (std::size_t b = 0; b < borders_.size(); ++b) borders_[b]->set_up_ports(border_up[b]);
    mux_live_.assign(muxes_.size(), true);
    update_vip_routes();
    configure_vips();
    build_dynamics();
    if (bgp.sessions) build_bgp();
    if (c.control_plane.enabled) {
        control_ = &sim_.add<ControlPlane>("ananta.control", sh, muxes_, hosts_);
        control_->build(sim_);
        for (MuxNode* m : muxes_) m->set_control(control_);
        for (HostNode* h : hosts_) h->set_control(control_, static_cast<std::uint32_t>(h->index() - hosts_.front()->index()));
    }

    // The traced connection: its client end is known before the run.
    const FiveTuple t = ClientNode::tuple_of(static_cast<std::uint32_t>(c.trace.client_node),
                                             static_cast<std::uint64_t>(c.trace.connection), 0, 0, IpProto::Tcp);
    sh.trace_addr = t.src;
    sh.trace_port = t.src_port;
    if (auto e = parse_endpoint(c.trace.source)) std::tie(sh.trace_addr, sh.trace_port) = *e;
}

void AnantaModel::configure_vips() {
    const DcConfig& c = shared_->config;
    const NetworkConfig& n = c.network;
    constexpr Epoch kEpoch = 1;
    for (HostNode* h : hosts_) {
        const addr::Decoded d = addr::decode(h->agent().address());
        for (std::int64_t k = 0; k < n.vms_per_host; ++k)
            h->command(AddVm{kEpoch, addr::vm(d.rack, d.slot, static_cast<std::uint32_t>(k))});
    }
    auto host_of = [&](IpAddr host) -> HostNode& {
        const addr::Decoded d = addr::decode(host);
        return *hosts_[d.rack * static_cast<std::uint32_t>(n.hosts_per_rack) + d.slot];
    };
    std::map<std::int64_t, std::int64_t> tenant_vms;
    for (std::size_t v = 0; v < c.vips.size(); ++v) {
        const VipSpec& vc = c.vips[v];
        std::vector<DipSpec> list = vc.dips;
        for (std::int64_t i = 0; i < vc.dip_hosts_count; ++i)
            list.push_back(DipSpec{vc.dip_hosts_first + i, vc.dip_vm, vc.dip_port, 1});
        vip_dips_.push_back(dips_of(list));
        tenant_vms[vc.tenant] += static_cast<std::int64_t>(list.size());
        const Endpoint ep{vip_address(c.vips, v), vc.protocol, static_cast<std::uint16_t>(vc.port)};
        for (MuxNode* m : muxes_)
            m->command(SetEndpoint{kEpoch, ep, vip_dips_.back(), static_cast<std::uint32_t>(vc.tenant)});
        for (const WeightedDip& d : vip_dips_.back()) host_of(d.host).command(SetNatRule{kEpoch, ep, d.dip, d.port, false});
    }
    // Published: tenants share a Mux by weight, their number of VMs.
    for (const auto& [tenant, vms] : tenant_vms)
        for (MuxNode* m : muxes_) m->command(SetTenantWeight{kEpoch, static_cast<std::uint32_t>(tenant), vms});

    // SNAT for VIP-to-VIP sources: a static allocation until the manager runs in the model. Each DIP of a source
    // VIP gets one block of ports (not published: 64, eight of the published 8-port ranges; fewer when the VIP's
    // port space is shared by many DIPs), installed on every Mux for the protocols its sources use.
    constexpr std::int64_t kStaticSnatPorts = 64;
    const SnatConfig& snat = c.params.snat;
    std::vector<std::set<IpProto>> snat_vip(c.vips.size());
    for (const TrafficConfig& t : c.traffic)
        if (t.source == TrafficSource::Vip) snat_vip[static_cast<std::size_t>(t.from_vip)].insert(t.protocol);
    for (std::size_t v = 0; v < c.vips.size(); ++v) {
        if (snat_vip[v].empty()) continue;
        const IpAddr vip = vip_address(c.vips, v);
        const auto& dips = vip_dips_[v];
        const std::int64_t space = snat.last_port - snat.first_port + 1;
        std::int64_t per = std::min({kStaticSnatPorts, snat.max_ports_per_vm, space / static_cast<std::int64_t>(dips.size())});
        per -= per % snat.ports_per_range;
        for (std::size_t i = 0; i < dips.size(); ++i) {
            const auto first = static_cast<std::uint16_t>(snat.first_port + static_cast<std::int64_t>(i) * per);
            const auto count = static_cast<std::uint16_t>(per);
            HostNode& h = host_of(dips[i].host);
            h.command(SetSnatVip{kEpoch, dips[i].dip, vip});
            if (c.control_plane.enabled && c.control_plane.snat) continue;  // ports come from the manager
            h.command(SnatGrant{kEpoch, dips[i].dip, vip, first, count});
            for (IpProto proto : snat_vip[v])
                for (MuxNode* m : muxes_)
                    m->command(SetSnatRange{kEpoch, vip, proto, first, count, FlowTarget{dips[i].dip, 0, dips[i].host},
                                            static_cast<std::uint32_t>(c.vips[v].tenant), false});
        }
    }

    // Traffic sources.
    for (std::size_t t = 0; t < c.traffic.size(); ++t) {
        const TrafficConfig& tc = c.traffic[t];
        if (tc.source == TrafficSource::Internet) {
            for (ClientNode* k : clients_)
                k->add_source(static_cast<std::uint32_t>(t), 0, tc.connections_per_s / static_cast<double>(clients_.size()));
        } else {
            const auto& dips = vip_dips_[static_cast<std::size_t>(tc.from_vip)];
            for (const WeightedDip& d : dips)
                host_of(d.host).add_source(static_cast<std::uint32_t>(t), d.dip,
                                           tc.connections_per_s / static_cast<double>(dips.size()));
        }
    }
}

void AnantaModel::update_vip_routes() {
    const NetworkConfig& n = shared_->config.network;
    std::vector<bool> tor_has(tors_.size(), false);
    for (std::size_t r = 0; r < tors_.size(); ++r) {
        std::vector<NextHop> ports;
        for (std::size_t m = r; m < muxes_.size() && r < static_cast<std::size_t>(n.mux_racks); m += static_cast<std::size_t>(n.mux_racks))
            if (mux_live_[m]) ports.push_back(static_cast<NextHop>(n.hosts_per_rack) + static_cast<NextHop>(m / static_cast<std::size_t>(n.mux_racks)));
        tor_has[r] = !ports.empty();
        const bool had = tors_[r]->vip_ports() > 0;
        const double moved = tors_[r]->set_vip_ports(ports);
        if (had) ecmp_changes_.push_back(EcmpChange{sim_.now(), tors_[r]->path(), moved});
    }
    for (RouterNode* s : spines_) {
        std::vector<NextHop> ports;
        for (std::size_t r = 0; r < tors_.size(); ++r)
            if (tor_has[r]) ports.push_back(static_cast<NextHop>(r));  // spine port r leads to ToR r
        const bool had = s->vip_ports() > 0;
        const double moved = s->set_vip_ports(ports);
        if (had && moved > 0) ecmp_changes_.push_back(EcmpChange{sim_.now(), s->path(), moved});
    }
}

void AnantaModel::apply(const ActionConfig& a) {
    const DcConfig& c = shared_->config;
    switch (a.action) {
        case ActionKind::MuxState: apply_bgp(a); break;
        case ActionKind::MuxDown:
        case ActionKind::MuxUp: {
            if (bgp_sessions()) {
                apply_bgp(a);
                break;
            }
            const bool up = a.action == ActionKind::MuxUp;
            muxes_[static_cast<std::size_t>(a.mux)]->set_failed(!up);
            if (up && control_ != nullptr) control_->mux_booted(static_cast<std::uint32_t>(a.mux));
            if (a.withdraw) {
                mux_live_[static_cast<std::size_t>(a.mux)] = up;
                update_vip_routes();
            }
            break;
        }
        case ActionKind::LinkDown:
        case ActionKind::LinkUp: {
            const net::Partition part{a.target, Time::zero(), Time::max()};
            for (DcNode* node : nodes_)
                for (std::uint32_t p = 0; p < node->ports(); ++p)
                    if (part.covers(node->out(p).engine().path()))
                        node->out(p).engine().set_down(a.action == ActionKind::LinkDown);
            if (control_) control_->set_links(part, a.action == ActionKind::LinkDown);
            break;
        }
        case ActionKind::Freeze:
        case ActionKind::Thaw:
            for (DcNode* node : nodes_)
                if (node->path() == a.target) node->set_frozen(a.action == ActionKind::Freeze);
            break;
        case ActionKind::SetDips:
        case ActionKind::Command: {
            const auto v = static_cast<std::size_t>(a.vip);
            const VipSpec& vc = c.vips[v];
            const Endpoint ep{vip_address(c.vips, v), vc.protocol, static_cast<std::uint16_t>(vc.port)};
            std::vector<WeightedDip> dips = vip_dips_[v];
            const auto epoch = static_cast<Epoch>(a.epoch);
            if (a.action == ActionKind::SetDips) {
                dips = dips_of(a.dips);
                for (const WeightedDip& d : dips) {
                    const addr::Decoded h = addr::decode(d.host);
                    HostNode& host = *hosts_[h.rack * static_cast<std::uint32_t>(c.network.hosts_per_rack) + h.slot];
                    host.command(SetNatRule{epoch, ep, d.dip, d.port, false});
                }
                vip_dips_[v] = dips;
            }
            for (MuxNode* m : muxes_)
                if (a.mux < 0 || m->number() == static_cast<std::uint32_t>(a.mux))
                    m->command(SetEndpoint{epoch, ep, dips, static_cast<std::uint32_t>(vc.tenant)});
            break;
        }
        case ActionKind::VmUnhealthy:
        case ActionKind::VmHealthy:
        case ActionKind::SpoofRedirect: apply_dynamics(a); break;
        case ActionKind::StartTraffic:
        case ActionKind::StopTraffic:
            for (std::size_t t = 0; t < c.traffic.size(); ++t) {
                if (c.traffic[t].name != a.target) continue;
                for (ClientNode* k : clients_) k->set_traffic(static_cast<std::uint32_t>(t), a.action == ActionKind::StartTraffic);
                for (HostNode* h : hosts_) h->set_traffic(static_cast<std::uint32_t>(t), a.action == ActionKind::StartTraffic);
            }
            break;
        case ActionKind::ConfigureVip: {
            std::vector<WeightedDip> dips;
            if (!a.dips.empty()) dips = dips_of(a.dips);
            control_->configure_vip(static_cast<std::size_t>(a.vip), a.dips.empty() ? nullptr : &dips, a.replica);
            break;
        }
        case ActionKind::ReplicaCrash: control_->crash(static_cast<std::size_t>(a.replica)); break;
        case ActionKind::ReplicaRecover: control_->recover(static_cast<std::size_t>(a.replica)); break;
        case ActionKind::ReplicaFreeze: control_->freeze(static_cast<std::size_t>(a.replica)); break;
        case ActionKind::ReplicaThaw: control_->thaw(static_cast<std::size_t>(a.replica)); break;
        case ActionKind::HealthReport:
            for (const WeightedDip& d : dips_of(a.dips)) control_->health_report(d.dip, d.host, a.healthy);
            break;
    }
}

std::uint64_t AnantaModel::packet_hops() const {
    std::uint64_t n = 0;
    for (const DcNode* node : nodes_)
        for (std::uint32_t p = 0; p < node->ports(); ++p) n += const_cast<DcNode*>(node)->in(p).received();
    return n;
}

std::vector<std::string> AnantaModel::conservation_problems() const {
    std::vector<std::string> problems;
    std::uint64_t created = 0, consumed = 0, dropped = 0, pending = 0, port_sent = 0, port_delivered = 0, dup = 0,
                  port_dropped = 0, queued = 0, received = 0;
    for (DcNode* node : nodes_) {
        const Tally& t = node->tally();
        created += t.created;
        consumed += t.consumed;
        dropped += t.drops_total;
        pending += node->pending();
        for (std::uint32_t p = 0; p < node->ports(); ++p) {
            const net::PortEngine& e = node->out(p).engine();
            if (!e.conservation())
                problems.push_back(fmt::format("{}: sent {} + duplicated {} != delivered {} + dropped {} + queued {}",
                                               e.path(), e.sent(), e.duplicated(), e.delivered(), e.drops().total(),
                                               e.queued()));
            port_sent += e.sent();
            port_delivered += e.delivered();
            dup += e.duplicated();
            port_dropped += e.drops().total();
            queued += e.queued();
            received += node->in(p).received();
        }
    }
    const std::uint64_t on_wire = port_delivered - received;
    if (created + dup != consumed + dropped + port_dropped + queued + on_wire + pending)
        problems.push_back(fmt::format(
            "packets created {} + duplicated {} != consumed {} + dropped in components {} + dropped at ports {} + "
            "queued {} + on the wire {} + held {}",
            created, dup, consumed, dropped, port_dropped, queued, on_wire, pending));
    return problems;
}

void AnantaModel::merge_records() {
    records_.clear();
    for (ClientNode* k : clients_)
        for (auto& r : k->openers().reports()) records_.push_back(r);
    for (HostNode* h : hosts_)
        for (auto& r : h->openers().reports()) records_.push_back(r);
    // Sightings by outside tuple, in time order.
    using Key = decltype(tuple_key(FiveTuple{}));
    std::map<Key, std::vector<std::pair<Time, IpAddr>>> mux_seen, dip_seen;
    for (MuxNode* m : muxes_)
        for (const Sighting& s : m->sightings()) mux_seen[tuple_key(s.outside)].emplace_back(s.at, s.who);
    for (HostNode* h : hosts_)
        for (const Sighting& s : h->sightings()) dip_seen[tuple_key(s.outside)].emplace_back(s.at, s.who);
    for (auto* m : {&mux_seen, &dip_seen})
        for (auto& [k, v] : *m) std::stable_sort(v.begin(), v.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    // The first sighting at or after the connection opened (a reused outside tuple belongs to a later
    // connection, opened after this one).
    auto first_in = [](const auto& seen, const Key& k, Time from) -> IpAddr {
        auto it = seen.find(k);
        if (it == seen.end()) return 0;
        for (const auto& [t, who] : it->second)
            if (t >= from) return who;
        return 0;
    };
    std::map<Key, std::uint64_t> udp;  // receiver side of UDP pseudo-connections
    for (HostNode* h : hosts_)
        for (const auto& [t, b] : h->udp_bytes()) udp[tuple_key(t)] += b;
    for (ConnectionReport& r : records_) {
        const Key k = tuple_key(r.outside);
        if (r.proto == IpProto::Udp)
            if (auto it = udp.find(k); it != udp.end()) r.record.bytes_delivered = it->second;
        r.record.mux = first_in(mux_seen, k, r.record.opened);
        r.record.dip = first_in(dip_seen, k, r.record.opened);
    }
}

stats::Json AnantaModel::make_summary() {
    const DcConfig& c = shared_->config;
    const Time end = sim_.now();
    stats::Json s = stats::Json::object();

    // Packets and drops.
    net::DropCounts drops;
    std::uint64_t created = 0, consumed = 0;
    for (DcNode* node : nodes_) {
        drops.merge(node->tally().drops);
        created += node->tally().created;
        consumed += node->tally().consumed;
        for (std::uint32_t p = 0; p < node->ports(); ++p) drops.merge(node->out(p).engine().drops());
    }
    s["packets"] = {{"created", created}, {"consumed", consumed}, {"dropped", drops.total()}, {"packet_hops", packet_hops()}};
    s["drops"] = drops.to_json(shared_->reasons);

    // Muxes.
    stats::Json muxes = stats::Json::object();
    std::vector<double> load;
    std::uint64_t rejected = 0;
    stats::Json rejections = stats::Json::array();
    for (MuxNode* m : muxes_) {
        const MuxCounters mc = m->counters();
        load.push_back(static_cast<double>(mc.forwarded));
        rejected += mc.commands_rejected;
        for (const auto& r : m->rejections())
            rejections.push_back({{"at_ps", r.at.count()}, {"mux", m->path()}, {"command_epoch", r.what.command_epoch},
                                  {"highest_seen", r.what.highest_seen}});
        muxes[fmt::format("mux{}", m->number())] = {
            {"received", mc.received}, {"forwarded", mc.forwarded}, {"new_connections", mc.new_connections},
            {"flow_hits", mc.flow_hits}, {"stateless_fallbacks", mc.stateless_fallbacks},
            {"snat_returns", mc.snat_returns}, {"flow_entries", m->mux().flows().size()},
            {"overload_reports", m->overload_reports()}, {"commands_rejected", mc.commands_rejected},
            {"epoch", m->mux().epoch()}, {"failed", m->failed()}};
    }
    s["muxes"] = muxes;
    double sum = 0, mx = 0, mn = load.empty() ? 0 : load[0];
    for (double l : load) {
        sum += l;
        mx = std::max(mx, l);
        mn = std::min(mn, l);
    }
    const double mean = load.empty() ? 0 : sum / static_cast<double>(load.size());
    double var = 0;
    for (double l : load) var += (l - mean) * (l - mean);
    const double cov = mean > 0 ? std::sqrt(var / static_cast<double>(load.size())) / mean : 0;
    s["mux_load"] = {{"min_packets", mn}, {"max_packets", mx}, {"mean_packets", mean},
                     {"max_over_mean", mean > 0 ? mx / mean : 0}, {"cov", cov}};
    std::uint64_t host_rejected = 0;
    for (HostNode* h : hosts_) host_rejected += h->rejections();
    s["epochs"] = {{"mux_commands_rejected", rejected}, {"host_commands_rejected", host_rejected},
                   {"rejections", rejections}};

    // Connections: by VIP, setup latency, outcome.
    struct VipTotals {
        std::uint64_t opened = 0, completed = 0, failed = 0, bytes = 0;
    };
    std::vector<VipTotals> per_vip(c.vips.size());
    std::vector<std::int64_t> setup;
    std::uint64_t completed = 0, failed = 0, open = 0, with_mux = 0, with_dip = 0, retrans = 0;
    std::map<IpAddr, std::uint64_t> by_mux, by_dip;
    for (const ConnectionReport& r : records_) {
        VipTotals& v = per_vip[static_cast<std::size_t>(c.traffic[r.traffic].to_vip)];
        ++v.opened;
        v.bytes += r.record.bytes_delivered;
        retrans += r.record.retransmissions;
        if (r.record.outcome == ConnectionOutcome::Completed) ++completed, ++v.completed;
        if (r.record.outcome == ConnectionOutcome::Failed) ++failed, ++v.failed;
        if (r.record.outcome == ConnectionOutcome::Open) ++open;
        if (r.proto == IpProto::Tcp && r.record.established_at_all()) setup.push_back(r.record.setup_latency().count());
        if (r.record.mux != 0) ++with_mux, ++by_mux[r.record.mux];
        if (r.record.dip != 0) ++with_dip, ++by_dip[r.record.dip];
    }
    std::sort(setup.begin(), setup.end());
    auto pct = [&](double q) -> std::int64_t {
        if (setup.empty()) return 0;
        const auto i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(setup.size())));
        return setup[std::min(setup.size() - 1, i == 0 ? 0 : i - 1)];
    };
    s["connections"] = {{"opened", records_.size()}, {"completed", completed}, {"failed", failed}, {"open", open},
                        {"retransmissions", retrans}, {"with_mux", with_mux}, {"with_dip", with_dip},
                        {"setup_latency_ps", {{"count", setup.size()}, {"p50", pct(0.5)}, {"p90", pct(0.9)},
                                              {"p99", pct(0.99)}, {"max", setup.empty() ? 0 : setup.back()}}}};
    stats::Json vips = stats::Json::object();
    for (std::size_t v = 0; v < c.vips.size(); ++v) {
        const double secs = end.to_s();
        vips[c.vips[v].name] = {{"address", format_ip(vip_address(c.vips, v))}, {"connections", per_vip[v].opened},
                                {"completed", per_vip[v].completed}, {"failed", per_vip[v].failed},
                                {"bytes_delivered", per_vip[v].bytes},
                                {"throughput_bps", secs > 0 ? static_cast<double>(per_vip[v].bytes) * 8 / secs : 0.0},
                                {"dips", vip_dips_[v].size()}};
    }
    s["vips"] = vips;
    stats::Json conn_by_mux = stats::Json::object();
    for (const auto& [a, k] : by_mux) conn_by_mux[format_ip(a)] = k;
    s["connections_by_mux"] = conn_by_mux;
    if (c.trace.records) {
        stats::Json recs = stats::Json::array();
        for (const ConnectionReport& r : records_) {
            const ConnectionRecord& x = r.record;
            recs.push_back({{"traffic", c.traffic[r.traffic].name},
                            {"client", fmt::format("{}:{}", format_ip(x.tuple.src), x.tuple.src_port)},
                            {"outside", fmt::format("{}:{}", format_ip(r.outside.src), r.outside.src_port)},
                            {"opened_ps", x.opened.count()},
                            {"setup_latency_ps", x.established_at_all() ? x.setup_latency().count() : -1},
                            {"outcome", x.outcome == ConnectionOutcome::Completed ? "completed"
                                        : x.outcome == ConnectionOutcome::Failed ? "failed" : "open"},
                            {"retransmissions", x.retransmissions}, {"bytes_delivered", x.bytes_delivered},
                            {"mux", x.mux ? format_ip(x.mux) : ""}, {"dip", x.dip ? format_ip(x.dip) : ""}});
        }
        s["connection_records"] = recs;
    }

    stats::Json ecmp = stats::Json::array();
    for (const EcmpChange& e : ecmp_changes_)
        ecmp.push_back({{"at_ps", e.at.count()}, {"router", e.router}, {"share_moved", e.share_moved}});
    s["ecmp_changes"] = ecmp;
    if (bgp_sessions()) s["bgp"] = bgp_summary();
    if (control_) s["control_plane"] = control_->summary(end);

    // State per open connection: what the components hold for connections (endpoints, Host Agent bindings, Mux
    // flow tables, sightings), over the connections open at the end.
    StateBytes parts;
    for (ClientNode* k : clients_) parts += k->bytes_of_state();
    for (HostNode* h : hosts_) parts += h->bytes_of_state();
    for (MuxNode* m : muxes_) parts += m->bytes_of_state();
    const std::size_t bytes = parts.total();
    s["state"] = {{"open_connections", open}, {"connection_state_bytes", bytes},
                  {"bytes_per_open_connection", open > 0 ? static_cast<double>(bytes) / static_cast<double>(open) : 0.0},
                  {"by_part", {{"openers", parts.openers}, {"servers", parts.servers}, {"timers", parts.timers},
                               {"nat_bindings", parts.nat}, {"mux_flows", parts.mux_flows},
                               {"sightings", parts.sightings}, {"udp", parts.udp}}}};
    dynamics_summary(s);
    return s;
}

void AnantaModel::finish() {
    if (finished_) return;
    finished_ = true;
    wall_s_ = driver_->wall_end() - driver_->wall_start();
    merge_records();
    summary_ = make_summary();
    stats::Group& g = sim_.stats().group("ananta");
    for (auto it = summary_.begin(); it != summary_.end(); ++it) g.set(it.key(), it.value());
    const auto problems = conservation_problems();
    if (!problems.empty()) {
        std::string all;
        for (const auto& p : problems) all += (all.empty() ? "" : "; ") + p;
        throw ModelError(fmt::format("ananta: conservation violated at {}: {}", loom::to_string(sim_.now()), all));
    }
}

std::string AnantaModel::perf_fields() const {
    const std::uint64_t hops = packet_hops();
    return fmt::format(" packet_hops={} packet_hops_per_s={:.0f}", hops,
                       wall_s_ > 0 ? static_cast<double>(hops) / wall_s_ : 0.0);
}

std::optional<std::string> AnantaModel::text_summary() const {
    const stats::Json& s = summary_;
    std::string out = fmt::format("ananta: {} Muxes, {} hosts, {} VIPs, {} connections ({} completed, {} failed, {} open)\n",
                                  muxes_.size(), hosts_.size(), shared_->config.vips.size(),
                                  s["connections"]["opened"].get<std::uint64_t>(),
                                  s["connections"]["completed"].get<std::uint64_t>(),
                                  s["connections"]["failed"].get<std::uint64_t>(),
                                  s["connections"]["open"].get<std::uint64_t>());
    std::vector<std::int64_t> setup;
    for (const ConnectionReport& r : records_)
        if (r.proto == IpProto::Tcp && r.record.established_at_all()) setup.push_back(r.record.setup_latency().count());
    std::sort(setup.begin(), setup.end());
    out += fmt::format("  setup latency: {}\n", pct_line(setup));
    out += "  mux load (packets forwarded):";
    for (MuxNode* m : muxes_) out += fmt::format(" {}", m->counters().forwarded);
    out += fmt::format("  spread max/mean {:.3f} cov {:.3f}\n", s["mux_load"]["max_over_mean"].get<double>(),
                       s["mux_load"]["cov"].get<double>());
    for (auto it = s["vips"].begin(); it != s["vips"].end(); ++it)
        out += fmt::format("  vip {} ({}): {} connections, {:.3f} Mbps delivered\n", it.key(),
                           it.value()["address"].get<std::string>(), it.value()["connections"].get<std::uint64_t>(),
                           it.value()["throughput_bps"].get<double>() / 1e6);
    std::string d;
    for (auto it = s["drops"].begin(); it != s["drops"].end(); ++it)
        d += fmt::format(" {}={}", it.key(), it.value().get<std::uint64_t>());
    out += fmt::format("  drops:{}\n", d.empty() ? " none" : d);
    const std::uint64_t rej = s["epochs"]["mux_commands_rejected"].get<std::uint64_t>() +
                              s["epochs"]["host_commands_rejected"].get<std::uint64_t>();
    if (rej > 0) out += fmt::format("  commands rejected for a stale epoch: {}\n", rej);
    if (bgp_sessions()) {
        out += bgp_text();
    } else {
        for (const EcmpChange& e : ecmp_changes_)
            out += fmt::format("  ecmp change at {}: {} moved {:.4f} of flows\n", loom::to_string(e.at), e.router,
                               e.share_moved);
    }
    if (s["state"]["open_connections"].get<std::uint64_t>() > 0)
        out += fmt::format("  state per open connection: {:.0f} bytes ({} open)\n",
                           s["state"]["bytes_per_open_connection"].get<double>(),
                           s["state"]["open_connections"].get<std::uint64_t>());
    out += dynamics_text();
    if (control_) out += control_->text_summary(sim_.now());
    return out;
}

std::vector<HopRecord> AnantaModel::traced_hops() const {
    std::vector<HopRecord> all;
    for (const DcNode* n : nodes_) all.insert(all.end(), n->hops().begin(), n->hops().end());
    std::stable_sort(all.begin(), all.end(), [](const HopRecord& a, const HopRecord& b) {
        return std::tie(a.at, a.node) < std::tie(b.at, b.node);
    });
    return all;
}

std::optional<std::string> AnantaModel::trace() const {
    // Chrome/Perfetto trace: one track per component, one instant event per hop of the traced connection.
    stats::Json events = stats::Json::array();
    for (const DcNode* n : nodes_)
        if (!n->hops().empty())
            events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", n->index()}, {"args", {{"name", n->path()}}}});
    for (const HopRecord& h : traced_hops()) {
        const IpPacket& p = h.packet;
        std::string flags;
        if (p.has(tcp_flag::kSyn)) flags += "SYN ";
        if (p.has(tcp_flag::kFin)) flags += "FIN ";
        if (p.has(tcp_flag::kAck)) flags += "ACK ";
        if (p.payload_bytes > 0) flags += fmt::format("DATA#{} ", p.seq);
        const char* what = h.event == HopEvent::Received  ? "received"
                           : h.event == HopEvent::Sent    ? "sent"
                           : h.event == HopEvent::Delivered ? "delivered"
                                                            : "dropped";
        stats::Json args = {{"src", fmt::format("{}:{}", format_ip(p.inner.src), p.inner.src_port)},
                            {"dst", fmt::format("{}:{}", format_ip(p.inner.dst), p.inner.dst_port)},
                            {"bytes", p.size_bytes}, {"ttl", p.wire_ttl()}, {"event", what}};
        if (p.encapsulated())
            args["outer"] = fmt::format("{} -> {}", format_ip(p.outer[p.depth - 1].src), format_ip(p.outer[p.depth - 1].dst));
        if (h.event == HopEvent::Dropped) args["reason"] = shared_->reasons.name(net::DropReason{h.reason});
        events.push_back({{"name", flags.empty() ? std::string(what) : flags + what}, {"ph", "i"}, {"s", "t"},
                          {"ts", static_cast<double>(h.at.count()) / 1e6}, {"pid", 0}, {"tid", h.node}, {"args", args}});
    }
    return stats::Json{{"traceEvents", events}, {"displayTimeUnit", "ns"}}.dump();
}

std::unique_ptr<AnantaModel> build(const config::Json& root, sim::Simulator& sim, config::Errors& errors) {
    DcConfig config;
    const std::size_t before = errors.size();
    if (!root.contains("end_time"))
        errors.add("/end_time", "the ananta model needs an end time (its periodic timers never let the network go quiet)");
    parse_dc_config(root, config, errors);
    if (errors.size() != before) return nullptr;
    auto model = std::make_unique<AnantaModel>(sim, config);
    // Scenario targets that name nothing are config errors (checked on the built network).
    for (std::size_t i = 0; i < config.scenario.size(); ++i) {
        const ActionConfig& a = config.scenario[i];
        const std::string at = config::child_pointer("/scenario", i) + "/target";
        if (a.action == ActionKind::LinkDown || a.action == ActionKind::LinkUp) {
            const net::Partition part{a.target, Time::zero(), Time::max()};
            bool any = false;
            for (DcNode* n : model->nodes())
                for (std::uint32_t p = 0; p < n->ports() && !any; ++p) any = part.covers(n->out(p).engine().path());
            if (model->control() != nullptr) any = any || model->control()->covers(part);
            if (!any) errors.add(at, fmt::format("no port path starts with '{}' (e.g. ananta.tor0.spine1)", a.target));
        }
        if (a.action == ActionKind::SpoofRedirect) {
            bool any = false;
            for (const ClientNode* k : model->clients()) any = any || k->path() == a.target;
            for (const HostNode* h : model->hosts()) any = any || h->path() == a.target;
            if (!any)
                errors.add(at, fmt::format("spoof_redirect needs a client node or a host (e.g. ananta.client0), got '{}'",
                                           a.target));
        }
        if (a.action == ActionKind::Freeze || a.action == ActionKind::Thaw) {
            bool any = false;
            for (DcNode* n : model->nodes()) any = any || n->path() == a.target;
            if (!any) errors.add(at, fmt::format("no component is named '{}' (e.g. ananta.mux0)", a.target));
        }
    }
    if (errors.size() != before) return nullptr;
    return model;
}

void register_components(sim::Registry& registry) {
    sim::ModelEntry entry;
    entry.name = "ananta";
    entry.doc = "Ananta cloud layer-4 load balancer on a data-center Clos: routers with ECMP per tier, a Mux pool "
                "(VIP map, flow table, per-core capacity, fair dropping, IP-in-IP), Host Agents (NAT, DSR, MSS "
                "clamping, SNAT), TCP-like and UDP connections from Internet clients and VMs, a timed scenario; "
                "checks packet conservation.";
    entry.sections = dc_sections();
    entry.stats = stat_declarations();
    entry.components = {
        {"RouterNode", "ToR, spine or border router (ananta.tor<r>, ananta.spine<s>, ananta.border<b>): routes on the "
                       "wire destination with ECMP per tier."},
        {"MuxNode", "A Mux (ananta.mux<i>) on a ToR: the Mux state machine behind one link."},
        {"HostNode", "A host (ananta.rack<r>.host<s>): Host Agent and VMs (servers and VIP-to-VIP openers)."},
        {"ClientNode", "An Internet client node (ananta.client<c>) linked to every border router."},
        {"ScenarioDriver", "Applies the timed scenario's actions (ananta.scenario)."}};
    entry.build = [](const config::Json& root, sim::Simulator& sim,
                     config::Errors& errors) -> std::unique_ptr<sim::ModelInstance> { return build(root, sim, errors); };
    registry.add(std::move(entry));
}

}  // namespace loom::ananta
