// What a component gets from the kernel: its simulator, hierarchical path, logger, statistics group, RNG
// stream and its identity as an event source (the source id and send counter of the event key).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <spdlog/logger.h>

#include "loom/base/rng.hpp"
#include "loom/base/units.hpp"
#include "loom/sim/event.hpp"

namespace loom::stats {
class Group;
}

namespace loom::sim {

class Simulator;
class Context;

// Log lines of one component: "[<subsystem>] [<level>] t=<sim time> <path>: <message>". Formatting only
// happens when the level is enabled; trace lines compile to nothing unless SPDLOG_ACTIVE_LEVEL allows them
// (Debug builds).
class Log {
public:
    Log(spdlog::logger* logger, const Context* ctx) : logger_(logger), ctx_(ctx) {}

    bool enabled(spdlog::level::level_enum level) const { return logger_->should_log(level); }

    template <class... A>
    void trace([[maybe_unused]] fmt::format_string<A...> f, [[maybe_unused]] A&&... a) const {
#if SPDLOG_ACTIVE_LEVEL <= SPDLOG_LEVEL_TRACE
        if (enabled(spdlog::level::trace)) write(spdlog::level::trace, fmt::format(f, std::forward<A>(a)...));
#endif
    }
    template <class... A>
    void debug(fmt::format_string<A...> f, A&&... a) const {
        if (enabled(spdlog::level::debug)) write(spdlog::level::debug, fmt::format(f, std::forward<A>(a)...));
    }
    template <class... A>
    void info(fmt::format_string<A...> f, A&&... a) const {
        if (enabled(spdlog::level::info)) write(spdlog::level::info, fmt::format(f, std::forward<A>(a)...));
    }
    template <class... A>
    void warn(fmt::format_string<A...> f, A&&... a) const {
        if (enabled(spdlog::level::warn)) write(spdlog::level::warn, fmt::format(f, std::forward<A>(a)...));
    }
    template <class... A>
    void error(fmt::format_string<A...> f, A&&... a) const {
        if (enabled(spdlog::level::err)) write(spdlog::level::err, fmt::format(f, std::forward<A>(a)...));
    }

private:
    void write(spdlog::level::level_enum level, std::string_view message) const;

    spdlog::logger* logger_;
    const Context* ctx_;
};

// One per component, created by Simulator::add and alive as long as the simulator. Not copyable: ports and
// timers keep a pointer to it. Cache-line aligned with the fields every event touches (clock, send counter,
// RNG state) in its first line.
class alignas(64) Context {
public:
    Context(Simulator& sim, std::string path, std::uint32_t source, std::uint64_t seed, spdlog::logger* logger);
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    Simulator& sim() const { return *sim_; }
    Time now() const { return Time::ps(*now_); }
    std::int64_t now_ps() const { return *now_; }
    // "sys.rack3.node2.tsp5": names logs, stats, errors and the RNG stream.
    const std::string& path() const { return path_; }
    // This component's own stream, seeded with derive(run seed, path): independent of every other component
    // and of creation order.
    Rng& rng() { return rng_; }
    // The statistics group at path(), created on first use (so components that record nothing add nothing
    // to the stats document).
    stats::Group& stats();
    const Log& log() const { return log_; }

    // Event-source identity: the source id and the key of this component's next event in `phase`. Used by
    // ports, channels and timers; every event a component causes carries its key. The id is provisional (the
    // creation index) until Simulator::init() gives every component the rank of its path (see
    // Simulator::init), so it never depends on the order in which a builder created the components.
    std::uint32_t source() const { return source_; }
    std::uint64_t next_key(Phase phase) {
        const std::uint64_t k = next_key_++;
        if (next_key_ == key_end_) [[unlikely]] counter_exhausted();  // one compare with memory
        return k | (std::uint64_t{static_cast<std::uint8_t>(phase)} << key::kPhaseShift);
    }
    std::uint64_t events_sent() const { return next_key_ & key::kCounterMask; }

private:
    friend class Simulator;
    [[noreturn]] void counter_exhausted() const;
    static constexpr std::uint64_t key_end(std::uint32_t source) {
        return (std::uint64_t{source} + 1) << key::kCounterBits;
    }
    // Called once by Simulator::init(), before any event is sent.
    void assign_source(std::uint32_t source) {
        source_ = source;
        next_key_ = std::uint64_t{source} << key::kCounterBits;
        key_end_ = key_end(source);
    }

    // Hot: read or written on every event the component handles or causes.
    const std::int64_t* now_;
    std::uint64_t next_key_;  // source << counter bits | counter; handing out counter 2^36 - 1 throws
    std::uint64_t key_end_;   // next_key_ once counter 2^36 - 1 is handed out: (source + 1) << counter bits
    Rng rng_;
    Simulator* sim_;
    // Cold.
    std::string path_;
    std::uint32_t source_;
    stats::Group* stats_ = nullptr;
    Log log_;
};

}  // namespace loom::sim
