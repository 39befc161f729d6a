// What every component of one fabric run reads and nobody writes: the topology, routing tables and function,
// traffic pattern, configs and clock. Owned by the model instance, which outlives the run. Everything a run
// changes is owned by one component: a packet's record by the terminal or router holding it, or by the link
// carrying it (net::LinkStore); counters and histograms by the router or terminal that counts them (merged by
// the model in finish); the measurement window and the drain by messages between the monitor and terminals;
// transfer completions by messages between terminals (TransferBook).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "loom/base/clock_domain.hpp"
#include "loom/fabric/fabric_config.hpp"
#include "loom/fabric/fabric_packet.hpp"
#include "loom/fabric/routing_function.hpp"
#include "loom/fabric/routing_tables.hpp"
#include "loom/fabric/transfer_book.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/workload/traffic_config.hpp"
#include "loom/workload/traffic_pattern.hpp"

namespace loom::fabric {

struct FabricSetup {
    FabricSetup(const topo::FrozenTopology& t, const RoutingTables& rt, const RoutingFunction& rf,
                   const workload::TrafficPattern& tp, const FabricConfig& fc, const workload::TrafficConfig& tc)
        : topology(t), tables(rt), routing(rf), pattern(tp), config(fc), traffic(tc), clock(fc.cycle_period > Time::zero() ? ClockDomain::with_period(fc.cycle_period) : ClockDomain(fc.router_clock)),
          classes(rf.classes()) {}
    FabricSetup(const FabricSetup&) = delete;
    FabricSetup& operator=(const FabricSetup&) = delete;

    const topo::FrozenTopology& topology;
    const RoutingTables& tables;
    const RoutingFunction& routing;
    const workload::TrafficPattern& pattern;
    const FabricConfig config;
    const workload::TrafficConfig traffic;
    const ClockDomain clock;
    const std::int32_t classes;  // VC classes in use (the routing function's); <= config.vcs

    // VCs of class `c` on every port: [vc_first(c), vc_first(c + 1)), the VCs split as evenly as possible.
    std::int32_t vc_first(std::int32_t c) const { return c * config.vcs / classes; }

    // Closed-loop transfers: the plan (owned by the model; nullptr for synthetic and trace traffic).
    const TransferBook* transfers = nullptr;
    // Called for every packet whose tail reaches its destination (a hook of tests and traces, outside the model's
    // state); empty: none.
    std::function<void(const PacketSummary&)> observer;
};

}  // namespace loom::fabric
