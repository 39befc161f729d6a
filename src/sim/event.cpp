#include "loom/sim/event.hpp"

#include <fmt/format.h>

namespace loom::sim {

std::string to_string(const Event& e) {
    return fmt::format("t={}ps phase={} src={} n={} slot={} arg={}", e.time, key::phase_of(e.key),
                       key::source_of(e.key), key::counter_of(e.key), e.target, e.arg);
}

}  // namespace loom::sim
