#include "loom/sim/timer_set.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "loom/base/error.hpp"

namespace loom::sim {

void TimerSet::reserve(std::uint32_t n) {
    if (pos_.size() < n) pos_.resize(n, kNotArmed);
    heap_.reserve(n);
}

void TimerSet::arm_at(std::uint32_t id, Time when) {
    if (when.count() < ctx_->now_ps() || id == kNotArmed) [[unlikely]] reject(id, when);
    if (id >= pos_.size()) pos_.resize(std::max<std::size_t>(id + std::size_t{1}, pos_.size() * 2), kNotArmed);
    const Entry e{when.count(), next_seq_++, id};
    std::uint32_t i = pos_[id];
    if (i == kNotArmed) {
        i = static_cast<std::uint32_t>(heap_.size());
        heap_.push_back(e);
        pos_[id] = i;
        sift_up(i);
    } else {
        const bool earlier = less(e, heap_[i]);
        place(i, e);
        if (earlier) {
            sift_up(i);
        } else {
            sift_down(i);
        }
    }
    if (!firing_) update_kernel();
}

void TimerSet::cancel(std::uint32_t id) {
    if (!armed(id)) return;
    remove_at(pos_[id]);
    // The kernel timer stays armed: if it now fires with nothing due it re-arms at the next deadline.
}

void TimerSet::remove_at(std::uint32_t i) {
    pos_[heap_[i].id] = kNotArmed;
    const Entry last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;
    const bool earlier = less(last, heap_[i]);
    place(i, last);
    if (earlier) {
        sift_up(i);
    } else {
        sift_down(i);
    }
}

void TimerSet::sift_up(std::uint32_t i) {
    const Entry e = heap_[i];
    while (i > 0) {
        const std::uint32_t parent = (i - 1) / kArity;
        if (!less(e, heap_[parent])) break;
        place(i, heap_[parent]);
        i = parent;
    }
    place(i, e);
}

void TimerSet::sift_down(std::uint32_t i) {
    const Entry e = heap_[i];
    const auto n = static_cast<std::uint32_t>(heap_.size());
    for (;;) {
        const std::uint32_t first = i * kArity + 1;
        if (first >= n) break;
        std::uint32_t best = first;
        const std::uint32_t end = std::min(first + kArity, n);
        for (std::uint32_t c = first + 1; c < end; ++c)
            if (less(heap_[c], heap_[best])) best = c;
        if (!less(heap_[best], e)) break;
        place(i, heap_[best]);
        i = best;
    }
    place(i, e);
}

void TimerSet::update_kernel() {
    if (heap_.empty()) return;
    const Time first = Time::ps(heap_.front().time);
    if (kernel_.armed() && kernel_.expiry() <= first) return;
    kernel_.arm_at(first);
    ++kernel_arms_;
}

void TimerSet::on_kernel_timer() {
    const std::int64_t now = ctx_->now_ps();
    if (heap_.empty() || heap_.front().time > now) {
        ++early_wakeups_;
        update_kernel();
        return;
    }
    firing_ = true;
    while (!heap_.empty() && heap_.front().time <= now) {
        const std::uint32_t id = heap_.front().id;
        remove_at(0);
        ++fired_;
        call_(owner_, id);
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
