// Log-linear (HDR-style) histogram of non-negative integers such as latencies in ps: bounded relative error
// at any magnitude, exact count/min/max/sum, percentiles, merge. Recording is a few integer operations.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "loom/base/assert.hpp"
#include "loom/stats/json.hpp"

namespace loom::stats {

// Values below 2^(sub_bits+1) each have their own bucket (exact). Above that, each power of two
// [2^e, 2^(e+1)) is split into 2^sub_bits equal buckets of width 2^(e-sub_bits), so a value is reported
// within a relative error below 2^-sub_bits (0.78% at the default 7). Negative values are clamped to 0 and
// counted in `negative()`. min, max, count and sum are exact (sum is kept in 128 bits).
//
// Storage: none at construction (an empty histogram costs only its fixed fields); the first sample allocates
// 2^(sub_bits+1) counters (the exact range) or more, and the bucket array then grows one octave at a time,
// only when a value lands above every octave seen so far (at most 63 - sub_bits times over a histogram's life, and never
// after `reserve(largest value)`). A histogram of values up to 1 ms in ps at sub_bits 7 holds 3,072 buckets
// (24 KiB).
class Histogram {
public:
    static constexpr int kMinSubBits = 1;
    static constexpr int kMaxSubBits = 16;

    // sub_bits in [kMinSubBits, kMaxSubBits]; 7 (relative error < 1%) is the usual HDR choice.
    explicit Histogram(int sub_bits = 7);

    void record(std::int64_t v) { record_n(v, 1); }
    // Records value v n times (n >= 0).
    void record_n(std::int64_t v, std::int64_t n) {
        LOOM_DEBUG_ASSERT(n >= 0, "Histogram::record_n: negative repeat count");
        if (n <= 0) return;
        if (v < 0) [[unlikely]] {
            negative_ += n;
            v = 0;
        }
        const std::size_t b = bucket_of(v);
        if (b >= buckets_.size()) [[unlikely]] grow(b);
        buckets_[b] += n;
        if (count_ == 0) {
            min_ = max_ = v;
        } else {
            if (v < min_) min_ = v;
            if (v > max_) max_ = v;
        }
        count_ += n;
        sum_ += static_cast<Int128>(v) * n;
    }
    // Adds every sample of `other` (which must have the same sub_bits): the result equals having recorded
    // both sample sets into one histogram.
    void merge(const Histogram& other);
    // Sizes the bucket array so that values up to max_value never allocate.
    void reserve(std::int64_t max_value);
    void reset();

    int sub_bits() const { return sub_bits_; }
    std::int64_t count() const { return count_; }
    std::int64_t min() const { return count_ ? min_ : 0; }
    std::int64_t max() const { return count_ ? max_ : 0; }
    std::int64_t negative() const { return negative_; }  // samples that were negative (recorded as 0)
    double sum() const { return static_cast<double>(sum_); }  // exact in to_json() while it fits in 64 bits
    double mean() const;  // 0 when empty
    // Value at quantile q in [0, 1] (clamped to it): the sample of rank max(1, ceil(q·count)) is located and
    // the upper edge of its bucket is returned, clamped to [min, max]. 0 when empty.
    std::int64_t percentile(double q) const;
    // {"count","min","max","mean","p50","p90","p99","p999","sum"}, with "_<unit>" appended to every key but
    // "count" when unit is non-empty (e.g. "p99_ps"). "sum" is an integer while it fits in 64 bits, else a
    // double. "negative" (a count) is added only when some sample was negative.
    Json to_json(const std::string& unit = {}) const;

    // Bucket arithmetic, public for tests and for readers of exported bucket arrays.
    std::size_t bucket_of(std::int64_t v) const {
        const auto u = static_cast<std::uint64_t>(v);
        const auto s = static_cast<unsigned>(sub_bits_);
        const auto width = static_cast<unsigned>(std::bit_width(u));
        const unsigned shift = width > s + 1 ? width - s - 1 : 0;
        return (static_cast<std::size_t>(shift) << s) + static_cast<std::size_t>(u >> shift);
    }
    std::int64_t bucket_lower(std::size_t b) const;
    std::int64_t bucket_upper(std::size_t b) const;  // inclusive

private:
    __extension__ typedef __int128 Int128;  // exact sum of up to 2^63 values below 2^63
    void grow(std::size_t b);

    int sub_bits_;
    std::vector<std::int64_t> buckets_;
    std::int64_t count_ = 0, min_ = 0, max_ = 0, negative_ = 0;
    Int128 sum_ = 0;
};

}  // namespace loom::stats
