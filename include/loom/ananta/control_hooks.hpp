// What Muxes and hosts of the Ananta run tell the control plane when it runs: a Host Agent's SNAT request and a
// Mux's overload report. The builder sets the hook only when "control_plane" is enabled; without it both nodes
// behave as before (requests are counted, reports stay local).
#pragma once

#include <cstdint>

#include "loom/ananta/host_agent.hpp"
#include "loom/ananta/top_talkers.hpp"

namespace loom::ananta {

class ControlHooks {
public:
    virtual ~ControlHooks() = default;
    // Host `host` (its position in the model's host list) asks for SNAT ports for `request.dip`.
    virtual void snat_request(std::uint32_t host, const SnatRequest& request) = 0;
    // Mux `mux` (its number) saw overload drops in its last window.
    virtual void overload(std::uint32_t mux, const OverloadReport& report) = 0;
    // Host `host`'s prober saw local VM `dip` change health (the manager relays it to the Muxes).
    virtual void health_report(IpAddr dip, IpAddr host, bool healthy) = 0;
    // Mux `mux` came back up (with its state lost when it rebooted): the primary programs it again.
    virtual void mux_booted(std::uint32_t mux) = 0;
};

}  // namespace loom::ananta
