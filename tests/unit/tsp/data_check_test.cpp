#include <catch2/catch.hpp>

#include <vector>

#include "loom/tsp/data_check.hpp"
#include "loom/tsp/tsp_model.hpp"
#include "loom/workload/collective.hpp"
#include "tsp_harness.hpp"

namespace wl = loom::workload;
using loom::Bytes;
using loom::Time;
using loom::tsp::test::node_machine;
using loom::tsp::test::run_program;

namespace {

wl::Transfer transfer(wl::TransferId id, loom::topo::VertexId src, loom::topo::VertexId dst, std::int64_t vectors,
                      std::int64_t src_slot, std::int64_t dst_slot, wl::Combine combine = wl::Combine::Store) {
    wl::Transfer x;
    x.id = id;
    x.src = src;
    x.dsts = {dst};
    x.bytes = Bytes(vectors * 320);
    x.src_address = src_slot * 320;
    x.dst_address = dst_slot * 320;
    x.combine = combine;
    return x;
}

loom::tsp::test::RunOutput run(const wl::TransferSet& s, std::uint64_t seed = 1) {
    auto m = node_machine(8);
    loom::tsp::TspSystem system(m, seed);
    loom::tsp::Program p = loom::tsp::workload_program(s, system, {}, true, seed);
    return run_program(m, std::move(p), loom::tsp::ExecutionMode::Train, seed);
}

}  // namespace

TEST_CASE("A chained copy and two sums ordered with after into one region are all checked") {
    wl::TransferSet s;
    s.transfers.push_back(transfer(0, 0, 1, 10, 0, 100));                     // 0 -> 1
    s.transfers.push_back(transfer(1, 1, 2, 10, 100, 200));                   // reads what 0 wrote
    s.transfers.back().deps = {0};
    s.transfers.push_back(transfer(2, 3, 4, 10, 0, 50, wl::Combine::Sum));    // sum into 4's slots 50..59
    s.transfers.push_back(transfer(3, 5, 4, 10, 0, 50, wl::Combine::Sum));    // and again, after it
    s.transfers.back().after = {2};
    const auto r = run(s);
    INFO(r.error);
    REQUIRE(r.ok);
    const auto& dc = r.stats.at("tsp").at("data_check");
    CHECK(dc.at("on") == true);
    CHECK(dc.at("slots") == 30);
    CHECK(dc.at("ambiguous_slots") == 0);
}

TEST_CASE("The data check's expected sum is the initial contents plus every contribution, mod 2 to the 64") {
    wl::TransferSet s;
    s.transfers.push_back(transfer(0, 3, 4, 2, 0, 50, wl::Combine::Sum));
    s.transfers.push_back(transfer(1, 5, 4, 2, 0, 50, wl::Combine::Sum));
    s.transfers.back().after = {0};
    const loom::tsp::DataCheck c = loom::tsp::make_data_check(s, 320, Bytes(320), 7);
    REQUIRE(c.expected.size() == 1);
    for (std::int64_t k = 0; k < 2; ++k) {
        std::int64_t v = 0;
        REQUIRE(c.expected_value(c.expected[0], k, v));
        const std::uint64_t want = static_cast<std::uint64_t>(c.initial_value(4, 50 + k)) +
                                   static_cast<std::uint64_t>(c.initial_value(3, k)) +
                                   static_cast<std::uint64_t>(c.initial_value(5, k));
        CHECK(static_cast<std::uint64_t>(v) == want);
    }
    CHECK(c.slots() == 2);
}

TEST_CASE("Stores racing into one slot with no order leave it unchecked and counted") {
    wl::TransferSet s;
    s.transfers.push_back(transfer(0, 0, 4, 4, 0, 50));
    s.transfers.push_back(transfer(1, 1, 4, 4, 0, 50));
    const loom::tsp::DataCheck c = loom::tsp::make_data_check(s, 320, Bytes(320), 7);
    CHECK(c.slots() == 0);
    CHECK(c.ambiguous_slots == 4);
    // Ordered by a dependency, the second store wins and every slot is checked.
    s.transfers[1].deps = {0};
    const loom::tsp::DataCheck d = loom::tsp::make_data_check(s, 320, Bytes(320), 7);
    CHECK(d.slots() == 4);
    CHECK(d.ambiguous_slots == 0);
}

TEST_CASE("A run that stores where the workload sums fails the data check of the transfer chained after it") {
    // Transfer 1 copies what transfer 0 summed into TSP 4: the run's Reduce becomes a Receive.
    wl::TransferSet s;
    s.transfers.push_back(transfer(0, 3, 4, 4, 0, 50, wl::Combine::Sum));
    s.transfers.push_back(transfer(1, 4, 6, 4, 50, 0));
    s.transfers.back().deps = {0};
    auto m = node_machine(8);
    loom::tsp::TspSystem system(m, 1);
    loom::tsp::Program p = loom::tsp::workload_program(s, system, {}, true, 1);
    for (auto& prog : p.schedule.programs)
        for (auto& ins : prog.instructions)
            if (ins.op == loom::sched::Op::Reduce) ins.op = loom::sched::Op::Receive;
    const auto r = run_program(m, std::move(p), loom::tsp::ExecutionMode::Train);
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.error, Catch::Contains("data error"));
}

TEST_CASE("Every collective at every size is data checked, slot counts following the collective's definition") {
    auto m = node_machine(8);
    loom::tsp::TspSystem system(m, 1);
    wl::CollectiveConfig c;
    c.kind = wl::CollectiveKind::AllToAll;
    c.bytes = Bytes(320 * 16);
    const wl::TransferSet s = wl::make_collective(c, system.topology(), system.chip());
    loom::tsp::Program p = loom::tsp::workload_program(s, system, {}, true, 1);
    REQUIRE(p.data_check);
    // Each of 8 members receives a block of 2 vectors from each of the 7 others.
    CHECK(p.data_check->slots() == 8 * 7 * 2);
    const auto r = run_program(m, std::move(p), loom::tsp::ExecutionMode::Train);
    INFO(r.error);
    CHECK(r.ok);
}

TEST_CASE("With the data check off a workload run says so") {
    wl::TransferSet s;
    s.transfers.push_back(transfer(0, 0, 1, 4, 0, 100));
    auto m = node_machine(8);
    loom::tsp::TspSystem system(m, 1);
    loom::tsp::Program p = loom::tsp::workload_program(s, system, {}, false, 1);
    const auto r = run_program(m, std::move(p), loom::tsp::ExecutionMode::Train);
    REQUIRE(r.ok);
    CHECK(r.stats.at("tsp").at("data_check").at("on") == false);
    CHECK(r.stats.at("tsp").at("data_check").at("slots") == 0);
}

TEST_CASE("One wrong bit in one slot of an all-reduce's result fails the run, naming the TSP and address") {
    auto m = node_machine(8);
    loom::tsp::TspSystem system(m, 1);
    wl::CollectiveConfig c;
    c.kind = wl::CollectiveKind::AllReduce;
    c.bytes = Bytes(320 * 40);
    const wl::TransferSet s = wl::make_collective(c, system.topology(), system.chip());
    loom::tsp::Program good = loom::tsp::workload_program(s, system, {}, true, 1);
    REQUIRE(good.data_check);
    const std::int64_t slots = good.data_check->slots();
    CHECK(slots == 8 * 40);
    loom::tsp::Program bad = good;
    // Every slot's value is checked: flip one bit of the expected sum of the last vector.
    bad.data_check->pool.back() ^= 1;
    const auto ok = run_program(m, std::move(good), loom::tsp::ExecutionMode::Train);
    INFO(ok.error);
    CHECK(ok.ok);
    CHECK(ok.stats.at("tsp").at("data_check").at("slots") == slots);
    for (auto mode : {loom::tsp::ExecutionMode::Train, loom::tsp::ExecutionMode::Vector}) {
        const auto r = run_program(m, bad, mode);
        CHECK_FALSE(r.ok);
        CHECK_THAT(r.error, Catch::StartsWith("data error at sys.node0.tsp0 address "));
    }
}

TEST_CASE("initial_values gives initial_value of every slot of a range") {
    loom::tsp::DataCheck dc;
    for (std::uint64_t seed : {1ull, 7ull, 0xfedcba9876543210ull}) {
        dc.seed = seed;
        for (std::uint32_t tsp : {0u, 5u, 10439u}) {
            std::vector<std::int64_t> v(300, 0);
            dc.initial_values(tsp, 1000, 300, v.data());
            for (std::int64_t k = 0; k < 300; ++k) CHECK(v[static_cast<std::size_t>(k)] == dc.initial_value(tsp, 1000 + k));
        }
    }
    // Distinct slots, distinct values (the check relies on them behaving as independent draws).
    std::vector<std::int64_t> v(2, 0);
    dc.initial_values(3, 0, 2, v.data());
    CHECK(v[0] != v[1]);
}
