// Base class of everything a model puts in a simulation, and the handler tag that binds a member function to
// an input port, channel endpoint or timer without std::function or per-event allocation.
#pragma once

#include <string>

#include "loom/base/units.hpp"
#include "loom/sim/context.hpp"

namespace loom::sim {

// Lifecycle, driven by the Simulator: construct (Simulator::add, ports and timers declared as members) ->
// connect (the builder binds every port) -> init() (all ports bound; schedule initial events, arm timers)
// -> run -> finish() (write final stats). Components interact only through ports, channels and links; they
// never hold pointers to each other's state (that is what lets a model be partitioned over processes).
// Components start on a cache line, so a component that puts its hot fields first touches as few lines per
// event as its hot fields need.
class alignas(64) Component {
public:
    explicit Component(Context& ctx) : ctx_(ctx) {}
    virtual ~Component() = default;
    Component(const Component&) = delete;
    Component& operator=(const Component&) = delete;

    virtual void init() {}
    virtual void finish() {}

    Context& ctx() const { return ctx_; }
    const std::string& path() const { return ctx_.path(); }
    Time now() const { return ctx_.now(); }

private:
    Context& ctx_;
};

// `sim::handler<&C::on_packet>` names the member function an InPort, ChannelPort or Timer calls. Port and
// channel handlers take the event's 32-bit argument (`void on_packet(std::uint32_t)`); timer handlers take
// nothing (`void on_timeout()`). The call is resolved at compile time inside one trampoline per handler.
template <auto Method>
struct Handler {};
template <auto Method>
inline constexpr Handler<Method> handler{};

}  // namespace loom::sim
