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
    s.field("data_check", &E::data_check,
            "a workload run seeds every source vector with a random 64-bit value and checks that every destination "
            "ends with exactly its contributions (false: data not checked, and the report says so)");
    return s;
}

}  // namespace loom::tsp
