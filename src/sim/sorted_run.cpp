#include "loom/sim/sorted_run.hpp"

#include <algorithm>

namespace loom::sim {

void SortedRun::resize(std::size_t room) {
    buf_.resize(room + kPad);
    cap_ = buf_.data() + room;
}

Event* SortedRun::grow() {
    const std::ptrdiff_t pos = cur_ - buf_.data(), n = end_ - buf_.data();
    resize(buf_.empty() ? kMinRoom : 2 * room());
    cur_ = buf_.data() + pos;
    end_ = buf_.data() + n;
    return buf_.data();
}

void SortedRun::make_room() {
    if (cur_ == buf_.data()) return;
    // Full, with popped events at the front: slide the run down before growing the buffer.
    end_ = std::copy(cur_, end_, buf_.data());
    cur_ = buf_.data();
}

void SortedRun::insert(const Event& e) {
    if (cur_ == end_) {
        // Everything loaded was popped: start the run afresh rather than let it grow.
        cur_ = end_ = buf_.data();
    } else if (end_ == room_end()) {
        make_room();
    }
    if (end_ == room_end()) grow();
    Event* const at = std::upper_bound(cur_, end_, e, [](const Event& a, const Event& b) { return before(a, b); });
    std::copy_backward(at, end_, end_ + 1);
    *at = e;
    ++end_;
}

}  // namespace loom::sim
