#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "loom/base/error.hpp"
#include "loom/config/document.hpp"
#include "loom/topo/tsp_topology.hpp"
#include "loom/workload/transfer.hpp"

using namespace loom::literals;
using loom::Bytes;
using loom::Time;
using loom::topo::ChipConfig;
using loom::topo::FrozenTopology;
using loom::workload::Transfer;
using loom::workload::TransferSet;
using loom::workload::TransferSetConfig;

namespace {

FrozenTopology node() {
    loom::topo::TspTopologyConfig c;
    c.kind = loom::topo::TspKind::Node;
    return loom::topo::build_tsp_topology(c);
}

// The 264-TSP system with its last node spare (TSPs 256..263).
FrozenTopology system264_with_spare() {
    loom::topo::TspTopologyConfig c;
    c.kind = loom::topo::TspKind::System264;
    c.spare_nodes_per_rack = 1;
    return loom::topo::build_tsp_topology(c);
}

TransferSetConfig parse(const std::string& text, loom::config::Errors& errors) {
    TransferSetConfig c;
    loom::workload::transfer_set_schema().parse(loom::config::parse_json_text(text, "test"), "/workload", c, errors);
    return c;
}

// All messages of the ConfigError thrown by make_transfer_set, or none.
std::vector<std::string> problems(const std::string& text, const FrozenTopology& t) {
    loom::config::Errors errors;
    const TransferSetConfig c = parse(text, errors);
    if (!errors.empty()) return errors.messages();
    try {
        loom::workload::make_transfer_set(c, t, ChipConfig{});
    } catch (const loom::ConfigError& e) {
        return e.messages();
    }
    return {};
}

bool has_prefix(const std::vector<std::string>& messages, const std::string& prefix) {
    return std::any_of(messages.begin(), messages.end(),
                       [&](const std::string& m) { return m.rfind(prefix, 0) == 0; });
}

}  // namespace

TEST_CASE("A transfer travels as whole 320-byte vectors, the last one padded") {
    Transfer x;
    x.bytes = Bytes(320);
    CHECK(x.vectors() == 1);
    x.bytes = Bytes(321);
    CHECK(x.vectors() == 2);
    x.bytes = 64_KiB;
    CHECK(x.vectors() == 205);  // 65536 / 320 = 204.8
}

TEST_CASE("The workload section parses explicit transfers with defaults and ids by position") {
    const FrozenTopology t = node();
    loom::config::Errors errors;
    const TransferSetConfig c = parse(R"({"transfers": [
        {"src": 0, "dsts": [1], "bytes": "64KiB"},
        {"src": 1, "dsts": [2, 3], "bytes": "320B", "earliest": "1us", "deps": [0], "compute_before": "10ns",
         "src_address": 640, "dst_address": 3200}]})",
                                      errors);
    REQUIRE(errors.empty());
    const TransferSet s = loom::workload::make_transfer_set(c, t, ChipConfig{});
    REQUIRE(s.transfers.size() == 2);
    CHECK(s.transfers[0].id == 0);
    CHECK(s.transfers[0].earliest == Time::zero());
    CHECK(s.transfers[0].deps.empty());
    CHECK(s.transfers[1].id == 1);
    CHECK(s.transfers[1].dsts == std::vector<loom::topo::VertexId>{2, 3});
    CHECK(s.transfers[1].earliest == 1_us);
    CHECK(s.transfers[1].compute_before == 10_ns);
    CHECK(s.transfers[1].deps == std::vector<loom::workload::TransferId>{0});
    CHECK(s.transfers[1].src_address == 640);
    CHECK(s.transfers[1].dst_address == 3200);
    CHECK(s.total_vectors() == 205 + 1);
}

TEST_CASE("Unknown TSPs, self-transfers and repeated destinations are reported at their JSON Pointers") {
    const FrozenTopology t = node();
    const auto m = problems(R"({"transfers": [
        {"src": 9, "dsts": [1], "bytes": "1KiB"},
        {"src": 2, "dsts": [2], "bytes": "1KiB"},
        {"src": 3, "dsts": [4, 4], "bytes": "1KiB"},
        {"src": 3, "dsts": [], "bytes": "1KiB"}]})",
                            t);
    CHECK(has_prefix(m, "/workload/transfers/0/src: TSP 9 is not in the topology (0..7)"));
    CHECK(has_prefix(m, "/workload/transfers/1/dsts/0: self-transfer"));
    CHECK(has_prefix(m, "/workload/transfers/2/dsts/1: destination 4 repeated"));
    CHECK(has_prefix(m, "/workload/transfers/3/dsts: expected at least one destination"));
    CHECK(m.size() == 4);
}

TEST_CASE("Spare TSPs forward but are rejected as endpoints") {
    const FrozenTopology t = system264_with_spare();
    const auto m = problems(R"({"transfers": [{"src": 0, "dsts": [256], "bytes": "1KiB"},
                                              {"src": 263, "dsts": [1], "bytes": "1KiB"}]})",
                            t);
    REQUIRE(m.size() == 2);
    CHECK(has_prefix(m, "/workload/transfers/0/dsts/0: TSP 256 (node32.tsp0) is a spare"));
    CHECK(has_prefix(m, "/workload/transfers/1/src: TSP 263 (node32.tsp7) is a spare"));
}

TEST_CASE("Dependency cycles and unknown dependencies are reported with the ids involved") {
    const FrozenTopology t = node();
    const auto m = problems(R"({"transfers": [
        {"id": 10, "src": 0, "dsts": [1], "bytes": "1KiB", "deps": [12]},
        {"id": 11, "src": 1, "dsts": [2], "bytes": "1KiB", "deps": [10]},
        {"id": 12, "src": 2, "dsts": [3], "bytes": "1KiB", "deps": [11]},
        {"id": 13, "src": 2, "dsts": [3], "bytes": "1KiB", "deps": [13, 99]}]})",
                            t);
    CHECK(has_prefix(m, "/workload/transfers/3/deps/1: no transfer with id 99"));
    // 10 waits for 12, 12 for 11, 11 for 10: found when the search from 10 reaches 11.
    CHECK(has_prefix(m, "/workload/transfers/1/deps: dependency cycle: 10 -> 12 -> 11 -> 10"));
    CHECK(has_prefix(m, "/workload/transfers/3/deps: dependency cycle: 13 -> 13"));
    CHECK(m.size() == 3);
}

TEST_CASE("A chain of 300,000 dependencies is searched without recursion, and closing it is one cycle") {
    // The cycle search keeps its own stack: a chain this long would overflow a recursive search's.
    const FrozenTopology t = node();
    const std::size_t n = 300'000;
    TransferSet s;
    s.transfers.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        Transfer& x = s.transfers[i];
        x.id = static_cast<loom::workload::TransferId>(i);
        x.src = static_cast<loom::topo::VertexId>(i % 2);
        x.dsts = {2};
        x.bytes = Bytes(320);
        if (i > 0) x.deps = {x.id - 1};
    }
    loom::config::Errors errors;
    loom::workload::validate(s, t, ChipConfig{}, "/workload", errors);
    CHECK(errors.empty());
    // 0 now waits for the last: the search from 0 walks the whole chain and closes it at transfer 1.
    s.transfers[0].deps = {static_cast<loom::workload::TransferId>(n - 1)};
    loom::workload::validate(s, t, ChipConfig{}, "/workload", errors);
    REQUIRE(errors.messages().size() == 1);
    CHECK(errors.messages()[0].rfind("/workload/transfers/1/deps: dependency cycle: 0 -> 299999 -> 299998 -> ", 0) == 0);
}

TEST_CASE("Duplicate ids and tensors that do not fit in memory are rejected") {
    const FrozenTopology t = node();
    const auto m = problems(R"({"transfers": [
        {"id": 1, "src": 0, "dsts": [1], "bytes": "1KiB"},
        {"id": 1, "src": 0, "dsts": [1], "bytes": "1KiB", "dst_address": 230686700}]})",
                            t);
    CHECK(has_prefix(m, "/workload/transfers/1/id: duplicate id 1"));
    CHECK(has_prefix(m, "/workload/transfers/1/dst_address: 1KiB (4 vectors) at offset 230686700 does not fit"));
    CHECK(m.size() == 2);
}

TEST_CASE("Random transfers connect distinct compute TSPs and are reproducible from their seed") {
    const FrozenTopology t = system264_with_spare();
    loom::config::Errors errors;
    const TransferSetConfig c =
        parse(R"({"transfers": [{"id": 5, "src": 0, "dsts": [1], "bytes": "1KiB"}],
                  "random": {"count": 500, "bytes": "3200B", "seed": 7, "fanout": 2, "dependency_probability": 0.3}})",
              errors);
    REQUIRE(errors.empty());
    const TransferSet a = loom::workload::make_transfer_set(c, t, ChipConfig{});
    const TransferSet b = loom::workload::make_transfer_set(c, t, ChipConfig{});
    REQUIRE(a.transfers.size() == 501);
    CHECK(a.transfers[1].id == 6);  // random ids follow the largest explicit id
    std::size_t with_deps = 0;
    for (std::size_t i = 1; i < a.transfers.size(); ++i) {
        const Transfer& x = a.transfers[i];
        CHECK(x.src < 256);
        REQUIRE(x.dsts.size() == 2);
        CHECK(x.dsts[0] != x.dsts[1]);
        for (auto d : x.dsts) {
            CHECK(d != x.src);
            CHECK(d < 256);
        }
        CHECK(x.vectors() == 10);
        for (auto d : x.deps) CHECK(d < x.id);
        with_deps += x.deps.size();
        CHECK(x.src == b.transfers[i].src);
        CHECK(x.dsts == b.transfers[i].dsts);
        CHECK(x.deps == b.transfers[i].deps);
    }
    CHECK(with_deps > 100);
    CHECK(with_deps < 200);
    // Writes to one TSP are laid out one after another.
    std::vector<std::int64_t> seen;
    for (std::size_t i = 1; i < a.transfers.size(); ++i) {
        for (auto d : a.transfers[i].dsts) {
            if (d == a.transfers[1].dsts[0]) seen.push_back(a.transfers[i].dst_address);
        }
    }
    std::sort(seen.begin(), seen.end());
    CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
}

TEST_CASE("A fan-out larger than the compute TSPs allow is reported at /workload/random/fanout") {
    const FrozenTopology t = node();
    const auto m = problems(R"({"random": {"count": 1, "fanout": 8}})", t);
    REQUIRE(m.size() == 1);
    CHECK(has_prefix(m, "/workload/random/fanout: 8 destinations per transfer need 9 compute TSPs"));
}

TEST_CASE("The topological order puts every transfer after its dependencies") {
    TransferSet s;
    for (std::uint32_t i = 0; i < 5; ++i) {
        Transfer x;
        x.id = 100 + i;
        x.src = 0;
        x.dsts = {1};
        x.bytes = Bytes(1);
        s.transfers.push_back(x);
    }
    s.transfers[0].deps = {104};
    s.transfers[4].deps = {102, 101};
    s.transfers[2].deps = {103};
    const auto order = loom::workload::topological_order(s);
    REQUIRE(order.size() == 5);
    std::vector<std::size_t> pos(5);
    for (std::size_t k = 0; k < order.size(); ++k) pos[order[k]] = k;
    CHECK(pos[4] < pos[0]);
    CHECK(pos[2] < pos[4]);
    CHECK(pos[1] < pos[4]);
    CHECK(pos[3] < pos[2]);
    CHECK(order == std::vector<std::size_t>{1, 3, 2, 4, 0});
}

TEST_CASE("The workload schema rejects unknown keys and missing required ones") {
    loom::config::Errors errors;
    parse(R"({"transfers": [{"src": 0, "bytes": "1KiB", "dest": [1]}], "randm": {}})", errors);
    const auto& m = errors.messages();
    CHECK(has_prefix(m, "/workload/randm: unknown key"));
    CHECK(has_prefix(m, "/workload/transfers/0/dest: unknown key"));
    CHECK(has_prefix(m, "/workload/transfers/0: missing required key 'dsts'"));
}

TEST_CASE("Random transfers write disjoint destination regions that no transfer reads") {
    const FrozenTopology t = node();
    loom::config::Errors errors;
    const TransferSetConfig c =
        parse(R"({"random": {"count": 300, "bytes": "64KiB", "seed": 3, "fanout": 2, "dependency_probability": 0.2}})",
              errors);
    REQUIRE(errors.empty());
    const TransferSet s = loom::workload::make_transfer_set(c, t, ChipConfig{});
    REQUIRE(s.transfers.size() == 300);
    // Byte ranges per TSP: every written range is disjoint from every other written range and every read range.
    struct Range {
        std::int64_t lo, hi;
        bool write;
        std::size_t transfer;
    };
    std::vector<std::vector<Range>> by_tsp(8);
    for (std::size_t i = 0; i < s.transfers.size(); ++i) {
        const Transfer& x = s.transfers[i];
        const std::int64_t n = x.vectors() * 320;
        by_tsp[static_cast<std::size_t>(x.src)].push_back({x.src_address, x.src_address + n, false, i});
        for (auto d : x.dsts) by_tsp[static_cast<std::size_t>(d)].push_back({x.dst_address, x.dst_address + n, true, i});
    }
    std::size_t writes = 0;
    for (const auto& ranges : by_tsp) {
        for (std::size_t a = 0; a < ranges.size(); ++a) {
            if (!ranges[a].write) continue;
            ++writes;
            for (std::size_t b = 0; b < ranges.size(); ++b) {
                if (a == b || ranges[a].transfer == ranges[b].transfer) continue;
                const bool overlap = ranges[a].lo < ranges[b].hi && ranges[b].lo < ranges[a].hi;
                INFO("transfer " << ranges[a].transfer << " writes where transfer " << ranges[b].transfer
                                 << (ranges[b].write ? " writes" : " reads"));
                CHECK_FALSE(overlap);
            }
        }
    }
    CHECK(writes == 600);
}

TEST_CASE("Random transfers that would need more than the upper half of a TSP's memory are refused at count") {
    const FrozenTopology t = node();
    // 8 TSPs, fan-out 7: each TSP receives about 70 of 80 transfers of 2 MiB, over half of its 220 MiB.
    const auto m = problems(R"({"random": {"count": 80, "bytes": "2MiB", "seed": 3, "fanout": 7}})", t);
    REQUIRE(m.size() == 1);
    CHECK(has_prefix(m, "/workload/random/count: transfer "));
    CHECK(m[0].find("upper half") != std::string::npos);
}

TEST_CASE("TransferPositions finds a transfer's position by id, in dense and in sparse sets") {
    using loom::workload::TransferPositions;
    TransferSet dense;
    dense.transfers.resize(4);
    for (std::size_t i = 0; i < 4; ++i) dense.transfers[i].id = static_cast<loom::workload::TransferId>(i);
    const TransferPositions d(dense);
    CHECK(d.dense());
    CHECK(d.find(0) == 0);
    CHECK(d.find(3) == 3);
    CHECK(d.find(4) == TransferPositions::kAbsent);

    TransferSet sparse;
    sparse.transfers.resize(4);
    const loom::workload::TransferId ids[] = {40, 7, 12, 7};  // 7 twice: the first position is found
    for (std::size_t i = 0; i < 4; ++i) sparse.transfers[i].id = ids[i];
    const TransferPositions s(sparse);
    CHECK_FALSE(s.dense());
    CHECK(s.find(40) == 0);
    CHECK(s.find(7) == 1);
    CHECK(s.find(12) == 2);
    CHECK(s.find(0) == TransferPositions::kAbsent);
    CHECK(s.find(41) == TransferPositions::kAbsent);
}
