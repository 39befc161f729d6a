#include <catch2/catch.hpp>

#include "loom/base/error.hpp"
#include "loom/topo/global_address_map.hpp"
#include "loom/topo/tsp_topology.hpp"

using namespace loom::literals;
using loom::topo::build_tsp_topology;
using loom::topo::GlobalAddressMap;
using loom::topo::TspKind;
using loom::topo::TspTopologyConfig;

TEST_CASE("The largest system's global memory is 10,440 x 220 MiB, more than 2 TB") {
    const auto t = build_tsp_topology(TspTopologyConfig{});
    const GlobalAddressMap map(t, 220_MiB);
    CHECK(map.capacity().count() == 10'440LL * 220 * 1024 * 1024);
    CHECK(map.capacity().count() == 2'408'369'356'800LL);
    CHECK(map.capacity().count() > 2'000'000'000'000LL);
    CHECK(map.tsps() == 10'440);
}

TEST_CASE("Addresses map to a TSP and offset and back") {
    const auto t = build_tsp_topology(TspTopologyConfig{});
    const GlobalAddressMap map(t, 220_MiB);
    const std::int64_t per = (220_MiB).count();
    CHECK(map.locate(0) == GlobalAddressMap::Location{0, 0});
    CHECK(map.locate(per) == GlobalAddressMap::Location{1, 0});
    CHECK(map.locate(3 * per + 17) == GlobalAddressMap::Location{3, 17});
    const std::int64_t last = map.capacity().count() - 1;
    CHECK(map.locate(last) == GlobalAddressMap::Location{10'439, per - 1});
    for (std::int64_t a : {std::int64_t{0}, per - 1, 5'000 * per + 12'345, last}) {
        const auto loc = map.locate(a);
        CHECK(map.address(loc.tsp, loc.offset) == a);
    }
    CHECK_THROWS_AS(map.locate(map.capacity().count()), loom::InputError);
    CHECK_THROWS_AS(map.locate(-1), loom::InputError);
    CHECK_THROWS_AS(map.address(0, per), loom::InputError);
}

TEST_CASE("Spare TSPs hold no addresses") {
    TspTopologyConfig c;
    c.kind = TspKind::Rack;
    c.spare_nodes_per_rack = 1;
    const auto t = build_tsp_topology(c);
    const GlobalAddressMap map(t, 1_MiB);
    CHECK(map.tsps() == 64);
    CHECK(map.capacity() == loom::Bytes(64 * 1024 * 1024));
    CHECK_THROWS_AS(map.address(70, 0), loom::InputError);
    CHECK(map.locate(map.capacity().count() - 1).tsp == 63);
}
