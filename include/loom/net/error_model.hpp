// FEC outcome of each unit sent on a link, drawn statelessly from (link stream, unit index) so that any two ways
// of simulating the same traffic (per vector or per train, sequential or partitioned) see exactly the same errors.
#pragma once

#include <cstdint>

#include "loom/base/link_timing.hpp"

namespace loom::net {

enum class FecOutcome : std::uint8_t { Clean, Corrected, Uncorrectable };

// Bit errors per unit follow Binomial(wire bits, BER); FEC corrects up to `fec_correctable_bits` of them.
// P(clean) = (1-BER)^bits, P(corrected) = P(1 <= errors <= t), P(uncorrectable) = P(errors > t).
class ErrorModel {
public:
    ErrorModel() = default;
    ErrorModel(const LinkTiming& timing, std::uint64_t stream);

    // Outcome of unit `index` (the link's unit counter, 0-based, counted over the whole run).
    FecOutcome outcome(std::uint64_t index) const;
    bool error_free() const { return p_error_ == 0.0; }
    double p_clean() const { return 1.0 - p_error_; }
    double p_uncorrectable() const { return p_uncorrectable_; }

private:
    std::uint64_t stream_ = 0;
    double p_error_ = 0.0;          // P(errors >= 1)
    double p_uncorrectable_ = 0.0;  // P(errors > t)
};

// Extra delay of unit `index` in [0, jitter] ps, uniform, drawn statelessly like the FEC outcome.
Time jitter_of(std::uint64_t stream, std::uint64_t index, Time jitter);

}  // namespace loom::net
