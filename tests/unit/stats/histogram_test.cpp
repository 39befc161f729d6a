#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "loom/base/error.hpp"
#include "loom/stats/histogram.hpp"

using loom::stats::Histogram;

namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

// Values spread over every magnitude: each power of two, its neighbours, and a scrambled sequence.
std::vector<std::int64_t> probe_values() {
    std::vector<std::int64_t> vs;
    for (int e = 0; e < 63; ++e) {
        const std::int64_t p = std::int64_t{1} << e;
        vs.insert(vs.end(), {p - 1, p, p + 1, p + p / 3});
    }
    std::uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 2000; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        vs.push_back(static_cast<std::int64_t>(x >> (1 + i % 63)));
    }
    vs.push_back(kInt64Max);
    return vs;
}

}  // namespace

TEST_CASE("Histogram values below 2^sub_bits have buckets of their own") {
    for (int s : {1, 3, 7}) {
        const Histogram h(s);
        for (std::int64_t v = 0; v < (std::int64_t{2} << s); ++v) {
            const auto b = h.bucket_of(v);
            CHECK(h.bucket_lower(b) == v);
            CHECK(h.bucket_upper(b) == v);
        }
    }
}

TEST_CASE("Histogram reports every value of the exact range exactly") {
    Histogram h(7);
    for (std::int64_t v = 0; v < 128; ++v) h.record(v);
    for (std::int64_t v = 0; v < 128; ++v) {
        // Rank v+1 of 128 samples 0..127 is the value v.
        CHECK(h.percentile(static_cast<double>(v + 1) / 128.0) == v);
    }
}

TEST_CASE("Histogram buckets tile the whole int64 range without gaps") {
    for (int s : {1, 3, 7}) {
        const Histogram h(s);
        const std::size_t last = h.bucket_of(kInt64Max);
        CHECK(last + 1 == static_cast<std::size_t>(64 - s) << s);
        CHECK(h.bucket_lower(0) == 0);
        CHECK(h.bucket_upper(last) == kInt64Max);
        for (std::size_t b = 0; b < last; ++b) REQUIRE(h.bucket_upper(b) + 1 == h.bucket_lower(b + 1));
    }
}

TEST_CASE("Histogram bucket edges stay within a relative error of 2^-sub_bits") {
    for (int s : {1, 4, 7, 12}) {
        const Histogram h(s);
        for (const std::int64_t v : probe_values()) {
            const auto b = h.bucket_of(v);
            REQUIRE(h.bucket_lower(b) <= v);
            REQUIRE(v <= h.bucket_upper(b));
            // (upper - lower) / v < 2^-s, in integers: (upper - lower) < ceil(v / 2^s).
            const auto u = static_cast<std::uint64_t>(v);
            const std::uint64_t ceil_scaled = (u >> s) + ((u & ((std::uint64_t{1} << s) - 1)) != 0 ? 1 : 0);
            REQUIRE(static_cast<std::uint64_t>(h.bucket_upper(b) - h.bucket_lower(b)) < std::max<std::uint64_t>(ceil_scaled, 1));
        }
    }
}

TEST_CASE("Histogram percentiles of 1..1000 uniform are within 1 percent") {
    Histogram h;
    for (std::int64_t v = 1; v <= 1000; ++v) h.record(v);
    const auto near = [](std::int64_t got, double want) {
        return static_cast<double>(got) >= want && static_cast<double>(got) <= want * 1.01;
    };
    CHECK(near(h.percentile(0.50), 500));
    CHECK(near(h.percentile(0.90), 900));
    CHECK(near(h.percentile(0.99), 990));
    CHECK(near(h.percentile(0.999), 999));
    CHECK(h.percentile(0.0) == 1);
    CHECK(h.percentile(1.0) == 1000);
    // Out-of-range quantiles are clamped to [0, 1].
    CHECK(h.percentile(-1.0) == 1);
    CHECK(h.percentile(2.0) == 1000);
}

TEST_CASE("Histogram percentiles on a two-point distribution switch at the rank boundary") {
    Histogram h;
    h.record_n(10, 99);
    h.record_n(1'000'000, 1);
    CHECK(h.percentile(0.99) == 10);
    // Rank 100 of 100 is the large value; its bucket's upper edge is clamped to the exact max.
    CHECK(h.percentile(0.991) == 1'000'000);
    CHECK(h.percentile(0.999) == 1'000'000);
}

TEST_CASE("Histogram percentiles are clamped to the exact min and max") {
    Histogram h(1);
    h.record(1'000);  // at sub_bits 1, 1000 falls in the bucket [768, 1023]
    CHECK(h.bucket_upper(h.bucket_of(1'000)) > 1'000);
    CHECK(h.percentile(0.5) == 1'000);
    CHECK(h.percentile(0.0) == 1'000);
}

TEST_CASE("Histogram min, max, count, sum and mean are exact") {
    Histogram h;
    h.record(1'000'000'000'001);
    h.record(3);
    h.record_n(7, 2);
    h.record_n(5, 0);  // a zero repeat count records nothing
    CHECK(h.count() == 4);
    CHECK(h.min() == 3);
    CHECK(h.max() == 1'000'000'000'001);
    CHECK(h.sum() == 1'000'000'000'018.0);
    CHECK(h.mean() == 1'000'000'000'018.0 / 4.0);
    const auto j = h.to_json();
    CHECK(j["sum"].get<std::int64_t>() == 1'000'000'000'018);
    CHECK(j["min"] == 3);
    CHECK(j["max"] == 1'000'000'000'001);
}

TEST_CASE("Histogram sums past 64 bits stay exact inside and print as a double") {
    Histogram h;
    h.record_n(kInt64Max, 4);
    CHECK(h.mean() == static_cast<double>(kInt64Max));
    const auto j = h.to_json();
    CHECK(j["sum"].is_number_float());
    CHECK(j["sum"].get<double>() == 4.0 * static_cast<double>(kInt64Max));
    CHECK(h.percentile(0.5) == kInt64Max);
}

TEST_CASE("Histogram merge equals recording both sample sets") {
    Histogram a, b, both;
    for (std::int64_t v = 0; v < 500; ++v) {
        a.record(v * 3);
        both.record(v * 3);
    }
    for (std::int64_t v = 0; v < 300; ++v) {
        b.record_n(v * v * 7'919 + 1'000'000, 2);  // reaches octaves `a` never allocated
        both.record_n(v * v * 7'919 + 1'000'000, 2);
    }
    b.record(-4);
    both.record(-4);
    Histogram merged = a;
    merged.merge(b);
    CHECK(merged.to_json("ps") == both.to_json("ps"));
    for (double q = 0.0; q <= 1.0; q += 0.01) CHECK(merged.percentile(q) == both.percentile(q));

    Histogram empty;
    Histogram into_empty;
    into_empty.merge(both);
    CHECK(into_empty.to_json() == both.to_json());
    merged.merge(empty);
    CHECK(merged.to_json() == both.to_json());
}

TEST_CASE("Histogram merge of different sub_bits is refused") {
    Histogram a(7), b(5);
    CHECK_THROWS_AS(a.merge(b), loom::InternalError);
}

TEST_CASE("Histogram clamps negative values to zero and counts them") {
    Histogram h;
    h.record(-5);
    h.record(10);
    CHECK(h.negative() == 1);
    CHECK(h.min() == 0);
    CHECK(h.max() == 10);
    CHECK(h.sum() == 10.0);
    CHECK(h.percentile(0.5) == 0);
    CHECK(h.to_json()["negative"] == 1);
    Histogram clean;
    clean.record(10);
    CHECK_FALSE(clean.to_json().contains("negative"));
}

TEST_CASE("Histogram JSON appends the unit to every key but count") {
    Histogram h;
    h.record(722'000);
    const auto j = h.to_json("ps");
    for (const char* key : {"count", "min_ps", "max_ps", "mean_ps", "p50_ps", "p90_ps", "p99_ps", "p999_ps", "sum_ps"}) {
        CHECK(j.contains(key));
    }
    CHECK(j.size() == 9);
    CHECK(j["p99_ps"] == 722'000);
    CHECK(h.to_json().contains("p99"));
}

TEST_CASE("An empty histogram reports zeros") {
    const Histogram h;
    CHECK(h.count() == 0);
    CHECK(h.min() == 0);
    CHECK(h.max() == 0);
    CHECK(h.mean() == 0.0);
    CHECK(h.percentile(0.99) == 0);
    const auto j = h.to_json();
    CHECK(j["count"] == 0);
    CHECK(j["p50"] == 0);
    CHECK(j["mean"] == 0.0);
}

TEST_CASE("Histogram reset forgets every sample and reserve keeps results unchanged") {
    Histogram h, fresh;
    h.reserve(1'000'000'000);
    h.record(123'456'789);
    h.record(-1);
    h.reset();
    CHECK(h.to_json() == fresh.to_json());
    h.record(42);
    fresh.record(42);
    CHECK(h.to_json() == fresh.to_json());
}

TEST_CASE("Histogram sub_bits outside 1..16 are rejected") {
    CHECK_THROWS_AS(Histogram(0), loom::InternalError);
    CHECK_THROWS_AS(Histogram(17), loom::InternalError);
    CHECK(Histogram(16).sub_bits() == 16);
}

TEST_CASE("Histogram without buckets yet: empty report, merges, and a first sample of any size") {
    // Buckets are allocated on the first sample; every operation must behave as if they had always been there.
    const Histogram empty;
    const auto j = empty.to_json("ps");
    CHECK(j["count"] == 0);
    CHECK(j["min_ps"] == 0);
    CHECK(j["max_ps"] == 0);
    CHECK(j["p999_ps"] == 0);
    CHECK(j["sum_ps"] == 0);
    CHECK(empty.percentile(0.5) == 0);

    Histogram a;
    a.merge(empty);  // empty into empty
    CHECK(a.count() == 0);
    a.reset();
    CHECK(a.count() == 0);

    // First sample above the exact range, then one inside it: both buckets must exist.
    Histogram big;
    big.record(1'000'000);
    big.record(3);
    CHECK(big.count() == 2);
    CHECK(big.min() == 3);
    CHECK(big.percentile(0.5) == 3);
    CHECK(big.percentile(1.0) == 1'000'000);

    // A sample-less histogram merged with a filled one equals the filled one.
    Histogram c;
    c.merge(big);
    CHECK(c.count() == 2);
    CHECK(c.percentile(0.5) == 3);
    CHECK(c.to_json("ps") == big.to_json("ps"));

    Histogram r;
    r.reserve(5000);
    r.record(4999);
    CHECK(r.percentile(1.0) == 4999);
}
