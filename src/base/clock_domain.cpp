#include "loom/base/clock_domain.hpp"

#include <fmt/format.h>

#include "loom/base/error.hpp"

namespace loom {
namespace {

__extension__ using i128 = __int128;

i128 gcd128(i128 a, i128 b) {
    while (b != 0) {
        const i128 t = a % b;
        a = b;
        b = t;
    }
    return a;
}

i128 floor_div(i128 a, i128 b) {  // b > 0
    i128 q = a / b;
    if ((a % b != 0) && (a < 0)) --q;
    return q;
}

i128 ceil_div(i128 a, i128 b) {  // b > 0
    return -floor_div(-a, b);
}

}  // namespace

ClockDomain::ClockDomain(Frequency nominal, std::int64_t offset_ppb, Time phase)
    : nominal_(nominal), offset_ppb_(offset_ppb), phase_(phase) {
    if (nominal.hertz() <= 0) throw InputError(fmt::format("clock frequency must be positive, got {} Hz", nominal.hertz()));
    if (offset_ppb <= -1'000'000'000 || offset_ppb >= 1'000'000'000)
        throw InputError(fmt::format("clock offset must be within ±10^9 ppb, got {}", offset_ppb));
    // period = 10^12 / (f * (1 + ppb/10^9)) = 10^21 / (f * (10^9 + ppb)) ps
    i128 num = static_cast<i128>(1'000'000'000'000'000'000LL) * 1000;
    i128 den = static_cast<i128>(nominal.hertz()) * (1'000'000'000LL + offset_ppb);
    const i128 g = gcd128(num, den);
    num_ = num / g;
    den_ = den / g;
}

Time ClockDomain::edge(std::int64_t n) const {
    return phase_ + Time::ps(static_cast<std::int64_t>(floor_div(static_cast<i128>(n) * num_, den_)));
}

std::int64_t ClockDomain::edge_at_or_after(Time t) const {
    const i128 rel = static_cast<i128>((t - phase_).count());
    if (rel <= 0) return 0;
    // floor(n*num/den) >= rel  <=>  n*num/den >= rel  <=>  n >= rel*den/num
    return static_cast<std::int64_t>(ceil_div(rel * den_, num_));
}

std::int64_t ClockDomain::edge_at_or_before(Time t) const {
    const i128 rel = static_cast<i128>((t - phase_).count());
    if (rel < 0) return -1;
    // floor(n*num/den) <= rel  <=>  n*num/den < rel + 1  <=>  n < (rel+1)*den/num
    return static_cast<std::int64_t>(ceil_div((rel + 1) * den_, num_) - 1);
}

Time ClockDomain::period_ceil() const {
    return Time::ps(static_cast<std::int64_t>(ceil_div(num_, den_)));
}

}  // namespace loom
