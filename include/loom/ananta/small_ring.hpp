// A small ring of plain values for the Mux's short queues (a core's departure times, the departures waiting to
// leave): power-of-two capacity, `kFirst` slots at the first push, doubled (and compacted to the first slots)
// when full. Pointer, capacity, head and size fit 24 bytes. An emptied ring starts again at its first slot, so a
// ring that seldom holds more than one or two values keeps them in its first lines instead of walking through
// all of them.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>

#include "loom/base/assert.hpp"

namespace loom::ananta {

template <class T, std::uint32_t kFirst>
class SmallRing {
    static_assert(kFirst > 0 && (kFirst & (kFirst - 1)) == 0, "the first capacity is a power of two");
    static_assert(std::is_trivially_copyable_v<T>, "ring values are plain data");

public:
    bool empty() const { return size_ == 0; }
    std::uint32_t size() const { return size_; }
    std::uint32_t capacity() const { return capacity_; }
    // The i-th value from the front (i < size()).
    const T& operator[](std::uint32_t i) const { return slots_[(head_ + i) & (capacity_ - 1)]; }
    const T& front() const { return slots_[head_]; }
    const T& back() const { return (*this)[size_ - 1]; }
    void pop_front() { head_ = --size_ == 0 ? 0 : (head_ + 1) & (capacity_ - 1); }
    void push_back(const T& v) {
        if (size_ == capacity_) grow();
        slot(size_) = v;
        ++size_;
    }
    // Inserts `v` from the back: it passes every value `stays_before` is false for, walking from the back, and
    // stops behind the first it is true for (or at the front). A ring kept sorted this way with
    // stays_before(x) = (x <= v) keeps equal values in their order of insertion.
    template <class StaysBefore>
    void insert_from_back(const T& v, StaysBefore stays_before) {
        if (size_ == capacity_) grow();
        std::uint32_t i = size_;
        while (i > 0) {
            const T& prev = slot(i - 1);
            if (stays_before(prev)) break;
            slot(i) = prev;
            --i;
        }
        slot(i) = v;
        ++size_;
    }

private:
    T& slot(std::uint32_t i) { return slots_[(head_ + i) & (capacity_ - 1)]; }
    [[gnu::noinline]] void grow() {
        LOOM_ASSERT(capacity_ <= (std::numeric_limits<std::uint32_t>::max() >> 1), "small ring full");
        const std::uint32_t bigger = capacity_ == 0 ? kFirst : 2 * capacity_;
        auto fresh = std::make_unique<T[]>(bigger);
        for (std::uint32_t i = 0; i < size_; ++i) fresh[i] = (*this)[i];
        slots_ = std::move(fresh);
        capacity_ = bigger;
        head_ = 0;
    }

    std::unique_ptr<T[]> slots_;
    std::uint32_t capacity_ = 0;  // a power of two, or 0 before the first push
    std::uint32_t head_ = 0;
    std::uint32_t size_ = 0;
};

}  // namespace loom::ananta
