#include "loom/ananta/manager.hpp"

#include <algorithm>

#include "loom/base/assert.hpp"

namespace loom::ananta {

namespace {

void put32(std::uint8_t* p, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
std::uint32_t get32(const std::uint8_t* p) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t{p[i]} << (8 * i);
    return v;
}

struct Fnv {
    std::uint64_t h = 1469598103934665603ULL;
    void add(std::uint64_t v) {
        for (int i = 0; i < 8; ++i) {
            h ^= (v >> (8 * i)) & 0xff;
            h *= 1099511628211ULL;
        }
    }
};

std::uint64_t digest(const VipConfig& c) {
    Fnv f;
    f.add(c.vip);
    f.add(c.tenant);
    for (const auto& e : c.endpoints) {
        f.add(e.endpoint.vip);
        f.add(static_cast<std::uint64_t>(e.endpoint.proto));
        f.add(e.endpoint.port);
        for (const auto& d : e.dips) {
            f.add(d.dip);
            f.add(d.port);
            f.add(d.host);
            f.add(d.weight);
        }
    }
    for (const auto& s : c.snat) {
        f.add(s.dip);
        f.add(s.host);
    }
    return f.h;
}

}  // namespace

namespace {

void put16(std::uint8_t* p, std::uint16_t v) {
    p[0] = static_cast<std::uint8_t>(v);
    p[1] = static_cast<std::uint8_t>(v >> 8);
}
std::uint16_t get16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }

// Values of one VIP configuration share (vip, low 32 bits of its digest): [2..6] vip, [6..10] key.
paxos::Value vip_value(LogKind kind, std::uint8_t n, IpAddr vip, std::uint32_t key) {
    paxos::Value v;
    v.data[0] = static_cast<std::uint8_t>(kind);
    v.data[1] = n;
    put32(&v.data[2], vip);
    put32(&v.data[6], key);
    return v;
}

constexpr std::size_t kDipsPerValue = 2;   // 14 bytes each from byte 14
constexpr std::size_t kSnatPerValue = 4;   // 8 bytes each from byte 14
constexpr std::uint32_t kUnseen = 0xffff'ffffU;

}  // namespace

std::uint64_t vip_digest(const VipConfig& c) { return digest(c); }

std::vector<paxos::Value> encode_vip(const VipConfig& c) {
    const std::uint64_t d = digest(c);
    const auto key = static_cast<std::uint32_t>(d);
    std::vector<paxos::Value> out;
    // Header: the layout of a LogEntry of kind VipConfig (dip = tenant, word = digest) plus the counts.
    paxos::Value h = encode(LogEntry{LogKind::VipConfig, c.vip, c.tenant, d, {}}, 0);
    put16(&h.data[18], static_cast<std::uint16_t>(c.endpoints.size()));
    put16(&h.data[20], static_cast<std::uint16_t>(c.snat.size()));
    out.push_back(h);
    for (std::size_t e = 0; e < c.endpoints.size(); ++e) {
        const VipEndpointConfig& ep = c.endpoints[e];
        paxos::Value v = vip_value(LogKind::VipEndpoint, 0, c.vip, key);
        put16(&v.data[10], static_cast<std::uint16_t>(e));
        v.data[12] = static_cast<std::uint8_t>(ep.endpoint.proto);
        put16(&v.data[13], ep.endpoint.port);
        put32(&v.data[15], static_cast<std::uint32_t>(ep.dips.size()));
        out.push_back(v);
        for (std::size_t i = 0; i < ep.dips.size(); i += kDipsPerValue) {
            const std::size_t n = std::min(kDipsPerValue, ep.dips.size() - i);
            paxos::Value w = vip_value(LogKind::VipDips, static_cast<std::uint8_t>(n), c.vip, key);
            put16(&w.data[10], static_cast<std::uint16_t>(e));
            put16(&w.data[12], static_cast<std::uint16_t>(i));
            for (std::size_t k = 0; k < n; ++k) {
                const WeightedDip& dip = ep.dips[i + k];
                std::uint8_t* q = &w.data[14 + 14 * k];
                put32(q, dip.dip);
                put16(q + 4, dip.port);
                put32(q + 6, dip.host);
                put32(q + 10, dip.weight);
            }
            out.push_back(w);
        }
    }
    for (std::size_t i = 0; i < c.snat.size(); i += kSnatPerValue) {
        const std::size_t n = std::min(kSnatPerValue, c.snat.size() - i);
        paxos::Value w = vip_value(LogKind::VipSnat, static_cast<std::uint8_t>(n), c.vip, key);
        put16(&w.data[10], static_cast<std::uint16_t>(i));
        for (std::size_t k = 0; k < n; ++k) {
            put32(&w.data[14 + 8 * k], c.snat[i + k].dip);
            put32(&w.data[18 + 8 * k], c.snat[i + k].host);
        }
        out.push_back(w);
    }
    return out;
}

bool VipLog::complete(const Partial& p) const {
    for (std::size_t e = 0; e < p.dip_count.size(); ++e) {
        if (p.dip_count[e] == kUnseen) return false;
        for (bool b : p.dip_seen[e])
            if (!b) return false;
    }
    for (bool b : p.snat_seen)
        if (!b) return false;
    return true;
}

IpAddr VipLog::take(const paxos::Value& v) {
    if (v.is_noop()) return 0;
    const auto kind = static_cast<LogKind>(v.data[0]);
    if (kind != LogKind::VipConfig && kind != LogKind::VipEndpoint && kind != LogKind::VipDips && kind != LogKind::VipSnat)
        return 0;
    const IpAddr vip = get32(&v.data[2]);
    const std::uint32_t key = get32(&v.data[10 - 4 * (kind == LogKind::VipConfig ? 0 : 1)]);
    // (the header keeps the digest at [10..18]; the other values keep its low half at [6..10])
    const auto id = std::make_pair(vip, key);
    if (kind == LogKind::VipConfig) {
        Partial p;  // a configuration starts again at its header (a retried request writes it anew)
        p.config.vip = vip;
        p.config.tenant = get32(&v.data[6]);
        p.endpoints = get16(&v.data[18]);
        p.snat = get16(&v.data[20]);
        p.config.endpoints.resize(p.endpoints);
        p.config.snat.resize(p.snat);
        p.dip_count.assign(p.endpoints, kUnseen);
        p.dip_seen.resize(p.endpoints);
        p.snat_seen.assign(p.snat, false);
        partial_[id] = std::move(p);
    } else {
        auto it = partial_.find(id);
        if (it == partial_.end()) return 0;  // its header was not committed (another primary's leftover)
        Partial& p = it->second;
        if (kind == LogKind::VipEndpoint) {
            const std::uint16_t e = get16(&v.data[10]);
            if (e >= p.endpoints) return 0;
            const std::uint32_t n = get32(&v.data[15]);
            p.config.endpoints[e].endpoint = Endpoint{vip, static_cast<IpProto>(v.data[12]), get16(&v.data[13])};
            p.config.endpoints[e].dips.resize(n);
            p.dip_count[e] = n;
            p.dip_seen[e].assign(n, false);
        } else if (kind == LogKind::VipDips) {
            const std::uint16_t e = get16(&v.data[10]);
            const std::uint16_t first = get16(&v.data[12]);
            if (e >= p.endpoints || p.dip_count[e] == kUnseen) return 0;
            for (std::size_t k = 0; k < v.data[1] && k < kDipsPerValue && first + k < p.dip_count[e]; ++k) {
                const std::uint8_t* q = &v.data[14 + 14 * k];
                p.config.endpoints[e].dips[first + k] = WeightedDip{get32(q), get16(q + 4), get32(q + 6), get32(q + 10)};
                p.dip_seen[e][first + k] = true;
            }
        } else {
            const std::uint16_t first = get16(&v.data[10]);
            for (std::size_t k = 0; k < v.data[1] && k < kSnatPerValue && first + k < p.snat; ++k) {
                p.config.snat[first + k] = SnatDip{get32(&v.data[14 + 8 * k]), get32(&v.data[18 + 8 * k])};
                p.snat_seen[first + k] = true;
            }
        }
    }
    auto it = partial_.find(id);
    if (it == partial_.end() || !complete(it->second)) return 0;
    done_[vip] = std::move(it->second.config);
    partial_.erase(it);
    return vip;
}

paxos::Value encode(const LogEntry& e, std::uint64_t id) {
    LOOM_ASSERT(e.ranges.size() <= kMaxLogRanges, "a log value holds at most 8 SNAT ranges");
    paxos::Value v;
    v.id = id;
    v.data[0] = static_cast<std::uint8_t>(e.kind);
    v.data[1] = static_cast<std::uint8_t>(e.ranges.size());
    put32(&v.data[2], e.vip);
    put32(&v.data[6], e.dip);
    if (e.ranges.empty()) {
        put32(&v.data[10], static_cast<std::uint32_t>(e.word));
        put32(&v.data[14], static_cast<std::uint32_t>(e.word >> 32));
    }
    for (std::size_t i = 0; i < e.ranges.size(); ++i) {
        put32(&v.data[10 + 4 * i], std::uint32_t{e.ranges[i].first} | (std::uint32_t{e.ranges[i].second} << 16));
    }
    return v;
}

std::optional<LogEntry> decode(const paxos::Value& v) {
    if (v.is_noop() || v.data[0] < 1 || v.data[0] > 5 || v.data[1] > kMaxLogRanges) return std::nullopt;
    LogEntry e;
    e.kind = static_cast<LogKind>(v.data[0]);
    e.vip = get32(&v.data[2]);
    e.dip = get32(&v.data[6]);
    if (v.data[1] == 0) e.word = get32(&v.data[10]) | (std::uint64_t{get32(&v.data[14])} << 32);
    for (std::size_t i = 0; i < v.data[1]; ++i) {
        const std::uint32_t r = get32(&v.data[10 + 4 * i]);
        e.ranges.emplace_back(static_cast<std::uint16_t>(r & 0xffff), static_cast<std::uint16_t>(r >> 16));
    }
    return e;
}

Manager::Manager(const ManagerConfig& config, const SnatConfig& snat, const paxos::Config& paxos,
                 paxos::ReplicaId self, std::vector<IpAddr> muxes, std::vector<IpAddr> hosts,
                 const paxos::DurableState& durable)
    : config_(config),
      replica_(paxos, self, durable),
      self_(self),
      snat_(snat),
      stages_({config.validation_time, config.vip_configuration_time, config.snat_time, config.host_agent_time,
               config.mux_pool_time, config.health_time, config.overload_time},
              {config.vip_priority, config.snat_priority, config.health_priority, config.overload_priority},
              config.stage_priorities, config.workers),
      mux_list_(std::move(muxes)) {
    for (IpAddr m : mux_list_) muxes_[m] = Peer{};
    for (IpAddr h : hosts) hosts_[h] = Peer{};
}

bool Manager::mux_up(IpAddr mux) const {
    auto it = muxes_.find(mux);
    return it != muxes_.end() && it->second.up;
}
bool Manager::host_up(IpAddr host) const {
    auto it = hosts_.find(host);
    return it != hosts_.end() && it->second.up;
}

void Manager::start(Time now, ManagerActions& out) {
    paxos::Actions a;
    replica_.start(now, a);
    absorb(a, now, out);
}

void Manager::campaign(Time now, ManagerActions& out) {
    paxos::Actions a;
    replica_.campaign(now, a);
    absorb(a, now, out);
}

void Manager::handle(const ManagerInput& input, Time now, ManagerActions& out) {
    advance(now, out);
    std::visit(
        [&](const auto& m) {
            using M = std::decay_t<decltype(m)>;
            if constexpr (std::is_same_v<M, paxos::Message>) {
                on_paxos(m, now, out);
            } else if constexpr (std::is_same_v<M, VipConfigRequest>) {
                if (!is_primary(now)) {
                    ++counters_.not_primary;
                    out.vip_done.push_back(VipConfigDone{m.request, m.config.vip, Outcome::NotPrimary, now, now});
                    return;
                }
                const auto id = next_item_++;
                Work& w = work_[id];
                w.kind = Kind::VipConfig;
                w.cls = WorkClass::VipConfig;
                w.requested = now;
                w.vip = m.config;
                w.request = m.request;
                enqueue(ManagerStage::Validation, id, now);
            } else if constexpr (std::is_same_v<M, SnatAsk>) {
                heard(m.host, now);
                const SnatRequest& r = m.request;
                if (!is_primary(now)) {
                    ++counters_.not_primary;
                    out.snat_done.push_back(SnatDone{r.dip, r.vip, Outcome::NotPrimary, SnatRefusal::None, 0, now, now, now});
                    return;
                }
                if (!snat_.open_request(r.dip)) {
                    ++counters_.snat_dropped;
                    out.snat_done.push_back(SnatDone{r.dip, r.vip, Outcome::Dropped, SnatRefusal::None, 0, now, now, now});
                    return;
                }
                snat_.touch(r.dip, r.vip, now);
                const auto id = next_item_++;
                Work& w = work_[id];
                w.kind = Kind::Snat;
                w.cls = WorkClass::Snat;
                w.requested = now;
                w.host = m.host;
                w.dip = r.dip;
                w.target_vip = r.vip;
                enqueue(ManagerStage::SnatManagement, id, now);
            } else if constexpr (std::is_same_v<M, SnatReturn>) {
                heard(m.host, now);
                if (is_primary(now) && snat_.owner(m.grant.vip, m.grant.first) == m.grant.dip) start_release(m.grant, now);
            } else if constexpr (std::is_same_v<M, SnatInUse>) {
                snat_.touch(m.dip, m.vip, now);
            } else if constexpr (std::is_same_v<M, CommandAck>) {
                on_ack(m, now, out);
            } else if constexpr (std::is_same_v<M, HealthReport>) {
                heard(m.host, now);
                const bool was = !unhealthy_.contains(m.dip);
                if (m.healthy) unhealthy_.erase(m.dip); else unhealthy_.insert(m.dip);
                if (was == m.healthy || !is_primary(now)) return;
                const auto id = next_item_++;
                Work& w = work_[id];
                w.kind = Kind::Health;
                w.cls = WorkClass::Health;
                w.requested = now;
                w.dip = m.dip;
                enqueue(ManagerStage::Health, id, now);
            } else if constexpr (std::is_same_v<M, MuxOverload>) {
                heard(m.mux, now);
                if (!is_primary(now)) return;
                const auto id = next_item_++;
                Work& w = work_[id];
                w.kind = Kind::Overload;
                w.cls = WorkClass::Overload;
                w.requested = now;
                w.overload = m;
                enqueue(ManagerStage::Overload, id, now);
            } else if constexpr (std::is_same_v<M, PeerAlive>) {
                heard(m.from, now);
                if (!m.booted || !is_primary(now) || !muxes_.contains(m.from)) return;
                const auto id = next_item_++;  // program the rebooted Mux with everything the log holds
                Work& w = work_[id];
                w.kind = Kind::Resync;
                w.cls = WorkClass::VipConfig;
                w.requested = now;
                w.host = m.from;
                enqueue(ManagerStage::MuxPool, id, now);
            }
        },
        input);
    advance(now, out);
    housekeeping(now, out);
    advance(now, out);
    std::optional<Time> wake = stages_.next_completion();
    auto consider = [&](Time t) {
        if (t > now && (!wake || t < *wake)) wake = t;
    };
    for (const auto& [a, p] : muxes_)
        if (p.up) consider(p.last_heard + config_.mux_down_after);
    for (const auto& [a, p] : hosts_)
        if (p.up) consider(p.last_heard + config_.host_down_after);
    if (leading_)
        if (auto t = snat_.next_idle_deadline()) consider(*t);
    out.wake = wake;
}

void Manager::advance(Time now, ManagerActions& out) {
    while (auto d = stages_.pop_done(now)) {
        stage_done(d->stage, d->item, d->at, out);
        stages_.resume(d->at);
    }
}

void Manager::enqueue(ManagerStage stage, std::uint64_t item, Time at) {
    stages_.enqueue(stage, work_.at(item).cls, item, at);
}

bool Manager::propose(std::uint64_t item, const LogEntry& e, Time now, ManagerActions& out) {
    return propose_value(item, encode(e, 0), now, out);
}

bool Manager::propose_value(std::uint64_t item, paxos::Value v, Time now, ManagerActions& out) {
    // Value ids are unique across replicas: the proposer's id in the top 16 bits.
    const std::uint64_t id = (std::uint64_t{self_} + 1) << 48 | next_value_++;
    v.id = id;
    value_item_[id] = item;
    work_.at(item).proposals.insert(id);
    paxos::Actions a;
    const auto r = replica_.propose(v, now, a);
    absorb(a, now, out);
    if (r == paxos::ProposeResult::NotLeader) {
        value_item_.erase(id);
        if (auto it = work_.find(item); it != work_.end()) it->second.proposals.erase(id);
        return false;
    }
    return true;
}

void Manager::on_paxos(const paxos::Message& m, Time now, ManagerActions& out) {
    paxos::Actions a;
    replica_.handle(m, now, a);
    absorb(a, now, out);
}

void Manager::absorb(paxos::Actions& a, Time now, ManagerActions& out) {
    auto& p = out.paxos;
    p.sends.insert(p.sends.end(), a.sends.begin(), a.sends.end());
    p.timers.insert(p.timers.end(), a.timers.begin(), a.timers.end());
    p.writes.insert(p.writes.end(), a.writes.begin(), a.writes.end());
    p.commits.insert(p.commits.end(), a.commits.begin(), a.commits.end());
    p.leadership.insert(p.leadership.end(), a.leadership.begin(), a.leadership.end());
    for (const auto& l : a.leadership) {
        if (l.leader) {
            leading_ = true;
            epoch_ = epoch_of(l.ballot);
            snat_.set_epoch(epoch_);
        } else if (leading_) {
            leading_ = false;
            abort_all(now, out);
        }
    }
    for (const auto& c : a.commits) on_commit(c.value, now, out);
}

void Manager::on_commit(const paxos::Value& v, Time now, ManagerActions& out) {
    if (const IpAddr vip = vip_log_.take(v); vip != 0) vips_[vip] = vip_log_.configs().at(vip);
    const auto e = v.is_noop() || v.data[0] > static_cast<std::uint8_t>(LogKind::Withdraw)
                       ? std::nullopt : decode(v);
    auto vi = value_item_.find(v.id);
    if (!e) {  // a VIP configuration's endpoint, DIP or SNAT value
        if (vi == value_item_.end() || !work_.contains(vi->second)) return;
        const std::uint64_t item = vi->second;
        value_item_.erase(vi);
        Work& w = work_.at(item);
        w.proposals.erase(v.id);
        if (w.proposals.empty() && w.kind == Kind::VipConfig) {
            vips_[w.vip.vip] = w.vip;
            enqueue(ManagerStage::MuxPool, item, now);
        }
        return;
    }
    std::vector<SnatGrant> grants;
    for (const auto& [first, count] : e->ranges) grants.push_back(SnatGrant{epoch_, e->dip, e->vip, first, count});
    const bool mine = vi != value_item_.end() && work_.contains(vi->second);
    switch (e->kind) {
        case LogKind::VipConfig: vip_digest_[e->vip] = e->word; snat_.add_vip(e->vip); break;
        case LogKind::SnatGrant:
            for (const auto& g : grants) {
                if (mine) snat_.commit(g); else snat_.take(g, now, true);
            }
            break;
        case LogKind::SnatRelease:
            if (!mine)
                for (const auto& g : grants) snat_.release(g);
            break;
        case LogKind::Withdraw:
            if (e->word) withdrawn_.insert(e->vip); else withdrawn_.erase(e->vip);
            break;
        case LogKind::Fence:
        case LogKind::VipEndpoint:
        case LogKind::VipDips:
        case LogKind::VipSnat: break;
    }
    if (!mine) return;
    const std::uint64_t item = vi->second;
    value_item_.erase(vi);
    Work& w = work_.at(item);
    w.proposals.erase(v.id);
    if (!w.proposals.empty()) return;
    switch (w.kind) {
        case Kind::VipConfig: vips_[w.vip.vip] = w.vip; enqueue(ManagerStage::MuxPool, item, now); break;
        case Kind::Snat:
        case Kind::SnatRelease:
        case Kind::Overload: enqueue(ManagerStage::MuxPool, item, now); break;
        case Kind::Fence:
            fence_pending_ = false;
            finish(item, Outcome::Done, now, out);
            break;
        case Kind::Health:
        case Kind::Resync: break;
    }
}

std::string Manager::validate(const VipConfig& c) const {
    if (c.vip == 0) return "vip 0";
    if (c.endpoints.empty() && c.snat.empty()) return "no endpoint and no SNAT DIP";
    std::set<Endpoint> seen;
    for (const auto& e : c.endpoints) {
        if (e.endpoint.vip != c.vip) return "endpoint of another VIP";
        if (!seen.insert(e.endpoint).second) return "duplicate endpoint";
        if (e.dips.empty()) return "endpoint without DIPs";
        for (const auto& d : e.dips)
            if (d.dip == 0 || d.host == 0 || d.weight == 0) return "bad DIP";
    }
    std::set<IpAddr> dips;
    for (const auto& s : c.snat) {
        if (s.dip == 0 || s.host == 0) return "bad SNAT DIP";
        if (!dips.insert(s.dip).second) return "duplicate SNAT DIP";
    }
    return {};
}

void Manager::stage_done(ManagerStage stage, std::uint64_t item, Time at, ManagerActions& out) {
    auto it = work_.find(item);
    if (it == work_.end()) return;
    Work& w = it->second;
    switch (stage) {
        case ManagerStage::Validation:
            if (!validate(w.vip).empty()) {
                finish(item, Outcome::Invalid, at, out);
                return;
            }
            enqueue(ManagerStage::VipConfiguration, item, at);
            return;
        case ManagerStage::VipConfiguration: {
            snat_.add_vip(w.vip.vip);
            // The configuration in full, then its pre-allocated SNAT ranges.
            for (const paxos::Value& v : encode_vip(w.vip))
                if (!propose_value(item, v, at, out)) {
                    finish(item, Outcome::NotPrimary, at, out);
                    return;
                }
            std::vector<LogEntry> entries;
            for (const auto& s : w.vip.snat) {
                if (snat_.config().preallocate_ranges == 0) break;
                const auto d = snat_.decide(s.dip, w.vip.vip, at,
                                            static_cast<std::uint32_t>(snat_.config().preallocate_ranges), true);
                for (std::size_t i = 0; i < d.grants.size(); ++i) {
                    if (i % kMaxLogRanges == 0) entries.push_back(LogEntry{LogKind::SnatGrant, w.vip.vip, s.dip, 0, {}});
                    entries.back().ranges.emplace_back(d.grants[i].first, d.grants[i].count);
                    w.grants.push_back(d.grants[i]);
                }
            }
            for (const auto& e : entries)
                if (!propose(item, e, at, out)) {
                    finish(item, Outcome::NotPrimary, at, out);
                    return;
                }
            return;
        }
        case ManagerStage::SnatManagement: {
            if (w.kind == Kind::SnatRelease) {
                LogEntry e{LogKind::SnatRelease, w.grants[0].vip, w.grants[0].dip, 0, {}};
                for (const auto& g : w.grants) e.ranges.emplace_back(g.first, g.count);
                if (!propose(item, e, at, out)) finish(item, Outcome::NotPrimary, at, out);
                return;
            }
            auto d = snat_.decide(w.dip, w.target_vip, at);
            if (d.grants.empty()) {
                finish(item, Outcome::Refused, at, out, d.refusal);
                return;
            }
            w.grants = d.grants;
            LogEntry e{LogKind::SnatGrant, w.target_vip, w.dip, 0, {}};
            for (const auto& g : w.grants) e.ranges.emplace_back(g.first, g.count);
            if (!propose(item, e, at, out)) finish(item, Outcome::NotPrimary, at, out);
            return;
        }
        case ManagerStage::MuxPool: {
            std::vector<MuxCommand> cmds;
            if (w.kind == Kind::Resync) {
                std::map<IpAddr, std::pair<IpAddr, std::uint32_t>> snat_host;  // dip -> (host, tenant)
                std::set<IpAddr> sick;
                for (const auto& [vip, c] : vips_) {
                    for (const auto& e : c.endpoints) {
                        cmds.push_back(SetEndpoint{epoch_, e.endpoint, e.dips, c.tenant});
                        for (const auto& d : e.dips)
                            if (unhealthy_.contains(d.dip)) sick.insert(d.dip);
                    }
                    for (const auto& s : c.snat) snat_host[s.dip] = {s.host, c.tenant};
                }
                for (IpAddr d : sick) cmds.push_back(SetDipHealth{epoch_, d, false});
                for (const auto& g : snat_.held()) {
                    const auto h = snat_host.find(g.dip);
                    for (const IpProto proto : {IpProto::Tcp, IpProto::Udp})
                        cmds.push_back(SetSnatRange{epoch_, g.vip, proto, g.first, g.count,
                                                    FlowTarget{g.dip, 0, h == snat_host.end() ? 0 : h->second.first},
                                                    h == snat_host.end() ? 0 : h->second.second, false});
                }
                for (IpAddr v : withdrawn_) cmds.push_back(WithdrawVip{epoch_, v, true});
                send_muxes(item, cmds, at, out, w.host);
                w.mux_sent = true;
                check_done(item, at, out);
                return;
            }
            std::map<IpAddr, IpAddr> host_of;
            if (w.kind == Kind::VipConfig)
                for (const auto& s : w.vip.snat) host_of[s.dip] = s.host;
            if (w.kind == Kind::Snat)
                host_of[w.dip] = w.host;
            for (const auto& g : w.grants)
                if (!host_of.contains(g.dip)) host_of[g.dip] = 0;
            if (w.kind == Kind::VipConfig) {
                // Every DIP, then the health of those reported down (a Mux keeps DIP health apart from the
                // endpoints: a DIP that recovers later comes back with one SetDipHealth).
                std::set<IpAddr> sick;
                for (const auto& e : w.vip.endpoints) {
                    cmds.push_back(SetEndpoint{epoch_, e.endpoint, e.dips, w.vip.tenant});
                    for (const auto& d : e.dips)
                        if (unhealthy_.contains(d.dip)) sick.insert(d.dip);
                }
                for (IpAddr d : sick) cmds.push_back(SetDipHealth{epoch_, d, false});
            }
            if (w.kind == Kind::Overload) {
                cmds.push_back(WithdrawVip{epoch_, w.target_vip, true});
                out.routes.push_back(VipRouteChange{w.target_vip, true, config_.steer_withdrawn});
            }
            const std::uint32_t tenant = w.kind == Kind::VipConfig ? w.vip.tenant
                                         : vips_.contains(w.target_vip) ? vips_.at(w.target_vip).tenant : 0;
            // A range serves the DIP's TCP and UDP connections alike: one stateless entry per protocol.
            for (const auto& g : w.grants)
                for (const IpProto proto : {IpProto::Tcp, IpProto::Udp})
                    cmds.push_back(SetSnatRange{epoch_, g.vip, proto, g.first, g.count,
                                                FlowTarget{g.dip, 0, host_of[g.dip]}, tenant, w.kind == Kind::SnatRelease});
            send_muxes(item, cmds, at, out);
            w.mux_sent = true;
            if (w.kind == Kind::VipConfig) enqueue(ManagerStage::HostAgent, item, at);
            check_done(item, at, out);
            return;
        }
        case ManagerStage::HostAgent: {
            std::map<IpAddr, std::vector<HostCommand>> per_host;
            if (w.kind == Kind::VipConfig) {
                std::set<IpAddr> vms;
                for (const auto& e : w.vip.endpoints)
                    for (const auto& d : e.dips) {
                        if (vms.insert(d.dip).second) per_host[d.host].push_back(AddVm{epoch_, d.dip});
                        per_host[d.host].push_back(SetNatRule{epoch_, e.endpoint, d.dip, d.port, false});
                    }
                for (const auto& s : w.vip.snat) {
                    if (vms.insert(s.dip).second) per_host[s.host].push_back(AddVm{epoch_, s.dip});
                    per_host[s.host].push_back(SetSnatVip{epoch_, s.dip, w.vip.vip});
                    for (auto g : w.grants)
                        if (g.dip == s.dip) {
                            g.epoch = epoch_;
                            per_host[s.host].push_back(g);
                        }
                }
            } else {
                for (auto g : w.grants) {
                    g.epoch = epoch_;
                    per_host[w.host].push_back(g);
                }
                snat_.close_request(w.dip);
                w.answered = at;
            }
            for (const auto& [h, cmds] : per_host) send_host(item, h, cmds, at, out);
            w.host_sent = true;
            check_done(item, at, out);
            return;
        }
        case ManagerStage::Health: {
            // The DIP's new health to every Mux: an unhealthy DIP gets no new connection, its connections keep
            // it (VIP configurations sent later list only the healthy DIPs).
            std::vector<MuxCommand> cmds{SetDipHealth{epoch_, w.dip, !unhealthy_.contains(w.dip)}};
            ++counters_.health_relays;
            send_muxes(item, cmds, at, out);
            w.mux_sent = true;
            check_done(item, at, out);
            return;
        }
        case ManagerStage::Overload: {
            // A report whose top talker is being withdrawn, or was withdrawn from every Mux only after the
            // report's window began, describes the overload that withdrawal deals with: nothing more to do
            // (otherwise the Muxes' reports of the windows around a withdrawal would take down the next VIP).
            if (!w.overload.report.top.empty()) {
                const IpAddr top = w.overload.report.top.front().vip;
                const auto at_it = withdrawn_at_.find(top);
                if (withdrawing_.contains(top) ||
                    (at_it != withdrawn_at_.end() && w.overload.report.window_start < at_it->second)) {
                    finish(item, Outcome::Refused, at, out);
                    return;
                }
            }
            for (const auto& t : w.overload.report.top)
                if (!withdrawn_.contains(t.vip)) {
                    w.target_vip = t.vip;
                    break;
                }
            if (w.target_vip == 0) {
                finish(item, Outcome::Refused, at, out);
                return;
            }
            withdrawing_.insert(w.target_vip);
            if (!propose(item, LogEntry{LogKind::Withdraw, w.target_vip, 0, 1, {}}, at, out))
                finish(item, Outcome::NotPrimary, at, out);
            return;
        }
    }
}

std::uint64_t Manager::send_muxes(std::uint64_t item, const std::vector<MuxCommand>& cmds, Time now,
                                  ManagerActions& out, IpAddr only) {
    if (cmds.empty()) return 0;
    const auto token = next_token_++;
    token_item_[token] = item;
    Work& w = work_.at(item);
    for (IpAddr m : mux_list_) {
        if (!muxes_.at(m).up || (only != 0 && m != only)) continue;
        for (const auto& c : cmds) out.to_mux.push_back(ToMux{m, now + config_.mux_programming_latency, token, c});
        w.waiting.insert(m);
    }
    return token;
}

void Manager::send_host(std::uint64_t item, IpAddr host, const std::vector<HostCommand>& cmds, Time now,
                        ManagerActions& out) {
    if (cmds.empty() || !host_up(host)) return;
    const auto token = next_token_++;
    token_item_[token] = item;
    for (const auto& c : cmds) out.to_host.push_back(ToHost{host, now + config_.host_programming_latency, token, c});
    work_.at(item).waiting.insert(host);
}

void Manager::on_ack(const CommandAck& a, Time now, ManagerActions& out) {
    heard(a.from, now);
    if (a.rejected) {
        ++counters_.rejections;
        if (config_.write_on_reject && leading_ && !fence_pending_) {
            const auto id = next_item_++;
            Work& w = work_[id];
            w.kind = Kind::Fence;
            w.cls = WorkClass::VipConfig;
            w.requested = now;
            fence_pending_ = true;
            ++counters_.fence_writes;
            if (!propose(id, LogEntry{LogKind::Fence, 0, 0, epoch_, {}}, now, out)) {
                fence_pending_ = false;
                work_.erase(id);
            }
        }
    }
    auto t = token_item_.find(a.token);
    if (t == token_item_.end()) return;
    auto it = work_.find(t->second);
    if (it == work_.end()) return;
    it->second.waiting.erase(a.from);
    check_done(t->second, now, out);
}

void Manager::check_done(std::uint64_t item, Time now, ManagerActions& out) {
    auto it = work_.find(item);
    if (it == work_.end()) return;
    Work& w = it->second;
    if (!w.proposals.empty() || !w.waiting.empty()) return;
    switch (w.kind) {
        case Kind::VipConfig:
            if (w.host_sent) finish(item, Outcome::Done, now, out);
            return;
        case Kind::Snat:
            if (w.host_sent) finish(item, Outcome::Done, now, out);
            else if (w.mux_sent && !w.host_queued) {
                w.host_queued = true;
                enqueue(ManagerStage::HostAgent, item, now);
            }
            return;
        case Kind::SnatRelease:
            if (!w.mux_sent) return;
            for (const auto& g : w.grants) {
                snat_.release(g);
                releasing_.erase({g.vip, g.first});
            }
            finish(item, Outcome::Done, now, out);
            return;
        case Kind::Health:
        case Kind::Overload:
        case Kind::Resync:
            if (w.mux_sent) finish(item, Outcome::Done, now, out);
            return;
        case Kind::Fence: return;
    }
}

void Manager::finish(std::uint64_t item, Outcome outcome, Time now, ManagerActions& out, SnatRefusal r) {
    auto it = work_.find(item);
    if (it == work_.end()) return;
    Work& w = it->second;
    switch (w.kind) {
        case Kind::VipConfig: out.vip_done.push_back(VipConfigDone{w.request, w.vip.vip, outcome, w.requested, now}); break;
        case Kind::Snat:
            if (!w.host_sent) snat_.close_request(w.dip);  // else closed when the grant left (a newer one may be open)
            out.snat_done.push_back(SnatDone{w.dip, w.target_vip, outcome, r,
                                             outcome == Outcome::Done ? static_cast<std::uint32_t>(w.grants.size()) : 0,
                                             w.requested, w.host_sent ? w.answered : now, now});
            break;
        case Kind::Overload:
            if (w.target_vip != 0 && withdrawing_.erase(w.target_vip) && outcome == Outcome::Done)
                withdrawn_at_[w.target_vip] = now;
            out.isolation_done.push_back(IsolationDone{outcome == Outcome::Done ? w.target_vip : 0, w.overload.mux,
                                                       w.overload.report.window_start, w.requested, now});
            break;
        case Kind::SnatRelease:
            if (outcome == Outcome::Done) ++counters_.snat_reclaimed;
            break;
        case Kind::Health:
        case Kind::Resync:
        case Kind::Fence: break;
    }
    for (auto id : w.proposals) value_item_.erase(id);
    work_.erase(it);
}

void Manager::abort_all(Time now, ManagerActions& out) {
    stages_.clear();
    std::vector<std::uint64_t> items;
    for (const auto& [id, w] : work_) items.push_back(id);
    for (auto id : items) finish(id, Outcome::Aborted, now, out);
    value_item_.clear();
    token_item_.clear();
    releasing_.clear();
    fence_pending_ = false;
    snat_.drop_uncommitted();
}

void Manager::heard(IpAddr from, Time now) {
    if (auto it = muxes_.find(from); it != muxes_.end()) it->second = Peer{true, now};
    if (auto it = hosts_.find(from); it != hosts_.end()) it->second = Peer{true, now};
}

void Manager::housekeeping(Time now, ManagerActions& out) {
    std::vector<IpAddr> gone;
    for (auto& [a, p] : muxes_)
        if (p.up && p.last_heard + config_.mux_down_after <= now) {
            p.up = false;
            gone.push_back(a);
        }
    for (auto& [a, p] : hosts_)
        if (p.up && p.last_heard + config_.host_down_after <= now) {
            p.up = false;
            gone.push_back(a);
        }
    if (!gone.empty()) {
        std::vector<std::uint64_t> items;
        for (auto& [id, w] : work_)
            for (IpAddr a : gone)
                if (w.waiting.erase(a)) items.push_back(id);
        for (auto id : items) check_done(id, now, out);
    }
    if (!leading_) return;
    for (const auto& g : snat_.idle(now))
        if (!releasing_.contains({g.vip, g.first})) start_release(g, now);
}

void Manager::start_release(const SnatGrant& g, Time now) {
    if (!releasing_.insert({g.vip, g.first}).second) return;
    const auto id = next_item_++;
    Work& w = work_[id];
    w.kind = Kind::SnatRelease;
    w.cls = WorkClass::Snat;
    w.requested = now;
    w.dip = g.dip;
    w.grants = {g};
    enqueue(ManagerStage::SnatManagement, id, now);
}

config::Schema<ManagerConfig> manager_schema() {
    using C = ManagerConfig;
    config::Schema<C> s("Ananta Manager on the Paxos primary: stage service times and priorities, programming "
                        "latencies, the split-brain fix, health tracking. Times not published.");
    const auto positive = Time::ps(0);
    s.field("validation_time", &C::validation_time, "Service time of the validation stage.").at_least(positive);
    s.field("vip_configuration_time", &C::vip_configuration_time, "Service time of the VIP configuration stage.")
        .at_least(positive);
    s.field("snat_time", &C::snat_time, "Service time of the SNAT management stage.").at_least(positive);
    s.field("host_agent_time", &C::host_agent_time, "Service time of the host-agent management stage.")
        .at_least(positive);
    s.field("mux_pool_time", &C::mux_pool_time, "Service time of the Mux-pool management stage.").at_least(positive);
    s.field("health_time", &C::health_time, "Service time of a health relay.").at_least(positive);
    s.field("overload_time", &C::overload_time, "Service time of handling an overload report.").at_least(positive);
    s.field("workers", &C::workers, "Threads of the pool serving all stages (not published: 1).").range(1, 1024);
    s.field("stage_priorities", &C::stage_priorities,
            "Serve queued work by class priority (published: VIP configuration above SNAT); off: first come first served.");
    s.field("vip_priority", &C::vip_priority, "Priority of VIP configuration work (lower first).").range(0, 100);
    s.field("overload_priority", &C::overload_priority, "Priority of overload isolation work.").range(0, 100);
    s.field("health_priority", &C::health_priority, "Priority of health relays.").range(0, 100);
    s.field("snat_priority", &C::snat_priority, "Priority of SNAT work.").range(0, 100);
    s.field("mux_programming_latency", &C::mux_programming_latency,
            "From a command's send to its application on a Mux (not published: 1 ms).")
        .at_least(positive);
    s.field("host_programming_latency", &C::host_programming_latency,
            "From a command's send to its application on a Host Agent (not published: 100 us).")
        .at_least(positive);
    s.field("write_on_reject", &C::write_on_reject,
            "A Paxos write whenever a Mux or Host Agent rejects a command (published split-brain fix).");
    s.field("mux_down_after", &C::mux_down_after, "Silence after which a Mux counts as down (not published: 3 s).")
        .at_least(Time::ps(1));
    s.field("host_down_after", &C::host_down_after, "Silence after which a host counts as down (not published: 3 s).")
        .at_least(Time::ps(1));
    s.field("steer_withdrawn", &C::steer_withdrawn,
            "Steer a withdrawn VIP to DoS protection instead of only black-holing it.");
    return s;
}

}  // namespace loom::ananta
