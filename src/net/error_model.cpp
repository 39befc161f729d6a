#include "loom/net/error_model.hpp"

#include <cmath>

#include "loom/base/rng.hpp"

namespace loom::net {
namespace {
// Distinct salts keep the FEC and jitter draws of one link independent of each other.
constexpr std::uint64_t kFecSalt = 0x5fec'0000'0000'0001ULL;
constexpr std::uint64_t kJitterSalt = 0x7177'0000'0000'0002ULL;
}  // namespace

ErrorModel::ErrorModel(const LinkTiming& timing, std::uint64_t stream) : stream_(stream ^ kFecSalt) {
    const double ber = timing.bit_error_rate;
    if (ber <= 0.0) return;
    const auto bits = static_cast<double>(timing.unit_wire.bits());
    // log-space binomial terms: P(i) = C(n,i) ber^i (1-ber)^(n-i)
    const double log_q = std::log1p(-ber);
    const double log_p = std::log(ber);
    const double p0 = std::exp(bits * log_q);
    p_error_ = 1.0 - p0;
    double cdf = p0;
    double log_term = bits * log_q;  // i = 0
    for (std::int32_t i = 1; i <= timing.fec_correctable_bits && i <= static_cast<std::int32_t>(bits); ++i) {
        log_term += std::log((bits - i + 1) / i) + log_p - log_q;
        cdf += std::exp(log_term);
    }
    p_uncorrectable_ = cdf >= 1.0 ? 0.0 : 1.0 - cdf;
}

FecOutcome ErrorModel::outcome(std::uint64_t index) const {
    if (p_error_ == 0.0) return FecOutcome::Clean;
    const double u = counter_uniform(stream_, index);
    if (u >= p_error_) return FecOutcome::Clean;
    return u < p_uncorrectable_ ? FecOutcome::Uncorrectable : FecOutcome::Corrected;
}

Time jitter_of(std::uint64_t stream, std::uint64_t index, Time jitter) {
    if (jitter <= Time::zero()) return Time::zero();
    __extension__ using u128 = unsigned __int128;
    const auto span = static_cast<std::uint64_t>(jitter.count()) + 1;
    const std::uint64_t r = derive(stream ^ kJitterSalt, index);
    return Time::ps(static_cast<std::int64_t>((static_cast<u128>(r) * span) >> 64));
}

}  // namespace loom::net
