#include "loom/sim/sorted_run.hpp"

#include <algorithm>

namespace loom::sim {

void SortedRun::make_room() {
    if (pos_ == 0) return;
    // Full, with popped events at the front: slide the run down before growing the buffer.
    std::copy(buf_.begin() + static_cast<std::ptrdiff_t>(pos_), buf_.begin() + static_cast<std::ptrdiff_t>(n_),
              buf_.begin());
    n_ -= pos_;
    pos_ = 0;
}

void SortedRun::insert(const Event& e) {
    if (pos_ == n_) {
        // Everything loaded was popped: start the run afresh rather than let it grow.
        pos_ = n_ = 0;
    } else if (n_ == buf_.size()) {
        make_room();
    }
    if (n_ == buf_.size()) grow();
    Event* const first = buf_.data() + pos_;
    Event* const last = buf_.data() + n_;
    Event* const at = std::upper_bound(first, last, e, [](const Event& a, const Event& b) { return before(a, b); });
    std::copy_backward(at, last, last + 1);
    *at = e;
    ++n_;
}

}  // namespace loom::sim
