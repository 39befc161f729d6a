// The Ananta control plane inside the run: Ananta Manager replicas (ManagerNode, each a pure Manager with its
// Paxos replica) exchanging Paxos messages as packets over a mesh of net/ links; commands to Muxes and Host
// Agents and their acknowledgements as packets on command links to each one's ControlAgent; and the
// ControlPlane component that carries the rest between them and the data plane as timed deliveries: Host
// Agents' SNAT requests, idle-range returns and health reports, Mux overload reports and reboots, keep-alives,
// and the operator's VIP configurations. It records what a study measures.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "loom/ananta/control_hooks.hpp"
#include "loom/ananta/control_plane_config.hpp"
#include "loom/ananta/control_plane_wire.hpp"
#include "loom/ananta/dc_node.hpp"
#include "loom/ananta/manager.hpp"
#include "loom/net/input_port.hpp"
#include "loom/net/output_port.hpp"
#include "loom/sim/timer.hpp"
#include "loom/sim/timer_set.hpp"
#include "loom/stats/json.hpp"

namespace loom::ananta {

class ControlPlane;
class MuxNode;
class HostNode;

using PaxosOut = net::OutputPort<paxos::Message>;
using PaxosIn = net::InputPort<paxos::Message>;
using ControlOut = net::OutputPort<ControlMessage>;
using ControlIn = net::InputPort<ControlMessage>;

// One manager replica. Crash drops the Manager object and its writes not yet durable (the DurableState built
// by completed writes survives); recovery constructs a new one from it. A frozen replica handles nothing (its
// arrivals are lost, its timers wait) and on thaw takes its due timers and the peers' queued keep-alives.
class ManagerNode final : public sim::Component {
public:
    static constexpr std::string_view kSubsystem = "ananta";
    ManagerNode(sim::Context& ctx, ControlPlane& plane, std::uint32_t replica);

    void init() override;
    // An input from a Mux, host or the operator (lost when down or frozen; counted).
    void deliver(const ManagerInput& input);
    void crash();
    void recover();
    void freeze();
    void thaw();

    bool up() const { return manager_.has_value(); }
    bool frozen() const { return frozen_; }
    bool is_primary() const { return manager_ && manager_->is_primary(now()); }
    const Manager* manager() const { return manager_ ? &*manager_ : nullptr; }
    std::uint32_t replica() const { return replica_; }
    std::uint64_t lost_inputs() const { return lost_; }
    std::vector<std::unique_ptr<PaxosOut>>& outs() { return outs_; }
    std::vector<std::unique_ptr<PaxosIn>>& ins() { return ins_; }
    // Command links to (and acknowledgement links from) every Mux, then every Host Agent.
    std::vector<std::unique_ptr<ControlOut>>& command_outs() { return cmd_outs_; }
    std::vector<std::unique_ptr<ControlIn>>& ack_ins() { return ack_ins_; }
    // Sends a command's parts to peer `peer` (Muxes first, then Host Agents).
    void send_command(std::uint32_t peer, const std::vector<ControlMessage>& parts);
    std::uint32_t next_serial() { return serial_++; }
    // Counters of incarnations before the current one, plus the current one's.
    ManagerCounters counters() const;

private:
    struct Pending {
        Time at;
        std::uint64_t token = 0;
        paxos::DurableRecord record;
    };
    void on_paxos(const net::Packet<paxos::Message>& p, const net::Delivery& d);
    void on_ack(const net::Packet<ControlMessage>& p, const net::Delivery& d);
    void on_timer(std::uint32_t kind);
    void on_write();
    void on_wake();
    void take(ManagerActions& a);

    ControlPlane& plane_;
    std::uint32_t replica_;
    std::optional<Manager> manager_;
    paxos::DurableState disk_;
    std::vector<std::unique_ptr<PaxosOut>> outs_;  // by peer replica (none for self)
    std::vector<std::unique_ptr<PaxosIn>> ins_;
    std::vector<std::unique_ptr<ControlOut>> cmd_outs_;
    std::vector<std::unique_ptr<ControlIn>> ack_ins_;
    std::uint32_t serial_ = 0;  // numbers this replica's commands (kept across incarnations)
    sim::TimerSet timers_;  // id: paxos::TimerKind
    sim::Timer write_timer_;
    sim::Timer wake_timer_;
    std::vector<Pending> writes_;  // in token order (one latency: they complete in order)
    std::uint64_t done_while_frozen_ = 0;
    bool frozen_ = false;
    std::uint64_t lost_ = 0;
    ManagerCounters past_;
    ManagerActions actions_;
};

// The management interface of one Mux or Host Agent: a command link from every replica and an acknowledgement
// link back to it. A command whose parts have all arrived is applied after the manager's programming latency
// (mux_programming_latency / host_programming_latency: the time to program the data plane), then acknowledged
// (applied, or rejected for an older epoch, which is how a stale primary hears of its rejection).
class ControlAgent final : public sim::Component {
public:
    static constexpr std::string_view kSubsystem = "ananta";
    // `peer`: Mux m is m, Host Agent h is muxes + h.
    ControlAgent(sim::Context& ctx, ControlPlane& plane, std::uint32_t peer, bool mux, std::uint32_t index);

    std::vector<std::unique_ptr<ControlIn>>& ins() { return ins_; }
    std::vector<std::unique_ptr<ControlOut>>& outs() { return outs_; }
    std::uint64_t packets_received() const { return received_; }
    std::uint64_t malformed() const { return malformed_; }
    std::size_t incomplete() const { return assembler_.incomplete(); }

private:
    struct Due {
        Time at;
        std::uint32_t from = 0;
        std::uint64_t token = 0;
        MuxCommand mux;
        HostCommand host;
    };
    void on_message(const net::Packet<ControlMessage>& p, const net::Delivery& d);
    void on_apply();

    ControlPlane& plane_;
    std::uint32_t peer_;
    bool mux_;
    std::uint32_t index_;
    std::vector<std::unique_ptr<ControlIn>> ins_;    // by replica
    std::vector<std::unique_ptr<ControlOut>> outs_;  // by replica
    ControlAssembler assembler_;
    std::deque<Due> due_;  // one latency per kind: in arrival order
    sim::Timer apply_timer_;
    std::uint64_t received_ = 0, malformed_ = 0;
};

// One VIP configuration the operator asked for, end to end (retries to other replicas included).
struct VipConfigRecord {
    std::size_t vip = 0;
    bool initial = false;  // the run's own configuration of its VIPs at time 0
    Time requested;
    Time done = kNever;
    Outcome outcome = Outcome::Aborted;
    std::uint32_t attempts = 0;
    std::uint32_t replica = 0;  // the replica that completed it
    Time manager_latency;       // request to completion inside that replica
};

// One SNAT request of a DIP, from the Host Agent's request to the grant applied on it.
struct SnatRecord {
    std::uint32_t host = 0;
    IpAddr dip = 0;
    Time requested;
    Time granted = kNever;
    std::uint32_t ranges = 0;
    std::uint32_t attempts = 0;
};

// A range a Host Agent holds, from the grant's application.
struct GrantRecord {
    Time at;
    IpAddr dip = 0;
    IpAddr vip = 0;
    std::uint16_t first = 0;
    std::uint16_t count = 0;
};

// A range a Host Agent gave back after snat.idle_return without use.
struct ReturnRecord {
    Time at;
    std::uint32_t host = 0;
    IpAddr dip = 0;
    IpAddr vip = 0;
    std::uint16_t first = 0;
    std::uint16_t count = 0;
    Time idle_since;  // its grant, or the last packet on one of its ports
};

// An endpoint's DIP list a Mux applied, and from which replica.
struct EndpointApplied {
    Time at;
    std::uint32_t mux = 0;
    std::uint32_t replica = 0;
    IpAddr vip = 0;
};

// A change of primary as the replicas saw it.
struct LeadershipRecord {
    Time at;
    std::uint32_t replica = 0;
    bool leader = false;
    Epoch epoch = 0;
};

// A replica frozen (or thawed) by the scenario.
struct FrozenRecord {
    Time at;
    std::uint32_t replica = 0;
    bool frozen = false;
};

class ControlPlane final : public sim::Component, public ControlHooks {
public:
    static constexpr std::string_view kSubsystem = "ananta";
    ControlPlane(sim::Context& ctx, const DcShared& shared, std::vector<MuxNode*> muxes, std::vector<HostNode*> hosts);

    // Adds the replicas and their links to `sim` (the builder calls it once, before init).
    void build(sim::Simulator& sim);
    void init() override;

    // Scenario actions.
    void configure_vip(std::size_t vip, const std::vector<WeightedDip>* dips, std::int64_t replica);
    void crash(std::size_t replica);
    void recover(std::size_t replica);
    void freeze(std::size_t replica);
    void thaw(std::size_t replica);
    // DIP `dip`'s Host Agent reports its health to every replica (not published how Host Agents find the
    // primary: reports go to all, and only a replica that believes it is primary relays them).
    void health_report(IpAddr dip, IpAddr host, bool healthy) override;
    // link_down / link_up on the replica links whose port path the partition covers; false when none does.
    bool set_links(const net::Partition& part, bool down);
    bool covers(const net::Partition& part) const;

    // ControlHooks
    void snat_request(std::uint32_t host, const SnatRequest& request) override;
    void overload(std::uint32_t mux, const OverloadReport& report) override;
    void mux_booted(std::uint32_t mux) override;

    // Called by a ManagerNode with what its Manager asked for beyond Paxos.
    void from_manager(std::uint32_t replica, const ManagerActions& a);
    void leadership(std::uint32_t replica, const paxos::LeadershipAction& l);

    const ControlPlaneConfig& config() const { return config_; }
    const DcShared& shared() const { return shared_; }
    const ManagerConfig& manager_config() const { return shared_.config.params.manager; }
    paxos::Config paxos_config() const;
    // The back ends a VIP spec names, with their hosts.
    static std::vector<WeightedDip> dips_of(const NetworkConfig& n, const std::vector<DipSpec>& dips);
    const std::vector<IpAddr>& mux_addresses() const { return mux_addrs_; }
    const std::vector<IpAddr>& host_addresses() const { return host_addrs_; }
    const std::vector<ManagerNode*>& replicas() const { return replicas_; }
    const LinkTiming& link_timing() const { return link_timing_; }
    const LinkTiming& command_timing() const { return command_timing_; }
    const net::PortConfig& command_port() const { return command_port_; }
    const std::vector<ControlAgent*>& agents() const { return agents_; }
    std::uint32_t peers() const { return static_cast<std::uint32_t>(muxes_.size() + hosts_.size()); }
    // A command a ControlAgent applies now on Mux `m` / Host Agent `h`, issued by replica `from`. Returns
    // false when the receiver does not answer (a failed Mux); else `rejected` says whether it refused it.
    bool apply_mux(std::uint32_t m, std::uint32_t from, const MuxCommand& c, std::optional<CommandRejected>& rejected);
    bool apply_host(std::uint32_t h, std::uint32_t from, const HostCommand& c, std::optional<CommandRejected>& rejected);

    // What the run measured.
    const std::vector<VipConfigRecord>& vip_configs() const { return ops_records_; }
    const std::vector<SnatRecord>& snat_records() const { return snat_records_; }
    const std::vector<GrantRecord>& grants() const { return grant_log_; }
    const std::vector<ReturnRecord>& returns() const { return returns_; }
    const std::vector<EndpointApplied>& endpoints_applied() const { return endpoints_applied_; }
    std::uint64_t reused_ranges() const { return reused_ranges_; }
    const std::vector<IsolationDone>& isolations() const { return isolations_; }
    const std::vector<LeadershipRecord>& leadership_log() const { return leader_log_; }
    // Per Mux: VIPs it applied a withdrawal for.
    const std::vector<std::vector<IpAddr>>& withdrawals() const { return withdrawals_; }
    // Violations of the SNAT invariants seen while the run went (empty when they held).
    const std::vector<std::string>& snat_violations() const { return violations_; }
    std::uint64_t duplicate_requests() const { return duplicate_requests_; }
    stats::Json summary(Time end) const;
    std::string text_summary(Time end) const;

private:
    // What still travels as timed deliveries (requests, reports, keep-alives, answers to requests).
    enum class Kind : std::uint8_t { ToManager, SnatAnswer, VipAnswer };
    struct Delivery {
        Kind kind = Kind::ToManager;
        std::uint32_t target = 0;  // replica or operation
        std::uint32_t from = 0;    // answering replica
        std::uint64_t token = 0;
        ManagerInput input;
        SnatDone snat;
        VipConfigDone vip;
    };
    struct HostRequest {  // a DIP's SNAT request in flight (at most one per DIP)
        bool open = false;
        std::uint32_t host = 0;
        SnatRequest request;
        std::uint32_t replica = 0;
        std::size_t record = 0;
    };
    struct Operation {  // an operator VIP configuration in flight
        std::size_t vip = 0;
        VipConfig config;
        std::uint32_t replica = 0;
        std::size_t record = 0;
        bool open = false;
    };

    void post(Time at, Delivery d);
    void on_delivery();
    void on_keepalive();
    void on_retry(std::uint32_t id);
    void on_idle_check();
    void arm_idle_check();
    void to_manager(std::uint32_t replica, ManagerInput in, Time at);
    void snat_answer(const Delivery& d);
    void vip_answer(const Delivery& d);
    void ask_snat(std::uint32_t slot);
    void ask_vip(std::uint32_t op);
    std::uint32_t next_replica(std::uint32_t r) const;
    std::uint32_t hint_or_next(std::uint32_t r) const;
    std::uint32_t dip_slot(IpAddr dip) const;
    VipConfig vip_config(std::size_t vip, const std::vector<WeightedDip>& dips) const;
    void check_grant(const GrantRecord& g);

    const DcShared& shared_;
    ControlPlaneConfig config_;
    std::vector<MuxNode*> muxes_;
    std::vector<HostNode*> hosts_;
    std::vector<IpAddr> mux_addrs_, host_addrs_;
    std::vector<ManagerNode*> replicas_;
    LinkTiming link_timing_;
    LinkTiming command_timing_;
    net::PortConfig command_port_;  // one queue, no faults
    std::vector<ControlAgent*> agents_;  // Muxes, then Host Agents
    std::vector<std::vector<WeightedDip>> vip_dips_;  // current DIP list of each VIP (as last configured)
    std::vector<bool> snat_vip_;                      // VIPs whose DIPs open VIP-to-VIP connections
    std::map<std::pair<Time, std::uint64_t>, Delivery> queue_;
    std::uint64_t seq_ = 0;
    sim::Timer delivery_timer_;
    sim::Timer keepalive_timer_;
    sim::TimerSet retry_;  // ids [0, dips): SNAT requests; [dips, ...): operations
    std::vector<HostRequest> requests_;  // by DIP slot
    std::vector<std::uint32_t> host_primary_;  // replica each host believes is primary
    std::vector<Epoch> host_epoch_;
    std::uint32_t operator_primary_ = 0;
    std::vector<Operation> ops_;
    std::vector<VipConfigRecord> ops_records_;
    std::vector<SnatRecord> snat_records_;
    std::vector<GrantRecord> grant_log_;
    struct Held {  // a range a Host Agent holds
        std::uint32_t host = 0;
        SnatGrant grant;
        Time since;  // applied on the Host Agent
    };
    std::vector<Held> held_;  // in grant order
    Time last_use(const Held& h) const;
    std::vector<ReturnRecord> returns_;
    std::vector<EndpointApplied> endpoints_applied_;
    std::set<std::pair<IpAddr, std::uint16_t>> returned_ranges_;  // (vip, first) given back at least once
    std::uint64_t reused_ranges_ = 0;  // grants of a range another DIP had given back
    sim::Timer idle_timer_;
    std::map<std::pair<IpAddr, std::uint16_t>, IpAddr> port_owner_;  // (vip, port) -> DIP holding it
    std::vector<IsolationDone> isolations_;
    std::vector<LeadershipRecord> leader_log_;
    std::vector<FrozenRecord> frozen_log_;
    std::vector<std::vector<IpAddr>> withdrawals_;
    std::vector<std::string> violations_;
    std::uint64_t duplicate_requests_ = 0;
    std::uint64_t snat_refused_ = 0, snat_not_primary_ = 0, snat_timeouts_ = 0, vip_timeouts_ = 0;
    std::uint64_t mux_applied_ = 0, mux_rejected_ = 0, host_applied_ = 0, host_rejected_ = 0;
    std::uint64_t overload_reports_ = 0, reports_ignored_ = 0;
    // Mux commands applied per issuing replica and epoch (a stale primary's are all rejected).
    std::vector<std::uint64_t> rejected_by_issuer_;
};

}  // namespace loom::ananta
