// The dynamically routed network's statistics: what FabricModel::summary writes under /stats/fabric.
#include "loom/fabric/fabric_stat_declarations.hpp"

#include "loom/fabric/fabric.hpp"
#include "loom/fabric/terminal.hpp"

namespace loom::fabric {

stats::StatDecls stat_declarations() {
    stats::StatDecls d;
    d.scalar("/stats/fabric/routing", "text", "routing function (min, valiant, ugal_l)");
    d.scalar("/stats/fabric/pattern", "text", "traffic pattern, or \"transfers\" for a workload's transfers");
    d.scalar("/stats/fabric/terminals", "count", "terminals (injection and ejection ports)");
    d.scalar("/stats/fabric/routers", "count", "routers");
    d.scalar("/stats/fabric/vcs", "count", "virtual channels per port");
    d.scalar("/stats/fabric/vc_classes", "count", "classes the virtual channels are split into (deadlock avoidance)");
    d.scalar("/stats/fabric/cycle_ps", "ps", "router clock period (rounded up)");
    d.scalar("/stats/fabric/flits_generated", "flits", "flits the terminals generated, whole run");
    d.scalar("/stats/fabric/flits_injected", "flits", "flits that left a terminal's source queue into the network");
    d.scalar("/stats/fabric/flits_ejected", "flits", "flits that reached their destination terminal");
    d.scalar("/stats/fabric/flits_in_network", "flits", "flits_injected - flits_ejected at the end");
    d.scalar("/stats/fabric/packets_ejected", "packets", "packets whose tail flit was ejected");
    d.scalar("/stats/fabric/flit_hops", "flits", "flit traversals of a router-to-router or terminal channel");
    d.scalar("/stats/fabric/link_fec_corrected", "flits", "noisy channels only: flits whose bit errors FEC corrected");
    d.scalar("/stats/fabric/link_retries", "flits", "noisy channels only: flits FEC could not correct, sent again by link-level retry");
    d.scalar("/stats/fabric/credit_fec_corrected", "credits", "noisy channels only: credits (returned beside the flits) whose bit errors FEC corrected");
    d.scalar("/stats/fabric/credit_retries", "credits", "noisy channels only: credits FEC could not correct, sent again by link-level retry");
    d.scalar("/stats/fabric/source_queue_packets", "packets", "packets waiting in the terminals' source queues at the end");
    d.scalar("/stats/fabric/transfers/count", "count", "transfers of the workload (transfer runs)");
    d.scalar("/stats/fabric/transfers/completed", "count", "transfers whose last flit was ejected");
    d.scalar("/stats/fabric/transfers/flits", "flits", "flits of every transfer");
    d.scalar("/stats/fabric/transfers/flit_bytes", "bytes", "flit size");
    d.scalar("/stats/fabric/transfers/packet_flits", "flits", "flits per packet");
    d.scalar("/stats/fabric/transfers/injection_order", "text", "order in which a terminal injects its transfers");
    d.scalar("/stats/fabric/transfers/makespan_cycles", "cycles", "cycle of the last transfer's completion");
    d.scalar("/stats/fabric/transfers/makespan_ps", "ps", "makespan_cycles as time");
    d.scalar("/stats/fabric/transfers/makespan_ns", "ns", "makespan_ps in ns");
    d.histogram("/stats/fabric/transfers/latency", "ps", "per transfer: from its start to its last flit's ejection");
    d.scalar("/stats/fabric/status", "text", "steady, saturated, complete (trace/transfers) or incomplete");
    d.scalar("/stats/fabric/saturation_reason", "text", "why the run was declared saturated");
    d.scalar("/stats/fabric/offered_flits_per_cycle", "flits/cycle", "configured injection rate per terminal (0 for traces)");
    d.scalar("/stats/fabric/warmup_samples", "count", "sample periods the warm-up took to reach steady state");
    d.scalar("/stats/fabric/window/start_cycle", "cycles", "first cycle of the measurement window");
    d.scalar("/stats/fabric/window/end_cycle", "cycles", "cycle after the measurement window");
    d.scalar("/stats/fabric/offered_measured_flits_per_cycle", "flits/cycle", "flits generated per terminal per cycle in the window");
    d.scalar("/stats/fabric/accepted_flits_per_cycle", "flits/cycle", "flits ejected per terminal per cycle in the window (throughput)");
    d.scalar("/stats/fabric/link_utilization/*", "flits/cycle", "flits per channel per cycle in the window, by channel kind (injection, ejection, link class)");
    d.scalar("/stats/fabric/buffer_occupancy/avg_flits_per_router", "flits", "time-average flits in a router's input buffers over the window");
    d.scalar("/stats/fabric/buffer_occupancy/avg_flits_per_vc", "flits", "time-average flits per input virtual channel over the window");
    d.scalar("/stats/fabric/buffer_occupancy/peak_flits_per_vc", "flits", "most flits one virtual channel held");
    d.scalar("/stats/fabric/packets_measured", "packets", "packets generated in the window (marked) and measured");
    d.histogram("/stats/fabric/packet_latency", "cycles", "marked packets: generation to tail ejection, source queueing included");
    d.histogram("/stats/fabric/network_latency", "cycles", "marked packets: head injection to tail ejection");
    d.scalar("/stats/fabric/packet_latency_mean_ps", "ps", "mean packet latency as time");
    d.histogram("/stats/fabric/hops", "hops", "router-to-router hops of the marked packets");
    d.scalar("/stats/fabric/minimal_packets", "packets", "marked packets routed minimally");
    d.scalar("/stats/fabric/nonminimal_packets", "packets", "marked packets routed through an intermediate group");
    d.scalar("/stats/fabric/nonminimal_share", "ratio", "nonminimal_packets / packets_measured");
    d.scalar("/stats/fabric/mean_local_hops", "hops", "local (intra-group) hops per marked packet");
    d.scalar("/stats/fabric/mean_global_hops", "hops", "global (inter-group) hops per marked packet");
    return d;
}

std::vector<sim::Probe> FabricModel::probes(const std::string& key) const { return probes_.select(key); }

// The readers sum what every router and terminal counted so far (they change nothing).
void FabricModel::add_probes() {
    auto counter = [this](std::string name, std::int64_t (*pick)(const FabricCounters&)) {
        probes_.add("/stats/fabric/" + std::move(name), [this, pick](Time) { return stats::Json(pick(totals())); });
    };
    counter("flits_generated", [](const FabricCounters& c) { return c.flits_generated; });
    counter("flits_injected", [](const FabricCounters& c) { return c.flits_injected; });
    counter("flits_ejected", [](const FabricCounters& c) { return c.flits_ejected; });
    counter("flits_in_network", [](const FabricCounters& c) { return c.flits_injected - c.flits_ejected; });
    counter("packets_ejected", [](const FabricCounters& c) { return c.packets_ejected; });
    counter("flit_hops", [](const FabricCounters& c) { return c.flit_hops; });
    probes_.add("/stats/fabric/source_queue_packets", [this](Time) {
        std::int64_t queued = 0;
        for (const Terminal* term : terminals_) queued += term->queued_packets();
        return stats::Json(queued);
    });
    probes_.add("/stats/fabric/packets_measured", [this](Time) {
        std::int64_t n = 0;
        for (const Terminal* term : terminals_) n += term->marked().marked_packets;
        return stats::Json(n);
    });
}

}  // namespace loom::fabric
