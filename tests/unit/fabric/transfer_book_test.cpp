#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "loom/fabric/fabric.hpp"
#include "loom/fabric/transfer_book.hpp"
#include "loom/sim/simulator.hpp"

using namespace loom;
using namespace loom::fabric;

namespace {

// Three routers in a line (0 - 1 - 2), one terminal each, in-node links: 10-cycle channels at 1 GHz, 1-cycle
// terminal channels, a 3-cycle pipeline (0/1/1/1).
topo::FrozenTopology line3() {
    std::vector<topo::VertexInfo> v(3);
    for (std::int32_t i = 0; i < 3; ++i) {
        v[static_cast<std::size_t>(i)].node = 0;
        v[static_cast<std::size_t>(i)].index = i;
    }
    return topo::FrozenTopology("line", v, {2, 2, 2},
                                {topo::LinkSpec{0, 0, 1, 0, topo::LinkClass::InNode},
                                 topo::LinkSpec{1, 1, 2, 0, topo::LinkClass::InNode}});
}

workload::Transfer transfer(workload::TransferId id, topo::VertexId src, std::vector<topo::VertexId> dsts,
                            std::int64_t bytes, std::vector<workload::TransferId> deps = {}) {
    workload::Transfer x;
    x.id = id;
    x.src = src;
    x.dsts = std::move(dsts);
    x.bytes = Bytes(bytes);
    x.deps = std::move(deps);
    return x;
}

struct TransferRunResult {
    std::unique_ptr<sim::Simulator> sim;
    std::unique_ptr<FabricModel> model;
};

TransferRunResult run(const workload::TransferSet& set, TransferOptions options = {}, std::uint64_t seed = 1) {
    TransferRunResult r;
    sim::SimulatorOptions so;
    so.seed = seed;
    r.sim = std::make_unique<sim::Simulator>(so);
    FabricConfig fc;
    fc.vcs = 2;  // two hops at most: one VC class per hop
    RoutingConfig rc;
    config::Errors errors;
    TransferRun tr{&set, options};
    r.model = build(line3(), fc, rc, workload::TrafficConfig{}, *r.sim, errors, nullptr, &tr);
    errors.throw_if_any();
    r.sim->init();
    r.sim->run();
    r.sim->finish();
    r.model->finish();
    return r;
}

}  // namespace

TEST_CASE("A closed-loop transfer chain finishes at the analytic zero-load cycle and the second waits for the first") {
    // 8 flits of 320 bytes, one packet: the last flit leaves its terminal at cycle 7 and then takes
    // terminal 1 + pipeline 3 + channel 10 + pipeline 3 + terminal 1 = 18 cycles: ejected at cycle 25.
    workload::TransferSet set;
    set.transfers = {transfer(0, 0, {1}, 8 * 320), transfer(1, 1, {2}, 8 * 320, {0})};
    TransferOptions options;
    options.packet_flits = 8;
    const auto r = run(set, options);
    const TransferBook& book = *r.model->transfers();
    REQUIRE(book.all_completed());
    CHECK(book.item(0).start_cycle == 0);
    CHECK(book.item(0).done_cycle == 25);
    // The completion notice takes one cycle: the dependent starts at 26, not 25.
    CHECK(book.item(1).start_cycle == 26);
    CHECK(book.item(1).done_cycle == 26 + 25);
    CHECK(book.makespan_cycle() == 51);
    CHECK(r.model->summary().at("transfers").at("makespan_ps") == 51'000);
    CHECK(book.latency_ps().max() == 25'000);
    CHECK(book.latency_ps().min() == 25'000);
}

TEST_CASE("A transfer with a compute time starts that long after its dependency completes") {
    workload::TransferSet set;
    set.transfers = {transfer(0, 0, {1}, 320), transfer(1, 1, {2}, 320, {0})};
    set.transfers[1].compute_before = Time::ns(40);
    set.transfers[1].earliest = Time::ns(30);
    const auto r = run(set);
    const TransferBook& book = *r.model->transfers();
    REQUIRE(book.item(0).done_cycle == 18);
    CHECK(book.item(1).start_cycle == 18 + 40);
}

TEST_CASE("A transfer does not start before its earliest time even when its dependencies are done") {
    workload::TransferSet set;
    set.transfers = {transfer(0, 0, {1}, 320), transfer(1, 1, {2}, 320, {0})};
    set.transfers[1].earliest = Time::ps(99'500);
    const auto r = run(set);
    CHECK(r.model->transfers()->item(1).start_cycle == 100);
}

TEST_CASE("A fan-out transfer sends one copy per destination and every flit injected is ejected") {
    workload::TransferSet set;
    set.transfers = {transfer(0, 0, {1, 2}, 25 * 320), transfer(1, 2, {0}, 7 * 320)};
    const auto r = run(set);
    const TransferBook& book = *r.model->transfers();
    CHECK(book.flits_total() == 2 * 25 + 7);
    const config::Json stats = r.model->summary();
    CHECK(stats.at("flits_injected") == 57);
    CHECK(stats.at("flits_ejected") == 57);
    CHECK(stats.at("flits_in_network") == 0);
    CHECK(stats.at("status") == "complete");
    CHECK(stats.at("transfers").at("completed") == 2);
    CHECK(stats.at("pattern") == "transfers");
    CHECK(r.model->conservation_problems().empty());
    // 50 flits leave terminal 0 one per cycle (cycles 0..49, copies interleaved packet by packet); the last,
    // to the far destination, then needs 1 + 3 + 10 + 3 + 10 + 3 + 1 = 31 cycles: 80 at the earliest.
    CHECK(book.item(0).done_cycle >= 80);
    CHECK(book.item(0).done_cycle <= 90);
}

TEST_CASE("Random injection order depends on the seed and round robin does not") {
    // Terminal 0 sends four transfers at once, to two destinations, so the order of its packets matters.
    workload::TransferSet set;
    for (workload::TransferId i = 0; i < 4; ++i) set.transfers.push_back(transfer(i, 0, {static_cast<topo::VertexId>(1 + i % 2)}, 30 * 320));
    auto done = [&](InjectionOrder order, std::uint64_t seed) {
        TransferOptions o;
        o.order = order;
        o.packet_flits = 5;
        const auto r = run(set, o, seed);
        std::vector<std::int64_t> d;
        for (std::int32_t t = 0; t < 4; ++t) d.push_back(r.model->transfers()->item(t).done_cycle);
        return d;
    };
    CHECK(done(InjectionOrder::RoundRobin, 1) == done(InjectionOrder::RoundRobin, 2));
    CHECK(done(InjectionOrder::Random, 1) == done(InjectionOrder::Random, 1));
    bool differs = false;
    for (std::uint64_t s = 2; s < 6 && !differs; ++s)
        differs = done(InjectionOrder::Random, 1) != done(InjectionOrder::Random, s);
    CHECK(differs);
}
