// The "traffic" config section of the dynamically routed network: where packets go (uniform random, a random
// permutation, adversarial group shift, hotspot, or a trace of messages), how fast terminals inject (Bernoulli,
// in flits per cycle per terminal) and how a run is measured (warm-up until steady, window, drain).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "loom/config/schema.hpp"

namespace loom::workload {

enum class TrafficPatternKind {
    Uniform,      // every other terminal equally likely
    Permutation,  // a fixed random permutation (one cycle, so no terminal sends to itself)
    GroupShift,   // adversarial: a terminal of group i sends to a random terminal of group i + shift (mod groups)
    Hotspot,      // a share of the packets goes to a few hotspot terminals, the rest is uniform
    Trace,        // messages read from a JSON-lines file (TrafficTrace)
};

// "uniform", "permutation", "group_shift", "hotspot", "trace" (as written in configs).
std::string_view traffic_pattern_name(TrafficPatternKind kind);

// How a run with Bernoulli injection is measured. Time advances in samples of `sample_cycles`; per sample the
// monitor takes the mean packet latency and the growth of the backlog (flits generated - flits ejected).
//   warm-up  — steady once, over two consecutive samples (at least min_warmup_samples in), the mean latency
//              moved by at most warmup_threshold (relative) and the backlog grew by at most warmup_threshold of
//              the flits generated plus sqrt(packets generated) packets (the Poisson noise of one sample);
//              not steady after max_warmup_samples: the run is saturated and no latency is reported.
//   measure  — packets generated in the next measure_cycles are marked; the window's accepted throughput must
//              be within warmup_threshold of the offered load, else the run is saturated.
//   drain    — injection goes on until every marked packet has arrived; more than max_drain_cycles: saturated.
// Defaults follow the usual practice of cycle-level network studies (samples of 1,000 cycles, a 5% convergence
// threshold); 1,000 cycles are about 7x the zero-load latency of the 1,056-terminal reference Dragonfly.
struct MeasurementConfig {
    std::int64_t sample_cycles = 1'000;
    std::int32_t min_warmup_samples = 3;
    std::int32_t max_warmup_samples = 20;
    double warmup_threshold = 0.05;
    std::int64_t measure_cycles = 10'000;  // a multiple of sample_cycles
    std::int64_t max_drain_cycles = 20'000;
    // No flit ejected for this long while flits are in the network is reported as a deadlock (a model error).
    std::int64_t deadlock_cycles = 20'000;
};

config::Schema<MeasurementConfig> measurement_schema();

struct TrafficConfig {
    TrafficPatternKind pattern = TrafficPatternKind::Uniform;
    // Offered load in flits per cycle per terminal: each cycle a terminal generates a packet with probability
    // rate / packet_flits (Bernoulli injection counted in flits). 1.0 is a terminal channel's full bandwidth.
    double rate = 0.1;
    // Flits per packet of synthetic traffic; trace messages are cut into packets of at most this many flits.
    // 10 flits: the reference Dragonfly set-up.
    std::int32_t packet_flits = 10;
    // group_shift: destination group = source group + shift (mod groups). 1: the adversarial pattern of Dragonfly
    // studies, where all of a group's traffic crosses the single global link to the next group.
    std::int32_t shift = 1;
    // hotspot: terminal ids that receive hotspot_fraction of all packets (uniformly among them).
    std::vector<std::int64_t> hotspots{0};
    double hotspot_fraction = 0.1;
    // trace: path of a JSON-lines file (relative to the working directory), one message per line:
    // {"time": "15ns" | integer ps, "src": terminal, "dst": terminal, "bytes": integer >= 1}.
    std::string trace;
    MeasurementConfig measurement;
};

config::Schema<TrafficConfig> traffic_schema();

}  // namespace loom::workload
