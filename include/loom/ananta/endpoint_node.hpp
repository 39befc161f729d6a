// The components that own connection endpoints: Internet client nodes and hosts (whose VMs open VIP-to-VIP
// connections and serve VIPs). Connections are plain data here (Openers, Servers) with their timers in two
// TimerSets; traffic sources open new connections at their rate between start and stop.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

#include "loom/ananta/control_hooks.hpp"
#include "loom/ananta/dc_node.hpp"
#include "loom/ananta/health_prober.hpp"
#include "loom/ananta/host_agent.hpp"
#include "loom/sim/channel.hpp"
#include "loom/sim/timer.hpp"

namespace loom::ananta {

class EndpointNode : public DcNode {
public:
    EndpointNode(sim::Context& ctx, const DcShared& shared, std::uint32_t index);

    // A source of traffic `traffic` opening connections from `from` at `rate` per second (builder).
    void add_source(std::uint32_t traffic, IpAddr from, double rate);
    // start_traffic / stop_traffic: from now on, the sources of `traffic` open (or stop opening) connections.
    void set_traffic(std::uint32_t traffic, bool on);
    void init() override;

    const Openers& openers() const { return openers_; }
    const Servers& servers() const { return servers_; }
    std::uint64_t opened() const { return opened_; }
    StateBytes bytes_of_state() const;

protected:
    // Sends a packet an endpoint of this component created (`opener`: the slot it came from, or kNoSlot).
    static constexpr std::uint32_t kNoSlot = 0xffff'ffffU;
    virtual void emit(const IpPacket& p, std::uint32_t opener) = 0;
    // The tuple of the next connection of source `s` (from its address; ports chosen by the component).
    virtual FiveTuple next_tuple(std::uint32_t source) = 0;
    // Delivers an arriving packet to its endpoint (an opener or a server); consumed either way. `server_hint`:
    // the server slot the packet's connection is guessed to have (checked; kNoSlot: none). Returns the server
    // slot that took the packet, or kNoSlot.
    std::uint32_t deliver(const IpPacket& p, std::uint32_t server_hint = kNoSlot);

    struct Source {
        std::uint32_t traffic = 0;
        IpAddr from = 0;
        std::int64_t gap_ps = 0;  // mean (Poisson) or exact (fixed) spacing
        bool enabled = false;
        std::uint64_t opened = 0;
    };
    std::vector<Source> sources_;
    Openers openers_;
    Servers servers_;

private:
    void flush(std::uint32_t opener);
    void rearm_opener(std::uint32_t slot);
    void rearm_server(std::uint32_t slot);
    void arm_arrival(std::uint32_t s, bool first);
    void on_arrival(std::uint32_t s);
    void on_conn_timer(std::uint32_t id);

    sim::TimerSet arrivals_;
    sim::TimerSet conn_timers_;  // id 2*slot: opener, 2*slot+1: server
    TcpOutput tcp_out_;
    std::uint64_t opened_ = 0;
};

// An Internet client node: one link to a border router; connection n of node c comes from address
// 150+c.(n/60000) and port 1024 + n mod 60000.
class ClientNode final : public EndpointNode {
public:
    static constexpr std::string_view kSubsystem = "ananta";
    ClientNode(sim::Context& ctx, const DcShared& shared, std::uint32_t index, std::uint32_t number);
    static FiveTuple tuple_of(std::uint32_t node, std::uint64_t n, IpAddr vip, std::uint16_t port, IpProto proto);

private:
    void on_packet(const IpPacket& p) override;
    bool prefetches() const override { return true; }
    void prefetch_arrival(const IpPacket& p) const override { openers_.prefetch(p); }
    void emit(const IpPacket& p, std::uint32_t opener) override;
    FiveTuple next_tuple(std::uint32_t source) override;
    std::uint32_t number_;
};

// A host: a Host Agent in front of its VMs (servers of the VIPs whose DIPs they are, and openers of VIP-to-VIP
// connections through SNAT), one link to its ToR.
class HostNode final : public EndpointNode {
public:
    static constexpr std::string_view kSubsystem = "ananta";
    HostNode(sim::Context& ctx, const DcShared& shared, std::uint32_t index, IpAddr self);

    void init() override;
    void command(const HostCommand& c);
    const HostAgent& agent() const { return agent_; }
    std::uint64_t pending() const override;
    std::vector<Sighting> sightings() const { return sightings_.all(); }
    // UDP payload bytes received by this host's VMs, by outside tuple (lookups and a sorted merge only).
    const std::unordered_map<FiveTuple, std::uint64_t, FiveTupleHasher>& udp_bytes() const { return udp_bytes_; }
    std::uint64_t rejections() const { return agent_.counters().commands_rejected; }
    std::uint64_t snat_requests() const { return snat_requests_; }
    StateBytes bytes_of_state() const;
    // The control plane that takes this host's SNAT requests (builder; none: requests are only counted).
    void set_control(ControlHooks* control, std::uint32_t position) {
        control_ = control;
        position_ = position;
    }

    // Fastpath, health and failed VMs (host_dynamics.cpp).
    // Redirects are accepted from `ananta`; with `count_by_vip` the Host Agent's packets are counted by the
    // local VIP they belong to.
    void enable_fastpath(std::vector<IpAddr> ananta, bool count_by_vip);
    struct VipWork {
        std::uint64_t agent_packets = 0;  // handled by the Host Agent (from the network and from VMs)
        std::uint64_t host_to_host = 0;   // of those sent, wrapped host to host (Fastpath)
    };
    const std::map<IpAddr, VipWork>& work_by_vip() const { return work_by_vip_; }
    // Health probing of the VMs that are DIPs (builder, before the run); changes go out on the relay channel.
    void probe(IpAddr dip);
    sim::ChannelPort& health_port();
    const std::vector<HealthChange>& health_changes() const { return health_changes_; }
    std::uint64_t probes_sent() const;
    // vm_unhealthy / vm_healthy: the VM stops (starts) answering probes and its connections' packets.
    void set_vm_down(IpAddr dip, bool down);
    // The control plane takes back an idle SNAT range (host_dynamics.cpp); false when it was not held.
    bool return_snat(const SnatGrant& g) { return agent_.return_snat(g); }

private:
    void on_packet(const IpPacket& p) override;
    bool prefetches() const override { return true; }
    // A packet from the network: its NAT binding (the outside tuple is the inner header); a reply to one of the
    // VMs' own connections: its opener.
    void prefetch_arrival(const IpPacket& p) const override {
        agent_.prefetch_inbound(p.inner);
        openers_.prefetch(p);
    }
    void emit(const IpPacket& p, std::uint32_t opener) override;
    FiveTuple next_tuple(std::uint32_t source) override;
    void take(std::uint32_t opener);
    void on_redirect(const IpPacket& p);
    void count_sent();
    void start_probing();
    void on_probe_timer();
    void on_reply_timer();
    void on_health_message(std::uint32_t) {}
    void probe_output();

    // Hot: what every packet to or from a VM reads besides the Host Agent, first among the HostNode's own fields
    // (from a line's start) and side by side, not spread among the rarely used ones.
    alignas(64) bool count_by_vip_ = false;
    std::uint32_t position_ = 0;
    ControlHooks* control_ = nullptr;
    std::uint64_t snat_requests_ = 0;
    std::set<IpAddr> down_;
    HostOutput out_;
    std::vector<std::vector<HostDelivery>> spare_;  // delivery lists for take(), reused
    HostAgent agent_;

    std::map<IpAddr, VipWork> work_by_vip_;
    std::vector<IpAddr> probed_;
    std::unique_ptr<HealthProber> prober_;
    ProbeOutput probe_out_;
    std::unique_ptr<sim::Timer> probe_timer_;
    std::unique_ptr<sim::Timer> reply_timer_;
    std::deque<std::pair<Time, ProbeRequest>> replies_;  // answers on their way back, in time order
    std::unique_ptr<sim::ChannelPort> health_;
    std::vector<HealthChange> health_changes_;

    SightingLog sightings_;
    std::unordered_map<FiveTuple, std::uint64_t, FiveTupleHasher> udp_bytes_;
    std::vector<IpAddr> vms_;
    std::uint32_t next_port_ = 0;
};

}  // namespace loom::ananta
