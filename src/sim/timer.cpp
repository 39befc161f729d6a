#include "loom/sim/timer.hpp"

#include <fmt/format.h>

#include "loom/base/error.hpp"

namespace loom::sim {

void Timer::reject(Time when) const {
    throw InternalError(fmt::format("{}: timer armed for {}, before the current time {}", ctx_->path(),
                                    loom::to_string(when), loom::to_string(ctx_->now())));
}

}  // namespace loom::sim
