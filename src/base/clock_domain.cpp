#include "loom/base/clock_domain.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "loom/base/error.hpp"

namespace loom {
namespace {
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
}  // namespace

ClockDomain::ClockDomain(Frequency nominal, std::int64_t offset_ppb, Time phase)
    : nominal_(nominal), offset_ppb_(offset_ppb), phase_(phase) {
    if (nominal.hertz() <= 0) throw InputError(fmt::format("clock frequency must be positive, got {} Hz", nominal.hertz()));
    if (offset_ppb <= -1'000'000'000 || offset_ppb >= 1'000'000'000)
        throw InputError(fmt::format("clock offset must be within ±10^9 ppb, got {}", offset_ppb));
    // period = 10^12 / (f * (1 + ppb/10^9)) = 10^21 / (f * (10^9 + ppb)) ps
    reduce(static_cast<i128>(1'000'000'000'000'000'000LL) * 1000,
           static_cast<i128>(nominal.hertz()) * (1'000'000'000LL + offset_ppb));
}

ClockDomain ClockDomain::with_period(Time period) {
    if (period.count() <= 0) throw InputError(fmt::format("clock period must be positive, got {} ps", period.count()));
    ClockDomain c;
    c.nominal_ = Frequency::hz(std::max<std::int64_t>(1, (1'000'000'000'000 + period.count() / 2) / period.count()));
    c.reduce(period.count(), 1);
    return c;
}

void ClockDomain::reduce(i128 num, i128 den) {
    const i128 g = gcd128(num, den);
    num_ = num / g;
    den_ = den / g;
    if (num_ > kMax || den_ > kMax) return;  // no fast path: every call takes the 128-bit rule
    num64_ = static_cast<std::int64_t>(num_);
    den64_ = static_cast<std::int64_t>(den_);
    n_max_ = kMax / num64_;
    rel_max_ = (kMax - num64_) / den64_;
}

Time ClockDomain::edge_wide(std::int64_t n) const {
    return phase_ + Time::ps(static_cast<std::int64_t>(floor_div(static_cast<i128>(n) * num_, den_)));
}

std::int64_t ClockDomain::edge_at_or_after_wide(Time t) const {
    const i128 rel = static_cast<i128>((t - phase_).count());
    if (rel <= 0) return 0;
    return static_cast<std::int64_t>(ceil_div(rel * den_, num_));
}

std::int64_t ClockDomain::edge_at_or_before_wide(Time t) const {
    const i128 rel = static_cast<i128>((t - phase_).count());
    if (rel < 0) return -1;
    return static_cast<std::int64_t>(ceil_div((rel + 1) * den_, num_) - 1);
}

Time ClockDomain::period_floor() const { return Time::ps(static_cast<std::int64_t>(floor_div(num_, den_))); }

Time ClockDomain::period_ceil() const { return Time::ps(static_cast<std::int64_t>(ceil_div(num_, den_))); }

}  // namespace loom
