// The `loom topo` report: counts, port use, hop statistics, global memory, bisection-style cut bandwidth and
// zero-load latency with its breakdown, as a struct, as JSON and as text; plus a Graphviz (DOT) writer.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"
#include "loom/topo/chip_config.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/topo/hop_counts.hpp"
#include "loom/topo/link_class_timing.hpp"

namespace loom::topo {

struct PortRange {
    std::int32_t min = 0;
    std::int32_t max = 0;
};

// Zero-load end-to-end latency of one vector from a compute TSP to another: over the fewest-hop paths, the
// one with the least latency, timed as sum over hops of (serialization of one unit + the class's link latency)
// plus forwarding (chip.forward_cycles) at every intermediate TSP. Alignment of forwards to core-clock edges
// (at most one cycle per intermediate TSP) is not included.
struct ZeroLoadLatency {
    Time worst;                   // largest over ordered pairs of distinct compute TSPs
    VertexId worst_src = 0;
    VertexId worst_dst = 0;
    std::int32_t worst_hops = 0;
    double average_ns = 0.0;      // mean over those pairs
    // Where the time goes: "serialization", "<class>.<part>" for each latency part of each class used,
    // "forwarding". worst_parts sums to worst; average_parts_ns to average_ns.
    std::vector<std::pair<std::string, Time>> worst_parts;
    std::vector<std::pair<std::string, double>> average_parts_ns;
};

struct TopologyReport {
    std::string kind;
    std::int64_t tsps = 0;          // every vertex, spares included
    std::int64_t compute_tsps = 0;  // vertices that are endpoints
    std::int64_t nodes = 0;
    std::int64_t racks = 0;         // 0 for kinds without racks (node, system264)
    std::int64_t groups = 0;
    std::int64_t links_total = 0;
    std::array<std::int64_t, kLinkClassCount> links{};  // by index_of(LinkClass)
    // Ports in use per TSP, min and max over TSPs: one entry per link class present, then "global" (all but
    // in_node / local) and "total".
    std::vector<std::pair<std::string, PortRange>> ports_per_tsp;
    HopSummary hops;       // TSP to TSP, compute endpoints
    HopSummary node_hops;  // node to node
    Bytes memory_per_tsp;
    std::int64_t global_memory_bytes = 0;  // compute TSPs x memory per TSP
    std::string cut;                       // which balanced cut, e.g. "racks 0-71 | 72-144"
    std::int64_t cut_links = 0;
    double cut_bytes_per_s = 0.0;          // payload bandwidth across the cut, one direction
    bool latency_computed = false;
    ZeroLoadLatency latency;
};

struct ReportOptions {
    // The zero-load latency needs one search per compute TSP: 1-4 s of CPU at 10,440 TSPs (run on two threads
    // there), against 0.1 s for everything else. Off: `latency` stays empty.
    bool latency = true;
};

// Computes the report.
TopologyReport make_topology_report(const FrozenTopology& t, const LinkClassTiming& links, const ChipConfig& chip,
                                    const ReportOptions& options = {});

// JSON with keys tsps, compute_tsps, nodes, racks, links{<class>, total}, ports_per_tsp{<kind>:{min,max}},
// diameter_hops, avg_hops, hop_histogram, node_diameter_hops, node_avg_hops, global_memory_bytes,
// global_memory_gib, global_memory_tb, cut, cut_links, cut_bytes_per_s, latency_worst_ps, latency_worst_ns,
// latency_avg_ns, latency_worst_pair, latency_breakdown{worst_ns{...}, avg_ns{...}} (latency keys only when
// computed).
config::Json to_json(const TopologyReport& r, const FrozenTopology& t);
// A human-readable table of the same figures.
std::string to_text(const TopologyReport& r, const FrozenTopology& t);

// Graphviz text (undirected): one cluster per node (TSP systems) or group (Dragonfly), vertices named
// "v<id>" labelled with their names, one edge per link coloured by class with its ports as tooltip.
std::string to_dot(const FrozenTopology& t);

}  // namespace loom::topo
