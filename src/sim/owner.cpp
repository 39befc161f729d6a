#include "loom/sim/owner.hpp"

#include <fmt/format.h>

#include "loom/base/error.hpp"
#include "loom/sim/context.hpp"
#include "loom/sim/simulator.hpp"

namespace loom::sim {

void Owner::verify(const char* what) const {
    const Context* running = owner_->sim().running();
    if (running == nullptr || running == owner_) return;
    throw InternalError(fmt::format("{}: touched {} owned by {} at {} (components share nothing mutable)",
                                    running->path(), what, owner_->path(), loom::to_string(running->now())));
}

}  // namespace loom::sim
