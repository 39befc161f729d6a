#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "../tsp/tsp_harness.hpp"
#include "loom/base/error.hpp"
#include "loom/topo/tsp_topology.hpp"
#include "loom/workload/collective.hpp"
#include "loom/workload/transfer.hpp"

using loom::Bytes;
using loom::config::Json;
namespace wl = loom::workload;
namespace topo = loom::topo;

namespace {

Json topology_for(int tsps) {
    switch (tsps) {
        case 72: return Json{{"kind", "rack"}};
        case 264: return Json{{"kind", "system264"}};
        default: return Json{{"kind", "node"}, {"tsps_per_node", tsps}};
    }
}

Json collective_config(int tsps, Json collective) {
    Json c{{"model", "tsp"}, {"topology", topology_for(tsps)}, {"workload", {{"collective", collective}}}};
    // On the 264-TSP system the N^2 collectives are 69,432 transfers: one minimal path each keeps the test quick
    // (the data flow does not depend on the paths).
    if (tsps == 264) c["scheduler"] = Json{{"max_paths", 1}, {"allow_nonminimal", false}};
    return c;
}

topo::FrozenTopology topology_of(int tsps) {
    loom::tsp::MachineConfig m;
    loom::config::Errors errors;
    topo::tsp_topology_schema().parse(topology_for(tsps), "/topology", m.topology, errors);
    errors.throw_if_any();
    return topo::build_tsp_topology(m.topology);
}

wl::TransferSet generate(int tsps, wl::CollectiveConfig c) {
    return wl::make_collective(c, topology_of(tsps), loom::topo::ChipConfig{});
}

// Replays the transfers in dependency order on a model of every member's memory and checks (1) that any two
// transfers touching the same slot, at least one writing it, are ordered (no race the scheduler could reorder),
// and (2) that the replay leaves exactly the contents the collective's definition says. A transfer completes after
// everything it follows by `deps` or `after`, but only starts (reads its source) after what it follows by a path
// whose last step is in `deps`: `after` orders writes at the destination, not the read at the source.
void check_data_flow(const wl::TransferSet& s) {
    const std::int64_t vb = 320;
    const std::size_t n = s.transfers.size();
    // Ancestor sets as flat bit matrices: row i has bit j set when j completes before i completes (done) or
    // before i starts (read).
    const std::size_t words = (n + 63) / 64;
    std::vector<std::uint64_t> done(n * words, 0), read(n * words, 0);
    auto bit = [&](const std::vector<std::uint64_t>& m, std::size_t i, std::size_t j) {
        return ((m[i * words + j / 64] >> (j % 64)) & 1U) != 0;
    };
    const std::vector<std::size_t> order = wl::topological_order(s);
    for (std::size_t i : order) {
        for (wl::TransferId d : s.transfers[i].deps) {
            const auto j = static_cast<std::size_t>(s.index_of(d));  // ids are positions in generated sets
            for (std::size_t w = 0; w < words; ++w) read[i * words + w] |= done[j * words + w];
            read[i * words + j / 64] |= std::uint64_t{1} << (j % 64);
        }
        for (std::size_t w = 0; w < words; ++w) done[i * words + w] |= read[i * words + w];
        for (wl::TransferId d : s.transfers[i].after) {
            const auto j = static_cast<std::size_t>(s.index_of(d));
            for (std::size_t w = 0; w < words; ++w) done[i * words + w] |= done[j * words + w];
            done[i * words + j / 64] |= std::uint64_t{1} << (j % 64);
        }
    }
    // Two writes: one completes before the other. A write a and a read b: a completes before b starts, or b
    // (which has read by the time it completes) completes before a does.
    auto writes_ordered = [&](std::size_t a, std::size_t b) { return bit(done, a, b) || bit(done, b, a); };
    auto write_read_ordered = [&](std::size_t a, std::size_t b) { return bit(read, b, a) || bit(done, a, b); };
    // (tsp, slot) -> transfers writing it / reading it.
    std::map<std::pair<topo::VertexId, std::int64_t>, std::vector<std::size_t>> writers, readers;
    for (std::size_t i = 0; i < n; ++i) {
        const wl::Transfer& x = s.transfers[i];
        for (std::int64_t k = 0; k < x.vectors(); ++k) {
            readers[{x.src, x.src_address / vb + k}].push_back(i);
            for (topo::VertexId d : x.dsts) writers[{d, x.dst_address / vb + k}].push_back(i);
        }
    }
    std::size_t races = 0;
    for (const auto& [slot, w] : writers) {
        for (std::size_t a = 0; a < w.size(); ++a)
            for (std::size_t b = a + 1; b < w.size(); ++b) races += writes_ordered(w[a], w[b]) ? 0 : 1;
        const auto r = readers.find(slot);
        if (r == readers.end()) continue;
        for (std::size_t a : w)
            for (std::size_t b : r->second) races += (a == b || write_read_ordered(a, b)) ? 0 : 1;
    }
    CHECK(races == 0);

    const wl::CollectiveMemory m = wl::collective_memory(*s.collective);
    std::map<std::pair<topo::VertexId, std::int64_t>, std::int64_t> mem;
    for (const wl::MemoryImage& b : m.initial)
        for (std::size_t k = 0; k < b.values.size(); ++k)
            mem[{b.tsp, b.address / vb + static_cast<std::int64_t>(k)}] = b.values[k];
    for (std::size_t i : order) {
        const wl::Transfer& x = s.transfers[i];
        for (std::int64_t k = 0; k < x.vectors(); ++k) {
            const std::int64_t v = mem[{x.src, x.src_address / vb + k}];
            for (topo::VertexId d : x.dsts) {
                std::int64_t& dst = mem[{d, x.dst_address / vb + k}];
                dst = x.combine == wl::Combine::Sum ? dst + v : v;
            }
        }
    }
    std::size_t wrong = 0;
    for (const wl::MemoryImage& b : m.expected)
        for (std::size_t k = 0; k < b.values.size(); ++k)
            wrong += mem[{b.tsp, b.address / vb + static_cast<std::int64_t>(k)}] == b.values[k] ? 0 : 1;
    CHECK(wrong == 0);
    CHECK_FALSE(m.expected.empty());
}

const std::vector<std::string> kKinds = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all",
                                         "broadcast",  "gather",     "scatter"};

// Sizes that keep every run small: one vector per member-pair where a kind splits the tensor.
std::string bytes_for(const std::string& kind, int tsps) {
    if (kind == "all_reduce" || kind == "reduce_scatter" || kind == "all_to_all")
        return std::to_string(320 * tsps) + "B";
    return tsps >= 72 ? "320B" : "1KiB";
}

}  // namespace

TEST_CASE("A ring all-reduce over N TSPs is 2(N-1) steps of N transfers with the data flow of a sum") {
    wl::CollectiveConfig c;
    c.kind = wl::CollectiveKind::AllReduce;
    c.algorithm = wl::CollectiveAlgorithm::Ring;
    c.bytes = Bytes(8 * 320 * 3);
    const wl::TransferSet s = generate(8, c);
    CHECK(s.transfers.size() == 2 * 8 * 7);
    REQUIRE(s.collective);
    CHECK(s.collective->padding_bytes == Bytes(0));
    check_data_flow(s);
}

TEST_CASE("Every generated collective orders its accesses and replays to its definition on 8 and 72 TSPs") {
    for (int tsps : {8, 72}) {
        for (const std::string& kind : kKinds) {
            for (const char* algorithm : {"hierarchical", "ring", "direct"}) {
                if (kind != "all_reduce" && std::string(algorithm) == "ring") continue;
                if (kind != "all_reduce" && kind != "all_to_all" && std::string(algorithm) == "direct") continue;
                INFO(kind << " " << algorithm << " on " << tsps);
                loom::config::Errors errors;
                wl::TransferSetConfig tc;
                wl::transfer_set_schema().parse(
                    Json{{"collective", {{"kind", kind}, {"algorithm", algorithm}, {"bytes", bytes_for(kind, tsps)}}}},
                    "/workload", tc, errors);
                REQUIRE(errors.empty());
                check_data_flow(wl::make_transfer_set(tc, topology_of(tsps), loom::topo::ChipConfig{}));
            }
        }
    }
}

TEST_CASE("A tensor smaller than one vector per member is padded and the padding is reported") {
    wl::CollectiveConfig c;
    c.kind = wl::CollectiveKind::AllReduce;
    c.algorithm = wl::CollectiveAlgorithm::Ring;
    c.bytes = Bytes(100);
    const wl::TransferSet s = generate(8, c);
    REQUIRE(s.collective);
    CHECK(s.collective->vectors == 8);
    CHECK(s.collective->padding_bytes == Bytes(8 * 320 - 100));
    check_data_flow(s);
}

TEST_CASE("A hierarchical all-reduce on a rack reduce-scatters in the node, then across its nodes") {
    wl::CollectiveConfig c;
    c.kind = wl::CollectiveKind::AllReduce;
    c.bytes = Bytes(72 * 320);
    const wl::TransferSet s = generate(72, c);
    REQUIRE(s.collective);
    CHECK(s.collective->levels == "node 8 x rack 9");
    CHECK(s.collective->vectors == 72);
    c.bytes = Bytes(320);  // one vector: too small to split in a node, so a tree over all 72
    CHECK(generate(72, c).collective->levels == "tree 72");
}

TEST_CASE("A direct all-reduce sends every cross-node byte over one link and sums each piece in place") {
    wl::CollectiveConfig c;
    c.kind = wl::CollectiveKind::AllReduce;
    c.algorithm = wl::CollectiveAlgorithm::Direct;
    c.bytes = Bytes(264 * 320 * 2);
    const topo::FrozenTopology t = topology_of(264);
    const wl::TransferSet s = wl::make_collective(c, t, loom::topo::ChipConfig{});
    REQUIRE(s.collective);
    CHECK(s.collective->levels == "direct: 8 x 33 nodes (1 link per pair)");
    CHECK(s.collective->vectors == 264 * 2);
    std::size_t far = 0;
    for (const wl::Transfer& x : s.transfers) {
        for (topo::VertexId d : x.dsts) {
            if (t.vertex(d).node == t.vertex(x.src).node) continue;
            ++far;
            bool linked = false;  // across nodes only between the two ends of a link
            for (topo::ChannelId ch : t.out_channels(x.src)) linked = linked || t.channel(ch).dst == d;
            CHECK(linked);
        }
    }
    CHECK(far > 0);
    check_data_flow(s);
    // Late in-node stages are paced by results emitted after them, without a cycle and never as a data
    // dependency; results cross one link each.
    std::size_t waits_for_later = 0;
    for (const wl::Transfer& x : s.transfers) {
        for (wl::TransferId d : x.paced_by) waits_for_later += d > x.id ? 1 : 0;
        for (wl::TransferId d : x.deps) CHECK(d < x.id);
        bool crosses = false;
        for (topo::VertexId d : x.dsts) crosses = crosses || t.vertex(d).node != t.vertex(x.src).node;
        if (crosses) CHECK(x.dsts.size() == 1);
    }
    CHECK(waits_for_later > 0);
    CHECK(wl::topological_order(s).size() == s.transfers.size());
    // Between racks there is no link for every node pair.
    loom::tsp::MachineConfig m;
    loom::config::Errors errors;
    topo::tsp_topology_schema().parse(Json{{"kind", "multirack"}, {"racks", 2}}, "/topology", m.topology, errors);
    REQUIRE(errors.empty());
    c.bytes = Bytes(320 * 144);
    CHECK_THROWS_WITH(wl::make_collective(c, topo::build_tsp_topology(m.topology), loom::topo::ChipConfig{}),
                      Catch::Contains("/workload/collective/algorithm") && Catch::Contains("a link between every two"));
}

TEST_CASE("A direct all-to-all relays blocks between nodes over one link per transfer") {
    wl::CollectiveConfig c;
    c.kind = wl::CollectiveKind::AllToAll;
    c.algorithm = wl::CollectiveAlgorithm::Direct;
    c.bytes = Bytes(72 * 320);
    const topo::FrozenTopology t = topology_of(72);
    const wl::TransferSet s = wl::make_collective(c, t, loom::topo::ChipConfig{});
    REQUIRE(s.collective);
    CHECK(s.collective->levels == "direct: 8 x 9 nodes (2 links per pair)");
    std::size_t relayed = 0;
    for (const wl::Transfer& x : s.transfers) {
        REQUIRE(x.dsts.size() == 1);
        bool linked = false;
        for (topo::ChannelId ch : t.out_channels(x.src)) linked = linked || t.channel(ch).dst == x.dsts[0];
        CHECK(linked);
        relayed += x.deps.empty() ? 0 : 1;
    }
    // 72 x 64 blocks leave their node; all but those whose source holds the link need a relay before crossing.
    CHECK(relayed > 0);
    check_data_flow(s);
}

TEST_CASE("Collective configs with impossible members, roots or sizes are rejected at their pointers") {
    wl::CollectiveConfig c;
    c.kind = wl::CollectiveKind::Broadcast;
    c.root = 9;
    c.tsps = {0, 1, 2};
    CHECK_THROWS_WITH(generate(8, c), Catch::Contains("/workload/collective/root") && Catch::Contains("not a member"));
    c.tsps = {3};
    c.root = 3;
    CHECK_THROWS_WITH(generate(8, c), Catch::Contains("at least 2 TSPs"));
    c.tsps = {0, 0};
    CHECK_THROWS_WITH(generate(8, c), Catch::Contains("/workload/collective/tsps/1") && Catch::Contains("repeated"));
    c.tsps = {};
    c.kind = wl::CollectiveKind::AllGather;
    c.bytes = Bytes(64LL << 20);
    CHECK_THROWS_WITH(generate(8, c), Catch::Contains("/workload/collective/bytes") && Catch::Contains("memory"));
    c.kind = wl::CollectiveKind::AllReduce;
    c.bytes = Bytes(320 * 64);
    c.tsps = {0, 1, 2, 8, 9};  // two in node 0... not every node alike
    CHECK_THROWS_WITH(generate(72, c), Catch::Contains("same number of members in every node"));
    c.algorithm = wl::CollectiveAlgorithm::Direct;
    CHECK_THROWS_WITH(generate(72, c), Catch::Contains("same number of members in every node"));
    loom::config::Errors errors;
    const Json w = wl::normalize_collective(Json{{"collective", {{"tsps", "all"}}}}, "/workload", errors);
    CHECK_FALSE(errors.empty());
    CHECK_FALSE(w["collective"].contains("tsps"));
}

TEST_CASE("Every collective runs on 2, 8, 72 and 264 TSPs and leaves exactly the right memory") {
    for (int tsps : {2, 8, 72, 264}) {
        for (const std::string& kind : kKinds) {
            for (const char* algorithm : {"hierarchical", "ring", "direct"}) {
                if (kind != "all_reduce" && std::string(algorithm) == "ring") continue;
                if (kind != "all_reduce" && kind != "all_to_all" && std::string(algorithm) == "direct") continue;
                if (tsps == 264 && std::string(algorithm) == "ring") continue;  // 526 dependent steps: slow
                INFO(kind << " " << algorithm << " on " << tsps);
                const auto r = loom::tsp::test::run_config(collective_config(
                    tsps, Json{{"kind", kind}, {"algorithm", algorithm}, {"bytes", bytes_for(kind, tsps)}}));
                INFO(r.error);
                REQUIRE(r.ok);
                const Json& t = r.stats.at("tsp");
                CHECK(t.at("complete") == true);
                CHECK(t.at("collective").at("kind") == kind);
                CHECK(t.at("collective").at("tsps") == tsps);
                CHECK(t.at("vectors_delivered").get<std::int64_t>() > 0);
            }
        }
    }
}

TEST_CASE("The end-of-run memory check catches a reduction that stores instead of summing") {
    loom::tsp::MachineConfig m = loom::tsp::test::node_machine(8);
    auto system = std::make_unique<loom::tsp::TspSystem>(m, 1);
    wl::CollectiveConfig c;
    c.kind = wl::CollectiveKind::AllReduce;
    c.bytes = Bytes(320 * 64);
    wl::TransferSet s = wl::make_collective(c, system->topology(), system->chip());
    for (wl::Transfer& x : s.transfers) {
        if (x.combine == wl::Combine::Sum) {
            x.combine = wl::Combine::Store;
            break;
        }
    }
    loom::tsp::Program p = loom::tsp::workload_program(s, *system, {});
    const auto r = loom::tsp::test::run_program(m, std::move(p), loom::tsp::ExecutionMode::Train);
    CHECK_FALSE(r.ok);
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.error, Catch::Contains("data error"));
}

TEST_CASE("A summing transfer adds to the destination's memory and may have only one destination") {
    const Json base{{"model", "tsp"},
                    {"topology", topology_for(8)},
                    {"workload",
                     {{"transfers", Json::array({Json{{"src", 0}, {"dsts", {1}}, {"bytes", "3KiB"}, {"combine", "sum"}},
                                                 Json{{"src", 2}, {"dsts", {3}}, {"bytes", "1KiB"}}})}}}};
    const auto r = loom::tsp::test::run_config(base);
    INFO(r.error);
    REQUIRE(r.ok);
    CHECK(r.stats.at("sys.node0.tsp1").at("vectors_reduced") == 10);
    Json bad = base;
    bad["workload"]["transfers"][0]["dsts"] = {1, 2};
    CHECK_THROWS_WITH(loom::tsp::test::run_config(bad),
                      Catch::Contains("/workload/transfers/0/combine") && Catch::Contains("one destination"));
}

// As configs/tsp/collectives/allreduce-node.json and alltoall-node.json: minimal paths only (every link of the
// node already carries an equal share; a detour one transfer takes to finish earlier takes a link from another).
TEST_CASE("All-reduce and all-to-all of 1 MiB per TSP on a node reach efficiency 0.87") {
    for (const char* kind : {"all_reduce", "all_to_all"}) {
        Json c = collective_config(8, Json{{"kind", kind}, {"algorithm", "direct"}, {"bytes", "1MiB"}});
        c["scheduler"] = Json{{"allow_nonminimal", false}};
        const auto r = loom::tsp::test::run_config(c);
        INFO(kind << ": " << r.error);
        REQUIRE(r.ok);
        const double e = r.stats.at("tsp").at("schedule").at("efficiency").get<double>();
        INFO("efficiency " << e);
        CHECK(e >= 0.87);
    }
}

TEST_CASE("Direct collectives on a rack give byte-identical stats in two runs") {
    for (const char* kind : {"all_reduce", "all_to_all"}) {
        INFO(kind);
        Json c = collective_config(72, Json{{"kind", kind}, {"algorithm", "direct"}, {"bytes", "64KiB"}});
        c["scheduler"] = Json{{"allow_nonminimal", false}};
        const auto a = loom::tsp::test::run_config(c);
        const auto b = loom::tsp::test::run_config(c);
        REQUIRE(a.ok);
        REQUIRE(b.ok);
        CHECK(a.stats.dump() == b.stats.dump());
    }
}
