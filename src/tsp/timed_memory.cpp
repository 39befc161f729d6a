#include "loom/tsp/timed_memory.hpp"

#include <iterator>
#include <limits>

namespace loom::tsp {
namespace {
// Initial contents are "written" before time 0, so every read (at time >= 0) sees them.
constexpr AccessKey kInitial{Time::ps(-1), 0};
// Below every key a read or write uses.
constexpr AccessKey kLowest{Time::ps(std::numeric_limits<std::int64_t>::min()), 0};
}  // namespace

TimedMemory::Versions::const_iterator TimedMemory::before(std::int64_t slot, AccessKey key) const {
    auto it = versions_.lower_bound({slot, key});
    if (it == versions_.begin()) return versions_.end();
    --it;
    return it->first.slot == slot ? it : versions_.end();
}

void TimedMemory::prune(std::int64_t slot, Time now) {
    // Every future read is at a time >= now, so of the versions before `now` only the latest can still be seen.
    auto latest = before(slot, {now, 0});
    if (latest == versions_.end()) return;
    versions_.erase(versions_.lower_bound({slot, kLowest}), latest);
}

void TimedMemory::init(std::int64_t slot, std::int64_t value) {
    auto first = versions_.lower_bound({slot, kLowest});
    auto last = versions_.lower_bound({slot + 1, kLowest});
    if (first == last) ++cells_;
    versions_.erase(first, last);
    versions_.emplace(VersionKey{slot, kInitial}, value);
}

void TimedMemory::write(std::int64_t slot, AccessKey key, std::int64_t value, Time now) {
    if (untouched(slot, 1)) {
        if (value == 0) return;  // a never-touched slot already reads 0 at every key
        ++cells_;
    } else {
        prune(slot, now);
    }
    versions_.insert_or_assign(VersionKey{slot, key}, value);
}

std::int64_t TimedMemory::read(std::int64_t slot, AccessKey key, Time now) {
    prune(slot, now);
    auto it = before(slot, key);
    return it == versions_.end() ? 0 : it->second;
}

void TimedMemory::read_range(std::int64_t first, std::int64_t count, AccessKey key, Time now, SparseValues& out) {
    out.clear();
    for (auto it = versions_.lower_bound({first, kLowest}); it != versions_.end() && it->first.slot < first + count;) {
        const std::int64_t slot = it->first.slot;
        prune(slot, now);
        auto b = before(slot, key);
        if (b != versions_.end() && b->second != 0)
            out.emplace_back(static_cast<std::uint32_t>(slot - first), b->second);
        it = versions_.lower_bound({slot + 1, kLowest});
    }
}

bool TimedMemory::untouched(std::int64_t first, std::int64_t count) const {
    auto it = versions_.lower_bound({first, kLowest});
    return it == versions_.end() || it->first.slot >= first + count;
}

std::int64_t TimedMemory::final_value(std::int64_t slot) const {
    auto it = versions_.lower_bound({slot + 1, kLowest});
    if (it == versions_.begin()) return 0;
    --it;
    return it->first.slot == slot ? it->second : 0;
}

std::vector<std::pair<std::int64_t, std::int64_t>> TimedMemory::final_contents() const {
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    out.reserve(cells_);
    for (auto it = versions_.begin(); it != versions_.end(); ++it) {
        auto next = std::next(it);
        if (next == versions_.end() || next->first.slot != it->first.slot) out.emplace_back(it->first.slot, it->second);
    }
    return out;
}

}  // namespace loom::tsp
