#include "loom/sim/timer_set.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

#include <fmt/format.h>

#include "loom/base/error.hpp"

namespace loom::sim {

namespace {
constexpr std::size_t kLine = 64;
constexpr std::uint64_t kSeqLimit = std::uint64_t{1} << 32;
}  // namespace

void TimerSet::Free::operator()(Entry* p) const { ::operator delete(p, std::align_val_t{kLine}); }

void TimerSet::reserve(std::uint32_t n) {
    if (pos_.size() < n) pos_.resize(n, kNotArmed);
    while (capacity_ < n) grow();
}

void TimerSet::grow() {
    const std::uint32_t cap = std::max<std::uint32_t>(64, capacity_ * 2);
    auto* block = static_cast<Entry*>(::operator new((cap + kFront) * sizeof(Entry), std::align_val_t{kLine}));
    if (size_ > 0) std::memcpy(block + kFront, heap_, size_ * sizeof(Entry));
    block_.reset(block);
    heap_ = block + kFront;
    capacity_ = cap;
}

void TimerSet::arm_at(std::uint32_t id, Time when) {
    if (when.count() < ctx_->now_ps() || id == kNotArmed) [[unlikely]] reject(id, when);
    if (id >= pos_.size()) pos_.resize(std::max<std::size_t>(id + std::size_t{1}, pos_.size() * 2), kNotArmed);
    if (next_seq_ == kSeqLimit) [[unlikely]] renumber();
    const Entry e{static_cast<std::uint64_t>(when.count()), (next_seq_++ << 32) | id};
    const std::uint32_t i = pos_[id];
    if (i == kNotArmed) {
        if (root_pending_ && id == firing_id_) {
            root_pending_ = false;
            sift_up(descend(size_), e);
        } else {
            if (size_ == capacity_) grow();
            sift_up(size_++, e);
        }
    } else if (less(e, at(i))) {
        sift_up(i, e);
    } else {
        sift_down(i, e);
    }
    // Outside a firing round an armed kernel timer is never later than any armed deadline (arming keeps it so,
    // cancelling and re-arming later only leave it earlier): the earliest deadline can only have moved before
    // it if `when` did, and then `when` is the earliest. update_kernel's answer, without reading the heap.
    if (!firing_ && (!kernel_.armed() || when < kernel_.expiry())) update_kernel();
}

void TimerSet::cancel(std::uint32_t id) {
    if (!armed(id)) return;
    remove_at(pos_[id]);
    // The kernel timer stays armed: if it now fires with nothing due it re-arms at the next deadline.
}

void TimerSet::remove_at(std::uint32_t i) {
    pos_[at(i).id()] = kNotArmed;
    const Entry last = at(--size_);
    if (i == size_) return;
    if (less(last, at(i))) {
        sift_up(i, last);
    } else {
        sift_down(i, last);
    }
}

void TimerSet::sift_up(std::uint32_t i, Entry e) {
    while (i > 0) {
        const std::uint32_t parent = (i - 1) / kArity;
        if (!less(e, at(parent))) break;
        place(i, at(parent));
        i = parent;
    }
    place(i, e);
}

void TimerSet::sift_down(std::uint32_t i, Entry e) {
    const std::uint32_t n = size_;
    for (;;) {
        const std::uint32_t first = i * kArity + 1;
        if (first >= n) break;
        std::uint32_t best = first;
        const std::uint32_t end = std::min(first + kArity, n);
        for (std::uint32_t c = first + 1; c < end; ++c)
            if (less(at(c), at(best))) best = c;
        if (!less(at(best), e)) break;
        place(i, at(best));
        i = best;
    }
    place(i, e);
}

void TimerSet::pop_front() {
    pos_[at(0).id()] = kNotArmed;
    const std::uint32_t n = --size_;
    if (n == 0) return;
    const Entry last = at(n);
    sift_up(descend(n), last);
}

std::uint32_t TimerSet::descend(std::uint32_t n) {
    std::uint32_t i = 0;
    // Full groups of four children: the smallest of the four without branches on the keys.
    for (;;) {
        const std::uint32_t first = i * kArity + 1;
        if (first + kArity > n) break;
        const Entry* c = &at(first);
        const std::uint32_t a = less(c[1], c[0]) ? 1 : 0;
        const std::uint32_t b = less(c[3], c[2]) ? 3 : 2;
        const std::uint32_t best = first + (less(c[b], c[a]) ? b : a);
        place(i, at(best));
        i = best;
    }
    // The last, partial group (at most one on the way down).
    if (const std::uint32_t first = i * kArity + 1; first < n) {
        std::uint32_t best = first;
        for (std::uint32_t c = first + 1; c < n; ++c)
            if (less(at(c), at(best))) best = c;
        place(i, at(best));
        i = best;
    }
    return i;
}

Time TimerSet::next_expiry() const {
    if (empty()) return Time::max();
    if (!root_pending_) return Time::ps(static_cast<std::int64_t>(at(0).time));
    // Inside a handler whose deadline is still at node 0: the earliest armed is among its children.
    std::uint64_t t = at(1).time;
    for (std::uint32_t c = 2; c <= kArity && c < size_; ++c) t = std::min(t, at(c).time);
    return Time::ps(static_cast<std::int64_t>(t));
}

void TimerSet::renumber() {
    std::vector<std::pair<std::uint64_t, std::uint32_t>> by_order(size_);
    for (std::uint32_t i = 0; i < size_; ++i) by_order[i] = {at(i).order >> 32, i};
    std::sort(by_order.begin(), by_order.end());
    for (std::uint32_t r = 0; r < size_; ++r) {
        Entry& e = at(by_order[r].second);
        e.order = (std::uint64_t{r} << 32) | e.id();
    }
    next_seq_ = size_;
}

void TimerSet::update_kernel() {
    if (empty()) return;
    const Time first = Time::ps(static_cast<std::int64_t>(at(0).time));
    if (kernel_.armed() && kernel_.expiry() <= first) return;
    kernel_.arm_at(first);
    ++kernel_arms_;
}

void TimerSet::on_kernel_timer() {
    const auto now = static_cast<std::uint64_t>(ctx_->now_ps());
    if (empty() || at(0).time > now) {
        ++early_wakeups_;
        update_kernel();
        return;
    }
    firing_ = true;
    while (size_ > 0 && at(0).time <= now) {
        const std::uint32_t id = at(0).id();
        pos_[id] = kNotArmed;
        root_pending_ = true;
        firing_id_ = id;
        ++fired_;
        call_(owner_, id);
        if (root_pending_) {
            root_pending_ = false;
            pop_front();
        }
    }
    firing_ = false;
    update_kernel();
}

void TimerSet::reject(std::uint32_t id, Time when) const {
    if (id == kNotArmed) throw InternalError(fmt::format("{}: timer id {} is reserved", ctx_->path(), id));
    throw InternalError(fmt::format("{}: timer {} armed for {}, before the current time {}", ctx_->path(), id,
                                    loom::to_string(when), loom::to_string(ctx_->now())));
}

}  // namespace loom::sim
