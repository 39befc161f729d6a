#include "loom/sched/scheduler_config.hpp"

#include <cstdint>

namespace loom::sched {

std::string_view nonminimal_via_name(NonminimalVia v) {
    switch (v) {
        case NonminimalVia::Auto: return "auto";
        case NonminimalVia::Tsp: return "tsp";
        case NonminimalVia::Node: return "node";
        case NonminimalVia::Group: return "group";
    }
    return "?";
}

config::Schema<SchedulerConfig> scheduler_schema() {
    using C = SchedulerConfig;
    config::Schema<C> s("compile-time scheduler: path choice, spreading, staging and jitter slack");
    s.field("max_paths", &C::max_paths,
            "most paths one tensor's vectors are spread over (minimal first, then detours); not published, 8")
        .range(1, 64);
    s.field("allow_nonminimal", &C::allow_nonminimal,
            "spread over non-minimal paths when that lowers a tensor's completion (paper: used for load balancing)");
    s.choice("nonminimal_via", &C::nonminimal_via,
             {{"auto", NonminimalVia::Auto},
              {"tsp", NonminimalVia::Tsp},
              {"node", NonminimalVia::Node},
              {"group", NonminimalVia::Group}},
             "where detours turn: auto (another node when there are several, else another TSP), tsp, node, group");
    s.field("staging", &C::staging,
            "allow staging a piece of a tensor in an intermediate TSP's memory when that completes it earlier");
    s.field("staging_bytes", &C::staging_bytes,
            "memory at the top of every TSP reserved for staged vectors; not published, 16MiB")
        .range(Bytes(0), Bytes(std::int64_t{1} << 40));
    s.field("jitter_allowance", &C::jitter_allowance,
            "slack for link jitter in every consuming instruction (default: the largest link-class jitter)")
        .at_least(Time::zero());
    s.field("min_chunk_vectors", &C::min_chunk_vectors,
            "smallest piece (in vectors) a tensor is split into when spread over paths")
        .range(1, 1 << 30);
    s.field("max_train_vectors", &C::max_train_vectors, "longest train one instruction sends (0: no limit)")
        .range(0, std::int64_t{1} << 40);
    s.field("verify", &C::verify,
            "check the compiled schedule with the static verifier before running it (false: not checked, and the "
            "report says so)");
    return s;
}

}  // namespace loom::sched
