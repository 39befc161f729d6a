// Where a Host Agent's SNAT ports come from: a small interface the Ananta Manager will implement (allocation
// replicated by Paxos, stateless entries installed on every Mux). Until then a static source hands out
// fixed ranges.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

#include "loom/ananta/epoch.hpp"
#include "loom/ananta/ip_packet.hpp"
#include "loom/base/units.hpp"

namespace loom::ananta {

// Ports [first, first + count) of `vip` granted to `dip` (count a power of two, first a multiple of it).
struct SnatGrant {
    Epoch epoch = 0;
    IpAddr dip = 0;
    IpAddr vip = 0;
    std::uint16_t first = 0;
    std::uint16_t count = 0;
    bool operator==(const SnatGrant&) const = default;
};

// Contract: allocate() returns a range of `vip`'s ports no other DIP holds, or nothing when none is free;
// release() returns a range it gave. The caller installs the range's port -> DIP mapping on the Muxes.
class SnatPortSource {
public:
    virtual ~SnatPortSource() = default;
    virtual std::optional<SnatGrant> allocate(IpAddr dip, IpAddr vip, Time now) = 0;
    virtual void release(const SnatGrant& grant) = 0;
};

// Ranges of `ports_per_range` (published: 8) handed out in order from [first_port, last_port] of each VIP;
// released ranges are reused lowest first. Grants carry the fixed `epoch` of the static configuration (there is
// no manager to advance it); it must not be older than the epoch of the commands the Host Agent has accepted.
class StaticPortSource final : public SnatPortSource {
public:
    StaticPortSource(std::uint16_t first_port, std::uint16_t last_port, std::uint16_t ports_per_range = 8,
                     Epoch epoch = 0);
    std::optional<SnatGrant> allocate(IpAddr dip, IpAddr vip, Time now) override;
    void release(const SnatGrant& grant) override;

private:
    std::uint16_t first_;
    std::uint16_t last_;
    std::uint16_t per_range_;
    Epoch epoch_;
    std::map<IpAddr, std::map<std::uint16_t, IpAddr>> taken_;  // vip -> range start -> dip
};

}  // namespace loom::ananta
