// The manager's health relay in the data-center run without the control plane (with "control_plane" on, Host
// Agents report to the manager replicas and the primary updates the Muxes by command packets): Host Agents report a
// VM's change of health on the "ananta.health" channel; the relay (standing for the manager) forwards it to every
// Mux of the pool, which stops (or resumes) choosing that DIP for new connections. Delays: health.report_delay
// from a Host Agent to the relay, health.update_delay from the relay to each Mux.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "loom/ananta/dc_config.hpp"
#include "loom/ananta/ip_packet.hpp"
#include "loom/sim/channel.hpp"
#include "loom/sim/component.hpp"

namespace loom::ananta {

// A health change as a channel argument: the VM's number in the data center (host number * vms_per_host + VM)
// times 2, plus 1 when healthy.
std::uint32_t health_arg(IpAddr dip, bool healthy, const NetworkConfig& n);
std::pair<IpAddr, bool> health_of_arg(std::uint32_t arg, const NetworkConfig& n);

// Channel endpoints: the relay is 0, host h is 1 + h, Mux m is 1 + hosts + m.
class HealthRelay final : public sim::Component {
public:
    static constexpr std::string_view kSubsystem = "ananta";
    HealthRelay(sim::Context& ctx, const DcConfig& config);

    sim::ChannelPort& port() { return port_; }
    struct Relayed {
        Time at;  // when the relay (the manager) received it
        IpAddr dip = 0;
        bool healthy = true;
    };
    const std::vector<Relayed>& relayed() const { return relayed_; }

private:
    void on_report(std::uint32_t arg);

    const DcConfig& config_;
    sim::ChannelPort port_;
    std::vector<Relayed> relayed_;
};

}  // namespace loom::ananta
