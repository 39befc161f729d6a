// The TSP model's statistics: what TspModel::write_stats and TspChip::write_stats write, declared once.
#include "loom/tsp/tsp_stats.hpp"

#include <algorithm>

#include "loom/tsp/tsp_chip.hpp"
#include "loom/tsp/tsp_model.hpp"

namespace loom::tsp {

stats::StatDecls stat_declarations() {
    stats::StatDecls d;
    // The system.
    d.scalar("/stats/tsp/tsps", "count", "TSPs of the machine, spares included");
    d.scalar("/stats/tsp/compute_tsps", "count", "TSPs outside spare nodes");
    d.scalar("/stats/tsp/active_tsps", "count", "TSPs that executed at least one instruction or received a vector");
    d.scalar("/stats/tsp/instructions", "count", "instructions issued by every TSP");
    d.scalar("/stats/tsp/vectors_sent", "vectors", "vectors put on a link by a Send or a Forward");
    d.scalar("/stats/tsp/vector_hops", "vectors", "vector arrivals at a TSP input port (one per link crossed)");
    d.scalar("/stats/tsp/vectors_delivered", "vectors", "vectors that reached a final destination");
    d.scalar("/stats/tsp/complete", "bool", "every scheduled vector arrived before the run stopped");
    d.scalar("/stats/tsp/makespan_ps", "ps", "time of the last delivery");
    d.scalar("/stats/tsp/makespan_ns", "ns", "makespan_ps in ns");
    d.scalar("/stats/tsp/makespan_cycles", "cycles", "first core-clock edge at or after the last delivery");
    d.scalar("/stats/tsp/transfers", "count", "transfers with at least one Send");
    d.histogram("/stats/tsp/transfer_latency", "ps", "per transfer: from the instant it may start (or its first Send) to its last delivery");
    d.histogram("/stats/tsp/transfer_network_time", "ps", "per transfer: from its first Send's issue to its last delivery");
    d.scalar("/stats/tsp/bandwidth/sent_mean_bytes_per_s", "bytes/s", "payload leaving a TSP over the makespan, mean over active TSPs");
    d.scalar("/stats/tsp/bandwidth/sent_max_bytes_per_s", "bytes/s", "payload leaving a TSP over the makespan, the largest");
    d.scalar("/stats/tsp/bandwidth/received_mean_bytes_per_s", "bytes/s", "payload arriving at a TSP over the makespan, mean over active TSPs");
    d.scalar("/stats/tsp/bandwidth/received_max_bytes_per_s", "bytes/s", "payload arriving at a TSP over the makespan, the largest");
    d.scalar("/stats/tsp/active_until_ps", "ps", "last vector arrival at any hop");
    d.histogram("/stats/tsp/vector_latency", "ps", "per vector: from its Send's issue to its arrival at a final destination");
    // Links by class (key: the link class, e.g. c2c_node).
    d.scalar("/stats/tsp/links/*/channels", "count", "directed channels of the class");
    d.scalar("/stats/tsp/links/*/channels_used", "count", "channels of the class that carried a vector");
    d.scalar("/stats/tsp/links/*/vectors", "vectors", "vectors the class's channels carried");
    d.scalar("/stats/tsp/links/*/busy_ps", "ps", "time the class's channels spent serializing, summed");
    d.scalar("/stats/tsp/links/*/bytes_per_s", "bytes/s", "payload the class carried over the makespan");
    d.scalar("/stats/tsp/links/*/utilization", "ratio", "busy time over channels x active span");
    d.scalar("/stats/tsp/links/*/max_utilization", "ratio", "the busiest channel's busy time over the active span");
    d.scalar("/stats/tsp/links/*/corrected", "vectors", "vectors with an error FEC corrected on the class's channels");
    d.scalar("/stats/tsp/links/*/uncorrectable", "vectors", "vectors with an error FEC could not correct");
    d.scalar("/stats/tsp/busiest_link_busy_ps", "ps", "busy time of the busiest channel");
    d.scalar("/stats/tsp/fec/corrected", "vectors", "vectors whose errors FEC corrected (no time lost)");
    d.scalar("/stats/tsp/fec/uncorrectable", "vectors", "vectors with an uncorrectable error (detected)");
    d.scalar("/stats/tsp/fec/replay_required", "bool", "an uncorrectable error occurred: the runtime replays the inference");
    d.scalar("/stats/tsp/global_memory/capacity_bytes", "bytes", "global memory of the compute TSPs");
    d.scalar("/stats/tsp/global_memory/capacity", "text", "capacity_bytes as a size string");
    d.scalar("/stats/tsp/global_memory/per_tsp_bytes", "bytes", "memory of one TSP");
    d.scalar("/stats/tsp/global_memory/tsps", "count", "TSPs in the global address map");
    d.scalar("/stats/tsp/collective/kind", "text", "collective of the workload (all_reduce, ...)");
    d.scalar("/stats/tsp/collective/algorithm", "text", "algorithm that implements it");
    d.scalar("/stats/tsp/collective/levels", "count", "levels of the algorithm (node, rack, system)");
    d.scalar("/stats/tsp/collective/tsps", "count", "TSPs taking part");
    d.scalar("/stats/tsp/collective/bytes_per_tsp", "bytes", "tensor size per TSP");
    d.scalar("/stats/tsp/collective/padding_bytes", "bytes", "padding added to split the tensor evenly");
    d.scalar("/stats/tsp/collective/transfers", "count", "transfers the collective compiled into");
    d.scalar("/stats/tsp/data_check/on", "bool", "the run checks destination memory contents");
    d.scalar("/stats/tsp/data_check/slots", "count", "destination slots checked");
    d.scalar("/stats/tsp/data_check/ambiguous_slots", "count", "slots left unchecked: their final value depends on unordered transfers");
    // The schedule against its prediction and bound.
    d.scalar("/stats/tsp/schedule/jitter_allowance_ps", "ps", "lateness an arrival may have against its prediction");
    d.scalar("/stats/tsp/schedule/vectors_checked", "vectors", "vector arrivals checked against their prediction");
    d.scalar("/stats/tsp/schedule/verified", "bool", "the static verifier checked the schedule");
    d.scalar("/stats/tsp/schedule/prediction_error_ps", "ps", "largest |actual - predicted| arrival");
    d.scalar("/stats/tsp/schedule/predicted_makespan_ps", "ps", "makespan the scheduler predicted");
    d.scalar("/stats/tsp/schedule/lower_bound_ps", "ps", "schedule-independent lower bound on the makespan");
    d.scalar("/stats/tsp/schedule/efficiency", "ratio", "lower_bound_ps / makespan (1 is perfect)");
    d.scalar("/stats/tsp/schedule/bound_terms/*/ps", "ps", "one term of the lower bound (key: its name)");
    d.scalar("/stats/tsp/schedule/bound_terms/*/where", "text", "where the term binds (a TSP, node, rack or cut)");
    d.scalar("/stats/tsp/schedule/bound_binding", "text", "the largest term's name");
    d.scalar("/stats/tsp/schedule/link_utilization_max", "ratio", "busiest link's busy time over the makespan");
    d.scalar("/stats/tsp/schedule/algorithm_bound_ps", "ps", "the collective operation's bound, whatever the algorithm");
    d.scalar("/stats/tsp/schedule/algorithm_efficiency", "ratio", "algorithm_bound_ps / makespan");
    d.list("/stats/tsp/arrivals", "mixed", "small runs with recording on: each vector arrival (tsp, port, transfer, vector, arrival_ps in ps, fec)");
    // One group per active chip (key: its path, sys.<rack>.<node>.<tsp>).
    d.scalar("/stats/sys.*/instructions", "count", "instructions the TSP issued");
    d.scalar("/stats/sys.*/ops/send", "count", "Send instructions issued");
    d.scalar("/stats/sys.*/ops/forward", "count", "Forward instructions issued");
    d.scalar("/stats/sys.*/ops/receive", "count", "Receive instructions issued");
    d.scalar("/stats/sys.*/ops/reduce", "count", "Reduce instructions issued");
    d.scalar("/stats/sys.*/vectors_sent", "vectors", "vectors the TSP put on its links");
    d.scalar("/stats/sys.*/vector_hops", "vectors", "vectors that arrived at the TSP's input ports");
    d.scalar("/stats/sys.*/vectors_delivered", "vectors", "vectors for which the TSP was a final destination");
    d.scalar("/stats/sys.*/vectors_forwarded", "vectors", "vectors the TSP forwarded (cut-through)");
    d.scalar("/stats/sys.*/vectors_reduced", "vectors", "vectors the TSP combined into memory by a Reduce");
    d.scalar("/stats/sys.*/ports/*/link", "text", "the port's link (key: port<k>; ports that carried nothing are left out)");
    d.scalar("/stats/sys.*/ports/*/peer", "text", "the TSP at the other end");
    d.scalar("/stats/sys.*/ports/*/class", "text", "the link's class");
    d.scalar("/stats/sys.*/ports/*/vectors_out", "vectors", "vectors sent on the port");
    d.scalar("/stats/sys.*/ports/*/vectors_in", "vectors", "vectors that arrived on the port");
    d.scalar("/stats/sys.*/ports/*/trains", "count", "back-to-back trains of vectors sent");
    d.scalar("/stats/sys.*/ports/*/busy_ps", "ps", "time the port spent serializing");
    d.scalar("/stats/sys.*/ports/*/utilization", "ratio", "busy_ps over the active span");
    d.scalar("/stats/sys.*/ports/*/corrected", "vectors", "vectors with an error FEC corrected");
    d.scalar("/stats/sys.*/ports/*/uncorrectable", "vectors", "vectors with an error FEC could not correct");
    d.list("/stats/sys.*/memory", "mixed", "small runs: final memory contents as [byte address, value] pairs");
    return d;
}

std::vector<sim::Probe> TspModel::probes(const std::string& key) const { return probes_.select(key); }

// The readers add up what every chip counted so far (they change nothing).
void TspModel::add_probes() {
    auto total = [this](std::string name, std::int64_t (*pick)(const ChipTotals&)) {
        probes_.add("/stats/tsp/" + std::move(name), [this, pick](Time) {
            std::int64_t n = 0;
            for (const TspChip* c : chips_) n += pick(c->totals());
            return stats::Json(n);
        });
    };
    total("instructions", [](const ChipTotals& t) { return t.instructions; });
    total("vectors_sent", [](const ChipTotals& t) { return t.vectors_sent; });
    total("vector_hops", [](const ChipTotals& t) { return t.vector_hops; });
    total("vectors_delivered", [](const ChipTotals& t) { return t.vectors_delivered; });
    probes_.add("/stats/tsp/active_tsps", [this](Time) {
        return stats::Json(static_cast<std::int64_t>(
            std::count_if(chips_.begin(), chips_.end(), [](const TspChip* c) { return c->active(); })));
    });
    auto latest = [this](std::string name, Time (*pick)(const ChipTotals&)) {
        probes_.add("/stats/tsp/" + std::move(name), [this, pick](Time) {
            Time t = Time::zero();
            for (const TspChip* c : chips_) t = std::max(t, pick(c->totals()));
            return stats::Json(t.count());
        });
    };
    latest("active_until_ps", [](const ChipTotals& t) { return t.last_arrival; });
    latest("makespan_ps", [](const ChipTotals& t) { return t.last_delivery; });
}

}  // namespace loom::tsp
