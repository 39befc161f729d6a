// The kernel's event record and its ordering key: (time, phase, source id, source's send counter), so the
// order of simultaneous events never depends on when, or in which process, they were inserted.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "loom/base/units.hpp"

namespace loom::sim {

// Sub-ordering of events at the same picosecond, lowest first. A model that needs another step picks an
// unused value below kPhaseCount; the named ones are the kernel's conventions:
//   Delivery — arrivals over links and channels, so every component sees all of time t's arrivals ...
//   Timer    — ... before its own timers at t fire (timeouts, issue slots, retransmissions),
//   Clock    — then clock-driven work that wants both (a cycle's pipeline step after its inputs landed),
//   Report   — then sampling and end-of-step bookkeeping, which must see the state after everything else.
enum class Phase : std::uint8_t { Delivery = 0, Timer = 1, Clock = 2, Report = 3 };
inline constexpr unsigned kPhaseCount = 16;

// The 64-bit tie-break half of the key: phase | source id | send counter, compared as one integer.
// Bit budget (asserted where ids and counters are handed out):
//   bits 63..60  phase            16 phases
//   bits 59..36  source id        2^24 = 16,777,216 sending components per simulation
//   bits 35..0   send counter     2^36 = 68.7e9 events sent by one component
namespace key {
inline constexpr unsigned kCounterBits = 36;
inline constexpr unsigned kSourceBits = 24;
inline constexpr unsigned kPhaseShift = kCounterBits + kSourceBits;  // 60
inline constexpr std::uint64_t kCounterMask = (std::uint64_t{1} << kCounterBits) - 1;
inline constexpr std::uint32_t kMaxSources = std::uint32_t{1} << kSourceBits;

constexpr std::uint64_t make(Phase phase, std::uint32_t source, std::uint64_t counter) {
    return (std::uint64_t{static_cast<std::uint8_t>(phase)} << kPhaseShift) |
           (std::uint64_t{source} << kCounterBits) | counter;
}
constexpr unsigned phase_of(std::uint64_t k) { return static_cast<unsigned>(k >> kPhaseShift); }
constexpr std::uint32_t source_of(std::uint64_t k) {
    return static_cast<std::uint32_t>((k >> kCounterBits) & (kMaxSources - 1));
}
constexpr std::uint64_t counter_of(std::uint64_t k) { return k & kCounterMask; }
}  // namespace key

// One pending event: a 24-byte POD (no default member values, so arrays of them cost nothing to declare).
// `target` is a handler slot of the Simulator (an input port, a channel endpoint, a timer); `arg` is the
// handler's payload (a packet handle, a timer generation, a port-level tag). Times are never negative: the
// simulation starts at 0.
struct Event {
    std::int64_t time;  // ps
    std::uint64_t key;  // see key:: above
    std::uint32_t target;
    std::uint32_t arg;
};
static_assert(sizeof(Event) == 24);
static_assert(std::is_trivial_v<Event>);

// Strict order of the queue: time, then key. Two distinct events never compare equal because (source,
// counter) is unique per send. Written on the 128-bit concatenation so it compiles to a branch-free compare.
inline bool before(const Event& a, const Event& b) {
    __extension__ using U128 = unsigned __int128;
    const U128 ka = (static_cast<U128>(static_cast<std::uint64_t>(a.time)) << 64) | a.key;
    const U128 kb = (static_cast<U128>(static_cast<std::uint64_t>(b.time)) << 64) | b.key;
    return ka < kb;
}

// "t=1500ps phase=0 src=3 n=17 slot=5 arg=0", for messages and test failures.
std::string to_string(const Event& e);

}  // namespace loom::sim
