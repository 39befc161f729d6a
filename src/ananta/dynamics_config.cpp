#include "loom/ananta/dynamics_config.hpp"

namespace loom::ananta {

void parse_dynamics_parameters(const config::Json& root, DynamicsParameters& out, config::Errors& errors) {
    if (root.contains("bgp")) bgp_schema().parse(root["bgp"], "/bgp", out.bgp, errors);
    if (root.contains("fastpath")) fastpath_schema().parse(root["fastpath"], "/fastpath", out.fastpath, errors);
    if (root.contains("health")) health_probe_schema().parse(root["health"], "/health", out.health, errors);
    if (root.contains("hash_study"))
        hash_study_schema().parse(root["hash_study"], "/hash_study", out.hash_study, errors);
}

std::vector<config::FieldInfo> dynamics_sections() {
    return {config::section_info("bgp", bgp_schema()), config::section_info("fastpath", fastpath_schema()),
            config::section_info("health", health_probe_schema()),
            config::section_info("hash_study", hash_study_schema())};
}

}  // namespace loom::ananta
