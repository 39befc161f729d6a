#include <catch2/catch.hpp>

#include <cstdint>
#include <deque>

#include "loom/ananta/small_ring.hpp"
#include "loom/base/rng.hpp"

using namespace loom;
using namespace loom::ananta;

TEST_CASE("A small ring is a FIFO across wrap-around and growth, against a deque") {
    SmallRing<std::uint64_t, 4> ring;
    std::deque<std::uint64_t> ref;
    Rng rng(11);
    std::uint64_t n = 0;
    for (int round = 0; round < 5'000; ++round) {
        const auto pushes = static_cast<int>(rng.uniform(4));
        for (int k = 0; k < pushes; ++k) {
            ring.push_back(n);
            ref.push_back(n++);
        }
        const auto pops = static_cast<int>(rng.uniform(4));
        for (int k = 0; k < pops && !ref.empty(); ++k) {
            REQUIRE(ring.front() == ref.front());
            ring.pop_front();
            ref.pop_front();
        }
        REQUIRE(ring.size() == ref.size());
        REQUIRE(ring.empty() == ref.empty());
        for (std::uint32_t i = 0; i < ring.size(); ++i) REQUIRE(ring[i] == ref[i]);
        if (!ref.empty()) REQUIRE(ring.back() == ref.back());
    }
    CHECK(ring.capacity() >= 4);
    CHECK((ring.capacity() & (ring.capacity() - 1)) == 0);
}

TEST_CASE("A small ring grows from its first capacity by doubling, keeping its values in order") {
    SmallRing<int, 4> ring;
    CHECK(ring.capacity() == 0);
    ring.push_back(0);
    CHECK(ring.capacity() == 4);
    ring.push_back(1);
    ring.push_back(2);
    ring.pop_front();  // head 1: the next growth copies across the wrap
    ring.push_back(3);
    ring.push_back(4);  // wraps to slot 0
    CHECK(ring.capacity() == 4);
    ring.push_back(5);  // full: grows to 8
    CHECK(ring.capacity() == 8);
    REQUIRE(ring.size() == 5);
    for (std::uint32_t i = 0; i < 5; ++i) CHECK(ring[i] == static_cast<int>(i) + 1);
}

TEST_CASE("An emptied small ring starts again at its first slot") {
    SmallRing<int, 4> ring;
    ring.push_back(7);
    ring.push_back(8);
    ring.pop_front();
    ring.pop_front();
    CHECK(ring.empty());
    ring.push_back(9);
    ring.push_back(10);
    ring.push_back(11);
    ring.push_back(12);  // fills all four slots from slot 0: no growth
    CHECK(ring.capacity() == 4);
    CHECK(ring.front() == 9);
    CHECK(ring.back() == 12);
}

TEST_CASE("insert_from_back keeps a ring sorted, equal values in insertion order") {
    struct V {
        int key;
        int order;
    };
    SmallRing<V, 2> ring;
    int order = 0;
    for (int key : {5, 3, 5, 7, 3, 1, 7, 5}) {
        ring.insert_from_back(V{key, order++}, [key](const V& x) { return x.key <= key; });
    }
    REQUIRE(ring.size() == 8);
    const int keys[] = {1, 3, 3, 5, 5, 5, 7, 7};
    const int orders[] = {5, 1, 4, 0, 2, 7, 3, 6};
    for (std::uint32_t i = 0; i < 8; ++i) {
        CHECK(ring[i].key == keys[i]);
        CHECK(ring[i].order == orders[i]);
    }
}
