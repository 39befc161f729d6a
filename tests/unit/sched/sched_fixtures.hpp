// Small machines and workloads shared by the scheduler's tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/topo/chip_config.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/topo/link_class_timing.hpp"
#include "loom/topo/tsp_topology.hpp"
#include "loom/workload/transfer.hpp"

namespace loom::sched::test {

// Default timing, worked out by hand for the tests:
//  - in-node link: 4 x 25 Gbps = 100 Gbps; a 328-byte vector is 2624 bits: S(k) = k * 26240 ps exactly;
//  - its latency: serdes_fec 480 ns + cable 0.75 m x 5 ns/m = 3.75 ns + clock_crossing 14 ns = 497750 ps;
//  - core clock 900 MHz: edge n at floor(n * 10^4 / 9) ps; forward_cycles 178, issue and crossing cycles 0.
inline constexpr std::int64_t kVectorPs = 26'240;
inline constexpr std::int64_t kLatencyPs = 497'750;

inline topo::FrozenTopology node_of(std::int32_t tsps) {
    topo::TspTopologyConfig c;
    c.kind = topo::TspKind::Node;
    c.tsps_per_node = tsps;
    return topo::build_tsp_topology(c);
}

inline topo::FrozenTopology system264() {
    topo::TspTopologyConfig c;
    c.kind = topo::TspKind::System264;
    return topo::build_tsp_topology(c);
}

// TSPs joined by in-node links as listed: link l joins links[l].first (port = its next free port) and
// links[l].second. Vertex names are node0.tspN.
inline topo::FrozenTopology custom(std::int32_t tsps, const std::vector<std::pair<std::int32_t, std::int32_t>>& links) {
    std::vector<topo::VertexInfo> vertices(static_cast<std::size_t>(tsps));
    for (std::int32_t v = 0; v < tsps; ++v) vertices[static_cast<std::size_t>(v)].index = v;
    std::vector<std::int32_t> next_port(static_cast<std::size_t>(tsps), 0);
    std::vector<topo::LinkSpec> specs;
    for (const auto& [a, b] : links) {
        topo::LinkSpec s;
        s.a = a;
        s.port_a = next_port[static_cast<std::size_t>(a)]++;
        s.b = b;
        s.port_b = next_port[static_cast<std::size_t>(b)]++;
        s.link_class = topo::LinkClass::InNode;
        specs.push_back(s);
    }
    return topo::FrozenTopology("node", vertices, std::vector<std::int32_t>(static_cast<std::size_t>(tsps), 11), specs);
}

// 0 - 1 - 2: ports 0 -> 1 on port 0 of both; 1 -> 2 on port 1 of TSP 1 and port 0 of TSP 2.
inline topo::FrozenTopology chain3() { return custom(3, {{0, 1}, {1, 2}}); }

inline workload::Transfer transfer(std::uint32_t id, topo::VertexId src, std::vector<topo::VertexId> dsts,
                                   std::int64_t vectors, std::vector<std::uint32_t> deps = {},
                                   Time earliest = Time::zero()) {
    workload::Transfer x;
    x.id = id;
    x.src = src;
    x.dsts = std::move(dsts);
    x.bytes = Bytes(vectors * 320);
    x.deps = std::move(deps);
    x.earliest = earliest;
    return x;
}

inline workload::TransferSet random_set(const topo::FrozenTopology& t, std::int64_t count, Bytes bytes,
                                        std::int64_t seed, std::int32_t fanout = 1, double dependency = 0.0) {
    workload::TransferSetConfig c;
    c.random.count = count;
    c.random.bytes = bytes;
    c.random.seed = seed;
    c.random.fanout = fanout;
    c.random.dependency_probability = dependency;
    return workload::make_transfer_set(c, t, topo::ChipConfig{});
}

}  // namespace loom::sched::test
