// The parameter sections of Ananta's dynamic behaviour, for registration to list (`loom list`) and parse:
// "bgp" (sessions, hold timer, fast detection, control queue), "fastpath", "health" (Host Agent probing)
// and "hash_study".
#pragma once

#include <vector>

#include "loom/ananta/bgp.hpp"
#include "loom/ananta/fastpath.hpp"
#include "loom/ananta/hash_study.hpp"
#include "loom/ananta/health_prober.hpp"
#include "loom/config/schema.hpp"

namespace loom::ananta {

struct DynamicsParameters {
    BgpConfig bgp;
    FastpathConfig fastpath;
    HealthProbeConfig health;
    HashStudyConfig hash_study;
};

// Parses the sections of `root` (each optional: absent means defaults); errors name their JSON Pointer.
void parse_dynamics_parameters(const config::Json& root, DynamicsParameters& out, config::Errors& errors);
// The sections as `loom list` shows them.
std::vector<config::FieldInfo> dynamics_sections();

}  // namespace loom::ananta
