#include <catch2/catch.hpp>

#include <cstdint>
#include <utility>
#include <vector>

#include "block_list.hpp"

using loom::sched::detail::BlockList;

TEST_CASE("BlockList keeps every element in order across blocks, and clear() empties it") {
    using Pair = std::pair<std::int64_t, std::int64_t>;
    BlockList<Pair> list;
    CHECK(list.empty());
    // Two and a half blocks: the indices that cross a block's end are the ones a wrong shift or mask would break.
    const std::size_t n = BlockList<Pair>::kBlock * 2 + BlockList<Pair>::kBlock / 2;
    for (std::size_t i = 0; i < n; ++i) list.emplace_back(static_cast<std::int64_t>(i), -static_cast<std::int64_t>(i));
    REQUIRE(list.size() == n);
    for (std::size_t i : {std::size_t{0}, BlockList<Pair>::kBlock - 1, BlockList<Pair>::kBlock, n - 1}) {
        CHECK(list[i].first == static_cast<std::int64_t>(i));
        CHECK(list[i].second == -static_cast<std::int64_t>(i));
    }
    std::int64_t expect = 0;
    bool ordered = true;
    list.for_each([&](const Pair& p) { ordered = ordered && p.first == expect++; });
    CHECK(ordered);
    CHECK(expect == static_cast<std::int64_t>(n));
    list.clear();
    CHECK(list.empty());
    list.push_back({5, 6});
    CHECK(list[0] == Pair{5, 6});
}
