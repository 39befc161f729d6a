// The Mux's logic as a pure state machine: configuration commands (with epochs) and IP packets in, forwarded
// (IP-in-IP toward the chosen DIP), dropped packets and overload reports out. A simulator adapter turns the
// output into sends at each packet's departure time; the Mux itself never touches the simulator.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <variant>
#include <vector>

#include "loom/ananta/core_model.hpp"
#include "loom/ananta/drop_reason.hpp"
#include "loom/ananta/epoch.hpp"
#include "loom/ananta/fair_dropper.hpp"
#include "loom/ananta/flow_table.hpp"
#include "loom/ananta/ip_packet.hpp"
#include "loom/ananta/mux_hash.hpp"
#include "loom/ananta/top_talkers.hpp"
#include "loom/ananta/u64_map.hpp"
#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"

namespace loom::ananta {

// A load-balanced endpoint: (VIP, protocol, port).
struct Endpoint {
    IpAddr vip = 0;
    IpProto proto = IpProto::Tcp;
    std::uint16_t port = 0;
    auto operator<=>(const Endpoint&) const = default;
};

// The "mux" config section: identical on every Mux of a pool.
struct MuxConfig {
    // Not published (the paper gives capacity per core only): 8 cores serve packets.
    std::int32_t cores = 8;
    // Published: about 220 Kpps and 800 Mbps per core.
    std::int64_t core_pps = 220'000;
    Bandwidth core_bandwidth = Bandwidth::bps(800'000'000);
    // Not published: 512 packets of waiting room per core (a few ms at 220 Kpps).
    std::int64_t core_queue_packets = 512;
    // Flow-table quotas, in entries (the paper gives per-class memory quotas without sizes). Not published:
    // 100,000 untrusted and 1,000,000 trusted entries.
    std::int64_t untrusted_quota = 100'000;
    std::int64_t trusted_quota = 1'000'000;
    // Idle timeouts: untrusted short, trusted long (values not published): 10 s and 240 s.
    Time untrusted_idle_timeout = Time::s(10);
    Time trusted_idle_timeout = Time::s(240);
    // Fair dropping and top-talker windows (not published): 1 ms and 100 ms.
    Time fair_window = Time::ms(1);
    Time overload_window = Time::ms(100);
    // Overload drops in one window that raise the overload signal (not published: 1), and how many top
    // talkers a report names (not published: 5).
    std::int64_t overload_drop_threshold = 1;
    std::int64_t top_talkers = 5;
    std::int64_t mtu = kDefaultMtu;
    MuxHashKind hash = MuxHashKind::Ananta;
    // Entries of a Maglev table (a prime); published default 65,537.
    std::int64_t maglev_table_size = MaglevHash::kDefaultTableSize;
    // The connection hash's seed: the same on every Mux of the pool (it is config, never a component stream).
    std::int64_t hash_seed = 1;
};
config::Schema<MuxConfig> mux_schema();

// Configuration commands; each carries the issuer's epoch.
struct SetEndpoint {  // add or replace an endpoint's DIP list (flows in the table keep their DIP)
    Epoch epoch = 0;
    Endpoint endpoint;
    std::vector<WeightedDip> dips;
    std::uint32_t tenant = 0;
};
struct RemoveEndpoint {
    Epoch epoch = 0;
    Endpoint endpoint;
};
struct WithdrawVip {  // black-hole every endpoint of the VIP (overload isolation) until restored
    Epoch epoch = 0;
    IpAddr vip = 0;
    bool withdrawn = true;
};
struct SetSnatRange {  // stateless return path of outbound connections: (VIP, proto, ports) -> DIP
    Epoch epoch = 0;
    IpAddr vip = 0;
    IpProto proto = IpProto::Tcp;
    std::uint16_t first_port = 0;
    std::uint16_t count = 0;
    FlowTarget target;
    std::uint32_t tenant = 0;
    bool remove = false;
};
struct SetTenantWeight {  // a tenant's share under overload (its number of VMs); restarts the fair-drop windows
    Epoch epoch = 0;
    std::uint32_t tenant = 0;
    std::int64_t weight = 1;
};
struct SetDipHealth {  // an unhealthy DIP gets no new connection; connections it already has keep it
    Epoch epoch = 0;
    IpAddr dip = 0;
    bool healthy = true;
};
using MuxCommand =
    std::variant<SetEndpoint, RemoveEndpoint, WithdrawVip, SetSnatRange, SetTenantWeight, SetDipHealth>;

// One packet the Mux sends: encapsulated toward `target.dip` (routed to `target.host`), leaving at `depart`.
struct MuxForward {
    IpPacket packet;
    Time depart;
    FlowTarget target;
    std::uint32_t core = 0;
    bool stateless = false;  // forwarded by hash alone (flow table full) or by a SNAT mapping
};
struct MuxDrop {
    IpPacket packet;
    DropReason reason = DropReason::NoRoute;
};

// What one handle() call produced; the caller clears it between calls (reusing its storage).
struct MuxOutput {
    std::vector<MuxForward> forwards;
    std::vector<MuxDrop> drops;
    std::vector<OverloadReport> reports;
    std::vector<CommandRejected> rejected;
    void clear() {
        forwards.clear();
        drops.clear();
        reports.clear();
        rejected.clear();
    }
};

struct MuxCounters {
    std::uint64_t received = 0;
    std::uint64_t forwarded = 0;
    std::uint64_t new_connections = 0;  // DIP chosen by hash for a SYN or a flow-table miss
    std::uint64_t flow_hits = 0;
    std::uint64_t stateless_fallbacks = 0;  // chosen by hash but not recorded: untrusted quota full
    std::uint64_t snat_returns = 0;
    std::uint64_t commands_accepted = 0;
    std::uint64_t commands_rejected = 0;
    std::array<std::uint64_t, kDropReasonCount> drops{};
};

// Packets are handled in non-decreasing time order. A packet's path: black-hole check, endpoint (or SNAT
// mapping) lookup, the tenant's fair share, a core (pinned by the connection hash), then the DIP: a non-SYN
// packet is looked up in the flow table first; a SYN or a miss is a new connection, hashed over the
// endpoint's table and recorded as untrusted (or forwarded statelessly when the untrusted quota is full).
class Mux {
public:
    Mux(const MuxConfig& config, IpAddr self);

    void handle(const MuxCommand& command, Time now, MuxOutput& out);
    void handle(const IpPacket& packet, Time now, MuxOutput& out);
    // Closes finished windows (an overload report may come out) and expires idle flows.
    void tick(Time now, MuxOutput& out);

    // The DIP a new connection with this tuple gets (no state change); nullptr for an unknown endpoint or one
    // without a healthy DIP.
    const WeightedDip* pick(const FiveTuple& tuple) const;
    // The stateless SNAT mapping of (vip, proto, port), or nullptr (Fastpath resolves a port's DIP with it).
    const FlowTarget* snat_target(IpAddr vip, IpProto proto, std::uint16_t port) const;
    bool healthy(IpAddr dip) const { return !unhealthy_.contains(dip); }
    // A packet the Mux's own host sends (a BGP keepalive sharing the data path) waits for a core like a
    // forwarded one, on the core its tuple pins; not accepted when that core's queue is full.
    CoreDecision offer_local(const IpPacket& packet, Time now);

    IpAddr address() const { return self_; }
    const MuxCounters& counters() const { return counters_; }
    const FlowTable& flows() const { return flows_; }
    const CoreModel& cores() const { return cores_; }
    const FairDropper& fair() const { return fair_; }
    Epoch epoch() const { return epochs_.highest(); }
    const MuxConfig& config() const { return config_; }

private:
    struct EndpointState {
        std::vector<WeightedDip> dips;
        std::vector<std::uint32_t> table;  // indices into dips, healthy DIPs only; empty when none is healthy
        std::uint32_t tenant = 0;
    };
    // (VIP, protocol, port) as one non-zero key (the protocol is never 0): of SNAT ports and of endpoints.
    static std::uint64_t snat_key(IpAddr vip, IpProto proto, std::uint16_t port) {
        return (static_cast<std::uint64_t>(vip) << 24) | (static_cast<std::uint64_t>(proto) << 16) | port;
    }
    struct SnatEntry {
        FlowTarget target;
        std::uint32_t tenant = 0;
    };

    void apply(const SetEndpoint& c);
    void apply(const RemoveEndpoint& c);
    void apply(const WithdrawVip& c);
    void apply(const SetSnatRange& c);
    void apply(const SetTenantWeight& c);
    void apply(const SetDipHealth& c);
    void build_table(EndpointState& s) const;
    const EndpointState* endpoint(IpAddr vip, IpProto proto, std::uint16_t port) const {
        EndpointState* const* s = endpoint_index_.find(snat_key(vip, proto, port));
        return s == nullptr ? nullptr : *s;
    }
    void drop(const IpPacket& p, DropReason r, MuxOutput& out);
    void rebuild_fair();

    // Hot: what every packet reads (a Mux's lines are cold at each of its packets), the packet's path in order;
    // the configuration and the tables commands change but packets do not read come after.
    IpAddr self_;
    std::uint32_t mtu_;  // config_.mtu
    std::uint64_t seed_;
    std::uint64_t hash_base_;  // tuple_hash_base(seed_): the flow hash's seed step, once
    MuxCounters counters_;
    TopTalkers talkers_;
    std::set<IpAddr> withdrawn_;
    // endpoints_' states by snat_key(vip, proto, port): what a packet looks up (the map's nodes are stable).
    // One probe of a flat table instead of a walk down the tree's nodes.
    U64Map<EndpointState*> endpoint_index_;
    U64Map<SnatEntry> snat_;  // by snat_key
    std::vector<std::int64_t> tenant_weights_;
    FairDropper fair_;
    CoreModel cores_;
    FlowTable flows_;
    MuxConfig config_;
    std::unique_ptr<MuxHash> hash_;
    std::map<Endpoint, EndpointState> endpoints_;
    std::set<IpAddr> unhealthy_;
    EpochGuard epochs_;
};

}  // namespace loom::ananta
