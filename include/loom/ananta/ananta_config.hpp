// The Ananta model's parameter sections in one place, so that registration can list them (`loom list`) and
// parse them from a config: "mux", "host_agent", "tcp", "ecmp", "manager", "snat".
#pragma once

#include <vector>

#include "loom/ananta/ecmp.hpp"
#include "loom/ananta/host_agent.hpp"
#include "loom/ananta/manager.hpp"
#include "loom/ananta/mux.hpp"
#include "loom/ananta/tcp_connection.hpp"
#include "loom/config/schema.hpp"

namespace loom::ananta {

struct AnantaParameters {
    MuxConfig mux;
    HostAgentConfig host_agent;
    TcpConfig tcp;
    EcmpConfig ecmp;
    ManagerConfig manager;
    SnatConfig snat;
};

// Parses the sections of `root` (each optional: absent means defaults) into `out`; errors name their
// JSON Pointer.
void parse_parameters(const config::Json& root, AnantaParameters& out, config::Errors& errors);
// The sections as `loom list` shows them.
std::vector<config::FieldInfo> parameter_sections();

}  // namespace loom::ananta
