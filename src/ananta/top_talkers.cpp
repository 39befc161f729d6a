#include "loom/ananta/top_talkers.hpp"

#include <algorithm>

#include "loom/base/assert.hpp"

namespace loom::ananta {

TopTalkers::TopTalkers(Time window, std::size_t top_k, std::uint64_t drop_threshold)
    : window_(window),
      top_k_(top_k),
      drop_threshold_(std::max<std::uint64_t>(drop_threshold, 1)),
      window_start_(Time::zero()),
      window_end_(window) {
    LOOM_ASSERT(window > Time::zero(), "top-talker window must be positive");
}

std::vector<TopTalker> TopTalkers::current() const {
    std::vector<TopTalker> all;
    all.reserve(packets_.size());
    for (const auto& [vip, n] : packets_) all.push_back(TopTalker{vip, n});
    std::stable_sort(all.begin(), all.end(), [](const TopTalker& a, const TopTalker& b) { return a.packets > b.packets; });
    return all;
}

std::optional<OverloadReport> TopTalkers::roll_window(Time now) {
    const std::int64_t w = now / window_;
    if (w == window_index_) return std::nullopt;
    std::optional<OverloadReport> report;
    if (drops_ >= drop_threshold_) {
        OverloadReport r;
        r.window_start = window_ * window_index_;
        r.window_end = window_ * (window_index_ + 1);
        r.overload_drops = drops_;
        r.top = current();
        if (r.top.size() > top_k_) r.top.resize(top_k_);
        report = std::move(r);
    }
    packets_.clear();
    drops_ = 0;
    window_index_ = w;
    window_start_ = window_ * w;
    window_end_ = window_ * (w + 1);
    return report;
}

std::optional<OverloadReport> TopTalkers::record_packet(IpAddr vip, Time now) {
    auto r = roll(now);
    auto it = std::lower_bound(packets_.begin(), packets_.end(), vip,
                               [](const std::pair<IpAddr, std::uint64_t>& e, IpAddr v) { return e.first < v; });
    if (it == packets_.end() || it->first != vip) it = packets_.insert(it, {vip, 0});
    ++it->second;
    return r;
}

std::optional<OverloadReport> TopTalkers::record_overload_drop(Time now) {
    auto r = roll(now);
    ++drops_;
    return r;
}

std::optional<OverloadReport> TopTalkers::poll(Time now) { return roll(now); }

}  // namespace loom::ananta
