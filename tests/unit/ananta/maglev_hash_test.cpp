#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "loom/ananta/hash_study.hpp"
#include "loom/ananta/mux.hpp"

using namespace loom;
using namespace loom::ananta;

TEST_CASE("Maglev population on the published three-back-end example matches the hand-filled table") {
    // M = 7; B0 (offset 3, skip 4) walks 3 0 4 1 5 2 6, B1 (0, 2) walks 0 2 4 6 1 3 5, B2 (3, 1) walks 3 4 5 6 0 1 2.
    // Turns: B0->3, B1->0, B2->4 (3 taken), B0->1 (0, 4 taken), B1->2, B2->5, B0->6 (5, 2 taken).
    const std::vector<std::uint32_t> quotas = MaglevHash::quotas(std::vector<std::uint32_t>{1, 1, 1}, 7);
    CHECK(quotas == std::vector<std::uint32_t>{3, 2, 2});
    const auto before = MaglevHash::populate(std::vector<std::uint32_t>{3, 0, 3}, std::vector<std::uint32_t>{4, 2, 1},
                                             quotas, 7);
    CHECK(before == std::vector<std::uint32_t>{1, 0, 1, 0, 2, 2, 0});
    // B1 removed: B0->3, B2->4, B0->0, B2->5, B0->1, B2->6, B0->2 (quotas 4 and 3).
    const auto after = MaglevHash::populate(std::vector<std::uint32_t>{3, 3}, std::vector<std::uint32_t>{4, 1},
                                            std::vector<std::uint32_t>{4, 3}, 7);
    CHECK(after == std::vector<std::uint32_t>{0, 0, 0, 0, 1, 1, 1});
    // Entries 0 and 2 had to move (B1's), entry 6 moved from B0 to B2: 3 of 7.
    const std::vector<WeightedDip> dips = study_dips(3);
    const std::vector<WeightedDip> left{dips[0], dips[2]};
    CHECK(entries_changed(before, dips, after, left) == 3);
}

TEST_CASE("Maglev quotas are proportional to weight within one entry and fill the table") {
    CHECK(MaglevHash::quotas(std::vector<std::uint32_t>{1, 2}, 7) == std::vector<std::uint32_t>{2, 5});
    CHECK(MaglevHash::quotas(std::vector<std::uint32_t>{1, 1}, 7) == std::vector<std::uint32_t>{4, 3});
}

TEST_CASE("A default Maglev table gives equal-weight DIPs entry counts within one of each other") {
    MaglevHash h;
    CHECK(h.table_size() == 65'537);
    const std::vector<WeightedDip> dips = study_dips(7);
    const auto table = h.build(dips);
    REQUIRE(table.size() == 65'537);
    std::vector<std::int64_t> count(dips.size(), 0);
    for (auto e : table) ++count[e];
    const auto [lo, hi] = std::minmax_element(count.begin(), count.end());
    CHECK(*hi - *lo <= 1);
    CHECK(*lo > 0);
}

TEST_CASE("Maglev entry counts follow unequal weights within one entry") {
    MaglevHash h(251);
    std::vector<WeightedDip> dips = study_dips(4);
    const std::uint32_t weights[] = {1, 2, 3, 5};
    for (std::size_t i = 0; i < 4; ++i) dips[i].weight = weights[i];
    const auto table = h.build(dips);
    std::vector<double> count(dips.size(), 0);
    for (auto e : table) count[e] += 1;
    for (std::size_t i = 0; i < 4; ++i) CHECK(std::abs(count[i] - 251.0 * weights[i] / 11.0) < 1.0);
}

TEST_CASE("Maglev tables are identical on every Mux given the same DIP list") {
    const std::vector<WeightedDip> dips = study_dips(5);
    CHECK(MaglevHash(1009).build(dips) == MaglevHash(1009).build(dips));
}

TEST_CASE("Removing one of three DIPs under the Ananta hash disrupts four of six hashes, counted by hand") {
    // Table 0 1 2 becomes 0 1: hash h goes to h mod 3, then h mod 2. Over h = 0..5 only 0 and 1 stay,
    // and h = 2 and 5 had the removed DIP.
    const std::vector<WeightedDip> dips = study_dips(3);
    const std::vector<WeightedDip> left{dips[0], dips[1]};
    const std::vector<std::uint64_t> hashes{0, 1, 2, 3, 4, 5};
    const DisruptionResult d = disruption(AnantaHash{}, dips, left, hashes);
    CHECK(d.flows == 6);
    CHECK(d.moved == 4);
    CHECK(d.forced == 2);
}

TEST_CASE("Maglev disrupts far fewer connections than the Ananta hash when a DIP is removed or added") {
    for (std::int32_t change : {-1, +1}) {
        HashStudySpec spec;
        spec.dips = 10;
        spec.change = change;
        spec.maglev_table_sizes = {251, 65'537};
        spec.flows = 20'000;
        const auto rows = hashing_study(spec);
        REQUIRE(rows.size() == 3);
        CHECK(rows[0].kind == MuxHashKind::Ananta);
        CHECK(rows[0].disrupted_share > 0.5);  // modulo-N: most connections move
        for (std::size_t i = 1; i < rows.size(); ++i) {
            CHECK(rows[i].kind == MuxHashKind::Maglev);
            CHECK(rows[i].disrupted_share >= rows[i].forced_share);
            CHECK(rows[i].disrupted_share < 0.2);  // about 1/10 forced plus a little
            CHECK(rows[i].disrupted_share < rows[0].disrupted_share);
        }
        // The large table balances at least as well as the small one.
        CHECK(rows[2].max_over_mean <= rows[1].max_over_mean + 0.02);
        if (change < 0) CHECK(rows[0].forced_share == Approx(0.1).margin(0.01));
    }
}

TEST_CASE("A Mux configured for Maglev picks DIPs through the Maglev table") {
    MuxConfig c;
    c.hash = MuxHashKind::Maglev;
    c.maglev_table_size = 13;
    Mux m(c, ip(10, 1, 0, 1));
    MuxOutput out;
    const Endpoint ep{ip(100, 64, 0, 1), IpProto::Tcp, 80};
    const std::vector<WeightedDip> dips = study_dips(3);
    m.handle(SetEndpoint{1, ep, dips, 0}, Time::zero(), out);
    const FiveTuple t{ip(203, 0, 113, 5), ep.vip, 40000, 80, IpProto::Tcp};
    const auto table = MaglevHash(13).build(dips);
    const WeightedDip* d = m.pick(t);
    REQUIRE(d != nullptr);
    CHECK(*d == dips[table[tuple_hash(t, 1) % 13]]);
}

TEST_CASE("Raising a DIP's weight in a Maglev table moves only the entries its new quota needs, counted by hand") {
    // B0 (offset 3, skip 4) walks 3 0 4 1 5 2 6; B1 (offset 0, skip 2) walks 0 2 4 6 1 3 5.
    const std::vector<std::uint32_t> offsets{3, 0};
    const std::vector<std::uint32_t> skips{4, 2};
    // Weights 1:1, quotas 4 and 3: B0->3, B1->0, B0->4, B1->2, B0->1, B1->6, B0->5.
    const auto equal = MaglevHash::populate(offsets, skips, MaglevHash::quotas(std::vector<std::uint32_t>{1, 1}, 7), 7);
    CHECK(equal == std::vector<std::uint32_t>{1, 0, 1, 0, 0, 0, 1});
    // Weights 1:2, quotas 2 and 5: B0->3, B1->0, B0->4, B1->2, then B1 alone: 6, 1, 5.
    const auto weighted =
        MaglevHash::populate(offsets, skips, MaglevHash::quotas(std::vector<std::uint32_t>{1, 2}, 7), 7);
    CHECK(weighted == std::vector<std::uint32_t>{1, 1, 1, 0, 0, 1, 1});
    // Entries 1 and 5 moved from B0 to B1: exactly the two B1 gained.
    std::vector<WeightedDip> dips = study_dips(2);
    std::vector<WeightedDip> reweighted = dips;
    reweighted[1].weight = 2;
    CHECK(entries_changed(equal, dips, weighted, reweighted) == 2);
}
