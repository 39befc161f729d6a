#include <catch2/catch.hpp>

#include <map>
#include <stdexcept>
#include <vector>

#include "loom/base/rng.hpp"
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

namespace {

// The contract written out plainly: every version kept, a read sees the latest with a smaller key.
class ReferenceMemory {
public:
    void init(std::int64_t slot, std::int64_t value) {
        versions_[slot].clear();
        versions_[slot][{Time::ps(-1), 0}] = value;
    }
    void write(std::int64_t slot, AccessKey key, std::int64_t value) {
        auto& v = versions_[slot];
        if (v.empty() && value == 0) {
            versions_.erase(slot);
            return;
        }
        v[key] = value;
    }
    std::int64_t read(std::int64_t slot, AccessKey key) const {
        const auto it = versions_.find(slot);
        if (it == versions_.end()) return 0;
        auto b = it->second.lower_bound(key);
        if (b == it->second.begin()) return 0;
        return std::prev(b)->second;
    }
    std::vector<std::pair<std::int64_t, std::int64_t>> final_contents() const {
        std::vector<std::pair<std::int64_t, std::int64_t>> out;
        for (const auto& [slot, v] : versions_) out.emplace_back(slot, v.rbegin()->second);
        return out;
    }

private:
    std::map<std::int64_t, std::map<AccessKey, std::int64_t>> versions_;
};

}  // namespace

TEST_CASE("Settled memory answers every read as the full version history does, over pages and slot reuse") {
    // Writes land up to `lag` before now and up to 2 us after it, as a train's later vectors do; slots span
    // several pages and are rewritten many times, some with zeros, some re-initialised.
    const Time lag = 3_ns;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        loom::Rng rng(seed);
        TimedMemory m(lag);
        ReferenceMemory ref;
        Time now = 10_ns;  // writes may land up to `lag` earlier: all after the initial contents
        for (std::int64_t s = 0; s < 40; ++s) {
            const auto v = static_cast<std::int64_t>(rng.uniform(5));
            m.init(s * 37, v);
            ref.init(s * 37, v);
        }
        SparseValues got;
        for (int step = 0; step < 3000; ++step) {
            now = now + Time::ps(static_cast<std::int64_t>(rng.uniform(400)));
            const auto slot = static_cast<std::int64_t>(rng.uniform(1500));
            const auto order = static_cast<std::uint32_t>(rng.uniform(4));
            switch (rng.uniform(4)) {
                case 0:
                case 1: {
                    const Time t = now - lag + Time::ps(static_cast<std::int64_t>(rng.uniform(2003000)));
                    const auto value = static_cast<std::int64_t>(rng.uniform(3));  // zeros included
                    // A train's writes: consecutive slots, rising times.
                    const auto n = static_cast<std::int64_t>(1 + rng.uniform(5));
                    for (std::int64_t k = 0; k < n; ++k) {
                        m.write(slot + k, {t + Time::ps(k * 100), order}, value + k, now);
                        ref.write(slot + k, {t + Time::ps(k * 100), order}, value + k);
                    }
                    break;
                }
                case 2: {
                    const AccessKey key{now + Time::ps(static_cast<std::int64_t>(rng.uniform(3000))), order};
                    REQUIRE(m.read(slot, key, now) == ref.read(slot, key));
                    break;
                }
                default: {
                    const AccessKey key{now, order};
                    m.read_range(slot, 300, key, now, got);
                    SparseValues want;
                    for (std::int64_t k = 0; k < 300; ++k)
                        if (const std::int64_t v = ref.read(slot + k, key); v != 0)
                            want.emplace_back(static_cast<std::uint32_t>(k), v);
                    REQUIRE(got == want);
                }
            }
        }
        const auto contents = m.final_contents();
        CHECK(contents == ref.final_contents());
        CHECK(m.cells() == contents.size());
        for (const auto& [slot, value] : contents) CHECK(m.final_value(slot) == value);
        // Long after the last write every version has settled into its page.
        m.read(0, {now + 1_ms, 0}, now + 1_ms);
        CHECK(m.unsettled() == 0);
        CHECK(m.final_contents() == contents);
    }
}

TEST_CASE("Unsettled versions are bounded by the writes in flight, not by the run's length") {
    TimedMemory m(Time::zero());
    // 100 rounds, each writing 1000 slots 10 ns ahead, as a stream of trains does.
    for (std::int64_t round = 0; round < 100; ++round) {
        const Time now = Time::ns(10 * round);
        for (std::int64_t s = 0; s < 1000; ++s) m.write(s, {now + 10_ns, 0}, round + 1, now);
        CHECK(m.unsettled() <= 2000);
        CHECK(m.read(999, {now + 10_ns, 1}, now) == round + 1);
    }
    CHECK(m.final_value(5) == 100);
}

TEST_CASE("A write logged before versions it may precede were settled is refused, not silently misordered") {
    TimedMemory m(2_ns);
    m.write(4, {10_ns, 0}, 1, Time::zero());
    m.read(4, {20_ns, 0}, 20_ns);  // settles everything before 18 ns
    CHECK_THROWS_AS(m.write(4, {17_ns, 0}, 2, 20_ns), std::logic_error);
    CHECK_NOTHROW(m.write(4, {18_ns, 0}, 3, 20_ns));
    CHECK(m.read(4, {20_ns, 0}, 20_ns) == 3);
    CHECK_THROWS_AS(m.read(-1, {20_ns, 0}, 20_ns), std::out_of_range);
}

TEST_CASE("Re-initialising a slot drops its unsettled versions") {
    TimedMemory m(1_ns);
    m.write(300, {50_ns, 0}, 9, Time::zero());
    m.write(301, {50_ns, 0}, 8, Time::zero());
    m.init(300, 2);
    CHECK(m.read(300, {60_ns, 0}, Time::zero()) == 2);
    CHECK(m.read(301, {60_ns, 0}, Time::zero()) == 8);
    m.read(0, {100_ns, 0}, 100_ns);  // the stale heap entry of slot 300 must not resurrect 9
    CHECK(m.final_value(300) == 2);
    CHECK(m.final_value(301) == 8);
    CHECK(m.unsettled() == 0);
}

TEST_CASE("Writes applied in key order by their owner set values without versions, and touched slots count as cells") {
    TimedMemory m;
    m.touch(9);  // a non-zero write to slot 9 is logged, to land later
    CHECK_FALSE(m.untouched(9, 1));
    CHECK(m.cells() == 1);
    CHECK(m.read(9, {1_ns, 0}, Time::zero()) == 0);  // before it lands: the old value
    m.apply(9, 42);
    CHECK(m.read(9, {2_ns, 0}, Time::zero()) == 42);
    m.apply(9, 0);  // a zero over a cell is a write
    CHECK(m.final_value(9) == 0);
    m.apply(20, 0);  // a zero on a slot without a cell changes nothing
    CHECK(m.untouched(20, 1));
    CHECK(m.cells() == 1);
    CHECK(m.unsettled() == 0);
    m.write(30, {5_ns, 0}, 7, Time::zero());
    CHECK_THROWS_AS(m.apply(30, 8), std::logic_error);  // the slot has a version: applying would misorder it
}

TEST_CASE("touch_nonzero gives cells exactly where touch() of each non-zero value would, across pages") {
    Rng rng(7);
    for (int round = 0; round < 50; ++round) {
        TimedMemory a, b;
        // Some cells before, so that touching an existing cell is exercised.
        for (int j = 0; j < 5; ++j) {
            const auto s = static_cast<std::int64_t>(rng.uniform_int(0, 1999));
            a.init(s, 3);
            b.init(s, 3);
        }
        const auto first = static_cast<std::int64_t>(rng.uniform_int(0, 999));
        std::vector<std::int64_t> values(static_cast<std::size_t>(rng.uniform_int(0, 700)), 0);
        for (auto& v : values)
            if (rng.uniform_int(0, 2) == 0) v = static_cast<std::int64_t>(rng.uniform_int(1, 9));
        a.touch_nonzero(first, values);
        for (std::size_t k = 0; k < values.size(); ++k)
            if (values[k] != 0) b.touch(first + static_cast<std::int64_t>(k));
        CHECK(a.cells() == b.cells());
        CHECK(a.final_contents() == b.final_contents());
        for (std::int64_t s = 0; s < 2000; s += 37) CHECK(a.untouched(s, 37) == b.untouched(s, 37));
    }
    TimedMemory m;
    CHECK_THROWS_AS(m.touch_nonzero(std::int64_t{0x7fffffff}, {0, 5}), std::out_of_range);
    m.touch_nonzero(std::int64_t{0x7fffffff}, {5, 0});  // a zero past the last slot is not a write
    CHECK(m.cells() == 1);
}

TEST_CASE("Settled memory costs about 8 bytes a cell: no per-slot version heads, no page growth slack") {
    // 100 full pages of applied values (the executor's path) and one slot with versions in flight.
    TimedMemory m(Time::ns(10));
    constexpr std::int64_t kSlots = 100 * 256;
    for (std::int64_t s = 0; s < kSlots; ++s) m.apply(s, s + 1);
    REQUIRE(m.cells() == static_cast<std::size_t>(kSlots));
    const double per_cell = static_cast<double>(m.bytes()) / static_cast<double>(kSlots);
    CHECK(per_cell >= 8.0);
    CHECK(per_cell < 8.5);
    // A version in flight costs its pool chunk and a head; reads see it by key, and it settles into the page.
    m.write(kSlots + 5, {Time::ns(20), 0}, 42, Time::ns(15));
    CHECK(m.read(kSlots + 5, {Time::ns(20), 0}, Time::ns(15)) == 0);
    CHECK(m.read(kSlots + 5, {Time::ns(20), 1}, Time::ns(15)) == 42);
    CHECK(m.unsettled() == 1);
    CHECK(m.read(kSlots + 5, {Time::ns(40), 0}, Time::ns(40)) == 42);
    CHECK(m.unsettled() == 0);
    CHECK(m.final_value(kSlots + 5) == 42);
}

TEST_CASE("init_range sets the slots init() of each would, across pages and over cells and versions") {
    Rng rng(11);
    for (int round = 0; round < 50; ++round) {
        TimedMemory a(1_ns), b(1_ns);
        // Cells and unsettled versions before, so that both are exercised.
        for (int j = 0; j < 5; ++j) {
            const auto s = static_cast<std::int64_t>(rng.uniform_int(0, 1999));
            a.init(s, 3);
            b.init(s, 3);
            a.write(s + 1, {50_ns, 0}, 4, Time::zero());
            b.write(s + 1, {50_ns, 0}, 4, Time::zero());
        }
        const auto first = static_cast<std::int64_t>(rng.uniform_int(0, 999));
        std::vector<std::int64_t> values(static_cast<std::size_t>(rng.uniform_int(0, 700)), 0);
        for (auto& v : values)
            if (rng.uniform_int(0, 2) != 0) v = static_cast<std::int64_t>(rng.uniform_int(1, 9));
        a.init_range(first, values.data(), static_cast<std::int64_t>(values.size()));
        for (std::size_t k = 0; k < values.size(); ++k) b.init(first + static_cast<std::int64_t>(k), values[k]);
        CHECK(a.cells() == b.cells());
        CHECK(a.unsettled() == b.unsettled());
        CHECK(a.final_contents() == b.final_contents());
        for (std::int64_t s = 0; s < 2000; s += 7)
            CHECK(a.read(s, {10_ns, 0}, Time::zero()) == b.read(s, {10_ns, 0}, Time::zero()));
    }
    TimedMemory m;
    const std::int64_t two[] = {1, 2};
    CHECK_THROWS_AS(m.init_range(std::int64_t{0x7fffffff}, two, 2), std::out_of_range);
    CHECK_THROWS_AS(m.init_range(-1, two, 2), std::out_of_range);
}

TEST_CASE("apply_range sets the slots apply() of each would, across pages, zeros on untouched slots changing nothing") {
    Rng rng(13);
    for (int round = 0; round < 50; ++round) {
        TimedMemory a, b;
        for (int j = 0; j < 5; ++j) {
            const auto s = static_cast<std::int64_t>(rng.uniform_int(0, 1999));
            a.init(s, 3);
            b.init(s, 3);
        }
        const auto first = static_cast<std::int64_t>(rng.uniform_int(0, 999));
        std::vector<std::int64_t> values(static_cast<std::size_t>(rng.uniform_int(0, 700)), 0);
        for (auto& v : values)
            if (rng.uniform_int(0, 2) == 0) v = static_cast<std::int64_t>(rng.uniform_int(1, 9));
        a.apply_range(first, values.data(), static_cast<std::int64_t>(values.size()));
        for (std::size_t k = 0; k < values.size(); ++k) b.apply(first + static_cast<std::int64_t>(k), values[k]);
        CHECK(a.cells() == b.cells());
        CHECK(a.final_contents() == b.final_contents());
    }
    TimedMemory m;
    m.write(5, {5_ns, 0}, 7, Time::zero());
    const std::int64_t three[] = {1, 2, 3};
    CHECK_THROWS_AS(m.apply_range(4, three, 3), std::logic_error);  // slot 5 has a version
}

TEST_CASE("lines_of names a slot's settled value and its page's cell bits only where a page exists") {
    TimedMemory m;
    CHECK(m.lines_of(5).value == nullptr);  // no page yet
    m.init(5, 7);
    m.init(300, 9);  // another page (256 slots a page)
    const TimedMemory::SlotLines a = m.lines_of(5);
    const TimedMemory::SlotLines b = m.lines_of(6);
    const TimedMemory::SlotLines c = m.lines_of(300);
    REQUIRE(a.value != nullptr);
    REQUIRE(c.value != nullptr);
    CHECK(a.cells != nullptr);
    CHECK(a.cells == b.cells);  // one page
    CHECK(static_cast<const char*>(b.value) - static_cast<const char*>(a.value) == 8);
    CHECK(*static_cast<const std::int64_t*>(a.value) == 7);  // the settled value itself
    CHECK(c.cells != a.cells);
    CHECK(m.lines_of(600).value == nullptr);  // past the pages
    CHECK(m.lines_of(-1).value == nullptr);
    CHECK(m.lines_of(std::int64_t{1} << 40).value == nullptr);
}

TEST_CASE("final_range gives final_value of every slot, over pages, unsettled versions and slots outside memory") {
    TimedMemory m;  // keeps every version unsettled
    m.init(250, 7);
    m.init(300, 9);
    m.write(255, {10_ns, 1}, 4, Time::zero());
    m.write(255, {20_ns, 1}, 5, Time::zero());
    m.write(256, {5_ns, 1}, -3, Time::zero());
    m.write(700, {5_ns, 1}, 12, Time::zero());
    std::vector<std::int64_t> got(600, -1);
    m.final_range(240, 600, got.data());
    for (std::int64_t k = 0; k < 600; ++k) CHECK(got[static_cast<std::size_t>(k)] == m.final_value(240 + k));
    CHECK(got[255 - 240] == 5);
    CHECK(got[256 - 240] == -3);
    CHECK(got[700 - 240] == 12);
    std::vector<std::int64_t> edge(4, -1);
    m.final_range(-2, 4, edge.data());  // slots -2 and -1 are outside: 0, as final_value gives
    CHECK(edge == std::vector<std::int64_t>{0, 0, 0, 0});
}

TEST_CASE("touch_nonzero gives a cell to exactly the non-zero values' slots, across pages, keeping their values") {
    TimedMemory m;
    m.init(300, 9);  // already a cell: touching keeps its value
    std::vector<std::int64_t> values(600, 0);
    values[0] = 1;          // slot 200
    values[100] = 5;        // slot 300 (has a cell)
    values[56] = -1;        // slot 256, the next page's first
    values[599] = 2;        // slot 799
    m.touch_nonzero(200, values);
    CHECK(m.cells() == 4);
    CHECK(m.final_value(300) == 9);
    CHECK(m.final_value(200) == 0);
    CHECK_FALSE(m.untouched(256, 1));
    CHECK(m.untouched(201, 55));
    CHECK(m.untouched(512, 287));
    CHECK_FALSE(m.untouched(799, 1));
    // Outside [0, 2^31): a non-zero value there throws, as touch() does.
    std::vector<std::int64_t> outside{0, 3};
    CHECK_THROWS_AS(m.touch_nonzero(std::int64_t{0x7fffffff}, outside), std::out_of_range);
}
