// Per-tenant weighted fair dropping under overload: tenants share a Mux's packet capacity by weight (their
// number of VMs). Time is cut into windows; the demand each tenant offered in the last window sets this
// window's allowances by weighted max-min fairness (water-filling), and a tenant's packets beyond its
// allowance are dropped. A window whose predecessor was not overloaded drops nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/base/units.hpp"

namespace loom::ananta {

struct FairDropLimits {
    Time window;                         // > 0
    std::int64_t capacity_per_window = 0;  // packets the Mux can serve in one window (all cores)
};

// Weighted max-min fair allocation of `capacity` among `demand` with `weights` (> 0): a tenant asking less
// than its weighted share gets its demand and the rest is re-shared. Integer results; the sum never exceeds
// the capacity, and leftovers of rounding go one by one to the tenants still short, lowest index first.
std::vector<std::int64_t> weighted_max_min(const std::vector<std::int64_t>& demand,
                                           const std::vector<std::int64_t>& weights, std::int64_t capacity);

class FairDropper {
public:
    // Tenants are numbered 0..weights.size()-1.
    FairDropper(const FairDropLimits& limits, std::vector<std::int64_t> weights);

    // Whether a packet of `tenant` arriving at `now` may proceed (non-decreasing `now`). False is a fair-share
    // drop, counted per tenant.
    bool admit(std::uint32_t tenant, Time now);

    // The allowance of `tenant` in the current window (-1: unlimited, the last window was not overloaded).
    std::int64_t allowance(std::uint32_t tenant) const {
        const Tenant& t = tenants_[tenant];
        return t.window == window_index_ ? t.allowance : -1;
    }
    std::uint64_t dropped(std::uint32_t tenant) const { return tenants_[tenant].dropped; }
    std::uint64_t admitted(std::uint32_t tenant) const { return tenants_[tenant].admitted; }
    std::size_t tenants() const { return weights_.size(); }

private:
    // Starts the window `now` falls in (now is at or past the current window's end).
    void roll(Time now);

    FairDropLimits limits_;
    std::vector<std::int64_t> weights_;
    std::int64_t window_index_ = 0;
    // The current window's end (ps) and what its tenants offered in all: a packet inside the window reads no
    // division and no other tenant's record.
    std::int64_t window_end_ = 0;
    std::int64_t total_demand_ = 0;
    // What admit() reads and writes for one tenant, side by side: one record (a line) per packet, not one line
    // in each of five arrays. demand, passed and allowance belong to window `window`: a tenant with an older one
    // has offered nothing yet in the current window and is unlimited in it (a window is reset lazily, by the
    // tenant's first packet in it, unless an overload set allowances for every tenant at the roll).
    struct Tenant {
        std::int64_t demand = 0;      // offered in window `window`
        std::int64_t passed = 0;      // admitted in window `window`
        std::int64_t allowance = -1;  // for window `window`, -1 = unlimited
        std::uint64_t dropped = 0;
        std::uint64_t admitted = 0;
        std::int64_t window = 0;
    };
    std::vector<Tenant> tenants_;  // by tenant number
};

}  // namespace loom::ananta
