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
