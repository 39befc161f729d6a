#include "loom/ananta/snat_port_source.hpp"

#include "loom/base/assert.hpp"

namespace loom::ananta {

StaticPortSource::StaticPortSource(std::uint16_t first_port, std::uint16_t last_port, std::uint16_t ports_per_range,
                                   Epoch epoch)
    : first_(first_port), last_(last_port), per_range_(ports_per_range), epoch_(epoch) {
    LOOM_ASSERT(ports_per_range > 0 && (ports_per_range & (ports_per_range - 1)) == 0,
                "SNAT ranges are a power of two ports");
    LOOM_ASSERT(first_port % ports_per_range == 0, "the SNAT port space starts on a range boundary");
}

std::optional<SnatGrant> StaticPortSource::allocate(IpAddr dip, IpAddr vip, Time now) {
    (void)now;
    auto& taken = taken_[vip];
    for (std::uint32_t p = first_; p + per_range_ - 1 <= last_; p += per_range_) {
        const auto start = static_cast<std::uint16_t>(p);
        if (taken.contains(start)) continue;
        taken.emplace(start, dip);
        return SnatGrant{epoch_, dip, vip, start, per_range_};
    }
    return std::nullopt;
}

void StaticPortSource::release(const SnatGrant& grant) {
    auto it = taken_.find(grant.vip);
    if (it != taken_.end()) it->second.erase(grant.first);
}

}  // namespace loom::ananta
