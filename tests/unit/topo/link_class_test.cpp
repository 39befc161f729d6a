#include <catch2/catch.hpp>

#include "loom/topo/link_class.hpp"

using loom::topo::LinkClass;

TEST_CASE("Link class names round-trip and unknown names are rejected") {
    for (LinkClass c : loom::topo::kAllLinkClasses) CHECK(loom::topo::parse_link_class(loom::topo::link_class_name(c)) == c);
    CHECK(loom::topo::link_class_name(LinkClass::RackToRack) == "rack_to_rack");
    CHECK_FALSE(loom::topo::parse_link_class("optical").has_value());
}
