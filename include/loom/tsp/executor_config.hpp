// The "executor" config section: how the TSP chips execute their programs (one event per vector per hop, or
// one per train per hop with per-vector times computed analytically) and how much of the run is listed.
#pragma once

#include <cstdint>

#include "loom/config/schema.hpp"

namespace loom::tsp {

enum class ExecutionMode {
    Train,   // one arrival event per train segment per hop; per-vector checks done arithmetically
    Vector,  // one arrival event per vector per hop (the reference the train mode is proven against)
};
const char* to_string(ExecutionMode mode);  // "train" | "vector"

struct ExecutorConfig {
    // Train mode is the fast one and gives the same arrival times, FEC outcomes and statistics.
    ExecutionMode mode = ExecutionMode::Train;
    // Every vector's arrival at every hop is listed in the stats ("arrivals") when the run has at most this many
    // vector hops (0: never). 10,000 entries keep the document under about a megabyte.
    std::int64_t record_limit = 10'000;
    // A "workload" run seeds its transfers' source vectors with random values and checks every destination's
    // memory at the end (tsp/data_check.hpp), at every size; off only when asked (it costs a memory cell per slot
    // touched and the executor's time moving values).
    bool data_check = true;
    // Not a config field: the executor checks a run's part of equally numbered vectors with its counters, latency
    // histogram and predictions taken in bulk, and finds which of a deferred part's writes come before a read
    // without timing each (false: one vector at a time, the reference the tests compare with).
    bool bulk_checks = true;
};

// {"mode": "train" | "vector", "record_limit": integer >= 0, "data_check": boolean}.
config::Schema<ExecutorConfig> executor_schema();

}  // namespace loom::tsp
