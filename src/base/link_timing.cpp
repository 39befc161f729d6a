#include "loom/base/link_timing.hpp"

#include <limits>

#include <fmt/format.h>

#include "loom/base/error.hpp"

namespace loom {

Time LinkTiming::latency() const {
    Time sum;
    for (const auto& p : latency_parts) sum += p.value;
    return sum;
}

Time LinkTiming::serialization(std::int64_t k) const {
    // ceil(k * bits * 10^12 / rate) needs 128 bits: k * 2624 * 10^12 overflows int64 past ~3500 units.
    __extension__ using i128 = __int128;
    const i128 num = static_cast<i128>(k) * unit_wire.bits() * 1'000'000'000'000LL;
    const i128 r = rate.bits_per_s();
    // Up to a few thousand units it all fits 64 bits: the same quotient without a 128-bit division.
    if (num >= 0 && num <= static_cast<i128>(std::numeric_limits<std::int64_t>::max()) - r)
        return Time::ps((static_cast<std::int64_t>(num) + static_cast<std::int64_t>(r) - 1) / static_cast<std::int64_t>(r));
    return Time::ps(static_cast<std::int64_t>((num + r - 1) / r));
}

double LinkTiming::payload_bytes_per_s() const {
    return rate.bytes_per_s() * static_cast<double>(unit_payload.count()) / static_cast<double>(unit_wire.count());
}

void LinkTiming::validate(const std::string& where) const {
    auto fail = [&](const std::string& what) { throw InputError(fmt::format("{}: {}", where, what)); };
    if (rate.bits_per_s() <= 0) fail("link rate must be positive");
    if (unit_payload.count() <= 0) fail("unit payload must be positive");
    if (unit_wire < unit_payload) fail("unit wire size must be at least the payload size");
    for (const auto& p : latency_parts)
        if (p.value < Time::zero()) fail(fmt::format("latency part '{}' is negative", p.name));
    if (latency() < Time::ps(1)) fail("link latency must be at least 1 ps (it is the lookahead)");
    if (jitter < Time::zero()) fail("jitter must not be negative");
    if (!(bit_error_rate >= 0.0 && bit_error_rate < 1.0)) fail("bit error rate must be in [0, 1)");
    if (fec_correctable_bits < 0) fail("FEC correctable bits must not be negative");
}

}  // namespace loom
