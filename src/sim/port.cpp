#include "loom/sim/port.hpp"

#include <fmt/format.h>

#include "loom/base/error.hpp"

namespace loom::sim {

PortBase::PortBase(Context& ctx, std::string_view name)
    : sim_(&ctx.sim()), id_(sim_->register_port(this, ctx.path() + "." + std::string(name))) {}

OutPort::OutPort(Context& ctx, std::string_view name) : PortBase(ctx, name), ctx_(&ctx) {}

void OutPort::reject(Time delay) const {
    if (!bound_) throw InternalError("port " + path() + " is not connected");
    throw InternalError(fmt::format("port {}: send with delay {} is below the link's minimum latency {}", path(),
                                    loom::to_string(delay), loom::to_string(latency_)));
}

}  // namespace loom::sim
