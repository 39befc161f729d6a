// `loom schedule CONFIG --compare dynamic`: the transfers the schedule ran, run again on the dynamically routed
// network of the same machine (fabric/, mapped by fabric::map_tsp_system) for each routing function and seed,
// and the table that puts the two side by side.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "loom/base/error.hpp"
#include "loom/config/units.hpp"
#include "loom/fabric/fabric.hpp"
#include "loom/fabric/tsp_fabric.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/stats/histogram.hpp"
#include "loom/tsp/tsp_system.hpp"
#include "loom/workload/collective_config.hpp"
#include "loom/workload/transfer.hpp"
#include "scenario_internal.hpp"

namespace loom::scenario {

void parse_compare_sections(const Json& root, fabric::TspFabricConfig& fabric_config,
                            fabric::TspRoutingConfig& routing_config, config::Errors& errors) {
    if (!root.is_object()) return;
    if (root.contains("fabric")) fabric::tsp_fabric_schema().parse(root.at("fabric"), "/fabric", fabric_config, errors);
    if (root.contains("routing"))
        fabric::tsp_routing_schema().parse(root.at("routing"), "/routing", routing_config, errors);
}

namespace {

double ns(double ps) { return ps / 1000.0; }


// One row of the table: a network over its runs.
struct Row {
    std::string network;
    std::string routing;  // "" for the scheduled network
    std::vector<std::int64_t> seeds;
    std::vector<std::int64_t> makespan_ps;  // per run
    double latency_mean_ps = 0, latency_p99_ps = 0, latency_max_ps = 0;
    double network_mean_ps = 0;  // time in network: from the first Send (scheduled) or the start (dynamic)
    std::int32_t vcs = 0;
    double wall_s = 0;
    std::int64_t unfinished = 0;  // transfers left unfinished at end_time, over all runs

    double mean() const {
        double s = 0;
        for (std::int64_t m : makespan_ps) s += static_cast<double>(m);
        return makespan_ps.empty() ? 0.0 : s / static_cast<double>(makespan_ps.size());
    }
    // Population standard deviation over the runs.
    double stddev() const {
        const double mu = mean();
        double s = 0;
        for (std::int64_t m : makespan_ps) s += (static_cast<double>(m) - mu) * (static_cast<double>(m) - mu);
        return makespan_ps.empty() ? 0.0 : std::sqrt(s / static_cast<double>(makespan_ps.size()));
    }
    std::int64_t min() const { return *std::min_element(makespan_ps.begin(), makespan_ps.end()); }
    std::int64_t max() const { return *std::max_element(makespan_ps.begin(), makespan_ps.end()); }
};

}  // namespace

Json compare_dynamic(const Json& config, const Json& tsp_stats, const CompareOptions& options, std::string& table,
                     std::string& csv, std::string& perf) {
    // The machine and the transfers, parsed as the tsp model parses them (the scheduled run already accepted them).
    config::Errors errors;
    tsp::MachineConfig machine;
    workload::TransferSetConfig workload_config;
    fabric::TspFabricConfig fabric_config;
    fabric::TspRoutingConfig routing_config;
    auto parse = [&](const char* key, const auto& schema, auto& out) {
        if (config.contains(key)) schema.parse(config.at(key), std::string("/") + key, out, errors);
    };
    parse("topology", topo::tsp_topology_schema(), machine.topology);
    parse("links", topo::link_class_timing_schema(), machine.links);
    parse("chip", topo::chip_schema(), machine.chip);
    const Json workload = workload::normalize_collective(config.at("workload"), "/workload", errors);
    workload::transfer_set_schema().parse(workload, "/workload", workload_config, errors);
    parse_compare_sections(config, fabric_config, routing_config, errors);
    if (options.seeds > 0) fabric_config.seeds = options.seeds;
    std::string routing_text = options.routing.empty() ? routing_config.functions : options.routing;
    std::string routing_error;
    const auto kinds = fabric::parse_routing_list(routing_text, &routing_error);
    if (!kinds) {
        if (options.routing.empty())
            errors.add("/routing/functions", routing_error);
        else
            throw InputError("--routing: " + routing_error);
    }
    errors.throw_if_any();
    const std::int64_t seed = config.contains("seed") && config.at("seed").is_number_integer()
                                  ? config.at("seed").get<std::int64_t>()
                                  : 1;

    const tsp::TspSystem system(machine, static_cast<std::uint64_t>(seed));
    const workload::TransferSet transfers = workload::make_transfer_set(
        workload_config, system.topology(), system.chip(), "/workload", system.links().unit_payload);

    // The scheduled run stops at the config's end_time (already checked by that run); so does every dynamic run.
    Time end = Time::max();
    if (config.contains("end_time") && config.at("end_time").is_string())
        end = config::parse_duration(config.at("end_time").get<std::string>()).value_or(Time::max());

    std::vector<Row> rows;
    {
        Row r;
        r.network = "scheduled";
        r.seeds = {seed};
        r.makespan_ps = {static_cast<std::int64_t>(number(tsp_stats, "makespan_ps"))};
        const Json& lat = member(tsp_stats, "transfer_latency");
        r.latency_mean_ps = number(lat, "mean_ps");
        r.latency_p99_ps = number(lat, "p99_ps");
        r.latency_max_ps = number(lat, "max_ps");
        r.network_mean_ps = number(member(tsp_stats, "transfer_network_time"), "mean_ps");
        rows.push_back(std::move(r));
    }

    Json mapping_json;
    std::size_t dynamic_run = 0;
    const std::size_t dynamic_runs = kinds->size() * static_cast<std::size_t>(fabric_config.seeds);
    for (fabric::RoutingKind kind : *kinds) {
        const std::int32_t needed = fabric::classes_needed(system.topology(), kind);
        const fabric::TspFabricMapping m =
            fabric::map_tsp_system(system.topology(), system.links(), system.chip(), fabric_config, needed);
        fabric::RoutingConfig rc;
        rc.function = kind;
        rc.ugal_threshold_flits = routing_config.ugal_threshold_flits;
        Row r;
        r.network = fmt::format("dynamic-{}", fabric::routing_name(kind));
        r.routing = std::string(fabric::routing_name(kind));
        r.vcs = m.fabric.vcs;
        stats::Histogram latency, network_time;
        const auto t0 = std::chrono::steady_clock::now();
        for (std::int32_t k = 0; k < fabric_config.seeds; ++k) {
            const std::int64_t s = seed + k;
            sim::SimulatorOptions so;
            so.seed = static_cast<std::uint64_t>(s);
            so.stop_flag = options.stop;
            sim::Simulator sim(so);
            if (options.phase)
                options.phase(fmt::format("dynamic run {}/{}: {} seed {}", ++dynamic_run, dynamic_runs, r.routing, s));
            fabric::TransferRun run{&transfers, m.transfer};
            config::Errors build_errors;
            auto model = fabric::build(m.topology, m.fabric, rc, workload::TrafficConfig{}, sim, build_errors, nullptr,
                                       &run);
            build_errors.throw_if_any();
            sim.init();
            sim::RunLimits limits;
            limits.end = end;
            const sim::RunResult rr = sim.run(limits);
            sim.finish();
            model->finish();  // conservation: ModelError (exit 3) when a flit or credit is unaccounted for
            const fabric::TransferBook& book = *model->transfers();
            const bool cut_short = rr.reason == sim::StopReason::EndTime && !book.all_completed();
            if (!book.all_completed() && !cut_short)
                throw ModelError(fmt::format("compare: {} run with seed {} completed {} of {} transfers", r.network, s,
                                             book.completed(), book.size()));
            r.seeds.push_back(s);
            // Cut short at end_time: the run's makespan is at least the end time, reported as that.
            r.makespan_ps.push_back(cut_short ? end.count() : m.fabric.cycle_period.count() * book.makespan_cycle());
            r.unfinished += book.size() - book.completed();
            latency.merge(book.ready_latency_ps());
            network_time.merge(book.latency_ps());
        }
        r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        r.latency_mean_ps = latency.mean();
        r.latency_p99_ps = static_cast<double>(latency.percentile(0.99));
        r.latency_max_ps = static_cast<double>(latency.max());
        r.network_mean_ps = network_time.mean();
        rows.push_back(std::move(r));
        if (mapping_json.is_null()) {
            Json classes = Json::object();
            for (topo::LinkClass c : topo::kAllLinkClasses)
                if (system.topology().link_count(c) > 0)
                    classes[std::string(topo::link_class_name(c))] = m.fabric.latency_cycles(c);
            std::int32_t terminals = 0;
            for (const auto& v : m.topology.vertices()) terminals = std::max(terminals, v.terminals);
            mapping_json = Json{{"cycle_ps", m.cycle.count()},
                                {"channel_rate", to_string(m.rate)},
                                {"rates_differ", m.rates_differ},
                                {"channel_latency_cycles", classes},
                                {"pipeline_cycles", m.fabric.pipeline_cycles()},
                                {"terminals_per_tsp", terminals},
                                {"flit_bytes", m.transfer.flit_bytes.count()},
                                {"packet_flits", m.transfer.packet_flits},
                                {"vc_buffer_flits", m.fabric.vc_buffer_flits},
                                {"injection_order", std::string(fabric::injection_order_name(m.transfer.order))}};
        }
    }

    // The table, the document and the CSV, from the same rows.
    const double sched = rows.front().mean();
    Json networks = Json::array();
    csv = "network,routing,runs,vcs,makespan_ns,makespan_min_ns,makespan_max_ns,makespan_stddev_ns,latency_mean_ns,"
          "latency_p99_ns,latency_max_ns,network_time_mean_ns,makespan_vs_scheduled\n";
    table = fmt::format("scheduled vs dynamic: {} transfers; {} seed{} per routing function from seed {}; "
                        "fan-out sends one copy per destination\n",
                        transfers.transfers.size(), fabric_config.seeds, fabric_config.seeds == 1 ? "" : "s", seed);
    table += fmt::format("  {:<20} {:>4} {:>14} {:>13} {:>13} {:>13} {:>13} {:>29} {:>11} {:>8}\n", "network",
                         "runs", "makespan ns", "mean lat ns", "p99 lat ns", "max lat ns", "mean net ns",
                         "makespan min..max ns", "stddev ns", "x sched");
    double wall = 0;
    for (const Row& r : rows) {
        wall += r.wall_s;
        const double ratio = sched > 0 ? r.mean() / sched : 0.0;
        table += fmt::format("  {:<20} {:>4} {:>14.3f} {:>13.3f} {:>13.3f} {:>13.3f} {:>13.3f} {:>29} {:>11.3f} "
                             "{:>8.3f}\n",
                             r.network, r.makespan_ps.size(), ns(r.mean()), ns(r.latency_mean_ps),
                             ns(r.latency_p99_ps), ns(r.latency_max_ps), ns(r.network_mean_ps),
                             fmt::format("{:.3f}..{:.3f}", ns(static_cast<double>(r.min())),
                                         ns(static_cast<double>(r.max()))),
                             ns(r.stddev()), ratio);
        csv += fmt::format("{},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.6f}\n", r.network,
                           r.routing, r.makespan_ps.size(), r.routing.empty() ? std::string() : std::to_string(r.vcs),
                           ns(r.mean()), ns(static_cast<double>(r.min())),
                           ns(static_cast<double>(r.max())), ns(r.stddev()), ns(r.latency_mean_ps),
                           ns(r.latency_p99_ps), ns(r.latency_max_ps), ns(r.network_mean_ps), ratio);
        Json row{{"network", r.network},
                 {"runs", r.makespan_ps.size()},
                 {"seeds", r.seeds},
                 {"makespan_ps", r.makespan_ps},
                 {"makespan_mean_ns", ns(r.mean())},
                 {"makespan_min_ns", ns(static_cast<double>(r.min()))},
                 {"makespan_max_ns", ns(static_cast<double>(r.max()))},
                 {"makespan_stddev_ns", ns(r.stddev())},
                 {"latency_mean_ns", ns(r.latency_mean_ps)},
                 {"latency_p99_ns", ns(r.latency_p99_ps)},
                 {"latency_max_ns", ns(r.latency_max_ps)},
                 {"network_time_mean_ns", ns(r.network_mean_ps)},
                 {"makespan_vs_scheduled", ratio}};
        if (r.unfinished > 0) row["unfinished_transfers"] = r.unfinished;
        if (!r.routing.empty()) {
            row["routing"] = r.routing;
            row["vcs"] = r.vcs;
        }
        networks.push_back(std::move(row));
    }
    table += "  latency: from the instant a transfer may start, max(earliest, dependencies done + compute_before), on "
             "both sides (paced_by ignored); net: from the first Send (scheduled) or the start (dynamic, source "
             "queueing included)\n";
    for (const Row& r : rows)
        if (r.unfinished > 0)
            table += fmt::format("  {}: cut short at end_time {} with {} transfer{} unfinished over its runs "
                                 "(makespan shown as the end time)\n",
                                 r.network, to_string(end), r.unfinished, r.unfinished == 1 ? "" : "s");
    table += "  scheduled: one run; a schedule has no arbitration and no random choice, so its spread over seeds is 0 "
             "by construction\n";
    table += fmt::format("  dynamic network: cycle {} ps (one {}-byte flit at {}{}), channel latency {} cycles, "
                         "pipeline {} cycles, {} terminals per TSP, packets of {} flits, {} injection order\n",
                         mapping_json.at("cycle_ps").get<std::int64_t>(), mapping_json.at("flit_bytes").get<std::int64_t>(),
                         mapping_json.at("channel_rate").get<std::string>(),
                         mapping_json.at("rates_differ").get<bool>() ? ", slower classes run at this rate" : "",
                         mapping_json.at("channel_latency_cycles").dump(),
                         mapping_json.at("pipeline_cycles").get<std::int64_t>(),
                         mapping_json.at("terminals_per_tsp").get<std::int32_t>(),
                         mapping_json.at("packet_flits").get<std::int32_t>(),
                         mapping_json.at("injection_order").get<std::string>());
    perf = fmt::format(" compare_runs={} compare_wall_s={:.3f}", (rows.size() - 1) * static_cast<std::size_t>(fabric_config.seeds), wall);
    return Json{{"transfers", transfers.transfers.size()},
                {"seeds_per_routing", fabric_config.seeds},
                {"first_seed", seed},
                {"networks", networks},
                {"dynamic", mapping_json},
                {"scheduled_spread", "zero by construction: a schedule has no arbitration and no random choice"},
                {"fanout", "one copy per destination (a dynamic network has no multicast)"}};
}

}  // namespace loom::scenario
