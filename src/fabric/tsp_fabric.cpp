#include "loom/fabric/tsp_fabric.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "loom/fabric/routing_tables.hpp"

namespace loom::fabric {

config::Schema<TspFabricConfig> tsp_fabric_schema() {
    using F = TspFabricConfig;
    const std::vector<std::pair<std::string, AllocatorKind>> allocators{
        {"separable_input_first", AllocatorKind::SeparableInputFirst}, {"islip", AllocatorKind::Islip}};
    config::Schema<F> s("The dynamically routed network that runs the same transfers for `loom schedule --compare "
                        "dynamic`: VC routers on the TSP topology, clock, channel latencies and pipeline derived "
                        "from the links and the chip.");
    s.field("vcs", &F::vcs, "Virtual channels per port; 0: as many as the routing function needs.").range(0, 16);
    s.field("vc_buffer_flits", &F::vc_buffer_flits, "Input buffer depth of each virtual channel.").range(1, 1 << 20);
    s.field("credit_delay_cycles", &F::credit_delay_cycles,
            "Cycles from a flit leaving an input buffer to its credit leaving upstream.")
        .range(0, 1'000'000);
    s.field("internal_speedup", &F::internal_speedup, "Switch allocation rounds per cycle.").range(1.0, 16.0);
    s.choice("vc_allocator", &F::vc_allocator, allocators, "VC allocator.");
    s.choice("sw_allocator", &F::sw_allocator, allocators, "Switch allocator.");
    s.field("alloc_iterations", &F::alloc_iterations, "Iterations of both allocators per round.").range(1, 16);
    s.field("flit_bytes", &F::flit_bytes, "Payload per flit; 0: one vector (links.unit_payload).")
        .range(Bytes(0), Bytes(1 << 20));
    s.field("packet_flits", &F::packet_flits, "Flits per packet (a transfer's last packet may be shorter).")
        .range(1, 1 << 16);
    s.choice("injection_order", &F::injection_order,
             {{"random", InjectionOrder::Random}, {"round_robin", InjectionOrder::RoundRobin}},
             "Which of its transfers an endpoint sends the next packet of: at random (seeded) or round robin.");
    s.field("seeds", &F::seeds, "Dynamic runs per routing function (seeds seed, seed+1, ...).").range(1, 1000);
    return s;
}

std::optional<std::vector<RoutingKind>> parse_routing_list(const std::string& text, std::string* error) {
    std::vector<RoutingKind> out;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        const std::string name = text.substr(at, comma - at);
        RoutingKind kind;
        if (name == "minimal" || name == "min")
            kind = RoutingKind::Minimal;
        else if (name == "valiant")
            kind = RoutingKind::Valiant;
        else if (name == "ugal_l" || name == "ugal")
            kind = RoutingKind::UgalLocal;
        else {
            if (error != nullptr)
                *error = fmt::format("expected a comma-separated list of minimal|min, valiant, ugal_l|ugal, got '{}'",
                                     name);
            return std::nullopt;
        }
        if (std::find(out.begin(), out.end(), kind) == out.end()) out.push_back(kind);
        at = comma + 1;
    }
    return out;
}

config::Schema<TspRoutingConfig> tsp_routing_schema() {
    using R = TspRoutingConfig;
    config::Schema<R> s("Routing functions of the dynamic network compared with the schedule.");
    s.field("functions", &R::functions,
            "Comma-separated routing functions compared, in order: minimal (min), valiant, ugal_l (ugal).");
    s.field("ugal_threshold_flits", &R::ugal_threshold_flits,
            "UGAL-L routes minimally when q_min * H_min <= q_nonmin * H_nonmin + threshold.")
        .range(-1'000'000, 1'000'000);
    s.check("functions", [](const R& r) -> std::optional<std::string> {
        std::string error;
        if (!parse_routing_list(r.functions, &error)) return error;
        return std::nullopt;
    });
    return s;
}

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// The topology with `terminals` set to the wired ports of every compute vertex (0 on spares).
topo::FrozenTopology with_port_terminals(const topo::FrozenTopology& t) {
    std::vector<topo::VertexInfo> vertices = t.vertices();
    std::vector<std::int32_t> ports(static_cast<std::size_t>(t.num_vertices()));
    for (topo::VertexId v = 0; v < t.num_vertices(); ++v) {
        ports[static_cast<std::size_t>(v)] = t.num_ports(v);
        topo::VertexInfo& info = vertices[static_cast<std::size_t>(v)];
        if (info.terminals > 0) info.terminals = std::max<std::int32_t>(1, static_cast<std::int32_t>(t.out_channels(v).size()));
    }
    std::vector<topo::LinkSpec> links;
    links.reserve(static_cast<std::size_t>(t.num_links()));
    for (topo::LinkId l = 0; l < t.num_links(); ++l) {
        const topo::Channel& c = t.channel(2 * l);
        links.push_back(topo::LinkSpec{c.src, c.src_port, c.dst, c.dst_port, c.link_class});
    }
    return topo::FrozenTopology(t.kind(), std::move(vertices), std::move(ports), links);
}

}  // namespace

std::int32_t classes_needed(const topo::FrozenTopology& topology, RoutingKind kind) {
    const RoutingTables tables(topology);
    RoutingConfig rc;
    rc.function = kind;
    return make_routing_function(rc, tables)->classes();
}

TspFabricMapping map_tsp_system(const topo::FrozenTopology& topology, const topo::LinkClassTiming& links,
                                const topo::ChipConfig& chip, const TspFabricConfig& config,
                                std::int32_t vcs_needed) {
    TspFabricMapping m{with_port_terminals(topology), FabricConfig{}, TransferOptions{}, Time{}, Bandwidth{}, false, 0};
    const Bytes flit = config.flit_bytes.count() > 0 ? config.flit_bytes : links.unit_payload;
    // Framing as the links frame a vector (328 wire bytes per 320), rounded up to whole bytes.
    const std::int64_t wire_bits =
        8 * ceil_div(flit.count() * links.unit_wire.count(), links.unit_payload.count());

    Bandwidth fastest, slowest = Bandwidth::bps(INT64_MAX);
    for (topo::LinkClass c : topo::kAllLinkClasses) {
        if (topology.link_count(c) == 0) continue;
        const Bandwidth r = links.timing(c).rate;
        fastest = std::max(fastest, r);
        slowest = std::min(slowest, r);
    }
    if (fastest.bits_per_s() == 0) fastest = slowest = links.timing(topo::LinkClass::InNode).rate;
    __extension__ using i128 = __int128;
    const std::int64_t period = static_cast<std::int64_t>(
        (static_cast<i128>(wire_bits) * 1'000'000'000'000LL + fastest.bits_per_s() - 1) / fastest.bits_per_s());
    m.cycle = Time::ps(period);
    m.rate = fastest;
    m.rates_differ = slowest < fastest;

    FabricConfig& f = m.fabric;
    f.cycle_period = m.cycle;
    f.flit_bytes = flit;
    for (topo::LinkClass c : topo::kAllLinkClasses)
        f.class_latency_cycles[topo::index_of(c)] = std::max<std::int64_t>(1, ceil_div(links.timing(c).latency().count(), period));
    f.local_latency_cycles = f.latency_cycles(topo::LinkClass::InRack);
    f.global_latency_cycles = f.latency_cycles(topo::LinkClass::RackToRack);
    f.terminal_latency_cycles = 1;
    m.forward_cycles = std::max<std::int64_t>(3, ceil_div(chip.forward_time().count(), period));
    f.routing_cycles = 0;
    f.vc_alloc_cycles = 1;
    f.sw_alloc_cycles = 1;
    f.st_cycles = m.forward_cycles - 2;
    f.vcs = config.vcs > 0 ? config.vcs : std::max<std::int32_t>(1, vcs_needed);
    f.vc_buffer_flits = config.vc_buffer_flits;
    f.credit_delay_cycles = config.credit_delay_cycles;
    f.internal_speedup = config.internal_speedup;
    f.vc_allocator = config.vc_allocator;
    f.sw_allocator = config.sw_allocator;
    f.alloc_iterations = config.alloc_iterations;
    // router_clock is unused when cycle_period is set; keep it the nearest whole Hz for reports.
    f.router_clock = Frequency::hz(std::max<std::int64_t>(1'000, (1'000'000'000'000LL + period / 2) / period));

    m.transfer.flit_bytes = flit;
    m.transfer.packet_flits = config.packet_flits;
    m.transfer.order = config.injection_order;
    return m;
}

}  // namespace loom::fabric
