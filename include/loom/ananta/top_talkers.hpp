// Per-VIP packet rates on one Mux and its overload signal: packets per VIP and overload drops are counted in
// fixed windows; a window that saw at least `drop_threshold` overload drops ends with a report of the VIPs
// with the highest packet counts, which the manager uses to pick a VIP to withdraw.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "loom/ananta/ip_packet.hpp"
#include "loom/base/units.hpp"

namespace loom::ananta {

struct TopTalker {
    IpAddr vip = 0;
    std::uint64_t packets = 0;  // in the window
    bool operator==(const TopTalker&) const = default;
};

// What a Mux tells the manager when it is overloaded.
struct OverloadReport {
    Time window_start;
    Time window_end;
    std::uint64_t overload_drops = 0;
    std::vector<TopTalker> top;  // most packets first, ties by lower VIP
};

class TopTalkers {
public:
    TopTalkers(Time window, std::size_t top_k, std::uint64_t drop_threshold);

    // Each returns the report of a window that ended before `now` and was overloaded, if any (only the window
    // just before the current one can be reported; a quiet gap clears the counts).
    std::optional<OverloadReport> record_packet(IpAddr vip, Time now);
    std::optional<OverloadReport> record_overload_drop(Time now);
    std::optional<OverloadReport> poll(Time now);

    // Counts of the current window (most packets first).
    std::vector<TopTalker> current() const;

private:
    // The report of the window before `now`'s, after starting that window; nothing while `now` is inside the
    // current window (two comparisons, no division).
    std::optional<OverloadReport> roll(Time now) {
        if (now >= window_start_ && now < window_end_) [[likely]] return std::nullopt;
        return roll_window(now);
    }
    std::optional<OverloadReport> roll_window(Time now);

    Time window_;
    std::size_t top_k_;
    std::uint64_t drop_threshold_;
    std::int64_t window_index_ = 0;
    Time window_start_;  // window_ * window_index_
    Time window_end_;    // window_ * (window_index_ + 1)
    // Packets by VIP, sorted by VIP (reports never depend on hash order): a Mux serves tens of VIPs, so a
    // binary search over a flat array (kept, with its capacity, across windows) instead of a tree's nodes.
    std::vector<std::pair<IpAddr, std::uint64_t>> packets_;
    std::uint64_t drops_ = 0;
};

}  // namespace loom::ananta
