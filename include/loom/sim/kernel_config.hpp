// The optional "kernel" config section: which event queue a run uses and an event budget. Parsed by the
// scenario layer through kernel_schema() and turned into SimulatorOptions and RunLimits.
#pragma once

#include <cstdint>

#include "loom/config/schema.hpp"
#include "loom/sim/event_queue.hpp"
#include "loom/sim/simulator.hpp"

namespace loom::sim {

struct KernelConfig {
    QueueKind queue = QueueKind::Calendar;  // the fastest implementation on every measured workload
    std::int64_t max_events = 0;            // 0: no budget
    std::int64_t shuffle_construction = 0;  // 0: builders create components in their written order
};

// {"queue": "two_level" | "calendar" | "heap" | "radix", "max_events": integer >= 0, "shuffle_construction": integer >= 0}.
config::Schema<KernelConfig> kernel_schema();

// The options and limits a KernelConfig implies, given the run's seed and end time.
SimulatorOptions simulator_options(const KernelConfig& kernel, std::uint64_t seed);
RunLimits run_limits(const KernelConfig& kernel, Time end);

}  // namespace loom::sim
