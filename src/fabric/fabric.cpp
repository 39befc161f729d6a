#include "loom/fabric/fabric.hpp"

#include <algorithm>
#include <chrono>
#include <deque>

#include <fmt/format.h>

#include "loom/base/error.hpp"
#include "loom/fabric/fabric_stat_declarations.hpp"
#include "loom/fabric/flit.hpp"
#include "loom/fabric/monitor.hpp"
#include "loom/fabric/router.hpp"
#include "loom/fabric/terminal.hpp"
#include "loom/sim/channel.hpp"
#include "loom/stats/group.hpp"

namespace loom::fabric {

void parse(const config::Json& root, FabricModelConfig& out, config::Errors& errors) {
    if (!root.is_object()) return;
    if (root.contains("topology")) topo::dragonfly_schema().parse(root.at("topology"), "/topology", out.topology, errors);
    if (root.contains("fabric")) fabric_schema().parse(root.at("fabric"), "/fabric", out.fabric, errors);
    if (root.contains("routing")) routing_schema().parse(root.at("routing"), "/routing", out.routing, errors);
    if (root.contains("traffic")) workload::traffic_schema().parse(root.at("traffic"), "/traffic", out.traffic, errors);
}

FabricModel::FabricModel(sim::Simulator& sim, std::unique_ptr<topo::FrozenTopology> topology,
                         std::unique_ptr<RoutingTables> tables, std::unique_ptr<RoutingFunction> routing,
                         std::unique_ptr<workload::TrafficPattern> pattern, std::unique_ptr<FabricSetup> net)
    : sim_(sim), topology_(std::move(topology)), tables_(std::move(tables)), routing_(std::move(routing)),
      pattern_(std::move(pattern)), net_(std::move(net)) {
    add_probes();
}

FabricModel::~FabricModel() = default;

std::unique_ptr<FabricModel> build(topo::FrozenTopology topology, const FabricConfig& fabric,
                                   const RoutingConfig& routing, const workload::TrafficConfig& traffic,
                                   sim::Simulator& sim, config::Errors& errors, const workload::TrafficTrace* trace,
                                   const TransferRun* transfers) {
    const std::size_t before = errors.size();
    workload::TrafficConfig closed_loop;
    const workload::TrafficTrace no_messages;
    if (transfers != nullptr) {
        // Transfers replace the traffic section: a trace run with no messages (no warm-up, every packet measured,
        // the run ends when the network is empty), packets cut at the transfer options' length.
        closed_loop.pattern = workload::TrafficPatternKind::Trace;
        closed_loop.rate = 0;
        closed_loop.packet_flits = transfers->options.packet_flits;
        closed_loop.measurement = traffic.measurement;
        trace = &no_messages;
        for (std::size_t i = 0; i < transfers->set->transfers.size(); ++i) {
            const workload::Transfer& x = transfers->set->transfers[i];
            auto endpoint = [&](topo::VertexId v, const std::string& field) {
                if (v < 0 || v >= topology.num_vertices() || topology.vertex(v).terminals <= 0)
                    errors.add(fmt::format("/workload/transfers/{}/{}", i, field),
                               fmt::format("TSP {} has no terminal in the dynamic network (a spare or not a TSP)", v));
            };
            endpoint(x.src, "src");
            for (std::size_t d = 0; d < x.dsts.size(); ++d) endpoint(x.dsts[d], fmt::format("dsts/{}", d));
        }
        if (errors.size() != before) return nullptr;
    }
    const workload::TrafficConfig& traffic_used = transfers != nullptr ? closed_loop : traffic;
    auto topo = std::make_unique<topo::FrozenTopology>(std::move(topology));
    for (topo::VertexId v = 0; v < topo->num_vertices(); ++v) {
        const std::int64_t ports = std::int64_t{topo->num_ports(v)} + std::max(0, topo->vertex(v).terminals);
        if (ports > 64) {
            errors.add("/topology", fmt::format("router {} has {} ports (network and terminal), at most 64 are "
                                                "supported",
                                                topo->vertex_name(v), ports));
            return nullptr;
        }
    }
    auto tables = std::make_unique<RoutingTables>(*topo);
    auto fn = make_routing_function(routing, *tables);
    if (fabric.vcs < fn->classes()) {
        errors.add("/fabric/vcs",
                   fmt::format("{} routing needs {} virtual channels on this {} topology ({}), got {}",
                               routing_name(routing.function), fn->classes(), topo->kind(),
                               tables->scheme() == VcClassScheme::GlobalHops
                                   ? "one class per global hop taken, plus one"
                                   : "one class per hop of the longest route",
                               fabric.vcs));
    }
    workload::TrafficPattern::validate(traffic_used, *topo, "/traffic", errors);
    workload::TrafficTrace loaded;
    if (traffic_used.pattern == workload::TrafficPatternKind::Trace) {
        if (trace == nullptr) {
            try {
                loaded = workload::TrafficTrace::load(traffic_used.trace);
                trace = &loaded;
            } catch (const ConfigError& e) {
                for (const auto& m : e.messages()) errors.add("/traffic/trace", m);
            } catch (const InputError& e) {
                errors.add("/traffic/trace", e.what());
            }
        }
    }
    if (errors.size() != before) return nullptr;
    auto pattern = std::make_unique<workload::TrafficPattern>(traffic_used, *topo, derive(sim.seed(), std::string_view("fabric.traffic")));
    if (trace != nullptr) {
        const auto problems = trace->problems(pattern->terminals());
        for (const auto& p : problems) errors.add("/traffic/trace", p);
        if (!problems.empty()) return nullptr;
    }
    auto net = std::make_unique<FabricSetup>(*topo, *tables, *fn, *pattern, fabric, traffic_used);
    auto model = std::make_unique<FabricModel>(sim, std::move(topo), std::move(tables), std::move(fn),
                                               std::move(pattern), std::move(net));
    FabricSetup& n = *model->net_;
    const topo::FrozenTopology& t = *model->topology_;
    if (transfers != nullptr) {
        model->book_ = std::make_unique<TransferBook>(*transfers->set, transfers->options, n.clock);
        model->book_->count_shares(t);
        n.transfers = model->book_.get();
    }

    // Components: the monitor, routers by vertex, terminals by id, created in the order construction_order
    // gives (the written one unless shuffled: their source ids come from their paths, not from this order).
    std::vector<std::vector<workload::TraceMessage>> per_terminal(static_cast<std::size_t>(n.pattern.terminals()));
    if (trace != nullptr)
        for (const auto& m : trace->messages()) per_terminal[static_cast<std::size_t>(m.src)].push_back(m);
    const auto num_routers = static_cast<std::uint32_t>(t.num_vertices());
    const auto num_terminals = static_cast<std::uint32_t>(n.pattern.terminals());
    // The clock that ticks every router and terminal (RouterClock): one kernel event per cycle with one due.
    model->clock_ = &sim.add<RouterClock>("fabric.clock", n);
    model->routers_.assign(num_routers, nullptr);
    model->terminals_.assign(num_terminals, nullptr);
    for (const std::uint32_t k : sim.construction_order(1 + num_routers + num_terminals, "fabric")) {
        if (k == 0) {
            model->monitor_ = &sim.add<Monitor>("fabric.monitor", n);
        } else if (k <= num_routers) {
            const auto v = static_cast<topo::VertexId>(k - 1);
            model->routers_[k - 1] = &sim.add<Router>("fabric." + t.vertex_name(v), n, v);
        } else {
            const auto id = static_cast<std::int32_t>(k - 1 - num_routers);
            const topo::VertexId v = n.pattern.router_of(id);
            model->terminals_[static_cast<std::size_t>(id)] = &sim.add<Terminal>(
                fmt::format("fabric.{}.term{}", t.vertex_name(v), id - n.pattern.first_terminal(v)), n, id,
                std::move(per_terminal[static_cast<std::size_t>(id)]));
        }
    }

    // Channels: every directed channel is a flit line one way and a credit line back, each with the class's
    // latency. Their wake-ups travel on one channel whose endpoints are the routers (by vertex), then the
    // terminals (by id); its minimum latency is the shortest line's. Each line's sender end is in its sender's
    // port record (PortOut, one cache line): a router port's output channel, the flit line it pushes onto it and
    // the credit line it returns for the flits arriving on the port; its reader end (LineReader) is the
    // receiver's, attached to it by the sender's record's index before the run. The records are laid out by
    // router and port, then one per terminal (its injection line); every port has its record (an unwired one's
    // is never used), so a router finds its own by port number.
    const std::size_t routers = model->routers_.size();
    std::vector<std::uint32_t> first_port(routers + 1, 0);
    for (std::size_t v = 0; v < routers; ++v)
        first_port[v + 1] = first_port[v] + static_cast<std::uint32_t>(model->routers_[v]->ports());
    const std::uint32_t router_ports = first_port[routers];
    const auto terminal_count = static_cast<std::size_t>(n.pattern.terminals());
    LOOM_ASSERT(router_ports + terminal_count < (std::size_t{1} << 32), "the fabric has at most 2^32 ports");
    model->links_ = std::vector<PortOut>(router_ports + terminal_count);
    std::vector<PortOut>& links = model->links_;
    // The record of router v's port q, and of terminal id's injection.
    auto port_of = [&](topo::VertexId v, std::int32_t q) {
        return first_port[static_cast<std::size_t>(v)] + static_cast<std::uint32_t>(q);
    };
    auto injection_of = [&](std::int32_t id) { return router_ports + static_cast<std::uint32_t>(id); };
    std::int64_t shortest = n.config.terminal_latency_cycles;
    for (topo::ChannelId c = 0; c < t.num_channels(); ++c)
        shortest = std::min(shortest, n.config.latency_cycles(t.channel(c).link_class));
    sim::Channel& wakes = sim.add_channel("fabric.wake", static_cast<std::uint32_t>(routers) +
                                                             static_cast<std::uint32_t>(n.pattern.terminals()),
                                          n.clock.min_span(Cycles(shortest)));
    // The records the lines carry are their receivers', read in their ticks: the clock's handler.
    model->ring_pool_.bind_reader(model->clock_->ctx());
    for (std::size_t v = 0; v < routers; ++v) {
        model->routers_[v]->wake_port().attach(wakes, static_cast<std::uint32_t>(v));
        model->routers_[v]->use_pool(model->ring_pool_);
        model->routers_[v]->use_clock(*model->clock_);
        model->routers_[v]->use_links(links.data(), first_port[v]);
    }
    auto terminal_endpoint = [&](std::int32_t id) { return static_cast<std::uint32_t>(routers) + static_cast<std::uint32_t>(id); };
    for (std::int32_t id = 0; id < n.pattern.terminals(); ++id) {
        model->terminals_[static_cast<std::size_t>(id)]->wake_port().attach(wakes, terminal_endpoint(id));
        model->terminals_[static_cast<std::size_t>(id)]->use_clock(*model->clock_);
    }
    model->clock_->set_units(model->routers_, model->terminals_);
    for (topo::ChannelId c = 0; c < t.num_channels(); ++c) {
        const topo::Channel& ch = t.channel(c);
        Router& a = *model->routers_[static_cast<std::size_t>(ch.src)];
        Router& b = *model->routers_[static_cast<std::size_t>(ch.dst)];
        // a pushes the flits, b returns their credits on its port's record.
        const std::uint32_t from = port_of(ch.src, ch.src_port), to = port_of(ch.dst, ch.dst_port);
        a.attach_output(ch.src_port, to);
        b.attach_input(ch.dst_port, from);
        links[from].flits.bind(static_cast<std::uint32_t>(ch.dst), Router::flit_wake_arg(ch.dst_port));
        links[to].credits.bind(static_cast<std::uint32_t>(ch.src), Router::credit_wake_arg(ch.src_port));
    }
    // The monitor sums every router's and terminal's counts at its sample boundaries; it opens the measurement
    // window and hears of the marked packets ejected after it by messages (Monitor).
    for (const Router* r : model->routers_) model->monitor_->watch(r->counters());
    for (const Terminal* term : model->terminals_) {
        model->monitor_->watch(term->counters());
        model->monitor_->watch_marked(*term);
    }
    const auto monitor_endpoint = static_cast<std::uint32_t>(n.pattern.terminals());
    sim::Channel& measure = sim.add_channel("fabric.measure", monitor_endpoint + 1, n.clock.min_span(Cycles(1)));
    model->monitor_->measure_port().attach(measure, monitor_endpoint);
    for (Terminal* term : model->terminals_) term->attach_measure(measure, monitor_endpoint);
    if (transfers != nullptr) {
        // Completion notices: any terminal to any, one cycle at least (TransferBook).
        sim::Channel& notices = sim.add_channel("fabric.transfers", static_cast<std::uint32_t>(n.pattern.terminals()),
                                                n.clock.min_span(Cycles(1)));
        for (Terminal* term : model->terminals_) term->attach_notices(notices);
    }
    for (std::int32_t id = 0; id < n.pattern.terminals(); ++id) {
        Terminal& term = *model->terminals_[static_cast<std::size_t>(id)];
        const topo::VertexId v = n.pattern.router_of(id);
        Router& r = *model->routers_[static_cast<std::size_t>(v)];
        const std::int32_t q = r.terminal_port(id - n.pattern.first_terminal(v));
        // The terminal pushes its injection line; the router's port pushes the ejection line and the credits.
        PortOut& port = links[port_of(v, q)];
        FlitLink& injection = links[injection_of(id)].flits;
        term.attach(injection, port.credits, port.flits, model->ring_pool_);
        r.attach_input(q, injection_of(id));
        injection.bind(static_cast<std::uint32_t>(v), Router::flit_wake_arg(q));
        port.credits.bind(terminal_endpoint(id), Terminal::kCreditWake);
        port.flits.bind(terminal_endpoint(id), Terminal::kEjectionWake);
    }
    return model;
}

std::unique_ptr<FabricModel> build(const FabricModelConfig& config, sim::Simulator& sim, config::Errors& errors) {
    const std::size_t before = errors.size();
    topo::validate(config.topology, "/topology", errors);
    if (errors.size() != before) return nullptr;
    return build(topo::build_dragonfly(config.topology), config.fabric, config.routing, config.traffic, sim, errors);
}

std::unique_ptr<sim::ModelInstance> build(const config::Json& root, sim::Simulator& sim, config::Errors& errors) {
    FabricModelConfig config;
    const std::size_t before = errors.size();
    parse(root, config, errors);
    if (errors.size() != before) return nullptr;
    return build(config, sim, errors);
}

// ---- end of run ------------------------------------------------------------------------------------------

namespace {

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

}  // namespace

std::vector<std::string> FabricModel::conservation_problems() const {
    const FabricSetup& n = *net_;
    const topo::FrozenTopology& t = *topology_;
    const std::int32_t vcs = n.config.vcs;
    const std::int32_t depth = n.config.vc_buffer_flits;

    auto flits_on = [](const LineReader& line, std::int32_t vc) {
        std::int64_t k = 0;
        line.for_each_payload([&](std::uint32_t p) { k += static_cast<std::int32_t>(Flit::vc_of(p)) == vc; });
        return k;
    };
    auto credits_on = [](const LineReader& line, std::int32_t vc) {
        std::int64_t k = 0;
        line.for_each_payload([&](std::uint32_t p) { k += static_cast<std::int32_t>(p) == vc; });
        return k;
    };

    std::vector<std::string> problems;
    auto report = [&](std::string what) {
        if (problems.size() < 20) problems.push_back(std::move(what));
    };
    std::int64_t buffered = 0, flying = 0;
    for (const Router* r : routers_) {
        buffered += r->buffered_flits();
        for (std::int32_t q = 0; q < r->ports(); ++q)
            if (r->wired(q)) flying += r->input_line(q).size();
    }
    for (const Terminal* term : terminals_) flying += term->ejection_line().size();
    const FabricCounters c = totals();
    if (c.flits_injected - c.flits_ejected != buffered + flying)
        report(fmt::format("flits: {} injected - {} ejected = {} in the network, but {} are buffered and {} on "
                           "channels",
                           c.flits_injected, c.flits_ejected, c.flits_injected - c.flits_ejected, buffered, flying));

    auto check = [&](const std::string& where, std::int32_t vc, std::int64_t credits, std::int64_t buf,
                     std::int64_t flits, std::int64_t back) {
        if (credits + buf + flits + back != depth)
            report(fmt::format("credits of {} vc {}: {} held + {} buffered + {} flits and {} credits in flight = {}, "
                               "expected {}",
                               where, vc, credits, buf, flits, back, credits + buf + flits + back, depth));
    };
    for (topo::ChannelId ch = 0; ch < t.num_channels(); ++ch) {
        const topo::Channel& x = t.channel(ch);
        const Router& a = *routers_[static_cast<std::size_t>(x.src)];
        const Router& b = *routers_[static_cast<std::size_t>(x.dst)];
        for (std::int32_t vc = 0; vc < vcs; ++vc)
            check(a.path() + fmt::format(".port{}", x.src_port), vc, a.credits(x.src_port, vc),
                  b.buffered(x.dst_port, vc), flits_on(b.input_line(x.dst_port), vc),
                  credits_on(*a.credit_line(x.src_port), vc));
    }
    for (const Terminal* term : terminals_) {
        const topo::VertexId v = n.pattern.router_of(term->id());
        const Router& r = *routers_[static_cast<std::size_t>(v)];
        const std::int32_t q = r.terminal_port(term->id() - n.pattern.first_terminal(v));
        for (std::int32_t vc = 0; vc < vcs; ++vc)
            check(term->path(), vc, term->credits(vc), r.buffered(q, vc), flits_on(r.input_line(q), vc),
                  credits_on(term->credit_line(), vc));
    }
    // Flits left with nothing pending to move them: a deadlock (runs with Bernoulli traffic never run dry).
    if (sim_.pending() == 0 && buffered + flying > 0)
        report(fmt::format("deadlock: no event pending and {} flits buffered, {} on channels", buffered, flying));
    if (book_ && sim_.pending() == 0 && !book_->all_completed())
        report(fmt::format("transfers: {} of {} completed and no event pending", book_->completed(), book_->size()));
    return problems;
}

FabricCounters FabricModel::totals() const {
    FabricCounters t;
    for (const Router* r : routers_) t.add(r->counters());
    for (const Terminal* term : terminals_) t.add(term->counters());
    return t;
}

MarkedStats FabricModel::marked() const {
    MarkedStats m;
    for (const Terminal* term : terminals_) m.add(term->marked());
    return m;
}

stats::Json FabricModel::summary() const {
    const FabricSetup& n = *net_;
    const FabricStats& s = monitor_->stats();
    const MarkedStats ms = marked();      // every terminal's
    const FabricCounters total = totals();  // every router's and terminal's
    const topo::FrozenTopology& t = *topology_;
    const bool trace = n.traffic.pattern == workload::TrafficPatternKind::Trace;
    const std::int64_t now_cycle = n.clock.edge_at_or_before(Time::ps(sim_.now_ps()));
    const double terminals = static_cast<double>(n.pattern.terminals());

    stats::Json j;
    j["routing"] = std::string(routing_name(routing_->kind()));
    j["pattern"] = book_ ? std::string("transfers") : std::string(workload::traffic_pattern_name(n.traffic.pattern));
    j["terminals"] = n.pattern.terminals();
    j["routers"] = t.num_vertices();
    j["vcs"] = n.config.vcs;
    j["vc_classes"] = n.classes;
    j["cycle_ps"] = n.clock.period_ceil().count();
    j["flits_generated"] = total.flits_generated;
    j["flits_injected"] = total.flits_injected;
    j["flits_ejected"] = total.flits_ejected;
    j["flits_in_network"] = total.flits_injected - total.flits_ejected;
    j["packets_ejected"] = total.packets_ejected;
    j["flit_hops"] = total.flit_hops;
    if (n.config.noisy_links()) {
        j["link_fec_corrected"] = total.flit_noise.corrected;
        j["link_retries"] = total.flit_noise.retried;
        j["credit_fec_corrected"] = total.credit_noise.corrected;
        j["credit_retries"] = total.credit_noise.retried;
    }
    std::int64_t queued = 0;
    for (const Terminal* term : terminals_) queued += term->queued_packets();
    j["source_queue_packets"] = queued;
    if (book_) {
        const TransferBook& b = *book_;
        const std::int64_t makespan_ps = n.clock.edge(b.makespan_cycle()).count();
        j["transfers"] = {{"count", b.size()},
                          {"completed", b.completed()},
                          {"flits", b.flits_total()},
                          {"flit_bytes", b.options().flit_bytes.count()},
                          {"packet_flits", b.options().packet_flits},
                          {"injection_order", std::string(injection_order_name(b.options().order))},
                          {"makespan_cycles", b.makespan_cycle()},
                          {"makespan_ps", makespan_ps},
                          {"makespan_ns", static_cast<double>(makespan_ps) / 1000.0},
                          {"latency", b.latency_ps().to_json("ps")}};
    }

    // The measured window: the measurement window of a steady run, the whole run for traces.
    std::string status;
    FabricCounters w0, w1;
    bool have_window = false;
    if (trace) {
        const bool all_sent = total.packets_generated == total.packets_ejected && queued == 0;
        status = all_sent && sim_.pending() == 0 ? "complete" : "incomplete";
        w1 = total;
        w1.cycle = now_cycle;
        w0.cycle = -1;
        have_window = true;
    } else if (s.saturated) {
        status = "saturated";
        j["saturation_reason"] = s.saturation_reason;
    } else if (s.phase == MeasurePhase::Done && s.measure_start != std::numeric_limits<std::int64_t>::max()) {
        status = "steady";
        w0 = s.window_start;
        w1 = s.window_end;
        have_window = true;
    } else if (s.phase == MeasurePhase::Done) {
        status = "steady";  // rate 0: nothing to measure
    } else {
        status = "incomplete";
    }
    j["status"] = status;
    j["offered_flits_per_cycle"] = trace ? 0.0 : n.traffic.rate;
    j["warmup_samples"] = s.warmup_samples;
    const bool measured = status == "steady" || status == "complete";
    if (have_window) {
        const double cycles = static_cast<double>(w1.cycle - w0.cycle);
        const double per = terminals * cycles;
        j["window"] = {{"start_cycle", w0.cycle + 1}, {"end_cycle", w1.cycle + 1}};
        j["offered_measured_flits_per_cycle"] = ratio(static_cast<double>(w1.flits_generated - w0.flits_generated), per);
        j["accepted_flits_per_cycle"] = ratio(static_cast<double>(w1.flits_ejected - w0.flits_ejected), per);
        // Link utilization: flits per channel per cycle, by channel kind.
        stats::Json util = stats::Json::object();
        for (std::size_t k = 0; k < kChannelKinds; ++k) {
            double channels = 0;
            std::string name;
            if (k == kInjectionChannel) {
                channels = terminals;
                name = "injection";
            } else if (k == kEjectionChannel) {
                channels = terminals;
                name = "ejection";
            } else {
                channels = 2.0 * static_cast<double>(t.link_count(topo::kAllLinkClasses[k]));
                name = std::string(topo::link_class_name(topo::kAllLinkClasses[k]));
            }
            if (channels == 0) continue;
            util[name] = ratio(static_cast<double>(w1.channel_flits[k] - w0.channel_flits[k]), channels * cycles);
        }
        j["link_utilization"] = util;
        // Input-buffer occupancy: exact area from the write / read tallies (see FabricCounters).
        auto area = [](const FabricCounters& x) {
            const double end = static_cast<double>(x.cycle + 1);
            return static_cast<double>(x.buffer_in) * end - static_cast<double>(x.buffer_in_cycles) -
                   static_cast<double>(x.buffer_out) * end + static_cast<double>(x.buffer_out_cycles);
        };
        const double occupancy = ratio(area(w1) - (w0.cycle >= 0 ? area(w0) : 0.0), cycles);
        std::int64_t input_vcs = 0;
        std::int32_t peak = 0;
        for (const Router* r : routers_) {
            for (std::int32_t q = 0; q < r->ports(); ++q) input_vcs += r->wired(q) ? n.config.vcs : 0;
            peak = std::max(peak, r->peak_vc_flits());
        }
        j["buffer_occupancy"] = {{"avg_flits_per_router", ratio(occupancy, static_cast<double>(t.num_vertices()))},
                                 {"avg_flits_per_vc", ratio(occupancy, static_cast<double>(input_vcs))},
                                 {"peak_flits_per_vc", peak}};
    } else if (s.saturated) {
        j["accepted_flits_per_cycle"] = s.last_accepted;
        j["offered_measured_flits_per_cycle"] = s.last_offered;
    }
    j["packets_measured"] = ms.marked_packets;
    if (measured && ms.marked_packets > 0) {
        j["packet_latency"] = ms.packet_latency.to_json("cycles");
        j["network_latency"] = ms.network_latency.to_json("cycles");
        j["packet_latency_mean_ps"] = ms.packet_latency.mean() * static_cast<double>(n.clock.period_ceil().count());
        j["hops"] = ms.hops.to_json();
        const double packets = static_cast<double>(ms.marked_packets);
        j["minimal_packets"] = ms.minimal_packets;
        j["nonminimal_packets"] = ms.nonminimal_packets;
        j["nonminimal_share"] = static_cast<double>(ms.nonminimal_packets) / packets;
        j["mean_local_hops"] = static_cast<double>(ms.local_hops) / packets;
        j["mean_global_hops"] = static_cast<double>(ms.global_hops) / packets;
    }
    return j;
}

void FabricModel::finish() {
    if (finished_) return;
    finished_ = true;
    if (book_) {
        // The transfers' outcome from what every terminal logged.
        std::vector<const TransferBook::Log*> logs;
        logs.reserve(terminals_.size());
        for (const Terminal* term : terminals_) logs.push_back(&term->transfer_log());
        book_->settle(logs);
    }
    wall_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count() -
              monitor_->wall_start();
    stats::Group& g = sim_.stats().group("fabric");
    const stats::Json j = summary();
    for (auto it = j.begin(); it != j.end(); ++it) g.set(it.key(), it.value());
    const auto problems = conservation_problems();
    if (!problems.empty()) {
        std::string all;
        for (const auto& p : problems) all += (all.empty() ? "" : "; ") + p;
        throw ModelError(fmt::format("fabric: conservation violated at {}: {}", loom::to_string(sim_.now()), all));
    }
}

std::string FabricModel::perf_fields() const {
    const std::int64_t hops = totals().flit_hops;
    return fmt::format(" flit_hops={} flit_hops_per_s={:.0f}", hops,
                       wall_s_ > 0 ? static_cast<double>(hops) / wall_s_ : 0.0);
}

void register_components(sim::Registry& registry) {
    sim::ModelEntry entry;
    entry.name = "fabric";
    entry.doc = "Conventional dynamically routed network: input-queued VC routers with credit flow control, "
                "separable allocators and minimal / Valiant / UGAL-L routing on a Dragonfly, driven by synthetic "
                "or trace traffic with warm-up, measurement window and drain.";
    entry.sections = {config::section_info("topology", topo::dragonfly_schema()),
                      config::section_info("fabric", fabric_schema()),
                      config::section_info("routing", routing_schema()),
                      config::section_info("traffic", workload::traffic_schema())};
    entry.stats = stat_declarations();
    entry.components = {
        {"Router", "Input-queued VC router (fabric.<group>.<router>): per-VC buffers, credits, RC/VA/SA/ST "
                   "pipeline, separable allocators, internal speed-up."},
        {"Terminal", "Endpoint (fabric.<router>.term<k>): Bernoulli or trace injection through a source queue, "
                     "ejection, latency accounting."},
        {"Monitor", "fabric.monitor: warm-up until steady, measurement window, drain, saturation and deadlock "
                    "detection."}};
    entry.build = [](const config::Json& root, sim::Simulator& sim, config::Errors& errors) {
        return build(root, sim, errors);
    };
    registry.add(std::move(entry));
}

}  // namespace loom::fabric
