// Link classes: what kind of cable a link is (inside a TSP node, between nodes of a rack, between racks; or a
// generic Dragonfly's local and global links). Every link of a frozen topology records its class.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace loom::topo {

enum class LinkClass : std::uint8_t {
    InNode,      // TSP to TSP inside one node (copper, <= 0.75 m)
    InRack,      // node to node inside one rack (copper, < 2 m)
    RackToRack,  // between groups: rack to rack (optical), or node to node in the 264-TSP system
    Local,       // Dragonfly: router to router inside a group
    Global,      // Dragonfly: group to group
};

inline constexpr std::size_t kLinkClassCount = 5;
inline constexpr std::array<LinkClass, kLinkClassCount> kAllLinkClasses{
    LinkClass::InNode, LinkClass::InRack, LinkClass::RackToRack, LinkClass::Local, LinkClass::Global};

constexpr std::size_t index_of(LinkClass c) { return static_cast<std::size_t>(c); }

// "in_node", "in_rack", "rack_to_rack", "local", "global" (as written in configs and reports).
constexpr std::string_view link_class_name(LinkClass c) {
    switch (c) {
        case LinkClass::InNode: return "in_node";
        case LinkClass::InRack: return "in_rack";
        case LinkClass::RackToRack: return "rack_to_rack";
        case LinkClass::Local: return "local";
        case LinkClass::Global: return "global";
    }
    return "?";
}

std::optional<LinkClass> parse_link_class(std::string_view name);

}  // namespace loom::topo
