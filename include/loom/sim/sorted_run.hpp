// The sorted run of a bucketed event queue (calendar, radix, two-level): the events a queue has taken out of
// its ring and sorted, handed out front to back in (time, key) order. An event pushed for a time the run
// already covers goes into it in order (insert). The queues fill the run through a raw pointer (fill, grow,
// filled): their load loops write one event per step and must not reload a vector's members after each store.
#pragma once

#include <cstddef>
#include <vector>

#include "loom/base/assert.hpp"
#include "loom/sim/event.hpp"

namespace loom::sim {

class SortedRun {
public:
    bool exhausted() const { return pos_ == n_; }
    const Event& front() const { return buf_[pos_]; }
    void pop_front() {
        LOOM_DEBUG_ASSERT(pos_ < n_, "SortedRun::pop_front on an exhausted run");
        ++pos_;
    }
    // The k-th event after the front, or nullptr past the run's end.
    const Event* peek(std::size_t k) const { return pos_ + k < n_ ? &buf_[pos_ + k] : nullptr; }
    std::size_t remaining() const { return n_ - pos_; }  // events after the popped ones
    std::size_t length() const { return n_; }  // events loaded since the last fill, popped ones included
    template <class F>
    void for_each(F&& f) const {
        for (std::size_t i = pos_; i < n_; ++i) f(buf_[i]);
    }

    // Inserts `e` after every event of the run that is not after it (the run stays sorted).
    void insert(const Event& e);
    // The same, for a run that is short or that `e` lands near the end of: it walks back from the end,
    // moving the events after `e` one place by one (no search, no memmove call).
    void insert_from_back(const Event& e) {
        if (pos_ == n_) {
            pos_ = n_ = 0;
        } else if (n_ == buf_.size()) [[unlikely]] {
            make_room();
        }
        if (n_ == buf_.size()) [[unlikely]] grow();
        Event* const first = buf_.data() + pos_;
        Event* at = buf_.data() + n_;
        while (at != first && before(e, at[-1])) {
            *at = at[-1];
            --at;
        }
        *at = e;
        ++n_;
    }

    // Loading: fill() empties the run and returns room for at least `n` events; grow() doubles the room
    // (returning the moved buffer); filled(n) makes the first n events written the run. The buffer only
    // grows (value-initialized once; reused for free) until release().
    Event* fill(std::size_t n) {
        pos_ = n_ = 0;
        if (buf_.size() < n) buf_.resize(n);
        return buf_.data();
    }
    std::size_t room() const { return buf_.size(); }
    Event* grow() {
        buf_.resize(buf_.empty() ? kMinRoom : 2 * buf_.size());
        return buf_.data();
    }
    void filled(std::size_t n) {
        LOOM_DEBUG_ASSERT(n <= buf_.size(), "SortedRun::filled past the buffer");
        pos_ = 0;
        n_ = n;
    }

    void clear() { pos_ = n_ = 0; }
    // Drops the buffer too (a queue rebuilding for a new tuning lets it grow again from what that needs).
    void release() {
        buf_ = std::vector<Event>();
        pos_ = n_ = 0;
    }
    std::size_t bytes_held() const { return buf_.capacity() * sizeof(Event); }

private:
    void make_room();  // full: slides the run down over the popped events, if any

    static constexpr std::size_t kMinRoom = 64;  // first allocation: one small bucket's worth

    std::vector<Event> buf_;  // the run is buf_[pos_, n_)
    std::size_t pos_ = 0;
    std::size_t n_ = 0;
};

}  // namespace loom::sim
