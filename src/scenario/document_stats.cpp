// The keys every stats document has (its header, the kernel's group, a requested time series) and those the
// scheduled-vs-dynamic comparison adds, declared once; and the declarations of a whole document of one model.
#include <fmt/format.h>

#include "loom/scenario/scenario.hpp"
#include "loom/sim/kernel_stats.hpp"
#include "scenario_internal.hpp"

namespace loom::scenario {

stats::StatDecls document_stat_declarations() {
    stats::StatDecls d;
    d.scalar("/schema_version", "count", "version of the document's layout: bumped when a key changes meaning or disappears");
    d.scalar("/loom_version", "text", "version of the Loom build that wrote the document");
    d.scalar("/config_hash", "text", "hex digest of the canonical effective config (overrides applied)");
    d.scalar("/seed", "count", "the run seed every component's random streams derive from");
    d.scalar("/sim_time_ps", "ps", "simulated time when the run stopped");
    d.scalar("/model", "text", "the config's model");
    d.scalar("/stop_reason", "text", "why the run stopped: end_time, quiescent, event_budget, stopped or interrupted");
    d.scalar("/command", "text", "the command when it is not `loom run` (\"schedule\")");
    d.scalar("/series/interval_ps", "ps", "time between two samples of the configured time series (/stats/series)");
    d.scalar("/series/samples", "count", "samples taken, at 0, interval, 2*interval, ... up to the end of the run");
    d.list("/series/time_ps", "ps", "the time of each sample");
    d.list("/series/values/*", "mixed", "one array per sampled pointer (the key), one value per sample, in that pointer's unit");
    d.append(sim::kernel_stat_declarations());
    return d;
}

stats::StatDecls compare_stat_declarations() {
    stats::StatDecls d;
    d.scalar("/comparison/transfers", "count", "transfers of the workload, run on every network");
    d.scalar("/comparison/seeds_per_routing", "count", "dynamic runs per routing function (seeds first_seed, first_seed+1, ...)");
    d.scalar("/comparison/first_seed", "count", "seed of the scheduled run and of each routing function's first dynamic run");
    d.scalar("/comparison/scheduled_spread", "text", "why the scheduled row has no spread over seeds");
    d.scalar("/comparison/fanout", "text", "how a fan-out transfer is sent on the dynamic network");
    d.scalar("/comparison/networks/*/network", "text", "row name: scheduled or dynamic-<routing>");
    d.scalar("/comparison/networks/*/routing", "text", "routing function of a dynamic row");
    d.scalar("/comparison/networks/*/vcs", "count", "virtual channels the routing function needed");
    d.scalar("/comparison/networks/*/runs", "count", "runs (seeds) behind the row");
    d.list("/comparison/networks/*/seeds", "count", "the seed of each run");
    d.list("/comparison/networks/*/makespan_ps", "ps", "makespan of each run (the end time for a run cut short)");
    d.scalar("/comparison/networks/*/makespan_mean_ns", "ns", "mean makespan over the runs");
    d.scalar("/comparison/networks/*/makespan_min_ns", "ns", "smallest makespan over the runs");
    d.scalar("/comparison/networks/*/makespan_max_ns", "ns", "largest makespan over the runs");
    d.scalar("/comparison/networks/*/makespan_stddev_ns", "ns", "standard deviation of the makespan over the runs");
    d.scalar("/comparison/networks/*/latency_mean_ns", "ns", "mean transfer latency from the instant it may start");
    d.scalar("/comparison/networks/*/latency_p99_ns", "ns", "99th percentile transfer latency from the instant it may start");
    d.scalar("/comparison/networks/*/latency_max_ns", "ns", "largest transfer latency from the instant it may start");
    d.scalar("/comparison/networks/*/network_time_mean_ns", "ns", "mean transfer time from its first send (scheduled) or start (dynamic)");
    d.scalar("/comparison/networks/*/makespan_vs_scheduled", "ratio", "mean makespan over the scheduled makespan");
    d.scalar("/comparison/networks/*/unfinished_transfers", "count", "transfers not completed by end_time, over the runs");
    d.scalar("/comparison/dynamic/cycle_ps", "ps", "router cycle of the dynamic network (one flit at the channel rate)");
    d.scalar("/comparison/dynamic/channel_rate", "text", "channel rate of the dynamic network");
    d.scalar("/comparison/dynamic/rates_differ", "bool", "link classes have different rates (slower ones run at channel_rate)");
    d.record("/comparison/dynamic/channel_latency_cycles", "cycles", "channel latency of each link class, in router cycles");
    d.scalar("/comparison/dynamic/pipeline_cycles", "cycles", "router pipeline depth standing for the chip's forwarding latency");
    d.scalar("/comparison/dynamic/terminals_per_tsp", "count", "terminals (injection ports) per TSP");
    d.scalar("/comparison/dynamic/flit_bytes", "bytes", "flit size");
    d.scalar("/comparison/dynamic/packet_flits", "flits", "flits per packet");
    d.scalar("/comparison/dynamic/vc_buffer_flits", "flits", "buffer depth of each virtual channel");
    d.scalar("/comparison/dynamic/injection_order", "text", "order in which a terminal injects its transfers");
    return d;
}

stats::StatDecls stat_declarations(std::string_view model) {
    stats::StatDecls d = document_stat_declarations();
    d.append(registry().find(model).stats);
    return d;
}

}  // namespace loom::scenario
