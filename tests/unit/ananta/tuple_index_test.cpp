#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include "loom/ananta/tuple_index.hpp"
#include "loom/base/rng.hpp"

using namespace loom;
using namespace loom::ananta;

namespace {
FiveTuple tuple_of(std::uint64_t n) {
    return FiveTuple{ip(198, 51, 100, static_cast<std::uint32_t>(n % 7)), ip(100, 64, 0, 1),
                     static_cast<std::uint16_t>(1024 + n % 911), 80, IpProto::Tcp};
}
}  // namespace

TEST_CASE("TupleIndex agrees with a map under random inserts and erases, through growth and backward shifts") {
    std::vector<FiveTuple> keys;  // position -> key, as a caller's array
    auto key_of = [&keys](std::uint32_t i) -> const FiveTuple& { return keys[i]; };
    TupleIndex index;
    std::map<std::uint64_t, std::uint32_t> reference;  // n -> position
    std::uint64_t state = 12345;
    for (int step = 0; step < 20000; ++step) {
        state = mix64(state + 1);
        const std::uint64_t n = state % 4000;  // a small key space: many erases hit, clusters form
        auto it = reference.find(n);
        if (it == reference.end()) {
            keys.push_back(tuple_of(n));
            const auto pos = static_cast<std::uint32_t>(keys.size() - 1);
            index.insert(keys.back(), pos, key_of);
            reference[n] = pos;
        } else if ((state >> 32) % 3 != 0) {
            CHECK(index.erase(tuple_of(n), key_of) == it->second);
            reference.erase(it);
        }
        if (step % 997 == 0) {
            REQUIRE(index.size() == reference.size());
            for (std::uint64_t m = 0; m < 4000; ++m) {
                auto r = reference.find(m);
                REQUIRE(index.find(tuple_of(m), key_of) == (r == reference.end() ? TupleIndex::kNone : r->second));
            }
        }
    }
    CHECK(index.erase(tuple_of(4001), key_of) == TupleIndex::kNone);
}

TEST_CASE("TupleIndex reads a caller's record only for cells whose tag matches") {
    // 3,000 keys at the table's fullest (3/4: 4,096 cells, grown at 3,073): without tags a lookup reads every
    // record of its cluster up to its own (2.5 on average for a hit, 8.5 for a miss, at this fullness).
    std::vector<FiveTuple> keys;
    std::uint64_t reads = 0;
    auto key_of = [&keys, &reads](std::uint32_t i) -> const FiveTuple& {
        ++reads;
        return keys[i];
    };
    TupleIndex index;
    for (std::uint32_t n = 0; n < 3000; ++n) {
        keys.push_back(FiveTuple{ip(198, 51, 100, n % 250), ip(100, 64, 0, 1), static_cast<std::uint16_t>(1024 + n),
                                 80, IpProto::Tcp});
        index.insert(keys.back(), n, key_of);
    }
    reads = 0;
    for (std::uint32_t n = 0; n < 3000; ++n) REQUIRE(index.find(keys[n], key_of) == n);
    CHECK(reads < 3000 + 300);  // each hit reads its own record, and a false tag match is one in 256
    reads = 0;
    for (std::uint32_t n = 0; n < 3000; ++n) {
        FiveTuple absent = keys[n];
        absent.dst_port = 81;
        REQUIRE(index.find(absent, key_of) == TupleIndex::kNone);
    }
    CHECK(reads < 300);
    // guess(): the home cell's position when its tag matches; a hit found there is the key's own.
    std::uint32_t right = 0;
    for (std::uint32_t n = 0; n < 3000; ++n) {
        const std::uint32_t g = index.guess(keys[n]);
        REQUIRE((g == TupleIndex::kNone || g < 3000));
        right += g == n ? 1 : 0;
    }
    CHECK(right > 1000);  // most keys sit in their home cell
    CHECK(TupleIndex().guess(keys[0]) == TupleIndex::kNone);
}
