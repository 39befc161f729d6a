#include "loom/base/serializer.hpp"

#include "loom/base/assert.hpp"
#include "loom/base/link_timing.hpp"

namespace loom {

Serializer::Serializer(const LinkTiming& t) : Serializer(t.unit_wire.bits(), t.rate.bits_per_s(), t.latency()) {}

Serializer::Serializer(std::int64_t wire_bits, std::int64_t rate_bps, Time latency)
    : wire_bits_(wire_bits), rate_(rate_bps), latency_(latency) {
    LOOM_ASSERT(rate_ > 0 && wire_bits_ > 0, "serializer needs a positive rate and unit size");
}

SerialStepper::SerialStepper(const LinkTiming& timing, std::int64_t k) : SerialStepper(Serializer(timing), k) {}

SerialStepper::SerialStepper(const Serializer& s, std::int64_t k) : rate_(s.rate()) {
    LOOM_ASSERT(k >= 0, "SerialStepper: needs k >= 0");
    const i128 n = static_cast<i128>(s.wire_bits()) * 1'000'000'000'000LL;
    const i128 kn = n * k;
    if (kn <= std::numeric_limits<std::int64_t>::max()) {  // the usual case: 64-bit divisions
        const auto n64 = static_cast<std::int64_t>(n), kn64 = static_cast<std::int64_t>(kn);
        step_q_ = n64 / rate_;
        step_r_ = n64 % rate_;
        q_ = kn64 / rate_;
        r_ = kn64 % rate_;
        return;
    }
    step_q_ = static_cast<std::int64_t>(n / rate_);
    step_r_ = static_cast<std::int64_t>(n % rate_);
    q_ = static_cast<std::int64_t>(kn / rate_);
    r_ = static_cast<std::int64_t>(kn % rate_);
}

}  // namespace loom
