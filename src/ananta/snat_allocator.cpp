#include "loom/ananta/snat_allocator.hpp"

#include <algorithm>

#include "loom/base/assert.hpp"

namespace loom::ananta {

const char* snat_refusal_name(SnatRefusal r) {
    switch (r) {
        case SnatRefusal::None: return "none";
        case SnatRefusal::UnknownVip: return "unknown_vip";
        case SnatRefusal::PortLimit: return "port_limit";
        case SnatRefusal::RateLimit: return "rate_limit";
        case SnatRefusal::Exhausted: return "exhausted";
    }
    return "?";
}

SnatAllocator::SnatAllocator(const SnatConfig& config)
    : config_(config), per_range_(static_cast<std::uint16_t>(config.ports_per_range)) {
    LOOM_ASSERT(per_range_ > 0 && (per_range_ & (per_range_ - 1)) == 0, "SNAT ranges are a power of two ports");
    LOOM_ASSERT(config.first_port >= 0 && config.last_port <= 65535 && config.first_port <= config.last_port,
                "SNAT port space inside 0..65535");
}

void SnatAllocator::add_vip(IpAddr vip) {
    if (free_.contains(vip)) return;
    auto& f = free_[vip];
    const auto first = static_cast<std::uint32_t>(config_.first_port + per_range_ - 1) / per_range_ * per_range_;
    for (std::uint32_t p = first; p + per_range_ - 1 <= static_cast<std::uint32_t>(config_.last_port); p += per_range_)
        if (!taken_[vip].contains(p)) f.insert(p);
}

bool SnatAllocator::open_request(IpAddr dip) { return open_.insert(dip).second; }
void SnatAllocator::close_request(IpAddr dip) { open_.erase(dip); }

SnatDecision SnatAllocator::decide(IpAddr dip, IpAddr vip, Time now, std::uint32_t ranges, bool preallocation) {
    SnatDecision d;
    auto fit = free_.find(vip);
    if (fit == free_.end()) {
        d.refusal = SnatRefusal::UnknownVip;
        return d;
    }
    auto& recent = recent_[dip];
    while (!recent.empty() && recent.front() + config_.rate_window <= now) recent.pop_front();
    if (!preallocation && static_cast<std::int64_t>(recent.size()) >= config_.max_allocations_per_window) {
        d.refusal = SnatRefusal::RateLimit;
        return d;
    }
    std::int64_t want = ranges;
    if (want == 0) {
        want = 1;
        auto last = last_alloc_.find(dip);
        if (config_.demand_prediction && last != last_alloc_.end() && now < last->second + config_.prediction_interval)
            want = config_.predicted_ranges;
    }
    const std::int64_t room = (config_.max_ports_per_vm - ports_held(dip)) / per_range_;
    want = std::min(want, room);
    if (want <= 0) {
        d.refusal = SnatRefusal::PortLimit;
        return d;
    }
    auto& free = fit->second;
    if (free.empty()) {
        d.refusal = SnatRefusal::Exhausted;
        return d;
    }
    for (std::int64_t i = 0; i < want && !free.empty(); ++i) {
        const SnatGrant g{epoch_, dip, vip, static_cast<std::uint16_t>(*free.begin()), per_range_};
        take(g, now, false);
        d.grants.push_back(g);
    }
    if (!preallocation) {
        recent.push_back(now);
        last_alloc_[dip] = now;
    }
    used_[{dip, vip}] = now;
    return d;
}

bool SnatAllocator::take(const SnatGrant& g, Time now, bool committed) {
    LOOM_ASSERT(g.count == per_range_ && g.first % per_range_ == 0, "SNAT grants are whole ranges");
    add_vip(g.vip);
    auto& t = taken_[g.vip];
    auto it = t.find(g.first);
    if (it != t.end()) {
        if (it->second.dip != g.dip) return false;
        it->second.committed = it->second.committed || committed;
        return true;
    }
    t.emplace(g.first, Range{g.dip, committed, now});
    free_[g.vip].erase(g.first);
    ports_[g.dip] += per_range_;
    return true;
}

void SnatAllocator::commit(const SnatGrant& g) {
    auto t = taken_.find(g.vip);
    if (t == taken_.end()) return;
    auto it = t->second.find(g.first);
    if (it != t->second.end() && it->second.dip == g.dip) it->second.committed = true;
}

void SnatAllocator::release(const SnatGrant& g) {
    auto t = taken_.find(g.vip);
    if (t == taken_.end()) return;
    auto it = t->second.find(g.first);
    if (it == t->second.end() || it->second.dip != g.dip) return;
    t->second.erase(it);
    free_[g.vip].insert(g.first);
    if ((ports_[g.dip] -= per_range_) == 0) ports_.erase(g.dip);
}

void SnatAllocator::drop_uncommitted() {
    std::vector<SnatGrant> drop;
    for (const auto& [vip, ranges] : taken_)
        for (const auto& [first, r] : ranges)
            if (!r.committed) drop.push_back(SnatGrant{epoch_, r.dip, vip, static_cast<std::uint16_t>(first), per_range_});
    for (const auto& g : drop) release(g);
}

void SnatAllocator::touch(IpAddr dip, IpAddr vip, Time now) { used_[{dip, vip}] = now; }

Time SnatAllocator::last_use(IpAddr dip, IpAddr vip, const Range& r) const {
    auto it = used_.find({dip, vip});
    return it == used_.end() ? r.granted : std::max(r.granted, it->second);
}

std::vector<SnatGrant> SnatAllocator::idle(Time now) const {
    std::vector<SnatGrant> out;
    for (const auto& [vip, ranges] : taken_)
        for (const auto& [first, r] : ranges)
            if (r.committed && last_use(r.dip, vip, r) + config_.idle_reclaim <= now)
                out.push_back(SnatGrant{epoch_, r.dip, vip, static_cast<std::uint16_t>(first), per_range_});
    return out;
}

std::optional<Time> SnatAllocator::next_idle_deadline() const {
    std::optional<Time> best;
    for (const auto& [vip, ranges] : taken_)
        for (const auto& [first, r] : ranges) {
            if (!r.committed) continue;
            const Time t = last_use(r.dip, vip, r) + config_.idle_reclaim;
            if (!best || t < *best) best = t;
        }
    return best;
}

std::optional<SnatGrant> SnatAllocator::allocate(IpAddr dip, IpAddr vip, Time now) {
    add_vip(vip);
    SnatDecision d = decide(dip, vip, now, 1);
    if (d.grants.empty()) return std::nullopt;
    commit(d.grants.front());
    return d.grants.front();
}

std::optional<IpAddr> SnatAllocator::owner(IpAddr vip, std::uint16_t port) const {
    auto t = taken_.find(vip);
    if (t == taken_.end()) return std::nullopt;
    auto it = t->second.find(port / per_range_ * per_range_);
    if (it == t->second.end()) return std::nullopt;
    return it->second.dip;
}

std::int64_t SnatAllocator::ports_held(IpAddr dip) const {
    auto it = ports_.find(dip);
    return it == ports_.end() ? 0 : it->second;
}

std::vector<SnatGrant> SnatAllocator::held() const {
    std::vector<SnatGrant> out;
    for (const auto& [vip, ranges] : taken_)
        for (const auto& [first, r] : ranges)
            out.push_back(SnatGrant{epoch_, r.dip, vip, static_cast<std::uint16_t>(first), per_range_});
    return out;
}

config::Schema<SnatConfig> snat_schema() {
    using C = SnatConfig;
    config::Schema<C> s("Ananta SNAT port allocation by the manager: ranges, pre-allocation, prediction, limits.");
    s.field("ports_per_range", &C::ports_per_range, "Ports per range, a power of two (published: 8).").range(1, 32768);
    s.field("first_port", &C::first_port, "Lowest SNAT port (not published: 1024).").range(0, 65535);
    s.field("last_port", &C::last_port, "Highest SNAT port (not published: 65535).").range(0, 65535);
    s.field("preallocate_ranges", &C::preallocate_ranges,
            "Ranges each SNAT DIP gets at VIP configuration (published practice; count not published: 1).")
        .range(0, 64);
    s.field("demand_prediction", &C::demand_prediction, "A DIP asking again soon gets several ranges (published).");
    s.field("prediction_interval", &C::prediction_interval,
            "A request this soon after the DIP's last allocation counts as demand (not published: 1 s).")
        .at_least(Time::ps(1));
    s.field("predicted_ranges", &C::predicted_ranges,
            "Ranges a predicted request gets (not published: 4; at most 8 fit one Paxos value).")
        .range(1, 8);
    s.field("max_ports_per_vm", &C::max_ports_per_vm, "Ports one DIP may hold (not published: 1024).").range(1, 65536);
    s.field("max_allocations_per_window", &C::max_allocations_per_window,
            "Allocations one DIP may get per rate_window (not published: 16).")
        .range(1, std::int64_t{1} << 30);
    s.field("rate_window", &C::rate_window, "Window of the allocation-rate limit (not published: 1 s).")
        .at_least(Time::ps(1));
    s.field("idle_return", &C::idle_return,
            "With the control plane, a Host Agent returns a range none of whose ports carried a packet this long "
            "(not published: 30 s).")
        .at_least(Time::ps(1));
    s.field("idle_reclaim", &C::idle_reclaim,
            "A range whose DIP showed no use this long is reclaimed (not published: 60 s).")
        .at_least(Time::ps(1));
    s.check("ports_per_range", [](const C& c) -> std::optional<std::string> {
        if ((c.ports_per_range & (c.ports_per_range - 1)) != 0) return "ports_per_range must be a power of two";
        if (c.first_port > c.last_port) return "first_port must not exceed last_port";
        return std::nullopt;
    });
    return s;
}

}  // namespace loom::ananta
