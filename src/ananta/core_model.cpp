#include "loom/ananta/core_model.hpp"

#include <algorithm>

#include "loom/ananta/rate_math.hpp"
#include "loom/base/assert.hpp"
#include "loom/base/rng.hpp"

namespace loom::ananta {

namespace {
constexpr std::int64_t kPsPerS = 1'000'000'000'000;
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
}  // namespace

CoreModel::CoreModel(const CoreLimits& limits)
    : limits_(limits), departures_(static_cast<std::size_t>(std::max(limits.cores, 1))) {
    LOOM_ASSERT(limits.cores >= 1 && limits.packets_per_s >= 1 && limits.queue_packets >= 0,
                "core limits: at least one core and a positive packet rate");
    packet_time_ = Time::ps(ceil_div(kPsPerS, limits.packets_per_s));
}

std::uint32_t CoreModel::core_of(std::uint64_t flow_hash) const {
    return static_cast<std::uint32_t>(mix64(flow_hash ^ 0xc0de'c0de'c0de'c0deULL) %
                                      static_cast<std::uint64_t>(limits_.cores));
}

Time CoreModel::service_time(std::uint32_t bytes) const {
    Time t = packet_time_;
    if (limits_.bandwidth.bits_per_s() > 0) {
        t = std::max(t, Time::ps(ceil_product_div(bytes, 8, kPsPerS, limits_.bandwidth.bits_per_s())));
    }
    return t;
}

CoreDecision CoreModel::offer(std::uint64_t flow_hash, std::uint32_t bytes, Time arrival) {
    CoreDecision d;
    d.core = core_of(flow_hash);
    auto& q = departures_[d.core];
    while (!q.empty() && q.front() <= arrival) q.pop_front();
    if (static_cast<std::int64_t>(q.size()) > limits_.queue_packets) {
        ++dropped_;
        return d;
    }
    const Time start = q.empty() ? arrival : std::max(arrival, q.back());
    d.departure = start + service_time(bytes);
    d.accepted = true;
    q.push_back(d.departure);
    ++accepted_;
    return d;
}

std::size_t CoreModel::backlog(std::uint32_t core, Time now) const {
    const auto& q = departures_[core];
    std::size_t n = 0;
    for (std::uint32_t i = 0; i < q.size(); ++i) n += q[i] > now ? 1 : 0;
    return n;
}

}  // namespace loom::ananta
