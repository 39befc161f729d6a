// The times at which the vectors held in one clock-crossing FIFO leave it (schedule.hpp rules 3-8), for the
// per-vector FIFO checks of the verifier and the executor: how many are held when the next one arrives.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "loom/base/units.hpp"

namespace loom::sched {

// A multiset of leave times, ascending from head_. Vectors mostly leave in arrival order, so an insertion from the
// back costs O(1) where a heap costs O(log n) per vector; the vectors that left are dropped at the front, and the
// storage is compacted once they are most of it (it stays a few entries long at a FIFO's depth of 4).
class LeaveTimes {
public:
    void clear() {
        t_.clear();
        head_ = 0;
    }
    // Drops every time at or before `a` (the vectors that have left when one arrives at a).
    void pop_through(Time a) {
        while (head_ < t_.size() && t_[head_] <= a) ++head_;
        if (head_ == t_.size()) {
            clear();
        } else if (head_ > kCompact && 2 * head_ > t_.size()) {
            t_.erase(t_.begin(), t_.begin() + static_cast<std::ptrdiff_t>(head_));
            head_ = 0;
        }
    }
    void push(Time t) {
        t_.push_back(t);
        for (std::size_t k = t_.size() - 1; k > head_ && t_[k - 1] > t_[k]; --k) std::swap(t_[k - 1], t_[k]);
    }
    std::size_t size() const { return t_.size() - head_; }
    bool empty() const { return size() == 0; }
    // How many held leave after `a` (those a pop_through(a) would keep).
    std::size_t count_after(Time a) const {
        std::size_t n = 0;
        for (std::size_t k = t_.size(); k > head_ && t_[k - 1] > a; --k) ++n;
        return n;
    }
    // The earliest leave time (requires !empty()).
    Time front() const { return t_[head_]; }
    // Where the held times are (nullptr when there is no storage), for prefetching.
    const void* storage() const { return t_.empty() ? nullptr : t_.data(); }
    // Frees the storage.
    void release() {
        std::vector<Time>().swap(t_);
        head_ = 0;
    }

private:
    static constexpr std::size_t kCompact = 8;
    std::vector<Time> t_;
    std::size_t head_ = 0;
};

}  // namespace loom::sched
