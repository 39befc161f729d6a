// A Mux's or Host Agent's end of the command links: reassembles commands, applies them after the programming
// latency, acknowledges them.
#include <fmt/format.h>

#include "loom/ananta/control_plane.hpp"

namespace loom::ananta {

ControlAgent::ControlAgent(sim::Context& ctx, ControlPlane& plane, std::uint32_t peer, bool mux, std::uint32_t index)
    : sim::Component(ctx),
      plane_(plane),
      peer_(peer),
      mux_(mux),
      index_(index),
      apply_timer_(ctx, this, sim::handler<&ControlAgent::on_apply>) {
    const auto n = static_cast<std::uint32_t>(plane.config().replicas);
    for (std::uint32_t r = 0; r < n; ++r) {
        ins_.push_back(std::make_unique<ControlIn>(ctx, fmt::format("replica{}_in", r), this,
                                                   sim::handler<&ControlAgent::on_message>));
        outs_.push_back(std::make_unique<ControlOut>(ctx, fmt::format("replica{}", r), plane.command_timing(),
                                                     plane.command_port()));
    }
}

void ControlAgent::on_message(const net::Packet<ControlMessage>& p, const net::Delivery&) {
    ++received_;
    const ControlMessage& m = p.payload;
    const std::uint32_t from = p.header.src;
    if (m.type != (mux_ ? ControlType::Mux : ControlType::Host) || from >= outs_.size()) {
        ++malformed_;
        return;
    }
    const std::optional<std::vector<std::uint8_t>> bytes = assembler_.add(from, m);
    if (!bytes) return;
    Due d;
    if (!read_command(m.type, *bytes, d.mux, d.host)) {
        ++malformed_;
        return;
    }
    const ManagerConfig& mc = plane_.manager_config();
    d.at = now() + (mux_ ? mc.mux_programming_latency : mc.host_programming_latency);
    d.from = from;
    d.token = m.token;
    due_.push_back(std::move(d));
    const Time at = due_.back().at;
    if (!apply_timer_.armed()) apply_timer_.arm_at(at);
}

void ControlAgent::on_apply() {
    while (!due_.empty() && due_.front().at <= now()) {
        const Due d = std::move(due_.front());
        due_.pop_front();
        std::optional<CommandRejected> rejected;
        const bool answer = mux_ ? plane_.apply_mux(index_, d.from, d.mux, rejected)
                                 : plane_.apply_host(index_, d.from, d.host, rejected);
        if (!answer) continue;
        net::Packet<ControlMessage> p;
        p.header.bytes = static_cast<std::int64_t>(sizeof(ControlMessage));
        p.header.created = now();
        p.header.src = peer_;
        p.header.dst = d.from;
        p.payload = ack_message(d.token, rejected);
        outs_[d.from]->send(p);
    }
    if (!due_.empty()) apply_timer_.arm_at(due_.front().at);
}

}  // namespace loom::ananta
