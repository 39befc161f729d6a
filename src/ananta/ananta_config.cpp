#include "loom/ananta/ananta_config.hpp"

namespace loom::ananta {

void parse_parameters(const config::Json& root, AnantaParameters& out, config::Errors& errors) {
    if (root.contains("mux")) mux_schema().parse(root["mux"], "/mux", out.mux, errors);
    if (root.contains("host_agent")) host_agent_schema().parse(root["host_agent"], "/host_agent", out.host_agent, errors);
    if (root.contains("tcp")) tcp_schema().parse(root["tcp"], "/tcp", out.tcp, errors);
    if (root.contains("ecmp")) ecmp_schema().parse(root["ecmp"], "/ecmp", out.ecmp, errors);
    if (root.contains("manager")) manager_schema().parse(root["manager"], "/manager", out.manager, errors);
    if (root.contains("snat")) snat_schema().parse(root["snat"], "/snat", out.snat, errors);
}

std::vector<config::FieldInfo> parameter_sections() {
    return {config::section_info("mux", mux_schema()), config::section_info("host_agent", host_agent_schema()),
            config::section_info("tcp", tcp_schema()), config::section_info("ecmp", ecmp_schema()),
            config::section_info("manager", manager_schema()), config::section_info("snat", snat_schema())};
}

}  // namespace loom::ananta
