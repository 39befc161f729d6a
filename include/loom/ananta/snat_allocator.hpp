// The manager's SNAT port bookkeeping: per VIP, a pool of power-of-two port ranges; which DIP holds which range;
// demand prediction, per-VM limits (ports held, allocation rate), one outstanding request per DIP, idle reclaim.
// Pure logic: the manager replicates each decision through Paxos and installs it on the Muxes.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "loom/ananta/snat_port_source.hpp"
#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"

namespace loom::ananta {

// The "snat" config section.
struct SnatConfig {
    // Published: ranges of 8 ports (a power of two; a range starts on a multiple of its size).
    std::int64_t ports_per_range = 8;
    // Not published: the ephemeral ports above the well-known ones are the SNAT space.
    std::int64_t first_port = 1024;
    std::int64_t last_port = 65535;
    // Ranges each SNAT DIP gets when its VIP is configured (published: pre-allocation; count not published: 1).
    std::int64_t preallocate_ranges = 1;
    // Published: demand prediction. Not published: a DIP asking again within 1 s of its last allocation gets
    // 4 ranges.
    bool demand_prediction = true;
    Time prediction_interval = Time::s(1);
    std::int64_t predicted_ranges = 4;
    // Published: per-VM limits on ports held and on allocation rate. Not published: 1024 ports, and 16
    // allocations per 1 s window.
    std::int64_t max_ports_per_vm = 1024;
    std::int64_t max_allocations_per_window = 16;
    Time rate_window = Time::s(1);
    // Published: idle ports are reclaimed. Not published: a range whose DIP showed no use (request or
    // keep-alive) for 60 s.
    Time idle_reclaim = Time::s(60);
    // Published: a Host Agent returns idle ports. Not published: a range none of whose ports carried a packet
    // for 30 s (since it was granted, or its last use) goes back to the manager (half of idle_reclaim, so the
    // manager's own reclaim only catches Host Agents that went silent).
    Time idle_return = Time::s(30);
};
config::Schema<SnatConfig> snat_schema();

enum class SnatRefusal : std::uint8_t { None, UnknownVip, PortLimit, RateLimit, Exhausted };
const char* snat_refusal_name(SnatRefusal r);

struct SnatDecision {
    SnatRefusal refusal = SnatRefusal::None;
    std::vector<SnatGrant> grants;  // disjoint ranges, lowest first; empty when refused
};

// Invariants (checked by tests): a port of a VIP belongs to at most one range held by at most one DIP; a DIP
// never holds more than max_ports_per_vm ports. A range stays held until release(), also while the manager is
// still removing it from the Muxes, so it is never handed to a second DIP before the first is gone there.
class SnatAllocator final : public SnatPortSource {
public:
    explicit SnatAllocator(const SnatConfig& config);

    void add_vip(IpAddr vip);
    bool has_vip(IpAddr vip) const { return free_.contains(vip); }
    void set_epoch(Epoch e) { epoch_ = e; }

    // Fairness: at most one request per DIP in flight. open_request() is false (the request is to be dropped)
    // when one is already open; close_request() ends it.
    bool open_request(IpAddr dip);
    void close_request(IpAddr dip);
    bool request_open(IpAddr dip) const { return open_.contains(dip); }

    // Chooses ranges for `dip` and takes them (uncommitted): `ranges` of them, or (0) one, or predicted_ranges
    // if the DIP's previous allocation was within prediction_interval; capped by the port limit. Counts toward
    // the rate limit unless `preallocation`.
    SnatDecision decide(IpAddr dip, IpAddr vip, Time now, std::uint32_t ranges = 0, bool preallocation = false);
    // Records a range as held (a replica learning a committed allocation); idempotent. False if another DIP
    // holds any of its ports.
    bool take(const SnatGrant& g, Time now, bool committed);
    void commit(const SnatGrant& g);
    void release(const SnatGrant& g) override;
    // Forgets ranges never committed (a primary that lost leadership).
    void drop_uncommitted();
    // The DIP showed use of its ports (a keep-alive or a request): postpones reclaim.
    void touch(IpAddr dip, IpAddr vip, Time now);
    // Committed ranges idle for idle_reclaim at `now`, lowest (vip, first) first; and the next such deadline.
    std::vector<SnatGrant> idle(Time now) const;
    std::optional<Time> next_idle_deadline() const;

    // SnatPortSource: one range, committed at once (no replication).
    std::optional<SnatGrant> allocate(IpAddr dip, IpAddr vip, Time now) override;

    std::optional<IpAddr> owner(IpAddr vip, std::uint16_t port) const;
    std::int64_t ports_held(IpAddr dip) const;
    std::vector<SnatGrant> held() const;  // every range, ordered by (vip, first)
    const SnatConfig& config() const { return config_; }

private:
    struct Range {
        IpAddr dip = 0;
        bool committed = false;
        Time granted;
    };
    Time last_use(IpAddr dip, IpAddr vip, const Range& r) const;

    SnatConfig config_;
    std::uint16_t per_range_;
    Epoch epoch_ = 0;
    std::map<IpAddr, std::set<std::uint32_t>> free_;             // vip -> free range starts
    std::map<IpAddr, std::map<std::uint32_t, Range>> taken_;     // vip -> range start -> holder
    std::map<IpAddr, std::int64_t> ports_;                       // dip -> ports held
    std::map<IpAddr, Time> last_alloc_;                          // dip -> last allocation (prediction)
    std::map<IpAddr, std::deque<Time>> recent_;                  // dip -> allocation times in the rate window
    std::map<std::pair<IpAddr, IpAddr>, Time> used_;             // (dip, vip) -> last use
    std::set<IpAddr> open_;
};

}  // namespace loom::ananta
