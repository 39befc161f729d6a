#include "loom/topo/topology_report.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <thread>

#include <fmt/format.h>

#include "loom/base/assert.hpp"

namespace loom::topo {
namespace {

constexpr std::size_t kClasses = kLinkClassCount;
// Above this many sources the latency sweep runs on two threads.
constexpr std::size_t kThreadedSources = 2048;

bool is_local_class(LinkClass c) { return c == LinkClass::InNode || c == LinkClass::Local; }

// A path's class counts are packed 8 bits per class into one word (paths are limited to 254 hops).
constexpr std::int64_t unpack(std::uint64_t packed, std::size_t c) {
    return static_cast<std::int64_t>((packed >> (8 * c)) & 0xff);
}

// Totals over a range of sources, merged in source order.
struct LatencyTotals {
    std::int64_t worst_ps = -1;
    VertexId worst_src = 0;
    VertexId worst_dst = 0;
    std::uint64_t worst_counts = 0;
    std::int64_t pairs = 0;
    __extension__ using u128 = unsigned __int128;
    u128 sum_ps = 0;
    std::array<std::int64_t, kClasses> class_hops{};

    void merge(const LatencyTotals& o) {
        if (o.worst_ps > worst_ps) {
            worst_ps = o.worst_ps;
            worst_src = o.worst_src;
            worst_dst = o.worst_dst;
            worst_counts = o.worst_counts;
        }
        pairs += o.pairs;
        sum_ps += o.sum_ps;
        for (std::size_t c = 0; c < kClasses; ++c) class_hops[c] += o.class_hops[c];
    }
};

// Least-latency fewest-hop paths from every compute source in [first, last), by level-synchronous BFS. A
// vertex's predecessors all lie one level up, so relaxing every edge into level L + 1 before expanding that
// level gives each vertex its least latency among fewest-hop paths.
//
// Nodes whose internal links form a clique of one class (every TSP node) are expanded as a whole: when
// members of node N are on the frontier, every other member is one internal hop from the best of them, so
// the node costs its size instead of size^2 internal channels. That halves the work on TSP systems.
struct SweepGraph {
    Adjacency external;                     // channels to other nodes (all channels where nodes are not cliques)
    std::vector<std::uint8_t> external_cls; // class index per external entry
    std::vector<std::int32_t> node_of;      // vertex -> node
    std::vector<VertexId> node_first;       // node -> first vertex (size nodes + 1)
    std::vector<std::int8_t> clique_cls;    // node -> class index of its internal clique, -1 if none
};

SweepGraph sweep_graph(const FrozenTopology& t) {
    SweepGraph sg;
    const std::int32_t nn = t.num_nodes();
    sg.node_first.resize(static_cast<std::size_t>(nn) + 1);
    for (std::int32_t n = 0; n <= nn; ++n) sg.node_first[static_cast<std::size_t>(n)] = n < nn ? t.first_vertex_of_node(n) : t.num_vertices();
    sg.node_of.resize(static_cast<std::size_t>(t.num_vertices()));
    for (VertexId v = 0; v < t.num_vertices(); ++v) sg.node_of[static_cast<std::size_t>(v)] = t.vertex(v).node;
    // A node is a clique when each member reaches every other member directly, all by one class.
    sg.clique_cls.assign(static_cast<std::size_t>(nn), -1);
    bool all_cliques = true;
    for (std::int32_t n = 0; n < nn && all_cliques; ++n) {
        const VertexId f = sg.node_first[static_cast<std::size_t>(n)];
        const VertexId l = sg.node_first[static_cast<std::size_t>(n) + 1];
        if (l - f < 2) continue;
        std::int32_t cls = -1;
        for (VertexId v = f; v < l && all_cliques; ++v) {
            std::vector<bool> seen(static_cast<std::size_t>(l - f), false);
            for (ChannelId c : t.out_channels(v)) {
                const Channel& ch = t.channel(c);
                if (ch.dst < f || ch.dst >= l) continue;
                const auto k = static_cast<std::int32_t>(index_of(ch.link_class));
                if (cls >= 0 && k != cls) all_cliques = false;
                cls = k;
                seen[static_cast<std::size_t>(ch.dst - f)] = true;
            }
            for (VertexId u = f; u < l; ++u)
                if (u != v && !seen[static_cast<std::size_t>(u - f)]) all_cliques = false;
        }
        sg.clique_cls[static_cast<std::size_t>(n)] = static_cast<std::int8_t>(cls);
    }
    if (!all_cliques) sg.clique_cls.assign(static_cast<std::size_t>(nn), -1);
    sg.external.offsets.push_back(0);
    for (VertexId v = 0; v < t.num_vertices(); ++v) {
        const std::int32_t n = sg.node_of[static_cast<std::size_t>(v)];
        for (ChannelId c : t.out_channels(v)) {
            const Channel& ch = t.channel(c);
            if (sg.clique_cls[static_cast<std::size_t>(n)] >= 0 && sg.node_of[static_cast<std::size_t>(ch.dst)] == n) continue;
            sg.external.targets.push_back(ch.dst);
            sg.external_cls.push_back(static_cast<std::uint8_t>(index_of(ch.link_class)));
        }
        sg.external.offsets.push_back(static_cast<std::int32_t>(sg.external.targets.size()));
    }
    return sg;
}

LatencyTotals latency_sweep(const FrozenTopology& t, const SweepGraph& sg, const std::vector<VertexId>& sources,
                            std::size_t first, std::size_t last, const std::array<std::int64_t, kClasses>& weight,
                            std::int64_t forward_ps) {
    const std::size_t n = static_cast<std::size_t>(t.num_vertices());
    const std::size_t nn = sg.clique_cls.size();
    std::array<std::uint64_t, kClasses> inc{};
    for (std::size_t c = 0; c < kClasses; ++c) inc[c] = std::uint64_t{1} << (8 * c);
    // Hop counts live apart from the rest (2 bytes a vertex, so they stay in L1): most relaxations only read
    // them. -1: not reached.
    std::vector<std::int16_t> dist(n);
    struct Best {
        std::int64_t lat;   // least latency so far (ps, one forward per hop)
        std::uint64_t cnt;  // class counts of that path, packed
    };
    std::vector<Best> best_of(n);
    std::vector<std::int32_t> queue(n);
    std::vector<std::uint64_t> endpoint(n);
    std::vector<VertexId> node_best(nn, -1);  // best frontier member of a touched node, this level
    std::vector<std::int32_t> node_left(nn);  // members not expanded yet
    std::vector<std::int32_t> touched;
    for (std::size_t v = 0; v < n; ++v) endpoint[v] = t.vertex(static_cast<VertexId>(v)).terminals > 0 ? 1 : 0;

    LatencyTotals out;
    for (std::size_t i = first; i < last; ++i) {
        const VertexId s = sources[i];
        std::fill(dist.begin(), dist.end(), std::int16_t{-1});
        for (std::size_t k = 0; k < nn; ++k) node_left[k] = sg.node_first[k + 1] - sg.node_first[k];
        std::size_t tail = 0;
        auto reach = [&](std::size_t v, std::int16_t d, std::int64_t l, std::uint64_t c) {
            if (dist[v] < 0) {
                dist[v] = d;
                best_of[v] = {l, c};
                queue[tail++] = static_cast<std::int32_t>(v);
            } else if (dist[v] == d && l < best_of[v].lat) {
                best_of[v] = {l, c};
            }
        };
        reach(static_cast<std::size_t>(s), 0, 0, 0);
        for (std::size_t head = 0; head < tail;) {
            const std::size_t level_end = tail;
            LOOM_ASSERT(dist[static_cast<std::size_t>(queue[head])] < 254,
                        "zero-load latency: paths longer than 254 hops are not supported");
            const auto d = static_cast<std::int16_t>(dist[static_cast<std::size_t>(queue[head])] + 1);
            for (; head < level_end; ++head) {
                const auto u = static_cast<std::size_t>(queue[head]);
                const Best bu = best_of[u];
                for (std::int32_t e = sg.external.offsets[u]; e < sg.external.offsets[u + 1]; ++e) {
                    const std::uint8_t c = sg.external_cls[static_cast<std::size_t>(e)];
                    reach(static_cast<std::size_t>(sg.external.targets[static_cast<std::size_t>(e)]), d,
                          bu.lat + weight[c], bu.cnt + inc[c]);
                }
                const auto node = static_cast<std::size_t>(sg.node_of[u]);
                // Members not yet expanded may still be reached or improved through the clique.
                if (sg.clique_cls[node] < 0 || --node_left[node] == 0) continue;
                VertexId& best = node_best[node];
                if (best < 0) {
                    touched.push_back(static_cast<std::int32_t>(node));
                    best = static_cast<VertexId>(u);
                } else if (bu.lat < best_of[static_cast<std::size_t>(best)].lat) {
                    best = static_cast<VertexId>(u);
                }
            }
            for (std::int32_t node : touched) {
                const auto k = static_cast<std::size_t>(node);
                const Best b = best_of[static_cast<std::size_t>(node_best[k])];
                node_best[k] = -1;
                const auto c = static_cast<std::size_t>(sg.clique_cls[k]);
                for (VertexId x = sg.node_first[k]; x < sg.node_first[k + 1]; ++x)
                    if (dist[static_cast<std::size_t>(x)] < 0 || dist[static_cast<std::size_t>(x)] == d)
                        reach(static_cast<std::size_t>(x), d, b.lat + weight[c], b.cnt + inc[c]);
            }
            touched.clear();
        }
        LOOM_ASSERT(tail == n, "zero-load latency: topology is not connected");
        // Sums over compute destinations (the source adds 0 and is not a pair).
        std::int64_t sum = 0;
        std::int64_t ends = 0;
        std::array<std::int64_t, kClasses> hops{};
        for (std::size_t v = 0; v < n; ++v) {
            const std::uint64_t ep = endpoint[v];
            ends += static_cast<std::int64_t>(ep);
            sum += static_cast<std::int64_t>(ep) * best_of[v].lat;
            const std::uint64_t c = best_of[v].cnt * ep;
            for (std::size_t k = 0; k < kClasses; ++k) hops[k] += unpack(c, k);
        }
        for (std::size_t v = 0; v < n; ++v) {
            if (!endpoint[v] || v == static_cast<std::size_t>(s)) continue;
            const std::int64_t l = best_of[v].lat - forward_ps;
            if (l > out.worst_ps) {
                out.worst_ps = l;
                out.worst_src = s;
                out.worst_dst = static_cast<VertexId>(v);
                out.worst_counts = best_of[v].cnt;
            }
        }
        // Every destination's latency carries one forward too many (none at the destination).
        out.pairs += ends - 1;
        out.sum_ps += static_cast<LatencyTotals::u128>(sum - (ends - 1) * forward_ps);
        for (std::size_t k = 0; k < kClasses; ++k) out.class_hops[k] += hops[k];
    }
    return out;
}

ZeroLoadLatency zero_load_latency(const FrozenTopology& t, const LinkClassTiming& links, const ChipConfig& chip) {
    ZeroLoadLatency z;
    std::array<LinkTiming, kClasses> timing;
    for (LinkClass c : kAllLinkClasses) timing[index_of(c)] = links.timing(c);
    const Time forward = chip.forward_time();

    // Weight per hop of each class: serialization of one unit + link latency + one forward at the far end.
    std::array<std::int64_t, kClasses> weight{};
    for (LinkClass c : kAllLinkClasses) {
        const LinkTiming& lt = timing[index_of(c)];
        weight[index_of(c)] = (lt.serialization(1) + lt.latency() + forward).count();
    }
    std::vector<VertexId> sources;
    for (VertexId v = 0; v < t.num_vertices(); ++v)
        if (t.vertex(v).terminals > 0) sources.push_back(v);
    if (sources.size() < 2) return z;
    const SweepGraph sg = sweep_graph(t);

    // Large systems split the sources over two threads; totals merge in source order, so the result does not
    // depend on the split.
    LatencyTotals totals;
    if (sources.size() >= kThreadedSources) {
        const std::size_t mid = sources.size() / 2;
        LatencyTotals second;
        std::thread worker([&] { second = latency_sweep(t, sg, sources, mid, sources.size(), weight, forward.count()); });
        totals = latency_sweep(t, sg, sources, 0, mid, weight, forward.count());
        worker.join();
        totals.merge(second);
    } else {
        totals = latency_sweep(t, sg, sources, 0, sources.size(), weight, forward.count());
    }

    z.worst = Time::ps(totals.worst_ps);
    z.worst_src = totals.worst_src;
    z.worst_dst = totals.worst_dst;
    const auto pairs = static_cast<double>(totals.pairs);
    z.average_ns = static_cast<double>(totals.sum_ps) / pairs / 1e3;

    // Breakdown: worst path from its class counts, average from the summed class counts.
    std::int64_t worst_hops = 0;
    std::int64_t total_hops = 0;
    Time ser_worst;
    double ser_sum_ps = 0;
    for (std::size_t c = 0; c < kClasses; ++c) {
        const std::int64_t k = unpack(totals.worst_counts, c);
        worst_hops += k;
        total_hops += totals.class_hops[c];
        ser_worst += timing[c].serialization(1) * k;
        ser_sum_ps += static_cast<double>(timing[c].serialization(1).count()) * static_cast<double>(totals.class_hops[c]);
    }
    z.worst_hops = static_cast<std::int32_t>(worst_hops);
    z.worst_parts.emplace_back("serialization", ser_worst);
    z.average_parts_ns.emplace_back("serialization", ser_sum_ps / pairs / 1e3);
    for (LinkClass cls : kAllLinkClasses) {
        const std::size_t c = index_of(cls);
        if (totals.class_hops[c] == 0) continue;
        const std::int64_t k = unpack(totals.worst_counts, c);
        for (const LatencyPart& part : timing[c].latency_parts) {
            const std::string name = fmt::format("{}.{}", link_class_name(cls), part.name);
            z.worst_parts.emplace_back(name, part.value * k);
            z.average_parts_ns.emplace_back(
                name, static_cast<double>(part.value.count()) * static_cast<double>(totals.class_hops[c]) / pairs / 1e3);
        }
    }
    z.worst_parts.emplace_back("forwarding", forward * (worst_hops - 1));
    z.average_parts_ns.emplace_back("forwarding", static_cast<double>(forward.count()) *
                                                      static_cast<double>(total_hops - totals.pairs) / pairs / 1e3);
    return z;
}

std::string range_text(const char* word, std::int32_t lo, std::int32_t hi) {
    return lo == hi ? fmt::format("{} {}", word, lo) : fmt::format("{} {}-{}", word, lo, hi);
}

// The balanced cut: half the groups (racks, or nodes of system264), else half the nodes, else half the TSPs.
void compute_cut(const FrozenTopology& t, const LinkClassTiming& links, TopologyReport& r) {
    std::function<std::int32_t(VertexId)> side_key;
    std::int32_t units = 0;
    std::string word;
    if (t.num_groups() >= 2) {
        units = t.num_groups();
        side_key = [&t](VertexId v) { return t.vertex(v).group; };
        const VertexInfo& v0 = t.vertex(0);
        word = v0.rack >= 0 ? "racks" : (t.kind() == "dragonfly" ? "groups" : "nodes");
    } else if (t.num_nodes() >= 2) {
        units = t.num_nodes();
        side_key = [&t](VertexId v) { return t.vertex(v).node; };
        word = "nodes";
    } else {
        units = t.num_vertices();
        side_key = [](VertexId v) { return v; };
        word = t.kind() == "dragonfly" ? "routers" : "tsps";
    }
    if (units < 2) {
        r.cut = "none";
        return;
    }
    const std::int32_t half = units / 2;
    r.cut = range_text(word.c_str(), 0, half - 1) + " | " + range_text(word.c_str(), half, units - 1).substr(word.size() + 1);
    std::array<double, kClasses> payload{};
    for (LinkClass c : kAllLinkClasses) payload[index_of(c)] = links.timing(c).payload_bytes_per_s();
    for (ChannelId c = 0; c < t.num_channels(); c += 2) {
        const Channel& ch = t.channel(c);
        if ((side_key(ch.src) < half) != (side_key(ch.dst) < half)) {
            ++r.cut_links;
            r.cut_bytes_per_s += payload[index_of(ch.link_class)];
        }
    }
}

void compute_ports(const FrozenTopology& t, TopologyReport& r) {
    std::vector<std::string> names;
    std::vector<std::size_t> classes;
    for (LinkClass c : kAllLinkClasses)
        if (t.link_count(c) > 0) {
            names.emplace_back(link_class_name(c));
            classes.push_back(index_of(c));
        }
    names.emplace_back("global");
    names.emplace_back("total");
    std::vector<PortRange> ranges(names.size(), PortRange{INT32_MAX, 0});
    for (VertexId v = 0; v < t.num_vertices(); ++v) {
        std::array<std::int32_t, kClasses> n{};
        std::int32_t global = 0;
        for (ChannelId c : t.out_channels(v)) {
            const LinkClass cls = t.channel(c).link_class;
            ++n[index_of(cls)];
            if (!is_local_class(cls)) ++global;
        }
        std::vector<std::int32_t> values;
        for (std::size_t c : classes) values.push_back(n[c]);
        values.push_back(global);
        values.push_back(static_cast<std::int32_t>(t.out_channels(v).size()));
        for (std::size_t i = 0; i < values.size(); ++i) {
            ranges[i].min = std::min(ranges[i].min, values[i]);
            ranges[i].max = std::max(ranges[i].max, values[i]);
        }
    }
    if (t.num_vertices() == 0) ranges.assign(names.size(), PortRange{});
    for (std::size_t i = 0; i < names.size(); ++i) r.ports_per_tsp.emplace_back(names[i], ranges[i]);
}

double ns(Time t) { return static_cast<double>(t.count()) / 1e3; }

}  // namespace

TopologyReport make_topology_report(const FrozenTopology& t, const LinkClassTiming& links, const ChipConfig& chip,
                                    const ReportOptions& options) {
    TopologyReport r;
    r.kind = t.kind();
    r.tsps = t.num_vertices();
    r.compute_tsps = t.num_compute_vertices();
    r.nodes = t.num_nodes();
    r.racks = t.num_racks();
    r.groups = t.num_groups();
    r.links_total = t.num_links();
    for (LinkClass c : kAllLinkClasses) r.links[index_of(c)] = t.link_count(c);
    compute_ports(t, r);
    r.hops = vertex_hops(t);
    r.node_hops = node_hops(t);
    r.memory_per_tsp = chip.memory;
    r.global_memory_bytes = r.compute_tsps * chip.memory.count();
    compute_cut(t, links, r);
    r.latency_computed = options.latency;
    if (options.latency) r.latency = zero_load_latency(t, links, chip);
    return r;
}

config::Json to_json(const TopologyReport& r, const FrozenTopology& t) {
    config::Json j;
    j["kind"] = r.kind;
    j["tsps"] = r.tsps;
    j["compute_tsps"] = r.compute_tsps;
    j["nodes"] = r.nodes;
    j["racks"] = r.racks;
    j["groups"] = r.groups;
    config::Json links = config::Json::object();
    for (LinkClass c : kAllLinkClasses)
        if (r.links[index_of(c)] > 0) links[std::string(link_class_name(c))] = r.links[index_of(c)];
    links["total"] = r.links_total;
    j["links"] = links;
    config::Json ports = config::Json::object();
    for (const auto& [name, range] : r.ports_per_tsp) ports[name] = {{"min", range.min}, {"max", range.max}};
    j["ports_per_tsp"] = ports;
    j["diameter_hops"] = r.hops.diameter;
    j["avg_hops"] = r.hops.average;
    j["hop_histogram"] = r.hops.histogram;
    j["node_diameter_hops"] = r.node_hops.diameter;
    j["node_avg_hops"] = r.node_hops.average;
    j["memory_per_tsp_bytes"] = r.memory_per_tsp.count();
    j["global_memory_bytes"] = r.global_memory_bytes;
    j["global_memory_gib"] = static_cast<double>(r.global_memory_bytes) / static_cast<double>(1LL << 30);
    j["global_memory_tb"] = static_cast<double>(r.global_memory_bytes) / 1e12;
    j["cut"] = r.cut;
    j["cut_links"] = r.cut_links;
    j["cut_bytes_per_s"] = r.cut_bytes_per_s;
    if (!r.latency_computed) return j;
    const ZeroLoadLatency& z = r.latency;
    j["latency_worst_ps"] = z.worst.count();
    j["latency_worst_ns"] = ns(z.worst);
    j["latency_worst_hops"] = z.worst_hops;
    j["latency_avg_ns"] = z.average_ns;
    if (r.compute_tsps >= 2)
        j["latency_worst_pair"] = {t.vertex_name(z.worst_src), t.vertex_name(z.worst_dst)};
    config::Json worst = config::Json::object();
    config::Json avg = config::Json::object();
    for (const auto& [name, value] : z.worst_parts) worst[name] = ns(value);
    for (const auto& [name, value] : z.average_parts_ns) avg[name] = value;
    j["latency_breakdown"] = {{"worst_ns", worst}, {"avg_ns", avg}};
    return j;
}

std::string to_text(const TopologyReport& r, const FrozenTopology& t) {
    std::string s;
    auto line = [&s](const std::string& key, const std::string& value) { s += fmt::format("{:<22} {}\n", key, value); };
    line("kind", r.kind);
    line("tsps", fmt::format("{} ({} compute)", r.tsps, r.compute_tsps));
    line("nodes", std::to_string(r.nodes));
    line("racks", std::to_string(r.racks));
    std::string links = fmt::format("{}", r.links_total);
    for (LinkClass c : kAllLinkClasses)
        if (r.links[index_of(c)] > 0) links += fmt::format("  {}={}", link_class_name(c), r.links[index_of(c)]);
    line("links", links);
    std::string ports;
    for (const auto& [name, range] : r.ports_per_tsp)
        ports += fmt::format("{}{}={}..{}", ports.empty() ? "" : "  ", name, range.min, range.max);
    line("ports per tsp", ports);
    line("diameter hops", fmt::format("{} (avg {:.4f})", r.hops.diameter, r.hops.average));
    line("node diameter hops", fmt::format("{} (avg {:.4f})", r.node_hops.diameter, r.node_hops.average));
    line("global memory", fmt::format("{} bytes = {:.1f} GiB = {:.3f} TB", r.global_memory_bytes,
                                      static_cast<double>(r.global_memory_bytes) / static_cast<double>(1LL << 30),
                                      static_cast<double>(r.global_memory_bytes) / 1e12));
    line("cut", fmt::format("{}: {} links, {:.4g} GB/s one way", r.cut, r.cut_links, r.cut_bytes_per_s / 1e9));
    if (r.latency_computed && r.compute_tsps >= 2) {
        line("latency worst", fmt::format("{:.2f} ns over {} hops ({} -> {})", ns(r.latency.worst), r.latency.worst_hops,
                                          t.vertex_name(r.latency.worst_src), t.vertex_name(r.latency.worst_dst)));
        for (const auto& [name, value] : r.latency.worst_parts) line("  " + name, fmt::format("{:.2f} ns", ns(value)));
        line("latency avg", fmt::format("{:.2f} ns", r.latency.average_ns));
        for (const auto& [name, value] : r.latency.average_parts_ns) line("  " + name, fmt::format("{:.2f} ns", value));
    }
    return s;
}

std::string to_dot(const FrozenTopology& t) {
    const bool by_group = t.kind() == "dragonfly";
    std::string s = fmt::format("graph loom {{\n  // {}: {} vertices, {} links\n  node [shape=box];\n", t.kind(),
                                t.num_vertices(), t.num_links());
    VertexId v = 0;
    while (v < t.num_vertices()) {
        const std::int32_t key = by_group ? t.vertex(v).group : t.vertex(v).node;
        const std::string name = t.vertex_name(v);
        const std::string cluster = name.substr(0, name.rfind('.'));
        s += fmt::format("  subgraph cluster_{} {{\n    label=\"{}\";\n", key, cluster);
        for (; v < t.num_vertices() && (by_group ? t.vertex(v).group : t.vertex(v).node) == key; ++v) {
            const VertexInfo& i = t.vertex(v);
            s += fmt::format("    v{} [label=\"{}\"{}];\n", v, t.vertex_name(v).substr(cluster.size() + 1),
                             i.spare ? ", style=dashed" : "");
        }
        s += "  }\n";
    }
    auto colour = [](LinkClass c) {
        switch (c) {
            case LinkClass::InNode: return "gray50";
            case LinkClass::InRack: return "blue";
            case LinkClass::RackToRack: return "red";
            case LinkClass::Local: return "gray50";
            case LinkClass::Global: return "red";
        }
        return "black";
    };
    for (ChannelId c = 0; c < t.num_channels(); c += 2) {
        const Channel& ch = t.channel(c);
        s += fmt::format("  v{} -- v{} [color={}, tooltip=\"{} p{}-p{}\"];\n", ch.src, ch.dst, colour(ch.link_class),
                         link_class_name(ch.link_class), ch.src_port, ch.dst_port);
    }
    s += "}\n";
    return s;
}

}  // namespace loom::topo
