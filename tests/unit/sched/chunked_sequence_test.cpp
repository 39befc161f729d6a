#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "chunked_sequence.hpp"

using loom::sched::detail::ChunkedSequence;

namespace {

using Seq = ChunkedSequence<std::int64_t>;

// The position of element `index` (counted from the front), by walking: independent of first_past.
Seq::Pos position_of(const Seq& s, std::size_t index) {
    Seq::Pos p = s.begin();
    for (std::size_t k = 0; k < index; ++k) p = s.next(p);
    return p;
}

// Walks at most size() steps, so a position that is not in the sequence fails instead of walking forever.
std::size_t index_of(const Seq& s, Seq::Pos p) {
    std::size_t k = 0;
    for (Seq::Pos q = s.begin(); !(q == p); q = s.next(q)) {
        if (s.at_end(q)) return s.size() + 1;  // not found
        ++k;
    }
    return k;
}

}  // namespace

TEST_CASE("A chunked sequence keeps its elements in order across chunk splits and erases") {
    Seq s;
    CHECK(s.empty());
    for (std::int64_t v = 0; v < 1000; ++v) s.insert(s.end(), 2 * v);  // appends fill chunks to the brim
    CHECK(s.size() == 1000);
    CHECK(s.chunks() == (1000 + Seq::kMaxChunk - 1) / Seq::kMaxChunk);
    CHECK(s.back() == 1998);
    // 1 goes before 2: into the first chunk, which splits.
    s.insert(s.first_past([](std::int64_t x) { return x > 1; }), 1);
    CHECK(s.chunks() == (1000 + Seq::kMaxChunk - 1) / Seq::kMaxChunk + 1);
    const std::vector<std::int64_t> v = s.to_vector();
    REQUIRE(v.size() == 1001);
    CHECK(std::is_sorted(v.begin(), v.end()));
    CHECK(v[1] == 1);
    CHECK(s.first_past([](std::int64_t x) { return x >= 1998; }) == position_of(s, 1000));
    CHECK(s.at_end(s.first_past([](std::int64_t x) { return x > 1998; })));
}

TEST_CASE("A chunked sequence answers like a sorted vector over random inserts, erases and searches") {
    std::mt19937_64 rng(GENERATE(1, 2, 3, 4));
    Seq s;
    std::vector<std::int64_t> ref;
    std::uniform_int_distribution<std::int64_t> value(0, 5000);
    std::uniform_int_distribution<int> op(0, 9);
    Seq::Pos hint;
    for (int step = 0; step < 20000; ++step) {
        const std::int64_t x = value(rng);
        const int o = op(rng);
        if (o < 5) {
            // Insert before the first element greater than x (as the reservation table inserts bookings), or, one
            // time in five, at the end when x is no smaller than the last.
            const auto rit = std::upper_bound(ref.begin(), ref.end(), x);
            const Seq::Pos p = s.first_past([x](std::int64_t y) { return y > x; }, hint);
            REQUIRE(index_of(s, p) == static_cast<std::size_t>(rit - ref.begin()));
            s.insert(p, x);
            ref.insert(rit, x);
        } else if (o < 7 && !ref.empty()) {
            // Erase a run of up to 3 elements from the first element >= x (as the table merges blocks).
            auto rit = std::lower_bound(ref.begin(), ref.end(), x);
            Seq::Pos p = s.first_past([x](std::int64_t y) { return y >= x; }, hint);
            for (int k = 0; k < 3 && rit != ref.end(); ++k) {
                REQUIRE_FALSE(s.at_end(p));
                p = s.erase(p);
                rit = ref.erase(rit);
                REQUIRE(index_of(s, p) == static_cast<std::size_t>(rit - ref.begin()));
            }
        } else if (o < 8 && !ref.empty()) {
            // Replace an element by one that keeps the order (as a merged block replaces the first it covers).
            const auto i = static_cast<std::size_t>(value(rng)) % ref.size();
            const std::int64_t lo = i == 0 ? 0 : ref[i - 1];
            const Seq::Pos p = position_of(s, i);
            REQUIRE(s[p] == ref[i]);
            s.set(p, lo);
            ref[i] = lo;
        } else {
            // Search from a hint (the last answer, or a random position) for the first element >= x.
            const Seq::Pos p = s.first_past([x](std::int64_t y) { return y >= x; }, hint);
            const auto rit = std::lower_bound(ref.begin(), ref.end(), x);
            REQUIRE(index_of(s, p) == static_cast<std::size_t>(rit - ref.begin()));
            if (!s.at_end(p)) CHECK(s[p] == *rit);
            if (p != s.begin() && !ref.empty()) CHECK(s[s.prev(p)] == *(rit - 1));
            hint = o == 9 ? p : Seq::Pos{static_cast<std::size_t>(x) % 50, static_cast<std::size_t>(x) % 200};
        }
        REQUIRE(s.size() == ref.size());
        if (!ref.empty()) REQUIRE(s.back() == ref.back());
    }
    CHECK(s.to_vector() == ref);
}

TEST_CASE("A chunked sequence's new chunks have room for a few elements, a split's upper half for a whole chunk") {
    Seq s;
    s.insert(s.end(), 0);
    CHECK(s.chunk(0).capacity() >= Seq::kFirstChunk);
    for (std::int64_t v = 1; v < static_cast<std::int64_t>(Seq::kMaxChunk) + 1; ++v) s.insert(s.end(), 2 * v);
    REQUIRE(s.chunks() == 2);  // the full first chunk, then a new one holding the last append
    CHECK(s.chunk(1).size() == 1);
    CHECK(s.chunk(1).capacity() >= Seq::kFirstChunk);
    // 1 goes into the full first chunk, which splits; the upper half keeps room for a whole chunk.
    s.insert(s.first_past([](std::int64_t x) { return x > 0; }), 1);
    REQUIRE(s.chunks() == 3);
    CHECK(s.chunk(1).size() == Seq::kMaxChunk / 2);
    CHECK(s.chunk(1).capacity() >= Seq::kMaxChunk);
    const std::vector<std::int64_t> v = s.to_vector();
    CHECK(std::is_sorted(v.begin(), v.end()));
    CHECK(v.size() == Seq::kMaxChunk + 2);
}
