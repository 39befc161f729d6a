#include "loom/ananta/control_plane.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "loom/ananta/endpoint_node.hpp"
#include "loom/ananta/mux_node.hpp"
#include "loom/base/rng.hpp"

namespace loom::ananta {

namespace {

LinkTiming replica_link_timing(const ControlPlaneConfig& c) {
    LinkTiming t;  // bytes as units, as on the data-center links
    t.rate = c.link_rate;
    t.unit_payload = Bytes(1);
    t.unit_wire = Bytes(1);
    t.latency_parts = {{"replica_link", c.link_latency}};
    return t;
}

LinkTiming command_link_timing(const ControlPlaneConfig& c) {
    LinkTiming t;
    t.rate = c.command_link_rate;
    t.unit_payload = Bytes(1);
    t.unit_wire = Bytes(1);
    t.latency_parts = {{"command_link", c.control_latency}};
    return t;
}

std::int64_t cp_percentile(const std::vector<std::int64_t>& sorted, double q) {
    if (sorted.empty()) return 0;
    const auto i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
    return sorted[std::min(sorted.size() - 1, i == 0 ? 0 : i - 1)];
}

stats::Json cp_distribution(std::vector<std::int64_t> v) {
    std::sort(v.begin(), v.end());
    return {{"count", v.size()}, {"p50", cp_percentile(v, 0.5)}, {"p90", cp_percentile(v, 0.9)},
            {"p99", cp_percentile(v, 0.99)}, {"max", v.empty() ? 0 : v.back()}};
}

std::string cp_ms(std::int64_t ps) { return fmt::format("{:.3f} ms", static_cast<double>(ps) / 1e9); }

const char* outcome_name(Outcome o) {
    switch (o) {
        case Outcome::Done: return "done";
        case Outcome::Invalid: return "invalid";
        case Outcome::Refused: return "refused";
        case Outcome::Dropped: return "dropped";
        case Outcome::NotPrimary: return "not_primary";
        case Outcome::Aborted: return "pending";
    }
    return "?";
}

}  // namespace

ControlPlane::ControlPlane(sim::Context& ctx, const DcShared& shared, std::vector<MuxNode*> muxes,
                           std::vector<HostNode*> hosts)
    : sim::Component(ctx),
      shared_(shared),
      config_(shared.config.control_plane),
      muxes_(std::move(muxes)),
      hosts_(std::move(hosts)),
      link_timing_(replica_link_timing(config_)),
      command_timing_(command_link_timing(config_)),
      delivery_timer_(ctx, this, sim::handler<&ControlPlane::on_delivery>),
      keepalive_timer_(ctx, this, sim::handler<&ControlPlane::on_keepalive>),
      retry_(ctx, this, sim::handler<&ControlPlane::on_retry>),
      idle_timer_(ctx, this, sim::handler<&ControlPlane::on_idle_check>) {
    for (MuxNode* m : muxes_) mux_addrs_.push_back(m->mux().address());
    for (HostNode* h : hosts_) host_addrs_.push_back(h->agent().address());
    const DcConfig& c = shared.config;
    const NetworkConfig& n = c.network;
    for (const VipSpec& v : c.vips) {
        std::vector<DipSpec> list = v.dips;
        for (std::int64_t i = 0; i < v.dip_hosts_count; ++i) list.push_back(DipSpec{v.dip_hosts_first + i, v.dip_vm, v.dip_port, 1});
        vip_dips_.push_back(dips_of(n, list));
    }
    snat_vip_.assign(c.vips.size(), false);
    for (const TrafficConfig& t : c.traffic)
        if (t.source == TrafficSource::Vip) snat_vip_[static_cast<std::size_t>(t.from_vip)] = true;
    requests_.resize(hosts_.size() * static_cast<std::size_t>(n.vms_per_host));
    const auto first = static_cast<std::uint32_t>(std::max<std::int64_t>(0, config_.initial_primary));
    host_primary_.assign(hosts_.size(), first);
    host_epoch_.assign(hosts_.size(), 0);
    operator_primary_ = first;
    withdrawals_.resize(muxes_.size());
    rejected_by_issuer_.assign(static_cast<std::size_t>(config_.replicas), 0);
}

std::vector<WeightedDip> ControlPlane::dips_of(const NetworkConfig& n, const std::vector<DipSpec>& dips) {
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

paxos::Config ControlPlane::paxos_config() const {
    paxos::Config p;
    p.replicas = static_cast<std::uint32_t>(config_.replicas);
    p.heartbeat_interval = config_.heartbeat_interval;
    p.election_timeout = config_.election_timeout;
    p.election_jitter = config_.election_jitter;
    p.leader_lease = config_.leader_lease;
    p.lease_duration = config_.lease_duration;
    p.depose_on_write_only = config_.depose_on_write_only;
    p.seed = derive(ctx().sim().seed(), "ananta.control.paxos");
    return p;
}

void ControlPlane::build(sim::Simulator& sim) {
    const auto n = static_cast<std::uint32_t>(config_.replicas);
    for (std::uint32_t r = 0; r < n; ++r) replicas_.push_back(&sim.add<ManagerNode>(fmt::format("ananta.manager{}", r), *this, r));
    for (std::uint32_t a = 0; a < n; ++a)
        for (std::uint32_t b = 0; b < n; ++b)
            if (a != b) net::connect(sim, *replicas_[a]->outs()[b], *replicas_[b]->ins()[a]);
    const auto muxes = static_cast<std::uint32_t>(muxes_.size());
    for (std::uint32_t q = 0; q < peers(); ++q) {
        const bool mux = q < muxes;
        const std::string name = mux ? fmt::format("ananta.control.mux{}", q) : fmt::format("ananta.control.host{}", q - muxes);
        agents_.push_back(&sim.add<ControlAgent>(name, *this, q, mux, mux ? q : q - muxes));
    }
    for (std::uint32_t r = 0; r < n; ++r)
        for (std::uint32_t q = 0; q < peers(); ++q) {
            net::connect(sim, *replicas_[r]->command_outs()[q], *agents_[q]->ins()[r]);
            net::connect(sim, *agents_[q]->outs()[r], *replicas_[r]->ack_ins()[q]);
        }
}

void ControlPlane::init() {
    keepalive_timer_.arm_at(now() + config_.keepalive_interval);
    // The run's own VIPs are configured through the manager too (the data plane starts from a static copy of
    // their endpoints so that traffic flows before the first primary is elected).
    for (std::size_t v = 0; v < vip_dips_.size(); ++v) {
        Operation op;
        op.vip = v;
        op.config = vip_config(v, vip_dips_[v]);
        op.replica = operator_primary_;
        op.record = ops_records_.size();
        op.open = true;
        ops_records_.push_back(VipConfigRecord{v, true, now(), kNever, Outcome::Aborted, 0, 0, Time::zero()});
        ops_.push_back(std::move(op));
        ask_vip(static_cast<std::uint32_t>(ops_.size() - 1));
    }
}

VipConfig ControlPlane::vip_config(std::size_t v, const std::vector<WeightedDip>& dips) const {
    const VipSpec& s = shared_.config.vips[v];
    VipConfig c;
    c.vip = vip_address(shared_.config.vips, v);
    c.tenant = static_cast<std::uint32_t>(s.tenant);
    c.endpoints.push_back(VipEndpointConfig{Endpoint{c.vip, s.protocol, static_cast<std::uint16_t>(s.port)}, dips});
    if (snat_vip_[v] && config_.snat) {
        std::set<IpAddr> seen;
        for (const WeightedDip& d : dips)
            if (seen.insert(d.dip).second) c.snat.push_back(SnatDip{d.dip, d.host});
    }
    return c;
}

// ---- deliveries ----

void ControlPlane::post(Time at, Delivery d) {
    queue_.emplace(std::make_pair(at, seq_++), std::move(d));
    if (!delivery_timer_.armed() || delivery_timer_.expiry() > at) delivery_timer_.arm_at(at);
}

void ControlPlane::to_manager(std::uint32_t replica, ManagerInput in, Time at) {
    Delivery d;
    d.kind = Kind::ToManager;
    d.target = replica;
    d.input = std::move(in);
    post(at, std::move(d));
}

void ControlPlane::on_delivery() {
    while (!queue_.empty() && queue_.begin()->first.first <= now()) {
        auto node = queue_.extract(queue_.begin());
        const Delivery& d = node.mapped();
        switch (d.kind) {
            case Kind::ToManager: replicas_[d.target]->deliver(d.input); break;
            case Kind::SnatAnswer: snat_answer(d); break;
            case Kind::VipAnswer: vip_answer(d); break;
        }
    }
    if (!queue_.empty()) delivery_timer_.arm_at(queue_.begin()->first.first);
}

void ControlPlane::on_keepalive() {
    const Time at = now() + config_.control_latency;
    std::set<std::pair<IpAddr, IpAddr>> in_use;  // (dip, vip) holding ranges: Host Agents keep them
    for (const Held& h : held_) in_use.emplace(h.grant.dip, h.grant.vip);
    for (std::uint32_t r = 0; r < replicas_.size(); ++r) {
        for (std::size_t m = 0; m < muxes_.size(); ++m)
            if (!muxes_[m]->failed()) to_manager(r, PeerAlive{mux_addrs_[m]}, at);
        for (IpAddr h : host_addrs_) to_manager(r, PeerAlive{h}, at);
        for (const auto& [dip, vip] : in_use) to_manager(r, SnatInUse{dip, vip}, at);
    }
    keepalive_timer_.arm_at(now() + config_.keepalive_interval);
}

std::uint32_t ControlPlane::next_replica(std::uint32_t r) const {
    return (r + 1) % static_cast<std::uint32_t>(replicas_.size());
}

std::uint32_t ControlPlane::dip_slot(IpAddr dip) const {
    const addr::Decoded d = addr::decode(dip);
    const auto hpr = static_cast<std::uint32_t>(shared_.config.network.hosts_per_rack);
    const auto vms = static_cast<std::uint32_t>(shared_.config.network.vms_per_host);
    return (d.rack * hpr + d.slot) * vms + d.index;
}

// ---- manager output ----

void ControlPlane::from_manager(std::uint32_t replica, const ManagerActions& a) {
    // Commands leave now as packets on the replica's command links (the receiver applies them after the
    // programming latency the manager's `at` includes).
    ManagerNode& node = *replicas_[replica];
    for (const ToMux& c : a.to_mux) {
        const auto it = std::find(mux_addrs_.begin(), mux_addrs_.end(), c.mux);
        if (it == mux_addrs_.end()) continue;
        node.send_command(static_cast<std::uint32_t>(it - mux_addrs_.begin()),
                          command_parts(c.command, c.token, node.next_serial()));
    }
    for (const ToHost& c : a.to_host) {
        const auto it = std::find(host_addrs_.begin(), host_addrs_.end(), c.host);
        if (it == host_addrs_.end()) continue;
        node.send_command(static_cast<std::uint32_t>(muxes_.size() + (it - host_addrs_.begin())),
                          command_parts(c.command, c.token, node.next_serial()));
    }
    const Manager* m = replicas_[replica]->manager();
    const std::uint64_t hint = m ? m->replica().leader_hint() : paxos::kNoReplica;
    for (const VipConfigDone& v : a.vip_done) {
        Delivery d;
        d.kind = Kind::VipAnswer;
        d.from = replica;
        d.token = hint;
        d.vip = v;
        post(now() + config_.control_latency, std::move(d));
    }
    for (const SnatDone& s : a.snat_done) {
        if (s.outcome == Outcome::Done) continue;  // the grant itself was the answer
        Delivery d;
        d.kind = Kind::SnatAnswer;
        d.from = replica;
        d.token = hint;
        d.snat = s;
        post(now() + config_.control_latency, std::move(d));
    }
    for (const IsolationDone& i : a.isolation_done) {
        if (i.vip != 0) {
            isolations_.push_back(i);
        } else {
            ++reports_ignored_;  // the overload a withdrawal in progress (or just done) deals with
        }
    }
}

void ControlPlane::leadership(std::uint32_t replica, const paxos::LeadershipAction& l) {
    leader_log_.push_back(LeadershipRecord{now(), replica, l.leader, epoch_of(l.ballot)});
}

bool ControlPlane::apply_mux(std::uint32_t target, std::uint32_t from, const MuxCommand& c,
                             std::optional<CommandRejected>& rejected) {
    MuxNode& m = *muxes_[target];
    if (m.failed()) return false;  // a failed Mux neither applies nor acknowledges
    const std::size_t before = m.rejections().size();
    if (const auto* h = std::get_if<SetDipHealth>(&c)) {
        m.apply_health(*h);  // recorded with the Mux's health changes
    } else {
        m.command(c);
    }
    if (m.rejections().size() > before) {
        rejected = m.rejections().back().what;
        ++mux_rejected_;
        ++rejected_by_issuer_[from];
    } else {
        ++mux_applied_;
        if (const auto* w = std::get_if<WithdrawVip>(&c); w && w->withdrawn) withdrawals_[target].push_back(w->vip);
        if (const auto* e = std::get_if<SetEndpoint>(&c))
            endpoints_applied_.push_back(EndpointApplied{now(), target, from, e->endpoint.vip});
    }
    return true;
}

bool ControlPlane::apply_host(std::uint32_t target, std::uint32_t from, const HostCommand& c,
                              std::optional<CommandRejected>& rejected) {
    HostNode& h = *hosts_[target];
    const std::uint64_t before = h.rejections();
    // A grant answers the DIP's request before the Host Agent applies it: the packets it releases may ask again.
    const auto* g = std::get_if<SnatGrant>(&c);
    bool answered = false;
    std::size_t record = 0;
    if (g != nullptr) {
        HostRequest& q = requests_[dip_slot(g->dip)];
        record = q.record;
        if (q.open && q.request.vip == g->vip) {
            q.open = false;
            answered = true;
            retry_.cancel(dip_slot(g->dip));
        }
    }
    h.command(c);
    if (h.rejections() > before) {
        rejected = CommandRejected{command_epoch(c), h.agent().epoch()};
        ++host_rejected_;
        ++rejected_by_issuer_[from];
        if (answered) {  // the Host Agent still waits: so does its request
            requests_[dip_slot(g->dip)].open = true;
            retry_.arm_at(dip_slot(g->dip), now() + config_.request_timeout);
        }
    } else {
        ++host_applied_;
        const Epoch e = command_epoch(c);
        if (e > host_epoch_[target]) {
            host_epoch_[target] = e;
            host_primary_[target] = from;
        }
        if (g != nullptr) {
            const GrantRecord rec{now(), g->dip, g->vip, g->first, g->count};
            check_grant(rec);
            grant_log_.push_back(rec);
            if (returned_ranges_.contains({g->vip, g->first})) ++reused_ranges_;
            held_.push_back(Held{target, *g, now()});
            // Its deadline is the latest of all: a check already due earlier comes first.
            if (!idle_timer_.armed()) idle_timer_.arm_at(now() + shared_.config.params.snat.idle_return);
            if (answered) {
                snat_records_[record].granted = now();
                snat_records_[record].ranges = 1;
            } else if (record < snat_records_.size() && snat_records_[record].dip == g->dip &&
                       snat_records_[record].granted == now()) {
                ++snat_records_[record].ranges;  // the other ranges of the same grant
            }
        }
    }
    return true;
}

void ControlPlane::check_grant(const GrantRecord& g) {
    for (std::uint32_t i = 0; i < g.count; ++i) {
        const auto port = static_cast<std::uint16_t>(g.first + i);
        auto [it, fresh] = port_owner_.emplace(std::make_pair(g.vip, port), g.dip);
        if (!fresh && it->second != g.dip && violations_.size() < 16)
            violations_.push_back(fmt::format("at {}: {}:{} granted to {} while {} holds it", to_string(g.at),
                                              format_ip(g.vip), port, format_ip(g.dip), format_ip(it->second)));
        for (std::size_t m = 0; m < muxes_.size(); ++m) {
            if (muxes_[m]->failed()) continue;
            // Not yet mapped is allowed (pre-allocated ranges reach the Host Agents while the Muxes are still
            // being programmed); mapped to another DIP never is.
            for (const IpProto proto : {IpProto::Tcp, IpProto::Udp}) {
                const FlowTarget* t = muxes_[m]->mux().snat_target(g.vip, proto, port);
                if (t != nullptr && t->dip != g.dip && violations_.size() < 16)
                    violations_.push_back(fmt::format("at {}: {}:{} granted to {} but mux{} maps it to {}",
                                                      to_string(g.at), format_ip(g.vip), port, format_ip(g.dip), m,
                                                      format_ip(t->dip)));
            }
        }
    }
}

// ---- idle SNAT ranges ----

// When a held range was last used: its grant, or the Host Agent's last packet through it if later.
Time ControlPlane::last_use(const Held& h) const {
    const Time granted = h.since;
    const auto used = hosts_[h.host]->agent().snat_last_use(h.grant);
    return used ? std::max(granted, *used) : granted;
}

// The next time a held range may have been idle for snat.idle_return (its last use only moves later).
void ControlPlane::arm_idle_check() {
    const Time idle = shared_.config.params.snat.idle_return;
    std::optional<Time> next;
    for (const Held& h : held_) {
        const Time last = last_use(h);
        if (!next || last + idle < *next) next = last + idle;
    }
    if (!next) return idle_timer_.cancel();
    const Time at = std::max(*next, now());
    if (!idle_timer_.armed() || idle_timer_.expiry() != at) idle_timer_.arm_at(at);
}

void ControlPlane::on_idle_check() {
    const Time idle = shared_.config.params.snat.idle_return;
    std::vector<Held> keep;
    for (const Held& h : held_) {
        const Time last = last_use(h);
        if (last + idle > now() || !hosts_[h.host]->return_snat(h.grant)) {
            keep.push_back(h);
            continue;
        }
        // The Host Agent no longer uses the ports; the Muxes map them to it until the manager removes them.
        for (std::uint32_t i = 0; i < h.grant.count; ++i)
            port_owner_.erase({h.grant.vip, static_cast<std::uint16_t>(h.grant.first + i)});
        returns_.push_back(ReturnRecord{now(), h.host, h.grant.dip, h.grant.vip, h.grant.first, h.grant.count, last});
        returned_ranges_.emplace(h.grant.vip, h.grant.first);
        to_manager(host_primary_[h.host], SnatReturn{host_addrs_[h.host], h.grant}, now() + config_.control_latency);
    }
    held_ = std::move(keep);
    arm_idle_check();
}

// ---- SNAT requests ----

void ControlPlane::snat_request(std::uint32_t host, const SnatRequest& request) {
    const std::uint32_t slot = dip_slot(request.dip);
    HostRequest& q = requests_[slot];
    if (q.open) {
        ++duplicate_requests_;  // a Host Agent keeps one request per DIP: never expected
        return;
    }
    q.open = true;
    q.host = host;
    q.request = request;
    q.replica = host_primary_[host];
    q.record = snat_records_.size();
    snat_records_.push_back(SnatRecord{host, request.dip, now(), kNever, 0, 0});
    ask_snat(slot);
}

void ControlPlane::ask_snat(std::uint32_t slot) {
    HostRequest& q = requests_[slot];
    ++snat_records_[q.record].attempts;
    to_manager(q.replica, SnatAsk{host_addrs_[q.host], q.request}, now() + config_.control_latency);
    retry_.arm_at(slot, now() + config_.request_timeout);
}

std::uint32_t ControlPlane::hint_or_next(std::uint32_t r) const { return next_replica(r); }

void ControlPlane::snat_answer(const Delivery& d) {
    const std::uint32_t slot = dip_slot(d.snat.dip);
    HostRequest& q = requests_[slot];
    if (!q.open || d.snat.outcome == Outcome::Dropped) return;
    if (d.snat.outcome == Outcome::Refused) {
        ++snat_refused_;
    } else {  // not primary (or deposed while working on it): the replica's hint, else wait and try the next
        ++snat_not_primary_;
        const auto hint = static_cast<std::uint32_t>(d.token);
        q.replica = hint < replicas_.size() && hint != d.from ? hint : next_replica(d.from);
        host_primary_[q.host] = q.replica;
        if (hint < replicas_.size() && hint != d.from) return ask_snat(slot);
    }
    // Back off, then ask (the retry timer asks q.replica without moving on).
    retry_.arm_at(slot, now() + config_.snat_retry_interval);
    requests_[slot].replica = q.replica | 0x8000'0000U;  // marks a back-off rather than a timeout
}

void ControlPlane::on_retry(std::uint32_t id) {
    if (id < requests_.size()) {
        HostRequest& q = requests_[id];
        if (!q.open) return;
        if (q.replica & 0x8000'0000U) {
            q.replica &= 0x7fff'ffffU;
        } else {
            ++snat_timeouts_;
            q.replica = next_replica(q.replica);
            host_primary_[q.host] = q.replica;
        }
        return ask_snat(id);
    }
    const auto op = static_cast<std::uint32_t>(id - requests_.size());
    Operation& o = ops_[op];
    if (!o.open) return;
    if (o.replica & 0x8000'0000U) {
        o.replica &= 0x7fff'ffffU;
    } else {
        ++vip_timeouts_;
        o.replica = next_replica(o.replica);
    }
    ask_vip(op);
}

// ---- operator VIP configuration ----

void ControlPlane::configure_vip(std::size_t vip, const std::vector<WeightedDip>* dips, std::int64_t replica) {
    if (dips) vip_dips_[vip] = *dips;
    Operation op;
    op.vip = vip;
    op.config = vip_config(vip, vip_dips_[vip]);
    op.replica = replica >= 0 ? static_cast<std::uint32_t>(replica) : operator_primary_;
    op.record = ops_records_.size();
    op.open = true;
    ops_records_.push_back(VipConfigRecord{vip, false, now(), kNever, Outcome::Aborted, 0, 0, Time::zero()});
    ops_.push_back(std::move(op));
    ask_vip(static_cast<std::uint32_t>(ops_.size() - 1));
}

void ControlPlane::ask_vip(std::uint32_t op) {
    Operation& o = ops_[op];
    ++ops_records_[o.record].attempts;
    to_manager(o.replica, VipConfigRequest{op + 1, o.config}, now() + config_.control_latency);
    retry_.arm_at(static_cast<std::uint32_t>(requests_.size()) + op, now() + config_.request_timeout);
}

void ControlPlane::vip_answer(const Delivery& d) {
    if (d.vip.request == 0 || d.vip.request > ops_.size()) return;
    const auto op = static_cast<std::uint32_t>(d.vip.request - 1);
    Operation& o = ops_[op];
    if (!o.open || (o.replica & 0x7fff'ffffU) != d.from) return;
    const auto id = static_cast<std::uint32_t>(requests_.size()) + op;
    if (d.vip.outcome == Outcome::Done || d.vip.outcome == Outcome::Invalid || d.vip.outcome == Outcome::Refused) {
        o.open = false;
        retry_.cancel(id);
        VipConfigRecord& r = ops_records_[o.record];
        r.done = now();
        r.outcome = d.vip.outcome;
        r.replica = d.from;
        r.manager_latency = d.vip.done - d.vip.requested;
        if (d.vip.outcome == Outcome::Done) operator_primary_ = d.from;
        return;
    }
    const auto hint = static_cast<std::uint32_t>(d.token);
    if (hint < replicas_.size() && hint != d.from) {
        o.replica = hint;
        operator_primary_ = hint;
        return ask_vip(op);
    }
    o.replica = next_replica(d.from) | 0x8000'0000U;
    retry_.arm_at(id, now() + config_.snat_retry_interval);
}

// ---- overload ----

void ControlPlane::mux_booted(std::uint32_t mux) {
    for (std::uint32_t r = 0; r < replicas_.size(); ++r)
        to_manager(r, PeerAlive{mux_addrs_[mux], true}, now() + config_.control_latency);
}

void ControlPlane::overload(std::uint32_t mux, const OverloadReport& report) {
    ++overload_reports_;
    if (!config_.overload_isolation) return;
    for (std::uint32_t r = 0; r < replicas_.size(); ++r)
        to_manager(r, MuxOverload{mux_addrs_[mux], report}, now() + config_.control_latency);
}

// ---- scenario actions ----

void ControlPlane::crash(std::size_t r) {
    if (replicas_[r]->frozen()) frozen_log_.push_back(FrozenRecord{now(), static_cast<std::uint32_t>(r), false});
    replicas_[r]->crash();
}
void ControlPlane::recover(std::size_t r) { replicas_[r]->recover(); }
void ControlPlane::freeze(std::size_t r) {
    if (!replicas_[r]->up() || replicas_[r]->frozen()) return;
    replicas_[r]->freeze();
    frozen_log_.push_back(FrozenRecord{now(), static_cast<std::uint32_t>(r), true});
}
void ControlPlane::thaw(std::size_t r) {
    if (!replicas_[r]->frozen()) return;
    frozen_log_.push_back(FrozenRecord{now(), static_cast<std::uint32_t>(r), false});
    replicas_[r]->thaw();
}

void ControlPlane::health_report(IpAddr dip, IpAddr host, bool healthy) {
    for (std::uint32_t r = 0; r < replicas_.size(); ++r)
        to_manager(r, HealthReport{host, dip, healthy}, now() + config_.control_latency);
}

bool ControlPlane::covers(const net::Partition& part) const {
    for (ManagerNode* m : replicas_)
        for (const auto& o : m->outs())
            if (o && part.covers(o->engine().path())) return true;
    return false;
}

bool ControlPlane::set_links(const net::Partition& part, bool down) {
    bool any = false;
    for (ManagerNode* m : replicas_)
        for (auto& o : m->outs())
            if (o && part.covers(o->engine().path())) {
                o->engine().set_down(down);
                any = true;
            }
    return any;
}

// ---- report ----

stats::Json ControlPlane::summary(Time end) const {
    stats::Json s;
    // Primaries: who led when, and how long the system had none (from the first primary on). Two clocks for the
    // split brain: replicas believing they lead (a frozen one included: it believes but cannot act), and
    // replicas believing they lead while running (able to issue commands).
    std::vector<Epoch> leading(replicas_.size(), 0);
    std::vector<bool> frozen(replicas_.size(), false);
    std::int64_t without = 0, stale = 0, acting = 0;
    Time last = Time::zero(), first_primary = kNever;
    std::uint64_t gained = 0;
    auto account = [&](Time upto) {
        Epoch top = 0;
        std::size_t holders = 0, running = 0;
        for (std::size_t r = 0; r < leading.size(); ++r) {
            top = std::max(top, leading[r]);
            holders += leading[r] != 0 ? 1 : 0;
            running += leading[r] != 0 && !frozen[r] ? 1 : 0;
        }
        if (first_primary != kNever && top == 0) without += (upto - last).count();
        if (holders > 1) stale += (upto - last).count();
        if (running > 1) acting += (upto - last).count();
        last = upto;
    };
    std::size_t f = 0;
    for (const LeadershipRecord& l : leader_log_) {
        for (; f < frozen_log_.size() && frozen_log_[f].at <= l.at; ++f) {
            account(frozen_log_[f].at);
            frozen[frozen_log_[f].replica] = frozen_log_[f].frozen;
        }
        account(l.at);
        leading[l.replica] = l.leader ? l.epoch : 0;
        if (l.leader) {
            ++gained;
            if (first_primary == kNever) first_primary = l.at;
        }
    }
    for (; f < frozen_log_.size() && frozen_log_[f].at <= end; ++f) {
        account(frozen_log_[f].at);
        frozen[frozen_log_[f].replica] = frozen_log_[f].frozen;
    }
    account(end);
    stats::Json reps = stats::Json::object();
    std::uint64_t rejections = 0, fences = 0, lost = 0, reclaimed = 0;
    for (const ManagerNode* m : replicas_) {
        const ManagerCounters c = m->counters();
        reclaimed += c.snat_reclaimed;
        rejections += c.rejections;
        fences += c.fence_writes;
        lost += m->lost_inputs();
        const Manager* mg = m->manager();
        reps[fmt::format("manager{}", m->replica())] = {
            {"up", m->up()}, {"frozen", m->frozen()},
            {"believes_primary", mg != nullptr && mg->is_primary(end)},
            {"epoch", mg ? mg->epoch() : 0}, {"commit_index", mg ? mg->replica().commit_index() : 0},
            {"rejections", c.rejections}, {"fence_writes", c.fence_writes}, {"not_primary", c.not_primary},
            {"snat_dropped", c.snat_dropped}, {"inputs_lost", m->lost_inputs()},
            {"commands_rejected_at_peers", rejected_by_issuer_[m->replica()]}};
    }
    s["replicas"] = reps;
    std::uint64_t link_sent = 0, link_dropped = 0;
    for (ManagerNode* m : replicas_)
        for (const auto& o : m->outs())
            if (o) {
                link_sent += o->engine().sent();
                link_dropped += o->engine().drops().total();
            }
    s["paxos_links"] = {{"packets_sent", link_sent}, {"packets_dropped", link_dropped}};
    std::uint64_t cmd_sent = 0, cmd_dropped = 0, ack_sent = 0, received = 0, malformed = 0, incomplete = 0;
    for (ManagerNode* m : replicas_)
        for (const auto& o : m->command_outs()) {
            cmd_sent += o->engine().sent();
            cmd_dropped += o->engine().drops().total();
        }
    for (ControlAgent* a : agents_) {
        received += a->packets_received();
        malformed += a->malformed();
        incomplete += a->incomplete();
        for (const auto& o : a->outs()) ack_sent += o->engine().sent();
    }
    s["command_links"] = {{"command_packets_sent", cmd_sent}, {"command_packets_dropped", cmd_dropped},
                          {"command_packets_received", received}, {"malformed", malformed},
                          {"incomplete_commands", incomplete}, {"ack_packets_sent", ack_sent}};
    s["primary"] = {{"elections_won", gained}, {"first_primary_ps", first_primary == kNever ? -1 : first_primary.count()},
                    {"time_without_primary_ps", without}, {"time_with_two_believing_primaries_ps", stale},
                    {"time_with_two_acting_primaries_ps", acting}};

    std::vector<std::int64_t> vip_lat, vip_mgr;
    std::uint64_t vip_done = 0, vip_pending = 0, vip_invalid = 0;
    stats::Json ops = stats::Json::array();
    for (const VipConfigRecord& r : ops_records_) {
        if (r.initial) continue;
        if (r.done == kNever) {
            ++vip_pending;
        } else if (r.outcome == Outcome::Done) {
            ++vip_done;
            vip_lat.push_back((r.done - r.requested).count());
            vip_mgr.push_back(r.manager_latency.count());
        } else {
            ++vip_invalid;
        }
        ops.push_back({{"vip", shared_.config.vips[r.vip].name}, {"requested_ps", r.requested.count()},
                       {"latency_ps", r.done == kNever ? -1 : (r.done - r.requested).count()},
                       {"outcome", r.done == kNever ? "pending" : outcome_name(r.outcome)},
                       {"attempts", r.attempts}, {"replica", r.replica}});
    }
    std::uint64_t initial_done = 0;
    Time initial_last = Time::zero();
    for (const VipConfigRecord& r : ops_records_)
        if (r.initial && r.done != kNever) {
            ++initial_done;
            initial_last = std::max(initial_last, r.done);
        }
    s["vip_configuration"] = {{"requested", vip_lat.size() + vip_pending + vip_invalid}, {"done", vip_done},
                              {"not_done", vip_pending}, {"invalid", vip_invalid},
                              {"latency_ps", cp_distribution(vip_lat)}, {"manager_latency_ps", cp_distribution(vip_mgr)},
                              {"operations", ops}, {"initial_done", initial_done},
                              {"initial_done_at_ps", initial_last.count()}, {"timeouts", vip_timeouts_}};

    std::vector<std::int64_t> snat_lat;
    std::uint64_t granted = 0, waiting = 0, multi = 0, ranges = 0;
    for (const SnatRecord& r : snat_records_) {
        if (r.granted == kNever) {
            ++waiting;
            continue;
        }
        ++granted;
        ranges += r.ranges;
        if (r.ranges > 1) ++multi;
        snat_lat.push_back((r.granted - r.requested).count());
    }
    std::uint64_t ports = 0;
    for (const GrantRecord& g : grant_log_) ports += g.count;
    // By source VIP (a DIP's requests count for the SNAT VIP it belongs to): the fairness study's table.
    std::map<IpAddr, std::size_t> vip_of_dip;
    for (std::size_t v = 0; v < vip_dips_.size(); ++v)
        if (snat_vip_[v])
            for (const WeightedDip& d : vip_dips_[v]) vip_of_dip.emplace(d.dip, v);
    std::map<std::size_t, std::vector<std::int64_t>> lat_by_vip;
    std::map<std::size_t, std::uint64_t> waiting_by_vip;
    for (const SnatRecord& r : snat_records_) {
        auto it = vip_of_dip.find(r.dip);
        if (it == vip_of_dip.end()) continue;
        if (r.granted == kNever) {
            ++waiting_by_vip[it->second];
        } else {
            lat_by_vip[it->second].push_back((r.granted - r.requested).count());
        }
    }
    stats::Json by_vip = stats::Json::object();
    for (std::size_t v = 0; v < vip_dips_.size(); ++v)
        if (snat_vip_[v] && config_.snat)
            by_vip[shared_.config.vips[v].name] = {{"latency_ps", cp_distribution(lat_by_vip[v])},
                                                   {"waiting", waiting_by_vip[v]}};
    s["snat"] = {{"requests", snat_records_.size()}, {"granted", granted}, {"waiting", waiting},
                 {"ranges_on_request", ranges}, {"multi_range_grants", multi}, {"ranges_installed", grant_log_.size()},
                 {"ports_installed", ports}, {"latency_ps", cp_distribution(snat_lat)}, {"refused", snat_refused_},
                 {"not_primary", snat_not_primary_}, {"timeouts", snat_timeouts_},
                 {"duplicate_requests", duplicate_requests_}, {"invariant_violations", violations_.size()},
                 {"violations", violations_}, {"by_vip", by_vip}, {"ranges_held", held_.size()},
                 {"ranges_returned", returns_.size()}, {"ranges_reclaimed", reclaimed},
                 {"ranges_reused", reused_ranges_}};
    stats::Json iso = stats::Json::array();
    for (const IsolationDone& i : isolations_)
        iso.push_back({{"vip", i.vip ? format_ip(i.vip) : ""}, {"mux", format_ip(i.mux)},
                       {"overload_start_ps", i.overload_start.count()}, {"reported_ps", i.reported.count()},
                       {"withdrawn_ps", i.withdrawn.count()},
                       {"detect_ps", (i.reported - i.overload_start).count()},
                       {"withdraw_ps", (i.withdrawn - i.reported).count()},
                       {"isolate_ps", (i.withdrawn - i.overload_start).count()}});
    std::uint64_t reached = 0;
    for (const auto& w : withdrawals_) reached += w.empty() ? 0 : 1;
    s["isolation"] = {{"overload_reports", overload_reports_}, {"reports_without_action", reports_ignored_},
                      {"withdrawals", iso}, {"muxes_withdrawn", reached}};
    s["commands"] = {{"mux_applied", mux_applied_}, {"mux_rejected", mux_rejected_}, {"host_applied", host_applied_},
                     {"host_rejected", host_rejected_}, {"rejections_seen", rejections}, {"fence_writes", fences},
                     {"inputs_lost", lost}};
    return s;
}

std::string ControlPlane::text_summary(Time end) const {
    const stats::Json s = summary(end);
    std::string out;
    const auto& p = s["primary"];
    out += fmt::format("  control plane: {} replicas, {} elections won, first primary at {}, {} without a primary, "
                       "{} with two believing they lead ({} with both running, frozen time excluded)\n",
                       replicas_.size(), p["elections_won"].get<std::uint64_t>(),
                       p["first_primary_ps"].get<std::int64_t>() < 0 ? std::string("never")
                                                                      : cp_ms(p["first_primary_ps"].get<std::int64_t>()),
                       cp_ms(p["time_without_primary_ps"].get<std::int64_t>()),
                       cp_ms(p["time_with_two_believing_primaries_ps"].get<std::int64_t>()),
                       cp_ms(p["time_with_two_acting_primaries_ps"].get<std::int64_t>()));
    const auto& v = s["vip_configuration"];
    if (v["requested"].get<std::uint64_t>() > 0)
        out += fmt::format("  vip configuration: {} requested, {} done, {} not done; latency p50 {} p90 {} max {}\n",
                           v["requested"].get<std::uint64_t>(), v["done"].get<std::uint64_t>(),
                           v["not_done"].get<std::uint64_t>(), cp_ms(v["latency_ps"]["p50"].get<std::int64_t>()),
                           cp_ms(v["latency_ps"]["p90"].get<std::int64_t>()), cp_ms(v["latency_ps"]["max"].get<std::int64_t>()));
    const auto& n = s["snat"];
    if (n["requests"].get<std::uint64_t>() > 0 || n["ranges_installed"].get<std::uint64_t>() > 0)
        out += fmt::format("  snat: {} requests, {} granted ({} waiting); latency p50 {} p90 {} p99 {} max {}; "
                           "{} ranges installed, {} returned idle, {} reclaimed, {} reused, {} refused, {} timeouts\n",
                           n["requests"].get<std::uint64_t>(), n["granted"].get<std::uint64_t>(),
                           n["waiting"].get<std::uint64_t>(), cp_ms(n["latency_ps"]["p50"].get<std::int64_t>()),
                           cp_ms(n["latency_ps"]["p90"].get<std::int64_t>()), cp_ms(n["latency_ps"]["p99"].get<std::int64_t>()),
                           cp_ms(n["latency_ps"]["max"].get<std::int64_t>()), n["ranges_installed"].get<std::uint64_t>(),
                           n["ranges_returned"].get<std::uint64_t>(), n["ranges_reclaimed"].get<std::uint64_t>(),
                           n["ranges_reused"].get<std::uint64_t>(), n["refused"].get<std::uint64_t>(),
                           n["timeouts"].get<std::uint64_t>());
    for (const auto& i : s["isolation"]["withdrawals"])
        out += fmt::format("  isolation: vip {} withdrawn from {} Muxes; detected {} after overload began, "
                           "withdrawn {} after the report\n",
                           i["vip"].get<std::string>(), s["isolation"]["muxes_withdrawn"].get<std::uint64_t>(),
                           cp_ms(i["detect_ps"].get<std::int64_t>()), cp_ms(i["withdraw_ps"].get<std::int64_t>()));
    const auto& c = s["commands"];
    out += fmt::format("  commands: {} applied and {} rejected on Muxes, {} and {} on Host Agents; {} fence writes; "
                       "{} command packets, {} ack packets\n",
                       c["mux_applied"].get<std::uint64_t>(), c["mux_rejected"].get<std::uint64_t>(),
                       c["host_applied"].get<std::uint64_t>(), c["host_rejected"].get<std::uint64_t>(),
                       c["fence_writes"].get<std::uint64_t>(),
                       s["command_links"]["command_packets_sent"].get<std::uint64_t>(),
                       s["command_links"]["ack_packets_sent"].get<std::uint64_t>());
    return out;
}

}  // namespace loom::ananta
