#include "loom/ananta/mux_lifecycle.hpp"

#include <utility>

#include "loom/base/assert.hpp"

namespace loom::ananta {

const char* mux_state_name(MuxState s) {
    switch (s) {
        case MuxState::Off: return "off";
        case MuxState::AwaitingState: return "awaiting_state";
        case MuxState::Serving: return "serving";
        case MuxState::Draining: return "draining";
        case MuxState::Silent: return "silent";
    }
    return "?";
}

MuxLifecycle::MuxLifecycle(const MuxConfig& mux, const BgpConfig& bgp, IpAddr self, std::vector<IpAddr> routers)
    : config_(mux), self_(self), speaker_(bgp, self, std::move(routers)) {}

const Mux& MuxLifecycle::mux() const {
    LOOM_ASSERT(mux_.has_value(), "the Mux has never booted");
    return *mux_;
}

Mux& MuxLifecycle::mux() {
    LOOM_ASSERT(mux_.has_value(), "the Mux has never booted");
    return *mux_;
}

void MuxLifecycle::add_prefix(const Prefix& p, Time now, MuxLifecycleOutput& out) {
    speaker_.announce(p, now, out.bgp);
}

void MuxLifecycle::remove_prefix(const Prefix& p, Time now, MuxLifecycleOutput& out) {
    speaker_.withdraw(p, now, out.bgp);
}

void MuxLifecycle::boot(Time now, MuxLifecycleOutput& out) {
    if (alive()) return;
    mux_.reset();
    mux_.emplace(config_, self_);
    state_ = MuxState::AwaitingState;
    ++boots_;
    speaker_.start(now, out.bgp);
}

void MuxLifecycle::state_installed(Time now, MuxLifecycleOutput& out) {
    if (state_ != MuxState::AwaitingState) return;
    state_ = MuxState::Serving;
    speaker_.state_installed(now, out.bgp);
}

void MuxLifecycle::drain(Time now, MuxLifecycleOutput& out) {
    if (state_ != MuxState::Serving) return;
    state_ = MuxState::Draining;
    speaker_.withdraw_all(now, out.bgp);
}

void MuxLifecycle::shutdown(Time now, MuxLifecycleOutput& out) {
    if (!alive()) return;
    speaker_.shutdown(now, out.bgp);  // withdraws whatever is still announced, then closes
    state_ = MuxState::Off;
}

void MuxLifecycle::fail_silent(Time) {
    if (!alive()) return;
    speaker_.go_silent();
    state_ = MuxState::Silent;
}

void MuxLifecycle::handle(const MuxCommand& command, Time now, MuxLifecycleOutput& out) {
    if (!alive()) {
        ++lost_commands_;
        return;
    }
    mux_->handle(command, now, out.mux);
}

void MuxLifecycle::handle(const IpPacket& packet, Time now, MuxLifecycleOutput& out) {
    if (!alive()) {
        ++lost_packets_;
        out.mux.drops.push_back(MuxDrop{packet, DropReason::MuxDown});
        return;
    }
    mux_->handle(packet, now, out.mux);
}

void MuxLifecycle::tick(Time now, MuxLifecycleOutput& out) {
    if (!alive()) return;
    speaker_.tick(now, out.bgp);
    mux_->tick(now, out.mux);
}

void MuxLifecycle::tick_bgp(Time now, MuxLifecycleOutput& out) {
    if (alive()) speaker_.tick(now, out.bgp);
}

void MuxLifecycle::handle(const BgpMessage& m, Time now) {
    if (alive()) speaker_.handle(m, now);
}

}  // namespace loom::ananta
