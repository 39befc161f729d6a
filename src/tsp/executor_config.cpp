#include "loom/tsp/executor_config.hpp"

namespace loom::tsp {

const char* to_string(ExecutionMode mode) { return mode == ExecutionMode::Train ? "train" : "vector"; }

config::Schema<ExecutorConfig> executor_schema() {
    using E = ExecutorConfig;
    config::Schema<E> s("How TSP chips execute their programs; both modes give identical results");
    s.choice("mode", &E::mode, {{"train", ExecutionMode::Train}, {"vector", ExecutionMode::Vector}},
             "train: one event per train per hop, per-vector times computed analytically; vector: one event per "
             "vector per hop");
    s.field("record_limit", &E::record_limit,
            "list every vector's arrival at every hop in the stats when the run has at most this many vector hops")
        .range(0, 100'000'000);
    s.field("value_limit", &E::value_limit,
            "a workload run checks data flow (source values reach every destination) when it has at most this many "
            "vectors")
        .range(0, std::int64_t{1} << 40);
    return s;
}

}  // namespace loom::tsp
