#include <catch2/catch.hpp>

#include "loom/tsp/tsp_system.hpp"

using namespace loom;
using namespace loom::literals;

TEST_CASE("The machine gives each channel its class's timing and a stream that depends on seed and channel") {
    tsp::MachineConfig m;
    m.topology.kind = topo::TspKind::Rack;
    const tsp::TspSystem a(m, 1), b(m, 2);
    const topo::FrozenTopology& t = a.topology();
    CHECK(a.num_tsps() == 72);
    for (topo::ChannelId c = 0; c < t.num_channels(); ++c) {
        const LinkTiming& lt = a.timing(c);
        CHECK(lt.rate == Bandwidth::gbps(100));
        if (t.channel(c).link_class == topo::LinkClass::InNode) CHECK(lt.latency() == 497'750_ps);
        if (t.channel(c).link_class == topo::LinkClass::InRack) CHECK(lt.latency() == 504'000_ps);  // 2 m cable
    }
    CHECK(a.stream(0) != a.stream(1));
    CHECK(a.stream(0) != b.stream(0));
    CHECK(a.stream(5) == tsp::TspSystem(m, 1).stream(5));
}

TEST_CASE("Ports map to the channels leaving and arriving there, and unwired ports to none") {
    tsp::MachineConfig m;
    m.topology.kind = topo::TspKind::Node;
    const tsp::TspSystem s(m, 1);
    // Port 0 of TSP 0 leads to TSP 1; TSP 1's port 0 leads back.
    const topo::ChannelId out = s.out_channel(0, 0);
    REQUIRE(out != topo::kNoChannel);
    CHECK(s.topology().channel(out).dst == 1);
    CHECK(s.in_channel(1, 0) == out);
    CHECK(s.out_channel(0, 7) == topo::kNoChannel);  // global ports are not wired in a lone node
    CHECK(s.in_channel(0, 99) == topo::kNoChannel);
    CHECK(s.tsp_path(3) == "sys.node0.tsp3");
    CHECK(s.channel_name(out) == "sys.node0.tsp0.port0");
    CHECK(s.vector_bytes() == 320);
    CHECK(s.memory_vectors() == (220LL << 20) / 320);
}
