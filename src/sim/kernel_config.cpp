#include "loom/sim/kernel_config.hpp"

namespace loom::sim {

config::Schema<KernelConfig> kernel_schema() {
    config::Schema<KernelConfig> s("Discrete-event kernel: event queue implementation and event budget.");
    s.choice("queue", &KernelConfig::queue,
             {{"calendar", QueueKind::Calendar},
              {"heap", QueueKind::Heap},
              {"two_level", QueueKind::TwoLevel},
              {"radix", QueueKind::Radix}},
             "Pending-event queue: \"calendar\" (self-tuning bucket ring, the default), \"heap\" (4-ary heap, the "
             "reference), \"two_level\" (self-tuning two-level buckets: fewer instructions, more CPU time on "
             "PHOLD) or \"radix\" (self-tuning windows sorted by counting sort: the fastest on PHOLD and hold "
             "workloads, slower on bursts of simultaneous events). Results are identical; only speed and memory differ.");
    s.field("max_events", &KernelConfig::max_events,
            "Stop after this many events even if end_time is not reached (0: no limit).")
        .at_least(0);
    s.field("shuffle_construction", &KernelConfig::shuffle_construction,
            "A check of determinism: nonzero builds the model's components in an order shuffled by this seed. "
            "Source ids come from component paths, so the stats are identical to the run with 0 (the written "
            "order); only config_hash differs.")
        .at_least(0);
    return s;
}

SimulatorOptions simulator_options(const KernelConfig& kernel, std::uint64_t seed) {
    SimulatorOptions o;
    o.seed = seed;
    o.queue = kernel.queue;
    o.shuffle_construction = static_cast<std::uint64_t>(kernel.shuffle_construction);
    return o;
}

RunLimits run_limits(const KernelConfig& kernel, Time end) {
    RunLimits l;
    l.end = end;
    l.max_events = static_cast<std::uint64_t>(kernel.max_events);
    return l;
}

}  // namespace loom::sim
