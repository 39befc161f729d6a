#include "loom/tsp/tsp_system.hpp"

#include <utility>

#include <fmt/format.h>

#include "loom/base/rng.hpp"
#include "loom/topo/tsp_topology.hpp"

namespace loom::tsp {

TspSystem::TspSystem(topo::FrozenTopology topology, const topo::LinkClassTiming& links, const topo::ChipConfig& chip,
                     std::uint64_t seed)
    : topology_(std::move(topology)), links_(links), chip_(chip) {
    class_timing_.reserve(topo::kLinkClassCount);
    for (topo::LinkClass c : topo::kAllLinkClasses) class_timing_.push_back(links_.timing(c));
    streams_.reserve(static_cast<std::size_t>(topology_.num_channels()));
    for (topo::ChannelId c = 0; c < topology_.num_channels(); ++c) streams_.push_back(derive(seed, channel_name(c)));
}

TspSystem::TspSystem(const MachineConfig& config, std::uint64_t seed)
    : TspSystem(topo::build_tsp_topology(config.topology), config.links, config.chip, seed) {}

topo::ChannelId TspSystem::out_channel(topo::VertexId tsp, std::int32_t port) const {
    if (tsp < 0 || tsp >= topology_.num_vertices() || port < 0 || port >= topology_.num_ports(tsp))
        return topo::kNoChannel;
    return topology_.channel_at(tsp, port);
}

topo::ChannelId TspSystem::in_channel(topo::VertexId tsp, std::int32_t port) const {
    const topo::ChannelId c = out_channel(tsp, port);
    return c == topo::kNoChannel ? topo::kNoChannel : topo::FrozenTopology::reverse(c);
}

std::string TspSystem::tsp_path(topo::VertexId v) const { return "sys." + topology_.vertex_name(v); }

std::string TspSystem::port_name(const std::string& tsp_path, std::int32_t port) {
    return fmt::format("{}.port{}", tsp_path, port);
}

std::string TspSystem::channel_name(topo::ChannelId c) const {
    const topo::Channel& ch = topology_.channel(c);
    return port_name(tsp_path(ch.src), ch.src_port);
}

}  // namespace loom::tsp
