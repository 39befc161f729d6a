// A tiny deterministic world for manager tests: Manager replicas (each with its Paxos replica), real Muxes and
// Host Agents, one time-ordered event list, fixed delays, lost acks and frozen managers on request.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "loom/ananta/host_agent.hpp"
#include "loom/ananta/manager.hpp"
#include "loom/ananta/mux.hpp"

namespace loom::ananta::test {

struct WorldSpec {
    std::uint32_t managers = 3;
    std::uint32_t muxes = 2;
    std::uint32_t hosts = 2;
    ManagerConfig manager;
    SnatConfig snat;
    paxos::Config paxos;
    Time net_delay = Time::zero();  // Paxos messages, acks and host requests
    WorldSpec();
};

class World {
public:
    explicit World(const WorldSpec& spec);

    // Starts every manager and lets manager `leader` win an election at time 0.
    void start(std::size_t leader = 0);
    void input(std::size_t manager, ManagerInput in, Time at);
    void vm_send(std::size_t host, const IpPacket& p, Time at);
    void run_until(Time t);
    // Manager `m` runs for primary at the current time.
    void campaign(std::size_t m);

    Manager& manager(std::size_t i) { return managers_[i]; }
    Mux& mux(std::size_t i) { return muxes_[i]; }
    HostAgent& host(std::size_t i) { return hosts_[i]; }
    IpAddr mux_addr(std::size_t i) const { return muxes_[i].address(); }
    IpAddr host_addr(std::size_t i) const { return hosts_[i].address(); }
    std::size_t mux_count() const { return muxes_.size(); }
    Time now() const { return now_; }

    // Records from every manager.
    std::vector<VipConfigDone> vip_done;
    std::vector<SnatDone> snat_done;
    std::vector<IsolationDone> isolation_done;
    std::vector<VipRouteChange> routes;
    std::vector<std::pair<std::size_t, ToMux>> mux_applied;  // (issuing manager, command) as applied
    std::vector<std::size_t> mux_rejections;                  // issuing manager of each rejected Mux command
    std::vector<IpPacket> to_router;
    // Per Mux: its SNAT (vip, port) -> DIP mapping as commanded (a shadow of the Mux's private table).
    std::vector<std::map<std::pair<IpAddr, std::uint16_t>, IpAddr>> snat_shadow;
    std::set<IpAddr> mute;          // peers whose acks are lost
    std::set<std::size_t> frozen;   // managers that neither receive nor act
    std::size_t snat_to = 0;        // manager Host Agents send SNAT requests to
    // Called after every event (property tests check invariants here).
    void (*after_event)(World&, void*) = nullptr;
    void* after_arg = nullptr;

private:
    enum class Kind : std::uint8_t { Input, MuxApply, HostApply, VmPacket };
    struct Event {
        Kind kind = Kind::Input;
        std::size_t target = 0;  // manager (Input) or host (VmPacket)
        std::size_t issuer = 0;  // MuxApply, HostApply
        ManagerInput input;
        ToMux mux;
        ToHost host;
        IpPacket packet;
    };
    void push(Time at, Event e);
    void absorb(std::size_t m, ManagerActions& a, Time now);
    void host_output(std::size_t h, HostOutput& out, Time now);
    std::size_t mux_index(IpAddr a) const;
    std::size_t host_index(IpAddr a) const;

    std::vector<Manager> managers_;
    std::vector<Mux> muxes_;
    std::vector<HostAgent> hosts_;
    std::map<std::pair<Time, std::uint64_t>, Event> events_;
    std::vector<std::set<Time>> wakes_;
    std::uint64_t seq_ = 0;
    Time now_;
    Time delay_;
};

}  // namespace loom::ananta::test
