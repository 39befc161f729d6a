#include "loom/base/link_timing.hpp"

#include <fmt/format.h>

#include "loom/base/error.hpp"
#include "loom/base/serializer.hpp"

namespace loom {

Time LinkTiming::latency() const {
    Time sum;
    for (const auto& p : latency_parts) sum += p.value;
    return sum;
}

Time LinkTiming::serialization(std::int64_t k) const {
    return Serializer::time(unit_wire.bits(), rate.bits_per_s(), k);
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
