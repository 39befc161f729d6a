#include <catch2/catch.hpp>

#include "loom/tsp/timed_memory.hpp"

using namespace loom;
using namespace loom::literals;
using loom::tsp::AccessKey;
using loom::tsp::SparseValues;
using loom::tsp::TimedMemory;

TEST_CASE("A read sees the initial contents and every write with an earlier key, not later ones") {
    TimedMemory m;
    m.init(3, 10);
    m.write(3, {100_ns, 5}, 11, Time::zero());          // logged early, as a train's later vector is
    CHECK(m.read(3, {100_ns, 5}, Time::zero()) == 10);  // same key: not yet
    CHECK(m.read(3, {100_ns, 6}, Time::zero()) == 11);  // later in program order at the same time
    CHECK(m.read(3, {99_ns, 9}, Time::zero()) == 10);
    CHECK(m.read(3, {0_ns, 0}, Time::zero()) == 10);
    CHECK(m.read(4, {1_us, 0}, Time::zero()) == 0);
    CHECK(m.final_value(3) == 11);
}

TEST_CASE("Writes logged out of order are ordered by their keys") {
    TimedMemory m;
    m.write(0, {200_ns, 1}, 2, Time::zero());
    m.write(0, {100_ns, 1}, 1, Time::zero());
    CHECK(m.read(0, {150_ns, 0}, Time::zero()) == 1);
    CHECK(m.read(0, {250_ns, 0}, Time::zero()) == 2);
    m.write(0, {200_ns, 1}, 5, Time::zero());  // same key replaces
    CHECK(m.final_value(0) == 5);
}

TEST_CASE("Old versions are forgotten once no read can see them, without changing what reads return") {
    TimedMemory m;
    for (int i = 1; i <= 100; ++i) m.write(7, {Time::ns(i), 0}, i, Time::ns(i));
    CHECK(m.read(7, {Time::ns(100), 1}, Time::ns(100)) == 100);
    CHECK(m.read(7, {Time::ns(100), 0}, Time::ns(100)) == 99);
    CHECK(m.cells() == 1);
}

TEST_CASE("Range reads return the non-zero values as offsets, and zeros over untouched memory are no-ops") {
    TimedMemory m;
    m.init(10, 4);
    m.init(12, 0);
    m.init(13, 6);
    SparseValues v;
    m.read_range(10, 3, {0_ns, 0}, Time::zero(), v);
    CHECK(v == SparseValues{{0, 4}});
    m.read_range(11, 5, {0_ns, 0}, Time::zero(), v);
    CHECK(v == SparseValues{{2, 6}});
    CHECK(m.untouched(0, 10));
    CHECK_FALSE(m.untouched(5, 6));
    m.write(50, {1_ns, 0}, 0, Time::zero());
    CHECK(m.untouched(50, 1));
    CHECK(m.final_contents() == std::vector<std::pair<std::int64_t, std::int64_t>>{{10, 4}, {12, 0}, {13, 6}});
}
