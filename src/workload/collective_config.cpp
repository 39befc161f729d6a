#include "loom/workload/collective_config.hpp"

#include <limits>

namespace loom::workload {

std::string_view collective_kind_name(CollectiveKind k) {
    switch (k) {
        case CollectiveKind::None: return "none";
        case CollectiveKind::AllReduce: return "all_reduce";
        case CollectiveKind::AllGather: return "all_gather";
        case CollectiveKind::ReduceScatter: return "reduce_scatter";
        case CollectiveKind::AllToAll: return "all_to_all";
        case CollectiveKind::Broadcast: return "broadcast";
        case CollectiveKind::Gather: return "gather";
        case CollectiveKind::Scatter: return "scatter";
    }
    return "?";
}

std::string_view collective_algorithm_name(CollectiveAlgorithm a) {
    switch (a) {
        case CollectiveAlgorithm::Ring: return "ring";
        case CollectiveAlgorithm::Hierarchical: return "hierarchical";
        case CollectiveAlgorithm::Direct: return "direct";
    }
    return "?";
}

config::Schema<CollectiveConfig> collective_schema() {
    using C = CollectiveConfig;
    config::Schema<C> s("a collective over TSPs, expanded into tensor transfers with dependencies");
    s.choice("kind", &C::kind,
             {{"none", CollectiveKind::None},
              {"all_reduce", CollectiveKind::AllReduce},
              {"all_gather", CollectiveKind::AllGather},
              {"reduce_scatter", CollectiveKind::ReduceScatter},
              {"all_to_all", CollectiveKind::AllToAll},
              {"broadcast", CollectiveKind::Broadcast},
              {"gather", CollectiveKind::Gather},
              {"scatter", CollectiveKind::Scatter}},
             "which collective (none: no collective)");
    s.choice("algorithm", &C::algorithm,
             {{"ring", CollectiveAlgorithm::Ring},
              {"hierarchical", CollectiveAlgorithm::Hierarchical},
              {"direct", CollectiveAlgorithm::Direct}},
             "all_reduce: ring; hierarchical (node -> rack -> system reduce-scatter, then all-gather back); or direct "
             "(every two member nodes linked, as on a node, a rack or the 264-TSP system: each node sums the share of "
             "another node at the TSP holding their link, which sends it across; sums chained without a latency per "
             "contribution). all_to_all: direct relays blocks between nodes through the two ends of the node pair's "
             "link, one link per transfer; otherwise phased by shift over whatever paths the scheduler picks");
    s.field("bytes", &C::bytes,
            "per TSP: its tensor (all_reduce, reduce_scatter, all_to_all, broadcast) or its block (all_gather, "
            "gather, scatter)")
        .range(Bytes(1), Bytes(std::int64_t{1} << 40));
    s.field("root", &C::root, "broadcast, gather, scatter: vertex id of the root (a member)")
        .range(0, std::numeric_limits<std::int32_t>::max());
    s.field("tsps", &C::tsps, "member vertex ids, or \"compute\" (the default): every compute TSP")
        .range(0, std::numeric_limits<std::int32_t>::max());
    s.field("address", &C::address, "byte offset of the collective's buffer in every member's memory")
        .range(0, std::int64_t{1} << 40);
    s.field("pieces", &C::pieces,
            "sub-chunks per source when a chunk is reduced by one source after another (hierarchical, "
            "reduce_scatter), or per piece summed across nodes (direct all_reduce); not published, 4")
        .range(1, 64);
    return s;
}

config::Json normalize_collective(const config::Json& workload, const std::string& pointer, config::Errors& errors) {
    config::Json out = workload;
    if (!out.is_object() || !out.contains("collective") || !out["collective"].is_object()) return out;
    config::Json& c = out["collective"];
    if (c.contains("tsps") && c["tsps"].is_string()) {
        if (c["tsps"].get<std::string>() == "compute") {
            c.erase("tsps");
        } else {
            errors.add(config::child_pointer(config::child_pointer(pointer, "collective"), "tsps"),
                       "expected \"compute\" or a list of vertex ids, got " + config::quote_value(c["tsps"]));
            c.erase("tsps");
        }
    }
    return out;
}

}  // namespace loom::workload
