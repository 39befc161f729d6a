#include "loom/workload/traffic_config.hpp"

#include <fmt/format.h>

namespace loom::workload {

std::string_view traffic_pattern_name(TrafficPatternKind kind) {
    switch (kind) {
        case TrafficPatternKind::Uniform: return "uniform";
        case TrafficPatternKind::Permutation: return "permutation";
        case TrafficPatternKind::GroupShift: return "group_shift";
        case TrafficPatternKind::Hotspot: return "hotspot";
        case TrafficPatternKind::Trace: return "trace";
    }
    return "?";
}

config::Schema<MeasurementConfig> measurement_schema() {
    using M = MeasurementConfig;
    config::Schema<M> s("How a run with Bernoulli injection is measured: warm-up until steady, a measurement "
                        "window, then a drain of the packets generated in the window.");
    s.field("sample_cycles", &M::sample_cycles,
            "Length of one sample; warm-up convergence is judged sample by sample.")
        .range(10, std::int64_t{1} << 32);
    s.field("min_warmup_samples", &M::min_warmup_samples, "Samples of warm-up before convergence is checked.")
        .range(2, 1'000'000);
    s.field("max_warmup_samples", &M::max_warmup_samples,
            "Samples of warm-up after which a run that has not converged is reported as saturated.")
        .range(2, 1'000'000);
    s.field("warmup_threshold", &M::warmup_threshold,
            "Relative tolerance of the steady-state tests: latency change between samples, backlog growth, "
            "accepted versus offered load in the window.")
        .range(0.0, 1.0);
    s.field("measure_cycles", &M::measure_cycles,
            "Measurement window: packets generated in it are marked and measured (a multiple of sample_cycles).")
        .range(10, std::int64_t{1} << 40);
    s.field("max_drain_cycles", &M::max_drain_cycles,
            "Longest drain of marked packets after the window before the run is reported as saturated.")
        .range(1, std::int64_t{1} << 40);
    s.field("deadlock_cycles", &M::deadlock_cycles,
            "No flit ejected for this long while flits are in the network stops the run with a deadlock error.")
        .range(100, std::int64_t{1} << 40);
    s.check("max_warmup_samples", [](const M& m) -> std::optional<std::string> {
        if (m.max_warmup_samples < m.min_warmup_samples)
            return fmt::format("must be at least min_warmup_samples ({}), got {}", m.min_warmup_samples,
                               m.max_warmup_samples);
        return std::nullopt;
    });
    s.check("measure_cycles", [](const M& m) -> std::optional<std::string> {
        if (m.measure_cycles % m.sample_cycles != 0)
            return fmt::format("must be a multiple of sample_cycles ({}), got {}", m.sample_cycles, m.measure_cycles);
        return std::nullopt;
    });
    return s;
}

config::Schema<TrafficConfig> traffic_schema() {
    using T = TrafficConfig;
    config::Schema<T> s("Traffic offered to the network: destination pattern, Bernoulli injection rate, packet "
                        "size, and the measurement method.");
    s.choice("pattern", &T::pattern,
             {{"uniform", TrafficPatternKind::Uniform},
              {"permutation", TrafficPatternKind::Permutation},
              {"group_shift", TrafficPatternKind::GroupShift},
              {"hotspot", TrafficPatternKind::Hotspot},
              {"trace", TrafficPatternKind::Trace}},
             "Destinations: uniform random over the other terminals, a fixed random permutation, adversarial "
             "group shift (group i -> group i + shift), hotspot, or the messages of a trace file.");
    s.field("rate", &T::rate,
            "Offered load in flits per cycle per terminal (Bernoulli: a packet each cycle with probability "
            "rate / packet_flits). Ignored by traces.")
        .range(0.0, 1.0);
    s.field("packet_flits", &T::packet_flits,
            "Flits per packet (traces: the largest packet a message is cut into).")
        .range(1, 4096);
    s.field("shift", &T::shift, "group_shift: destination group = source group + shift (mod groups).")
        .range(1, 1'000'000);
    s.field("hotspots", &T::hotspots, "hotspot: terminal ids that receive hotspot_fraction of the packets.")
        .range(0, std::int64_t{1} << 30);
    s.field("hotspot_fraction", &T::hotspot_fraction,
            "hotspot: share of the packets sent to a hotspot terminal; the rest is uniform.")
        .range(0.0, 1.0);
    s.field("trace", &T::trace,
            "trace: JSON-lines file, one message per line: {\"time\": \"15ns\" or integer ps, \"src\": terminal, "
            "\"dst\": terminal, \"bytes\": integer}.")
        .file_path();
    s.section("measurement", &T::measurement, measurement_schema(),
              "Warm-up, measurement window and drain of runs with Bernoulli injection.");
    s.check("trace", [](const T& t) -> std::optional<std::string> {
        if (t.pattern == TrafficPatternKind::Trace && t.trace.empty())
            return std::string("pattern \"trace\" needs the path of a trace file");
        return std::nullopt;
    });
    s.check("hotspots", [](const T& t) -> std::optional<std::string> {
        if (t.pattern == TrafficPatternKind::Hotspot && t.hotspots.empty())
            return std::string("pattern \"hotspot\" needs at least one hotspot terminal");
        return std::nullopt;
    });
    return s;
}

}  // namespace loom::workload
