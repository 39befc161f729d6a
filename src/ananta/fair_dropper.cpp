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
    : limits_(limits),
      weights_(std::move(weights)),
      demand_(weights_.size(), 0),
      passed_(weights_.size(), 0),
      allowance_(weights_.size(), -1),
      dropped_(weights_.size(), 0),
      admitted_(weights_.size(), 0) {
    LOOM_ASSERT(limits.window > Time::zero(), "fair-drop window must be positive");
    for (const auto w : weights_) LOOM_ASSERT(w > 0, "tenant weights must be positive");
}

void FairDropper::roll(Time now) {
    const std::int64_t w = now / limits_.window;
    if (w == window_index_) return;
    std::int64_t total = 0;
    for (const auto d : demand_) total += d;
    if (w == window_index_ + 1 && total > limits_.capacity_per_window) {
        allowance_ = weighted_max_min(demand_, weights_, limits_.capacity_per_window);
    } else {
        std::fill(allowance_.begin(), allowance_.end(), -1);
    }
    std::fill(demand_.begin(), demand_.end(), 0);
    std::fill(passed_.begin(), passed_.end(), 0);
    window_index_ = w;
}

bool FairDropper::admit(std::uint32_t tenant, Time now) {
    LOOM_DEBUG_ASSERT(tenant < weights_.size(), "unknown tenant");
    roll(now);
    ++demand_[tenant];
    if (allowance_[tenant] >= 0 && passed_[tenant] >= allowance_[tenant]) {
        ++dropped_[tenant];
        return false;
    }
    ++passed_[tenant];
    ++admitted_[tenant];
    return true;
}

}  // namespace loom::ananta
