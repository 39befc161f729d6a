#include "loom/stats/histogram.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace loom::stats {

Histogram::Histogram(int sub_bits) : sub_bits_(sub_bits) {
    LOOM_ASSERT(sub_bits >= kMinSubBits && sub_bits <= kMaxSubBits,
                fmt::format("Histogram: sub_bits must be in {}..{}, got {}", kMinSubBits, kMaxSubBits, sub_bits));
    // No buckets until the first sample (or reserve/merge): a model may hold many histograms that never see a
    // value (e.g. per-terminal statistics of marked packets in a run that marks none).
}

void Histogram::grow(std::size_t b) {
    // Whole octaves: bucket b's octave and everything below it, and at least the exact range
    // [0, 2^(sub_bits+1)) so that small-valued histograms allocate once.
    const auto s = static_cast<unsigned>(sub_bits_);
    buckets_.resize(std::max(((b >> s) + 1) << s, std::size_t{2} << s), 0);
}

void Histogram::reserve(std::int64_t max_value) {
    const std::size_t b = bucket_of(std::max<std::int64_t>(max_value, 0));
    if (b >= buckets_.size()) grow(b);
}

void Histogram::reset() {
    std::fill(buckets_.begin(), buckets_.end(), 0);
    count_ = min_ = max_ = negative_ = 0;
    sum_ = 0;
}

void Histogram::merge(const Histogram& other) {
    LOOM_ASSERT(other.sub_bits_ == sub_bits_,
                fmt::format("Histogram::merge: sub_bits differ ({} vs {})", sub_bits_, other.sub_bits_));
    if (other.count_ == 0) return;
    if (other.buckets_.size() > buckets_.size()) buckets_.resize(other.buckets_.size(), 0);
    for (std::size_t b = 0; b < other.buckets_.size(); ++b) buckets_[b] += other.buckets_[b];
    if (count_ == 0) {
        min_ = other.min_;
        max_ = other.max_;
    } else {
        min_ = std::min(min_, other.min_);
        max_ = std::max(max_, other.max_);
    }
    count_ += other.count_;
    negative_ += other.negative_;
    sum_ += other.sum_;
}

double Histogram::mean() const {
    return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0;
}

std::int64_t Histogram::bucket_lower(std::size_t b) const {
    const auto s = static_cast<unsigned>(sub_bits_);
    if (b < (std::size_t{2} << s)) return static_cast<std::int64_t>(b);  // exact range
    const std::size_t shift = (b >> s) - 1;
    const std::uint64_t mantissa = b - (shift << s);  // in [2^s, 2^(s+1))
    return static_cast<std::int64_t>(mantissa << shift);
}

std::int64_t Histogram::bucket_upper(std::size_t b) const {
    const auto s = static_cast<unsigned>(sub_bits_);
    if (b < (std::size_t{2} << s)) return static_cast<std::int64_t>(b);
    const std::size_t shift = (b >> s) - 1;
    const std::uint64_t mantissa = b - (shift << s);
    // ((m + 1) << shift) - 1 computed without overflowing at the top bucket (upper edge 2^63 - 1).
    return static_cast<std::int64_t>((mantissa << shift) + ((std::uint64_t{1} << shift) - 1));
}

std::int64_t Histogram::percentile(double q) const {
    if (count_ == 0) return 0;
    if (!(q >= 0.0)) q = 0.0;  // also catches NaN
    if (q > 1.0) q = 1.0;
    // Rank of the sample (1-based): ceil(q·count), at least 1. A long double keeps the product exact enough
    // for any realistic count, and the clamp protects against rounding past count.
    auto rank = static_cast<std::int64_t>(std::ceil(static_cast<long double>(q) * static_cast<long double>(count_)));
    rank = std::clamp<std::int64_t>(rank, 1, count_);
    std::int64_t seen = 0;
    for (std::size_t b = 0; b < buckets_.size(); ++b) {
        seen += buckets_[b];
        if (seen >= rank) return std::clamp(bucket_upper(b), min_, max_);
    }
    return max_;  // unreachable: the buckets hold count_ samples
}

Json Histogram::to_json(const std::string& unit) const {
    const std::string suffix = unit.empty() ? std::string{} : "_" + unit;
    Json j = Json::object();
    j["count"] = count_;
    j["min" + suffix] = min();
    j["max" + suffix] = max();
    j["mean" + suffix] = mean();
    j["p50" + suffix] = percentile(0.50);
    j["p90" + suffix] = percentile(0.90);
    j["p99" + suffix] = percentile(0.99);
    j["p999" + suffix] = percentile(0.999);
    if (sum_ >= std::numeric_limits<std::int64_t>::min() && sum_ <= std::numeric_limits<std::int64_t>::max()) {
        j["sum" + suffix] = static_cast<std::int64_t>(sum_);
    } else {
        j["sum" + suffix] = static_cast<double>(sum_);
    }
    if (negative_ > 0) j["negative"] = negative_;
    return j;
}

}  // namespace loom::stats
