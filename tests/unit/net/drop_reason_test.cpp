#include <catch2/catch.hpp>

#include "loom/base/error.hpp"
#include "loom/net/drop_reason.hpp"

using namespace loom;
using namespace loom::net;

TEST_CASE("The built-in drop reasons have fixed ids and names and a model adds its own after them") {
    DropReasons r;
    CHECK(r.size() == kBuiltinDropReasons);
    CHECK(r.name(DropReason::QueueFull) == "queue_full");
    CHECK(r.name(DropReason::LinkDown) == "link_down");
    CHECK(r.name(DropReason::FaultLoss) == "fault_loss");
    CHECK(r.name(DropReason::FecUncorrectable) == "fec_uncorrectable");
    CHECK(r.name(DropReason::Collision) == "collision");
    const DropReason no_route = r.add("no_route");
    const DropReason mtu = r.add("mtu");
    CHECK(no_route.id == kBuiltinDropReasons);
    CHECK(mtu.id == kBuiltinDropReasons + 1);
    CHECK(r.find("mtu") == mtu);
    CHECK_THROWS_AS(r.add("mtu"), InternalError);
    CHECK_THROWS_AS(r.find("nope"), InternalError);
}

TEST_CASE("Drop counts add by reason, merge, and write only the non-zero reasons by name") {
    DropReasons r;
    const DropReason overload = r.add("mux_overload");
    DropCounts a, b;
    a.add(DropReason::QueueFull);
    a.add(overload, 3);
    b.add(overload);
    b.add(DropReason::LinkDown, 2);
    a.merge(b);
    CHECK(a[overload] == 4);
    CHECK(a[DropReason::LinkDown] == 2);
    CHECK(a[DropReason::Collision] == 0);
    CHECK(a.total() == 7);
    const auto j = a.to_json(r);
    CHECK(j.size() == 3);
    CHECK(j.at("mux_overload") == 4);
    CHECK(j.at("queue_full") == 1);
    CHECK(j.at("link_down") == 2);
}
