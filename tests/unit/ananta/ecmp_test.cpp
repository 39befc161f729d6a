#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <numeric>
#include <vector>

#include "loom/ananta/ecmp.hpp"
#include "loom/base/rng.hpp"

using namespace loom::ananta;

namespace {
std::vector<NextHop> hops(std::uint32_t n, std::uint32_t skip = ~0U) {
    std::vector<NextHop> h;
    for (std::uint32_t i = 0; i < n; ++i)
        if (i != skip) h.push_back(100 + i);
    return h;
}
std::vector<std::uint64_t> range(std::uint64_t n) {
    std::vector<std::uint64_t> v(n);
    std::iota(v.begin(), v.end(), 0);
    return v;
}
}  // namespace

TEST_CASE("Modulo-N ECMP moves exactly (n-1)/n of the flows when one of n next hops goes") {
    for (std::uint32_t n = 2; n <= 8; ++n) {
        for (std::uint32_t gone = 0; gone < n; ++gone) {
            ModuloEcmp before, after;
            before.set_next_hops(hops(n));
            after.set_next_hops(hops(n, gone));
            // Hashes 0 .. n(n-1)-1 cover every pair of residues once (CRT): exactly 1/n of them stay.
            const auto all = range(std::uint64_t{n} * (n - 1));
            const double moved = share_moved(before, after, all);
            CHECK(moved == Approx(1.0 - 1.0 / n).epsilon(1e-12));
        }
    }
    ModuloEcmp a, b;
    a.set_next_hops(hops(4));
    b.set_next_hops(hops(3));
    CHECK(share_moved(a, b, range(12)) == 0.75);  // 9 of 12
}

TEST_CASE("Resilient ECMP moves exactly 1/n of the flows when one of n next hops goes") {
    for (std::uint32_t n = 2; n <= 8; ++n) {
        for (std::uint32_t gone = 0; gone < n; ++gone) {
            ResilientEcmp before(840), after(840);  // 840 = lcm(1..8): n divides the bucket count
            before.set_next_hops(hops(n));
            after = before;
            after.set_next_hops(hops(n, gone));
            CHECK(share_moved(before, after, range(840)) == Approx(1.0 / n).epsilon(1e-12));
            // Only the removed hop's flows moved.
            for (std::uint64_t h = 0; h < 840; ++h)
                if (before.select(h) != 100 + gone) CHECK(after.select(h) == before.select(h));
        }
    }
}

TEST_CASE("Resilient ECMP keeps every next hop within one bucket of its fair share after changes") {
    ResilientEcmp r(256);
    r.set_next_hops(hops(8));
    auto check_balance = [&](std::uint32_t n) {
        std::map<NextHop, int> count;
        for (const NextHop h : r.buckets()) ++count[h];
        CHECK(count.size() == n);
        for (const auto& [hop, c] : count) {
            CHECK(c >= static_cast<int>(256 / n));
            CHECK(c <= static_cast<int>((256 + n - 1) / n));
        }
    };
    check_balance(8);
    ResilientEcmp before = r;
    std::vector<NextHop> nine = hops(9);
    r.set_next_hops(nine);
    check_balance(9);
    // An added hop takes only its own share: 256/9 rounded, nothing else moves.
    const double moved = share_moved(before, r, range(256));
    CHECK(moved <= 29.0 / 256.0);
    CHECK(moved >= 28.0 / 256.0);
    r.set_next_hops(hops(9, 3));
    check_balance(8);
}

TEST_CASE("Sampled shares moved match theory for both hash modes with eight next hops") {
    EcmpConfig mod{EcmpMode::ModuloN, 256, 7};
    EcmpConfig res{EcmpMode::Resilient, 256, 7};
    for (const auto& config : {mod, res}) {
        auto before = make_ecmp(config);
        before->set_next_hops(hops(8));
        auto after = before->clone();
        after->set_next_hops(hops(8, 5));
        const double moved = share_moved(*before, *after, 100'000, 42);
        const double theory = config.mode == EcmpMode::ModuloN ? 1.0 - 1.0 / 8 : 1.0 / 8;
        CHECK(moved == Approx(theory).margin(0.01));
    }
}

TEST_CASE("The ecmp section parses its mode and rejects an unknown one") {
    EcmpConfig c;
    loom::config::Errors errors;
    ecmp_schema().parse(loom::config::Json::parse(R"({"mode": "modulo", "buckets": 64})"), "/ecmp", c, errors);
    CHECK(errors.empty());
    CHECK(c.mode == EcmpMode::ModuloN);
    CHECK(c.buckets == 64);
    ecmp_schema().parse(loom::config::Json::parse(R"({"mode": "random"})"), "/ecmp", c, errors);
    REQUIRE(errors.size() == 1);
    CHECK(errors.messages()[0].rfind("/ecmp/mode", 0) == 0);
}

TEST_CASE("A router reports the share of flows moved by a next-hop change") {
    ResilientEcmp r(256);
    CHECK(change_next_hops(r, hops(4), 1000, 3) == 1.0);  // from no next hop: every flow is new
    CHECK(change_next_hops(r, hops(4), 1000, 3) == 0.0);  // the same set: nothing moves
    CHECK(change_next_hops(r, hops(4, 2), 100'000, 3) == Approx(0.25).margin(0.01));
    CHECK(r.size() == 3);
}

TEST_CASE("Resilient ECMP picks bucket hash mod B whether B is a power of two (masked) or not (divided)") {
    for (const std::uint32_t buckets : {1U, 2U, 100U, 256U, 840U, 1024U}) {
        ResilientEcmp e(buckets);
        e.set_next_hops(hops(7));
        const std::vector<NextHop>& table = e.buckets();
        REQUIRE(table.size() == buckets);
        // Hashes spread over all 64 bits, with the high bits set (a mask that dropped them or a 32-bit modulo
        // would disagree with hash mod B).
        std::uint64_t h = 0x9e3779b97f4a7c15ULL;
        for (int i = 0; i < 2000; ++i) {
            h = h * 6364136223846793005ULL + 1442695040888963407ULL;  // unsigned: wraps, no UB
            CHECK(e.select(h) == table[static_cast<std::size_t>(h % buckets)]);
        }
    }
}

TEST_CASE("Modulo ECMP picks hops[hash mod n] for power-of-two n (masked) and others (divided), clones included") {
    for (const std::size_t n : {1U, 2U, 3U, 4U, 7U, 8U, 16U}) {
        std::vector<NextHop> set;
        for (std::size_t i = 0; i < n; ++i) set.push_back(static_cast<NextHop>(30 + 7 * i));
        ModuloEcmp e;
        e.set_next_hops(set);
        REQUIRE(e.size() == n);
        const std::unique_ptr<EcmpSelector> copy = e.clone();
        e.set_next_hops(hops(5));  // the clone keeps its own table
        std::uint64_t h = 0x243f6a8885a308d3ULL;
        for (int i = 0; i < 2000; ++i) {
            h = h * 6364136223846793005ULL + 1442695040888963407ULL;
            CHECK(copy->select(h) == set[static_cast<std::size_t>(h % n)]);
        }
    }
}

TEST_CASE("An ECMP view selects what its selector selects, for both modes and any table size") {
    std::vector<std::unique_ptr<EcmpSelector>> selectors;
    for (const std::uint32_t buckets : {1U, 100U, 256U, 840U}) selectors.push_back(std::make_unique<ResilientEcmp>(buckets));
    for (int i = 0; i < 4; ++i) selectors.push_back(std::make_unique<ModuloEcmp>());
    std::size_t k = 0;
    for (const auto& e : selectors) {
        for (const std::size_t n : {1U, 3U, 8U}) {
            e->set_next_hops(hops(static_cast<std::uint32_t>(n + k % 3)));
            const EcmpView v = e->view();
            REQUIRE(v.size() == e->size());
            std::uint64_t h = 0x9e3779b97f4a7c15ULL + k;
            for (int i = 0; i < 2000; ++i) {
                h = h * 6364136223846793005ULL + 1442695040888963407ULL;  // unsigned: wraps, no UB
                CHECK(v.select(h) == e->select(h));
            }
        }
        ++k;
    }
}

TEST_CASE("share_moved over sampled hashes counts exactly the samples whose next hop changed") {
    for (const std::uint32_t buckets : {64U, 100U, 256U}) {  // power-of-two tables take the per-bucket count
        ResilientEcmp before(buckets), after(buckets);
        before.set_next_hops(hops(6));
        after.set_next_hops(hops(6));
        after.set_next_hops(hops(6, 3));
        ModuloEcmp modulo;
        modulo.set_next_hops(hops(5));
        constexpr std::uint64_t kFlows = 5000, kSeed = 11;
        std::uint64_t moved = 0, moved_mixed = 0;
        for (std::uint64_t i = 0; i < kFlows; ++i) {
            const std::uint64_t h = loom::derive(kSeed, i);
            moved += before.select(h) != after.select(h) ? 1 : 0;
            moved_mixed += before.select(h) != modulo.select(h) ? 1 : 0;
        }
        CHECK(moved > 0);
        const auto flows = static_cast<double>(kFlows);
        CHECK(share_moved(before, after, kFlows, kSeed) == static_cast<double>(moved) / flows);
        CHECK(share_moved(before, modulo, kFlows, kSeed) == static_cast<double>(moved_mixed) / flows);
    }
}

TEST_CASE("A table of byte-sized hops selects what the same table of wide hops selects") {
    // Hops up to 255 are kept in a byte table; shifting every hop by 1000 (the same order) keeps the wide one.
    for (const std::uint32_t buckets : {7U, 256U}) {
        ResilientEcmp narrow(buckets), wide(buckets);
        const std::vector<NextHop> low = {0, 9, 254, 255, 17};
        std::vector<NextHop> high;
        for (const NextHop h : low) high.push_back(h + 1000);
        narrow.set_next_hops(low);
        wide.set_next_hops(high);
        REQUIRE(narrow.view().bytes);
        REQUIRE_FALSE(wide.view().bytes);
        std::uint64_t h = 0x9e3779b97f4a7c15ULL;
        for (int i = 0; i < 2000; ++i) {
            h = h * 6364136223846793005ULL + 1442695040888963407ULL;  // unsigned: wraps, no UB
            CHECK(wide.select(h) == narrow.select(h) + 1000);
        }
    }
    ModuloEcmp modulo;
    for (const std::vector<NextHop>& set : {std::vector<NextHop>{255, 0, 3}, std::vector<NextHop>{255, 256, 3}}) {
        modulo.set_next_hops(set);
        CHECK(modulo.view().bytes == (set[1] < 256));
        for (std::uint64_t h = 0; h < 100; ++h) CHECK(modulo.select(h) == set[static_cast<std::size_t>(h % 3)]);
    }
}
