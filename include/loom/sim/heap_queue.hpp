// 4-ary implicit min-heap of events: the simple, tuning-free EventQueue implementation and the reference the
// calendar queue is checked against.
#pragma once

#include <cstddef>
#include <vector>

#include "loom/base/assert.hpp"
#include "loom/sim/event.hpp"
#include "loom/sim/event_queue.hpp"

namespace loom::sim {

// Children of node i are 4i+1 .. 4i+4: half the depth of a binary heap, and a node's children share one or
// two cache lines. Sifts move a hole instead of swapping. Memory: one 24-byte Event per slot of the vector's
// capacity (which only grows, so bytes_held() is also the peak).
class HeapQueue {
public:
    void push(const Event& e) {
        std::size_t i = heap_.size();
        heap_.push_back(e);
        while (i > 0) {
            const std::size_t parent = (i - 1) / 4;
            if (!before(e, heap_[parent])) break;
            heap_[i] = heap_[parent];
            i = parent;
        }
        heap_[i] = e;
    }
    const Event& top() {
        LOOM_DEBUG_ASSERT(!heap_.empty(), "HeapQueue::top on an empty queue");
        return heap_.front();
    }
    void pop() {
        LOOM_DEBUG_ASSERT(!heap_.empty(), "HeapQueue::pop on an empty queue");
        const Event last = heap_.back();
        heap_.pop_back();
        if (!heap_.empty()) sift_down(last);
    }
    std::size_t size() const { return heap_.size(); }
    bool empty() const { return heap_.empty(); }
    void clear() { heap_.clear(); }
    std::size_t bytes_held() const { return heap_.capacity() * sizeof(Event); }
    // Only the root is known without work.
    const Event* peek(std::size_t k) const { return k == 0 && !heap_.empty() ? heap_.data() : nullptr; }
    template <class F>
    void for_each(F&& f) const {
        for (const Event& e : heap_) f(e);
    }

private:
    // Moves the hole at the root down to where `e` belongs and stores it there.
    void sift_down(const Event& e) {
        const std::size_t n = heap_.size();
        std::size_t i = 0;
        for (;;) {
            const std::size_t first = 4 * i + 1;
            if (first >= n) break;
            const std::size_t last = first + 4 < n ? first + 4 : n;
            std::size_t best = first;
            for (std::size_t c = first + 1; c < last; ++c) {
                if (before(heap_[c], heap_[best])) best = c;
            }
            if (!before(heap_[best], e)) break;
            heap_[i] = heap_[best];
            i = best;
        }
        heap_[i] = e;
    }

    std::vector<Event> heap_;
};

static_assert(EventQueue<HeapQueue>);

}  // namespace loom::sim
