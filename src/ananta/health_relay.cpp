#include "loom/ananta/health_relay.hpp"

namespace loom::ananta {

std::uint32_t health_arg(IpAddr dip, bool healthy, const NetworkConfig& n) {
    const addr::Decoded d = addr::decode(dip);
    const auto host = static_cast<std::uint64_t>(d.rack) * static_cast<std::uint64_t>(n.hosts_per_rack) + d.slot;
    const std::uint64_t vm = host * static_cast<std::uint64_t>(n.vms_per_host) + d.index;
    return static_cast<std::uint32_t>(vm * 2 + (healthy ? 1 : 0));
}

std::pair<IpAddr, bool> health_of_arg(std::uint32_t arg, const NetworkConfig& n) {
    const std::uint64_t vm = arg / 2;
    const auto k = static_cast<std::uint32_t>(vm % static_cast<std::uint64_t>(n.vms_per_host));
    const std::uint64_t host = vm / static_cast<std::uint64_t>(n.vms_per_host);
    const auto rack = static_cast<std::uint32_t>(host / static_cast<std::uint64_t>(n.hosts_per_rack));
    const auto slot = static_cast<std::uint32_t>(host % static_cast<std::uint64_t>(n.hosts_per_rack));
    return {addr::vm(rack, slot, k), (arg & 1U) != 0};
}

HealthRelay::HealthRelay(sim::Context& ctx, const DcConfig& config)
    : sim::Component(ctx), config_(config), port_(ctx, "port", this, sim::handler<&HealthRelay::on_report>) {}

void HealthRelay::on_report(std::uint32_t arg) {
    const auto [dip, healthy] = health_of_arg(arg, config_.network);
    relayed_.push_back(Relayed{now(), dip, healthy});
    const auto hosts = static_cast<std::uint32_t>(config_.network.racks * config_.network.hosts_per_rack);
    for (std::uint32_t m = 0; m < static_cast<std::uint32_t>(config_.network.muxes); ++m)
        port_.send(1 + hosts + m, arg, config_.dynamics.health.update_delay);
}

}  // namespace loom::ananta
