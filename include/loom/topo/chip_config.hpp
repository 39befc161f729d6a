// The "chip" config section: TSP timing parameters that planning needs (core clock, issue, forwarding, reduction
// and clock-crossing latency in core cycles, clock-crossing FIFO depth, memory per TSP).
#pragma once

#include <cstdint>

#include "loom/base/clock_domain.hpp"
#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"

namespace loom::topo {

struct ChipConfig {
    // Paper: 900 MHz core clock.
    Frequency core_clock = Frequency::mhz(900);
    // Offset of this system's reference clocks from nominal, in ppm (plesiochronous clocks; drift rate not
    // published). 0: all TSPs run at the nominal frequency.
    double clock_offset_ppm = 0.0;
    // Virtual cut-through forwarding: core cycles from a vector's arrival (after the clock crossing) to the
    // first bit of its onward transmission. Not published: 178 cycles (197.78 ns) makes an in-node hop
    // 721.77 ns with the "links" defaults, close to the paper's 722 ns per hop (see link_class_timing.hpp).
    std::int64_t forward_cycles = 178;
    // Extra core cycles when an intermediate TSP adds a received vector to a local one before forwarding it
    // (reduce). Not published: 20 cycles, a few ALU stages plus the stream transit to the vector unit.
    std::int64_t reduce_cycles = 20;
    // Core cycles from a Send's issue to the first bit of its train on the wire (sched/schedule.hpp, contract
    // rule 2). Not published: 0, since the transmit path's time is held by the links' serdes_fec latency part.
    std::int64_t issue_cycles = 0;
    // Core cycles a fully arrived vector waits after the first core edge at or after its arrival before the core
    // may use it (contract rule 3). Not published: 0, since the links' clock_crossing latency part already
    // holds the crossing's time; a positive value models a longer synchronizer.
    std::int64_t crossing_cycles = 0;
    // Depth of the clock-crossing FIFO between C2C logic and core, in vectors. Paper: "shallow", depth not
    // published; 4 vectors absorb the measured +-10-cycle link jitter (a vector every 23.6 cycles at 100 Gbps).
    std::int32_t fifo_depth = 4;
    // Paper: 220 MiB of SRAM per TSP (88 slices x 2.5 MiB).
    Bytes memory = Bytes(220LL << 20);

    // Offset in parts per billion (as ClockDomain takes it), rounded to the nearest ppb.
    std::int64_t clock_offset_ppb() const;
    // The chip's core clock domain (edge 0 at time 0).
    ClockDomain clock() const;
    // Duration of forward_cycles at the nominal clock, rounded up to a picosecond.
    Time forward_time() const;
};

config::Schema<ChipConfig> chip_schema();

}  // namespace loom::topo
