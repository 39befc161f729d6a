#include "loom/sim/context.hpp"

#include "loom/base/error.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/stats/group.hpp"

namespace loom::sim {

void Log::write(spdlog::level::level_enum level, std::string_view message) const {
    logger_->log(level, "t={} {}: {}", to_string(ctx_->now()), ctx_->path(), message);
}

Context::Context(Simulator& sim, std::string path, std::uint32_t source, std::uint64_t seed,
                 spdlog::logger* logger)
    : now_(sim.now_ptr()),
      next_key_(std::uint64_t{source} << key::kCounterBits),
      key_end_(key_end(source)),
      rng_(derive(seed, path)),
      sim_(&sim),
      path_(std::move(path)),
      source_(source),
      log_(logger, this) {}

stats::Group& Context::stats() {
    if (stats_ == nullptr) stats_ = &sim_->stats().group(path_);
    return *stats_;
}

void Context::counter_exhausted() const {
    throw InternalError(fmt::format("{}: sent 2^{} - 1 events, the most one event source can send", path_,
                                    key::kCounterBits));
}

}  // namespace loom::sim
