// The Ananta Manager as a pure state machine: handle(input, now) -> actions. Each manager replica owns a Paxos
// replica; the one that leads is the primary and does the work: VIP configuration, SNAT allocation, health
// relay, Mux and host health, overload isolation, every state change replicated as a Paxos log value first.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "loom/ananta/epoch.hpp"
#include "loom/ananta/host_agent.hpp"
#include "loom/ananta/manager_stages.hpp"
#include "loom/ananta/mux.hpp"
#include "loom/ananta/paxos/replica.hpp"
#include "loom/ananta/snat_allocator.hpp"
#include "loom/ananta/top_talkers.hpp"
#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"

namespace loom::ananta {

// The "manager" config section. The paper publishes the stage structure and the priority of VIP configuration
// over SNAT, not the times: every time below is not published and chosen to be plausible for one API call.
struct ManagerConfig {
    Time validation_time = Time::us(100);
    Time vip_configuration_time = Time::us(500);
    Time snat_time = Time::us(50);
    Time host_agent_time = Time::us(100);
    Time mux_pool_time = Time::us(100);
    Time health_time = Time::us(20);
    Time overload_time = Time::us(100);
    std::int64_t workers = 1;  // threads of the shared pool (not published)
    bool stage_priorities = true;  // published: VIP configuration outranks SNAT; off for comparison
    // Lower is served first (published order only: VIP configuration above SNAT).
    std::int64_t vip_priority = 0;
    std::int64_t overload_priority = 0;
    std::int64_t health_priority = 1;
    std::int64_t snat_priority = 2;
    // From a command's send to its application on a Mux / Host Agent (not published: 1 ms and 100 us).
    Time mux_programming_latency = Time::ms(1);
    Time host_programming_latency = Time::us(100);
    // Published fix of the split brain: a Paxos write whenever a Mux rejects a command of this primary.
    bool write_on_reject = true;
    // A Mux or host not heard from (keep-alive, ack, report) for this long is down (not published: 3 s).
    Time mux_down_after = Time::s(3);
    Time host_down_after = Time::s(3);
    // Overload isolation may steer the withdrawn VIP to DoS protection instead of only black-holing it.
    bool steer_withdrawn = false;
};
config::Schema<ManagerConfig> manager_schema();

// A VIP's configuration: its endpoints (with DIP lists) and the DIPs whose outbound traffic is SNATed to it.
struct VipEndpointConfig {
    Endpoint endpoint;
    std::vector<WeightedDip> dips;
};
struct SnatDip {
    IpAddr dip = 0;
    IpAddr host = 0;
};
struct VipConfig {
    IpAddr vip = 0;
    std::uint32_t tenant = 0;
    std::vector<VipEndpointConfig> endpoints;
    std::vector<SnatDip> snat;
};

// ---- inputs ----
struct VipConfigRequest {
    std::uint64_t request = 0;
    VipConfig config;
};
struct SnatAsk {  // a Host Agent's SnatRequest
    IpAddr host = 0;
    SnatRequest request;
};
struct SnatReturn {  // a Host Agent gives an idle range back
    IpAddr host = 0;
    SnatGrant grant;
};
struct SnatInUse {  // keep-alive of a DIP's SNAT ports (postpones reclaim)
    IpAddr dip = 0;
    IpAddr vip = 0;
};
struct CommandAck {  // a Mux or Host Agent applied (or, with `rejected`, refused) command `token`
    IpAddr from = 0;
    std::uint64_t token = 0;
    std::optional<CommandRejected> rejected;
};
struct HealthReport {  // a Host Agent's probe result for a local VM
    IpAddr host = 0;
    IpAddr dip = 0;
    bool healthy = true;
};
struct MuxOverload {
    IpAddr mux = 0;
    OverloadReport report;
};
struct PeerAlive {  // a keep-alive from a Mux or Host Agent
    IpAddr from = 0;
    bool booted = false;  // a Mux that has just booted with empty state: the primary programs it again
};
struct ManagerTick {};  // the wake-up the manager asked for (or any time: it only advances)
using ManagerInput = std::variant<VipConfigRequest, SnatAsk, SnatReturn, SnatInUse, CommandAck, HealthReport,
                                  MuxOverload, PeerAlive, ManagerTick, paxos::Message>;

// ---- actions ----
struct ToMux {  // apply `command` on Mux `mux` at `at` (send time + programming latency); ack with `token`
    IpAddr mux = 0;
    Time at;
    std::uint64_t token = 0;
    MuxCommand command;
};
struct ToHost {
    IpAddr host = 0;
    Time at;
    std::uint64_t token = 0;
    HostCommand command;
};
struct VipRouteChange {  // for route management: stop announcing `vip` (or steer it to DoS protection)
    IpAddr vip = 0;
    bool withdrawn = true;
    bool steered = false;
};
// Completed work, with request and completion times (the measured latencies).
enum class Outcome : std::uint8_t { Done, Invalid, Refused, Dropped, NotPrimary, Aborted };
struct VipConfigDone {
    std::uint64_t request = 0;
    IpAddr vip = 0;
    Outcome outcome = Outcome::Done;
    Time requested;
    Time done;
};
struct SnatDone {
    IpAddr dip = 0;
    IpAddr vip = 0;
    Outcome outcome = Outcome::Done;
    SnatRefusal refusal = SnatRefusal::None;
    std::uint32_t ranges = 0;
    Time requested;
    Time answered;  // the grant left for the host: from here the DIP may ask again
    Time done;      // the host acknowledged the grant
};
struct IsolationDone {
    IpAddr vip = 0;   // the VIP withdrawn (0: none to withdraw)
    IpAddr mux = 0;   // the reporting Mux
    Time overload_start;  // start of the overloaded window
    Time reported;    // report received (detection)
    Time withdrawn;   // every Mux acknowledged the withdrawal
};
struct ManagerActions {
    paxos::Actions paxos;
    std::vector<ToMux> to_mux;
    std::vector<ToHost> to_host;
    std::vector<VipRouteChange> routes;
    std::vector<VipConfigDone> vip_done;
    std::vector<SnatDone> snat_done;
    std::vector<IsolationDone> isolation_done;
    std::optional<Time> wake;  // hand the manager a ManagerTick then (paxos timers are in `paxos`)
    void clear() { *this = ManagerActions{}; }
};

struct ManagerCounters {
    std::uint64_t rejections = 0;  // commands a Mux or Host Agent refused for an old epoch
    std::uint64_t fence_writes = 0;
    std::uint64_t snat_dropped = 0;  // second request of a DIP while one was outstanding
    std::uint64_t snat_reclaimed = 0;
    std::uint64_t health_relays = 0;
    std::uint64_t not_primary = 0;
};

// The log values the manager writes through Paxos (48 bytes each). A VIP configuration is written in full, as
// several values: a header (VipConfig: tenant, digest, counts), one per endpoint, its DIPs two per value, the
// SNAT DIPs four per value; every replica's state machine assembles it from the committed values (not
// published how Ananta stores it), so a new primary knows every VIP.
enum class LogKind : std::uint8_t {
    VipConfig = 1, SnatGrant = 2, SnatRelease = 3, Fence = 4, Withdraw = 5, VipEndpoint = 6, VipDips = 7, VipSnat = 8
};
struct LogEntry {
    LogKind kind = LogKind::Fence;
    IpAddr vip = 0;
    IpAddr dip = 0;
    std::uint64_t word = 0;  // VipConfig: digest; Fence: epoch; Withdraw: 1 withdrawn, 0 restored
    std::vector<std::pair<std::uint16_t, std::uint16_t>> ranges;  // SNAT (first, count), at most kMaxLogRanges
};
inline constexpr std::size_t kMaxLogRanges = 8;
paxos::Value encode(const LogEntry& e, std::uint64_t id);
std::optional<LogEntry> decode(const paxos::Value& v);
// A VIP configuration as log values (ids 0), and the digest that identifies it.
std::uint64_t vip_digest(const VipConfig& c);
std::vector<paxos::Value> encode_vip(const VipConfig& c);

// Assembles VIP configurations from committed log values (in log order).
class VipLog {
public:
    // Takes a committed value; returns the VIP whose configuration it completed, or 0.
    IpAddr take(const paxos::Value& v);
    const std::map<IpAddr, VipConfig>& configs() const { return done_; }

private:
    struct Partial {
        VipConfig config;
        std::uint16_t endpoints = 0, snat = 0;
        std::vector<std::uint32_t> dip_count;    // per endpoint (0xffffffff: its value not yet seen)
        std::vector<std::vector<bool>> dip_seen;
        std::vector<bool> snat_seen;
    };
    bool complete(const Partial& p) const;
    std::map<std::pair<IpAddr, std::uint32_t>, Partial> partial_;  // (vip, digest's low 32 bits)
    std::map<IpAddr, VipConfig> done_;
};

// The epoch of commands issued under Paxos ballot b: ordered like ballots, 0 for none.
inline Epoch epoch_of(paxos::Ballot b) { return (Epoch{b.round} << 32) | b.replica; }

// Inputs arrive in non-decreasing `now`. Only the primary (its replica is_leader) accepts requests; others
// answer NotPrimary and only learn committed state. Leadership lost aborts the work in flight.
class Manager {
public:
    Manager(const ManagerConfig& config, const SnatConfig& snat, const paxos::Config& paxos, paxos::ReplicaId self,
            std::vector<IpAddr> muxes, std::vector<IpAddr> hosts, const paxos::DurableState& durable = {});

    void start(Time now, ManagerActions& out);
    void handle(const ManagerInput& input, Time now, ManagerActions& out);
    // Asks the replica to run for primary now (what its election timer does).
    void campaign(Time now, ManagerActions& out);

    bool is_primary(Time now) const { return replica_.is_leader(now); }
    Epoch epoch() const { return epoch_; }
    const paxos::Replica& replica() const { return replica_; }
    paxos::Replica& replica() { return replica_; }
    const SnatAllocator& snat() const { return snat_; }
    const ManagerCounters& counters() const { return counters_; }
    bool vip_known(IpAddr vip) const { return vips_.contains(vip); }
    // Every VIP configuration the committed log holds (what a new primary programs Muxes with).
    const std::map<IpAddr, VipConfig>& vip_configs() const { return vip_log_.configs(); }
    bool withdrawn(IpAddr vip) const { return withdrawn_.contains(vip); }
    bool mux_up(IpAddr mux) const;
    bool host_up(IpAddr host) const;

private:
    enum class Kind : std::uint8_t { VipConfig, Snat, SnatRelease, Health, Overload, Fence, Resync };
    struct Work {
        Kind kind = Kind::VipConfig;
        WorkClass cls = WorkClass::VipConfig;
        Time requested;
        VipConfig vip;
        std::uint64_t request = 0;
        IpAddr host = 0;
        IpAddr dip = 0;
        std::vector<SnatGrant> grants;
        MuxOverload overload;
        IpAddr target_vip = 0;
        std::set<std::uint64_t> proposals;  // Paxos value ids not yet committed
        std::set<IpAddr> waiting;           // peers yet to acknowledge
        bool mux_sent = false;              // Mux-pool stage done
        bool host_queued = false;           // SNAT: host stage queued after every Mux acknowledged
        bool host_sent = false;             // host-agent stage done
        Time answered;                      // SNAT: when the grant was sent
    };
    struct Peer {
        bool up = true;
        Time last_heard;
    };

    void advance(Time now, ManagerActions& out);
    void stage_done(ManagerStage stage, std::uint64_t item, Time at, ManagerActions& out);
    void enqueue(ManagerStage stage, std::uint64_t item, Time at);
    bool propose(std::uint64_t item, const LogEntry& e, Time now, ManagerActions& out);
    bool propose_value(std::uint64_t item, paxos::Value v, Time now, ManagerActions& out);
    void on_paxos(const paxos::Message& m, Time now, ManagerActions& out);
    void absorb(paxos::Actions& a, Time now, ManagerActions& out);
    void on_commit(const paxos::Value& v, Time now, ManagerActions& out);
    void on_ack(const CommandAck& a, Time now, ManagerActions& out);
    void check_done(std::uint64_t item, Time now, ManagerActions& out);
    void finish(std::uint64_t item, Outcome outcome, Time now, ManagerActions& out, SnatRefusal r = SnatRefusal::None);
    void abort_all(Time now, ManagerActions& out);
    std::uint64_t send_muxes(std::uint64_t item, const std::vector<MuxCommand>& cmds, Time now, ManagerActions& out,
                             IpAddr only = 0);
    void send_host(std::uint64_t item, IpAddr host, const std::vector<HostCommand>& cmds, Time now, ManagerActions& out);
    void heard(IpAddr from, Time now);
    void housekeeping(Time now, ManagerActions& out);
    std::string validate(const VipConfig& c) const;
    void start_release(const SnatGrant& g, Time now);

    ManagerConfig config_;
    paxos::Replica replica_;
    paxos::ReplicaId self_;
    SnatAllocator snat_;
    StageScheduler stages_;
    std::vector<IpAddr> mux_list_;
    std::map<IpAddr, Peer> muxes_;
    std::map<IpAddr, Peer> hosts_;
    Epoch epoch_ = 0;
    bool leading_ = false;
    std::uint64_t next_item_ = 1;
    std::uint64_t next_value_ = 1;
    std::uint64_t next_token_ = 1;
    std::map<std::uint64_t, Work> work_;
    std::map<std::uint64_t, std::uint64_t> value_item_;  // Paxos value id -> item
    std::map<std::uint64_t, std::uint64_t> token_item_;  // command token -> item
    std::map<IpAddr, VipConfig> vips_;                   // configured (committed) VIPs, on the primary
    std::map<IpAddr, std::uint64_t> vip_digest_;         // every replica: committed digests
    VipLog vip_log_;                                     // every replica: committed configurations
    std::set<IpAddr> withdrawn_;
    std::set<IpAddr> withdrawing_;            // withdrawals in progress (primary)
    std::map<IpAddr, Time> withdrawn_at_;     // when every Mux had applied a withdrawal (primary)
    std::set<IpAddr> unhealthy_;                          // DIPs reported down
    std::set<std::pair<IpAddr, std::uint16_t>> releasing_;
    bool fence_pending_ = false;
    ManagerCounters counters_;
    paxos::Actions scratch_;
};

}  // namespace loom::ananta
