#include "loom/phold/logical_process.hpp"

namespace loom::phold {

LogicalProcess::LogicalProcess(sim::Context& ctx, const PholdConfig& config)
    : sim::Component(ctx),
      lps_(static_cast<std::uint64_t>(config.lps)),
      lookahead_(config.lookahead),
      mean_ps_(static_cast<double>(config.mean_delay.count())),
      port_(ctx, "net", this, sim::handler<&LogicalProcess::on_token>),
      population_(config.population) {}

void LogicalProcess::init() {
    const auto first = static_cast<std::int64_t>(port_.index()) * population_;
    for (std::int64_t k = 0; k < population_; ++k) {
        port_.send(port_.index(), static_cast<std::uint32_t>(first + k), next_delay());
    }
}

Time LogicalProcess::next_delay() {
    if (mean_ps_ == 0) return lookahead_;
    const double draw = ctx().rng().exponential(mean_ps_);
    return lookahead_ + Time::ps(static_cast<std::int64_t>(draw + 0.5));
}

void LogicalProcess::on_token(std::uint32_t token) {
    ++handled_;
    const auto to = static_cast<std::uint32_t>(ctx().rng().uniform(lps_));
    port_.send(to, token, next_delay());
}

}  // namespace loom::phold
