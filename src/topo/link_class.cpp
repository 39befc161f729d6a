#include "loom/topo/link_class.hpp"

namespace loom::topo {

std::optional<LinkClass> parse_link_class(std::string_view name) {
    for (LinkClass c : kAllLinkClasses)
        if (link_class_name(c) == name) return c;
    return std::nullopt;
}

}  // namespace loom::topo
