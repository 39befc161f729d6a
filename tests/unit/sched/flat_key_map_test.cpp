#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <span>
#include <vector>

#include "flat_key_map.hpp"

using loom::sched::detail::FlatKeyMap;

namespace {

// A poor hash on purpose (many collisions, long probe runs) next to the table's own use of a good one.
struct FewBuckets {
    std::size_t operator()(std::span<const std::int64_t> key) const noexcept {
        std::uint64_t h = key.size();
        for (const std::int64_t x : key) h += static_cast<std::uint64_t>(x);
        return static_cast<std::size_t>(h % 37);
    }
};

}  // namespace

TEST_CASE("FlatKeyMap finds, inserts and erases as a map of vectors does, through rebuilds") {
    std::mt19937_64 rng(16);
    FlatKeyMap<std::int32_t, FewBuckets> table;
    std::map<std::vector<std::int64_t>, std::int32_t> ref;
    std::vector<std::vector<std::int64_t>> seen;
    for (int step = 0; step < 60000; ++step) {
        std::vector<std::int64_t> key;
        if (!seen.empty() && rng() % 2 == 0) {
            key = seen[rng() % seen.size()];
        } else {
            key.resize(rng() % 6);
            for (auto& x : key) x = static_cast<std::int64_t>(rng() % 5) - 1;
            seen.push_back(key);
        }
        switch (rng() % 3) {
            case 0: {
                const auto v = static_cast<std::int32_t>(step);
                const std::int32_t got = table.emplace(key, v);
                const std::int32_t want = ref.emplace(key, v).first->second;
                REQUIRE(got == want);
                break;
            }
            case 1: REQUIRE(table.erase(key) == (ref.erase(key) == 1)); break;
            default: {
                const std::int32_t* got = table.find(key);
                const auto it = ref.find(key);
                REQUIRE((got != nullptr) == (it != ref.end()));
                if (got) REQUIRE(*got == it->second);
            }
        }
        REQUIRE(table.size() == ref.size());
    }
    for (const auto& [key, v] : ref) {
        const std::int32_t* got = table.find(key);
        REQUIRE(got);
        CHECK(*got == v);
    }
}

TEST_CASE("FlatKeyMap's values stay where they are while others are inserted") {
    FlatKeyMap<std::vector<int>, FewBuckets> table;
    const std::vector<std::int64_t> first{1, 2, 3};
    std::vector<int>& v = table[first];
    v.push_back(7);
    for (std::int64_t k = 0; k < 5000; ++k) table[std::vector<std::int64_t>{k, k + 1}].push_back(1);
    CHECK(&table[first] == &v);
    REQUIRE(v.size() == 1);
    CHECK(v[0] == 7);
}

TEST_CASE("FlatKeyMap's erase_value() erases what erase() of the key would, given the key's hash and unique value") {
    std::mt19937_64 rng(27);
    FlatKeyMap<std::int32_t, FewBuckets> by_key;
    FlatKeyMap<std::int32_t, FewBuckets> by_value;
    std::map<std::vector<std::int64_t>, std::int32_t> ids;  // every key asked, its id in both
    std::int32_t next = 0;
    for (int step = 0; step < 40000; ++step) {
        std::vector<std::int64_t> key(rng() % 6);
        for (auto& x : key) x = static_cast<std::int64_t>(rng() % 5) - 1;
        const std::uint64_t h = by_value.hash_of(key);
        REQUIRE(h == FewBuckets{}(key));
        if (rng() % 2 == 0) {
            const std::int32_t* a = by_key.find(key);
            const std::int32_t* b = by_value.find(key, h);
            REQUIRE((a != nullptr) == (b != nullptr));
            if (a == nullptr) {
                by_key.emplace(key, next);
                REQUIRE(by_value.insert_new(key, h, next) == next);
                ids[key] = next++;
            } else {
                REQUIRE(*a == *b);
            }
        } else {
            const auto it = ids.find(key);
            const bool erased = by_key.erase(key);
            // By the id the key had last (an erased key's old id finds nothing; so does a key never asked).
            const bool erased_too = it != ids.end() && by_value.erase_value(h, it->second);
            REQUIRE(erased == erased_too);
            // Only the entry of that id goes, never another of the same hash.
            if (it != ids.end()) REQUIRE_FALSE(by_value.erase_value(h, it->second));
        }
        REQUIRE(by_key.size() == by_value.size());
    }
    for (const auto& [key, id] : ids) {
        const std::int32_t* a = by_key.find(key);
        const std::int32_t* b = by_value.find(key);
        REQUIRE((a != nullptr) == (b != nullptr));
        if (a) CHECK(*a == *b);
    }
}
