#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "size_pool.hpp"

using loom::sched::detail::SizePool;

TEST_CASE("SizePool: arrays are zeroed, disjoint and reused by size", "[sched][size_pool]") {
    SizePool<std::int64_t> pool;
    std::int64_t* a = pool.take(3);
    std::int64_t* b = pool.take(3);
    std::int64_t* c = pool.take(5);
    REQUIRE(a != b);
    for (int i = 0; i < 3; ++i) {
        CHECK(a[i] == 0);
        CHECK(b[i] == 0);
        a[i] = 7;
        b[i] = 8;
    }
    for (int i = 0; i < 5; ++i) c[i] = 9;
    CHECK(a[2] == 7);  // no overlap
    CHECK(b[0] == 8);
    pool.give(a, 3);
    // Another size does not take a's array; the same size does, zeroed again.
    std::int64_t* d = pool.take(5);
    CHECK(d != a);
    std::int64_t* e = pool.take(3);
    CHECK(e == a);
    for (int i = 0; i < 3; ++i) CHECK(e[i] == 0);
    CHECK(b[0] == 8);
    CHECK(c[4] == 9);
    pool.give(nullptr, 4);  // nothing
}

TEST_CASE("SizePool: random takes and gives never hand out an array in use", "[sched][size_pool]") {
    SizePool<std::int64_t> pool;
    std::mt19937 rng(7);
    std::vector<std::pair<std::int64_t*, std::size_t>> live;
    std::int64_t stamp = 1;
    for (int step = 0; step < 20000; ++step) {
        if (!live.empty() && rng() % 3 == 0) {
            const std::size_t k = rng() % live.size();
            auto [p, size] = live[k];
            for (std::size_t i = 0; i < size; ++i) REQUIRE(p[i] == p[0]);  // untouched by others
            pool.give(p, size);
            live[k] = live.back();
            live.pop_back();
        } else {
            const std::size_t size = 1 + rng() % 40;  // some larger than a slab's remainder
            std::int64_t* p = pool.take(size);
            for (std::size_t i = 0; i < size; ++i) {
                REQUIRE(p[i] == 0);
                p[i] = stamp;
            }
            ++stamp;
            live.emplace_back(p, size);
        }
    }
    // Every live array still holds its own stamp: none overlaps another.
    std::set<std::int64_t> stamps;
    for (auto [p, size] : live) {
        for (std::size_t i = 0; i < size; ++i) REQUIRE(p[i] == p[0]);
        CHECK(stamps.insert(p[0]).second);
    }
}
