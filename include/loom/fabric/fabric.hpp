// The "fabric" model: the conventional, dynamically routed network (VC routers, credits, allocators, routing
// functions, terminals injecting workload traffic) on a Dragonfly from the config, or on any frozen topology.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "loom/config/schema.hpp"
#include "loom/fabric/fabric_config.hpp"
#include "loom/fabric/flit_link.hpp"
#include "loom/fabric/fabric_setup.hpp"
#include "loom/fabric/fabric_stats.hpp"
#include "loom/fabric/routing_function.hpp"
#include "loom/fabric/routing_tables.hpp"
#include "loom/fabric/transfer_book.hpp"
#include "loom/sim/registry.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/stats/json.hpp"
#include "loom/topo/dragonfly.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/workload/traffic_config.hpp"
#include "loom/workload/traffic_pattern.hpp"
#include "loom/workload/traffic_trace.hpp"

namespace loom::fabric {

class FabricModel;
class Monitor;
class Router;
class RouterClock;
class Terminal;

// The model's four config sections, each optional (absent: its defaults).
struct FabricModelConfig {
    topo::DragonflyConfig topology;
    FabricConfig fabric;
    RoutingConfig routing;
    workload::TrafficConfig traffic;
};

// Parses "/topology", "/fabric", "/routing" and "/traffic" of `root` into `out`; problems go to `errors`.
void parse(const config::Json& root, FabricModelConfig& out, config::Errors& errors);

// A closed-loop transfer workload for build(): the transfers (positions in `set` name them) and how they become
// flits and packets. The traffic config is then ignored except for its measurement section.
struct TransferRun {
    const workload::TransferSet* set = nullptr;
    TransferOptions options;
};

// Builds the network on any frozen topology (terminals per VertexInfo::terminals) in `sim`, before sim.init().
// Topology-dependent problems go to `errors` under the JSON Pointers of the sections (/fabric/vcs when the
// routing function needs more VC classes, /traffic/... for the pattern and trace) and nullptr is returned.
// `trace`: the messages of trace traffic when already loaded (nullptr: read traffic.trace from disk).
// `transfers`: run a closed-loop transfer workload instead of the traffic section (every source and destination
// a vertex with terminals; problems go to /workload). The run ends when the last transfer completes.
std::unique_ptr<FabricModel> build(topo::FrozenTopology topology, const FabricConfig& fabric,
                                   const RoutingConfig& routing, const workload::TrafficConfig& traffic,
                                   sim::Simulator& sim, config::Errors& errors,
                                   const workload::TrafficTrace* trace = nullptr,
                                   const TransferRun* transfers = nullptr);

// A built run. Components: "fabric.<vertex name>" routers (Dragonfly: fabric.group3.router2), their terminals
// "fabric.<vertex name>.term<k>", and "fabric.monitor". finish() writes the "fabric" stats group and checks that
// no flit was lost (flits injected = ejected + buffered + on links), that credits are conserved on every VC of
// every channel, and that a run that ran out of events left no flit behind (ModelError otherwise).
//
// Transfer runs add "transfers" (count, completed, makespan, per-transfer latency in ps) and finish() also
// reports transfers left incomplete when no event is pending.
// Stats ("fabric" group): status ("steady" | "saturated" | "incomplete"; trace runs: "complete" |
// "incomplete"), offered and accepted load in flits/cycle/terminal, packet_latency and network_latency
// histograms in cycles (marked packets; left out unless the run is steady or complete), hop histogram,
// minimal / non-minimal packets and share, per-class link utilization, input-buffer occupancy, totals.
class FabricModel : public sim::ModelInstance {
public:
    FabricModel(sim::Simulator& sim, std::unique_ptr<topo::FrozenTopology> topology,
                std::unique_ptr<RoutingTables> tables, std::unique_ptr<RoutingFunction> routing,
                std::unique_ptr<workload::TrafficPattern> pattern, std::unique_ptr<FabricSetup> net);
    ~FabricModel() override;

    void finish() override;
    // " flit_hops=<n> flit_hops_per_s=<r>": flits through a router switch, per wall second from the monitor's
    // init() (the start of the run) to finish().
    std::string perf_fields() const override;
    // Time series: the run's running totals (flits and packets generated, injected, ejected, in the network,
    // flit hops, source queues, marked packets measured), summed over the routers and terminals when sampled.
    std::vector<sim::Probe> probes(const std::string& key) const override;

    // The problems found by the conservation checks (empty when flits and credits are all accounted for).
    std::vector<std::string> conservation_problems() const;
    // The "fabric" stats group as finish() writes it.
    stats::Json summary() const;

    const FabricSetup& network() const { return *net_; }
    // Every router's and terminal's counters summed, and every terminal's marked-packet statistics.
    FabricCounters totals() const;
    MarkedStats marked() const;
    const topo::FrozenTopology& topology() const { return *topology_; }
    const std::vector<Router*>& routers() const { return routers_; }
    const std::vector<Terminal*>& terminals() const { return terminals_; }
    const Monitor& monitor() const { return *monitor_; }
    const RouterClock& clock() const { return *clock_; }
    // The closed-loop transfers of a transfer run (nullptr otherwise).
    const TransferBook* transfers() const { return book_.get(); }
    // Called for every packet that reaches its destination (set before the run).
    void set_packet_observer(std::function<void(const PacketSummary&)> fn) { net_->observer = std::move(fn); }

private:
    friend std::unique_ptr<FabricModel> build(topo::FrozenTopology, const FabricConfig&, const RoutingConfig&,
                                              const workload::TrafficConfig&, sim::Simulator&, config::Errors&,
                                              const workload::TrafficTrace*, const TransferRun*);

    sim::Simulator& sim_;
    std::unique_ptr<topo::FrozenTopology> topology_;
    std::unique_ptr<RoutingTables> tables_;
    std::unique_ptr<RoutingFunction> routing_;
    std::unique_ptr<workload::TrafficPattern> pattern_;
    std::unique_ptr<FabricSetup> net_;
    std::unique_ptr<TransferBook> book_;
    RingPool ring_pool_;  // the lines' ring chunks (declared before the lines: they end after them)
    std::vector<PortOut> links_;  // every port's output channel and the lines it pushes (flits, credits), by router
                                  // and port, then the terminals' injection lines; flit lines hold the records of
                                  // the packets on them
    std::vector<Router*> routers_;      // by vertex
    std::vector<Terminal*> terminals_;  // by terminal id
    Monitor* monitor_ = nullptr;
    RouterClock* clock_ = nullptr;  // ticks the routers
    double wall_s_ = 0;
    bool finished_ = false;
    sim::Probes probes_;
    void add_probes();
};

// Builds the Dragonfly of config.topology and the network on it.
std::unique_ptr<FabricModel> build(const FabricModelConfig& config, sim::Simulator& sim, config::Errors& errors);
// The registry's build function: parse, then build if it parsed.
std::unique_ptr<sim::ModelInstance> build(const config::Json& root, sim::Simulator& sim, config::Errors& errors);

void register_components(sim::Registry& registry);

}  // namespace loom::fabric
