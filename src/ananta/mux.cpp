#include "loom/ananta/mux.hpp"

#include <algorithm>

#include "loom/base/assert.hpp"

namespace loom::ananta {

namespace {

FlowTableLimits flow_limits(const MuxConfig& c) {
    return FlowTableLimits{c.untrusted_quota, c.trusted_quota, c.untrusted_idle_timeout, c.trusted_idle_timeout};
}

CoreLimits core_limits(const MuxConfig& c) {
    return CoreLimits{c.cores, c.core_pps, c.core_bandwidth, c.core_queue_packets};
}

// Packets all cores can serve in one fair-drop window.
std::int64_t window_capacity(const MuxConfig& c) {
    __extension__ using I128 = __int128;
    return static_cast<std::int64_t>(static_cast<I128>(c.cores) * c.core_pps * c.fair_window.count() /
                                     1'000'000'000'000);
}

}  // namespace

Mux::Mux(const MuxConfig& config, IpAddr self)
    : self_(self),
      mtu_(static_cast<std::uint32_t>(config.mtu)),
      seed_(static_cast<std::uint64_t>(config.hash_seed)),
      hash_base_(tuple_hash_base(seed_)),
      talkers_(config.overload_window, static_cast<std::size_t>(config.top_talkers),
               static_cast<std::uint64_t>(config.overload_drop_threshold)),
      tenant_weights_{1},
      fair_(FairDropLimits{config.fair_window, window_capacity(config)}, tenant_weights_),
      cores_(core_limits(config)),
      flows_(flow_limits(config)),
      config_(config),
      hash_(make_mux_hash(config.hash, static_cast<std::uint32_t>(config.maglev_table_size))) {}

void Mux::rebuild_fair() {
    fair_ = FairDropper(FairDropLimits{config_.fair_window, window_capacity(config_)}, tenant_weights_);
}

void Mux::handle(const MuxCommand& command, Time now, MuxOutput& out) {
    (void)now;
    const Epoch e = std::visit([](const auto& c) { return c.epoch; }, command);
    if (!epochs_.accept(e)) {
        ++counters_.commands_rejected;
        out.rejected.push_back(CommandRejected{e, epochs_.highest()});
        return;
    }
    ++counters_.commands_accepted;
    std::visit([this](const auto& c) { apply(c); }, command);
}

void Mux::apply(const SetEndpoint& c) {
    LOOM_ASSERT(!c.dips.empty(), "SetEndpoint with an empty DIP list (use RemoveEndpoint)");
    EndpointState& s = endpoints_[c.endpoint];
    endpoint_index_.set(snat_key(c.endpoint.vip, c.endpoint.proto, c.endpoint.port), &s);
    s.dips = c.dips;
    build_table(s);
    s.tenant = c.tenant;
    if (c.tenant >= tenant_weights_.size()) {
        tenant_weights_.resize(c.tenant + 1, 1);
        rebuild_fair();
    }
}

void Mux::build_table(EndpointState& s) const {
    std::vector<WeightedDip> healthy;
    std::vector<std::uint32_t> index;
    for (std::size_t i = 0; i < s.dips.size(); ++i) {
        if (unhealthy_.contains(s.dips[i].dip)) continue;
        healthy.push_back(s.dips[i]);
        index.push_back(static_cast<std::uint32_t>(i));
    }
    s.table.clear();
    if (healthy.empty()) return;
    s.table = hash_->build(healthy);
    for (std::uint32_t& e : s.table) e = index[e];
}

void Mux::apply(const SetDipHealth& c) {
    const bool changed = c.healthy ? unhealthy_.erase(c.dip) > 0 : unhealthy_.insert(c.dip).second;
    if (!changed) return;
    for (auto& [endpoint, s] : endpoints_)
        if (std::any_of(s.dips.begin(), s.dips.end(), [&](const WeightedDip& d) { return d.dip == c.dip; }))
            build_table(s);
}

const FlowTarget* Mux::snat_target(IpAddr vip, IpProto proto, std::uint16_t port) const {
    const SnatEntry* e = snat_.find(snat_key(vip, proto, port));
    return e == nullptr ? nullptr : &e->target;
}

void Mux::apply(const RemoveEndpoint& c) {
    endpoint_index_.erase(snat_key(c.endpoint.vip, c.endpoint.proto, c.endpoint.port));
    endpoints_.erase(c.endpoint);
}

void Mux::apply(const WithdrawVip& c) {
    if (c.withdrawn) {
        withdrawn_.insert(c.vip);
    } else {
        withdrawn_.erase(c.vip);
    }
}

void Mux::apply(const SetSnatRange& c) {
    for (std::uint32_t i = 0; i < c.count; ++i) {
        const std::uint64_t key = snat_key(c.vip, c.proto, static_cast<std::uint16_t>(c.first_port + i));
        if (c.remove) {
            snat_.erase(key);
        } else {
            snat_.set(key, SnatEntry{c.target, c.tenant});
        }
    }
    if (!c.remove && c.tenant >= tenant_weights_.size()) {
        tenant_weights_.resize(c.tenant + 1, 1);
        rebuild_fair();
    }
}

void Mux::apply(const SetTenantWeight& c) {
    LOOM_ASSERT(c.weight > 0, "tenant weights must be positive");
    if (c.tenant >= tenant_weights_.size()) tenant_weights_.resize(c.tenant + 1, 1);
    tenant_weights_[c.tenant] = c.weight;
    rebuild_fair();
}

const WeightedDip* Mux::pick(const FiveTuple& tuple) const {
    const EndpointState* e = endpoint(tuple.dst, tuple.proto, tuple.dst_port);
    if (e == nullptr) return nullptr;
    const EndpointState& s = *e;
    if (s.table.empty()) return nullptr;
    const std::uint64_t h = tuple_hash_from(tuple, hash_base_);
    return &s.dips[s.table[static_cast<std::size_t>(h % s.table.size())]];
}

void Mux::drop(const IpPacket& p, DropReason r, MuxOutput& out) {
    ++counters_.drops[static_cast<std::size_t>(r)];
    out.drops.push_back(MuxDrop{p, r});
}

CoreDecision Mux::offer_local(const IpPacket& packet, Time now) {
    return cores_.offer(tuple_hash_from(packet.inner, hash_base_), packet.size_bytes, now);
}

void Mux::tick(Time now, MuxOutput& out) {
    if (auto r = talkers_.poll(now)) out.reports.push_back(std::move(*r));
    flows_.expire(now);
}

void Mux::handle(const IpPacket& packet, Time now, MuxOutput& out) {
    ++counters_.received;
    const FiveTuple& t = packet.inner;
    if (auto r = talkers_.record_packet(t.dst, now)) out.reports.push_back(std::move(*r));
    if (withdrawn_.contains(t.dst)) return drop(packet, DropReason::BlackHoled, out);

    const EndpointState* ep = nullptr;
    const SnatEntry* snat = nullptr;
    if (const EndpointState* found = endpoint(t.dst, t.proto, t.dst_port); found != nullptr) {
        ep = found;
    } else if (const SnatEntry* e = snat_.find(snat_key(t.dst, t.proto, t.dst_port)); e != nullptr) {
        snat = e;
    } else {
        return drop(packet, DropReason::NoRoute, out);
    }

    const std::uint32_t tenant = ep != nullptr ? ep->tenant : snat->tenant;
    if (!fair_.admit(tenant, now)) {
        // A fair-share drop is an overload drop too (the Mux sheds load it has no capacity for): it raises the
        // overload signal that reports the top talkers.
        if (auto r = talkers_.record_overload_drop(now)) out.reports.push_back(std::move(*r));
        return drop(packet, DropReason::FairShare, out);
    }

    const std::uint64_t h = tuple_hash_from(t, hash_base_);
    const CoreDecision core = cores_.offer(h, packet.size_bytes, now);
    if (!core.accepted) {
        if (auto r = talkers_.record_overload_drop(now)) out.reports.push_back(std::move(*r));
        return drop(packet, DropReason::MuxOverload, out);
    }

    MuxForward f;
    f.depart = core.departure;
    f.core = core.core;
    if (snat != nullptr) {
        f.target = snat->target;
        f.stateless = true;
        ++counters_.snat_returns;
    } else {
        std::optional<FlowTarget> hit;
        if (!packet.is_syn()) hit = flows_.lookup(t, now);
        if (hit) {
            f.target = *hit;
            ++counters_.flow_hits;
        } else {
            if (ep->table.empty()) return drop(packet, DropReason::NoRoute, out);  // no healthy DIP
            const WeightedDip& d = ep->dips[ep->table[static_cast<std::size_t>(h % ep->table.size())]];
            f.target = FlowTarget{d.dip, d.port, d.host};
            ++counters_.new_connections;
            if (!flows_.insert(t, f.target, now)) {
                f.stateless = true;
                ++counters_.stateless_fallbacks;
            }
        }
    }
    f.packet = packet;
    f.packet.encapsulate(self_, f.target.dip);
    if (check_mtu(f.packet, mtu_) != MtuVerdict::Fits)
        return drop(f.packet, DropReason::Mtu, out);
    ++counters_.forwarded;
    out.forwards.push_back(f);
}

config::Schema<MuxConfig> mux_schema() {
    using C = MuxConfig;
    config::Schema<C> s("Ananta Mux: capacity per core, flow table, overload handling; identical on every Mux.");
    s.field("cores", &C::cores, "Cores serving packets (not published: 8).").range(1, 1024);
    s.field("core_pps", &C::core_pps, "Packets per second one core serves (published: about 220 Kpps).")
        .range(1, std::int64_t{1} << 40);
    s.field("core_bandwidth", &C::core_bandwidth, "Bits per second one core serves (published: about 800 Mbps).")
        .at_least(Bandwidth::bps(1));
    s.field("core_queue_packets", &C::core_queue_packets,
            "Waiting room per core in packets; an arrival that finds it full is a Mux-overload drop (not "
            "published: 512).")
        .range(0, 1 << 24);
    s.field("untrusted_quota", &C::untrusted_quota,
            "Flow-table entries of connections that have sent one packet (not published: 100000).")
        .range(0, std::int64_t{1} << 32);
    s.field("trusted_quota", &C::trusted_quota,
            "Flow-table entries of connections that have sent more than one packet (not published: 1000000).")
        .range(0, std::int64_t{1} << 32);
    s.field("untrusted_idle_timeout", &C::untrusted_idle_timeout, "Idle timeout of untrusted entries (not published).")
        .at_least(Time::ps(1));
    s.field("trusted_idle_timeout", &C::trusted_idle_timeout, "Idle timeout of trusted entries (not published).")
        .at_least(Time::ps(1));
    s.field("fair_window", &C::fair_window,
            "Window of per-tenant weighted fair dropping: last window's demand sets this window's shares.")
        .at_least(Time::ps(1));
    s.field("overload_window", &C::overload_window, "Window of top-talker counts and the overload signal.")
        .at_least(Time::ps(1));
    s.field("overload_drop_threshold", &C::overload_drop_threshold,
            "Overload drops in one window that make the Mux report its top talkers.")
        .range(1, std::int64_t{1} << 40);
    s.field("top_talkers", &C::top_talkers, "VIPs named in an overload report.").range(1, 1 << 16);
    s.field("mtu", &C::mtu, "Largest packet the Mux sends, after IP-in-IP (+20 bytes); larger ones are dropped.")
        .range(68, 65535);
    s.choice("hash", &C::hash, {{"ananta", MuxHashKind::Ananta}, {"maglev", MuxHashKind::Maglev}},
             "DIP selection: ananta (hash over the weight-expanded DIP list) or maglev (Maglev lookup table).");
    s.field("maglev_table_size", &C::maglev_table_size,
            "Entries of the Maglev table, a prime (published default 65537); used when hash is maglev.")
        .range(2, 1 << 24);
    s.field("hash_seed", &C::hash_seed, "Seed of the connection hash, the same on every Mux.").at_least(0);
    s.check("maglev_table_size", [](const C& c) -> std::optional<std::string> {
        if (!is_prime(static_cast<std::uint64_t>(c.maglev_table_size))) return "expected a prime table size";
        return std::nullopt;
    });
    return s;
}

}  // namespace loom::ananta
