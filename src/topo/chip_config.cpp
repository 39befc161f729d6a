#include "loom/topo/chip_config.hpp"

#include <cmath>

namespace loom::topo {

std::int64_t ChipConfig::clock_offset_ppb() const { return std::llround(clock_offset_ppm * 1000.0); }

ClockDomain ChipConfig::clock() const { return ClockDomain(core_clock, clock_offset_ppb()); }

Time ChipConfig::forward_time() const {
    // ceil(cycles * 10^12 / f) ps at the nominal frequency.
    __extension__ using i128 = __int128;
    const i128 num = static_cast<i128>(forward_cycles) * 1'000'000'000'000LL;
    const i128 f = core_clock.hertz();
    return Time::ps(static_cast<std::int64_t>((num + f - 1) / f));
}

config::Schema<ChipConfig> chip_schema() {
    using C = ChipConfig;
    config::Schema<C> s("TSP chip timing (paper: 900 MHz, 220 MiB SRAM)");
    s.field("core_clock", &C::core_clock, "core clock frequency (paper: 900MHz)")
        .range(Frequency::mhz(1), Frequency::ghz(100));
    s.field("clock_offset_ppm", &C::clock_offset_ppm,
            "offset of the reference clocks from nominal, ppm (drift not published)")
        .range(-1000.0, 1000.0);
    s.field("forward_cycles", &C::forward_cycles,
            "core cycles from a vector's arrival to its onward transmission (virtual cut-through); not published, "
            "178 makes an in-node hop about 722ns")
        .range(0, 1'000'000);
    s.field("reduce_cycles", &C::reduce_cycles,
            "extra core cycles to add a received vector to a local one before forwarding; not published")
        .range(0, 1'000'000);
    s.field("issue_cycles", &C::issue_cycles,
            "core cycles from a Send's issue to the first bit of its train; not published, 0: the issue cycle is "
            "the first-bit cycle")
        .range(0, 1'000'000);
    s.field("crossing_cycles", &C::crossing_cycles,
            "core cycles after the first core edge at or after a vector's arrival until the core can use it; not "
            "published, 0: the links' clock_crossing latency part carries the crossing delay")
        .range(0, 1'000'000);
    s.field("fifo_depth", &C::fifo_depth,
            "clock-crossing FIFO depth in vectors (paper: shallow, depth not published)")
        .range(1, 1'000'000);
    s.field("memory", &C::memory, "SRAM per TSP (paper: 220MiB)")
        .range(Bytes(1), Bytes(std::int64_t{1} << 40));
    return s;
}

}  // namespace loom::topo
