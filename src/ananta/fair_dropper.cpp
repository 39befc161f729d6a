#include "loom/ananta/fair_dropper.hpp"

#include <algorithm>

#include "loom/base/assert.hpp"

namespace loom::ananta {

std::vector<std::int64_t> weighted_max_min(const std::vector<std::int64_t>& demand,
                                           const std::vector<std::int64_t>& weights, std::int64_t capacity) {
    LOOM_ASSERT(demand.size() == weights.size(), "one weight per tenant");
    const std::size_t n = demand.size();
    std::vector<std::int64_t> alloc(n, 0);
    std::vector<bool> done(n, false);
    std::int64_t left = capacity;
    // Water-filling: satisfy every tenant whose demand fits its weighted share of what is left, repeat.
    for (bool changed = true; changed;) {
        changed = false;
        std::int64_t wsum = 0;
        for (std::size_t i = 0; i < n; ++i)
            if (!done[i]) wsum += weights[i];
        if (wsum == 0) break;
        for (std::size_t i = 0; i < n; ++i) {
            if (done[i]) continue;
            __extension__ using I128 = __int128;
            if (static_cast<I128>(demand[i]) * wsum <= static_cast<I128>(left) * weights[i]) {
                alloc[i] = demand[i];
                done[i] = true;
                changed = true;
            }
        }
        if (changed) {
            left = capacity;
            for (std::size_t i = 0; i < n; ++i)
                if (done[i]) left -= alloc[i];
        }
    }
    std::int64_t wsum = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (!done[i]) wsum += weights[i];
    if (wsum > 0) {
        std::int64_t given = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (done[i]) continue;
            __extension__ using I128 = __int128;
            alloc[i] = static_cast<std::int64_t>(static_cast<I128>(left) * weights[i] / wsum);
            given += alloc[i];
        }
        for (std::size_t i = 0; i < n && given < left; ++i) {
            if (done[i] || alloc[i] >= demand[i]) continue;
            ++alloc[i];
            ++given;
        }
    }
    return alloc;
}

FairDropper::FairDropper(const FairDropLimits& limits, std::vector<std::int64_t> weights)
    : limits_(limits), weights_(std::move(weights)), window_end_(limits.window.count()), tenants_(weights_.size()) {
    LOOM_ASSERT(limits.window > Time::zero(), "fair-drop window must be positive");
    for (const auto w : weights_) LOOM_ASSERT(w > 0, "tenant weights must be positive");
}

void FairDropper::roll(Time now) {
    const std::int64_t w = now / limits_.window;
    if (w == window_index_ + 1 && total_demand_ > limits_.capacity_per_window) {
        std::vector<std::int64_t> demand(tenants_.size());
        for (std::size_t i = 0; i < tenants_.size(); ++i)
            demand[i] = tenants_[i].window == window_index_ ? tenants_[i].demand : 0;
        const std::vector<std::int64_t> allowance = weighted_max_min(demand, weights_, limits_.capacity_per_window);
        for (std::size_t i = 0; i < tenants_.size(); ++i) {
            Tenant& t = tenants_[i];
            t.allowance = allowance[i];
            t.demand = 0;
            t.passed = 0;
            t.window = w;
        }
    }
    // Otherwise every tenant is unlimited in the new window: its record is reset by its first packet there.
    window_index_ = w;
    window_end_ = (limits_.window * (w + 1)).count();
    total_demand_ = 0;
}

bool FairDropper::admit(std::uint32_t tenant, Time now) {
    LOOM_DEBUG_ASSERT(tenant < weights_.size(), "unknown tenant");
    if (now.count() >= window_end_) [[unlikely]] roll(now);
    Tenant& t = tenants_[tenant];
    if (t.window != window_index_) {
        t.demand = 0;
        t.passed = 0;
        t.allowance = -1;
        t.window = window_index_;
    }
    ++t.demand;
    ++total_demand_;
    if (t.allowance >= 0 && t.passed >= t.allowance) {
        ++t.dropped;
        return false;
    }
    ++t.passed;
    ++t.admitted;
    return true;
}

}  // namespace loom::ananta
