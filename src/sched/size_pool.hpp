// Arrays of a few elements taken and given back by size, from slabs that are kept: a given-back array goes on its
// size's free list and serves the next request of that size, so a steady state of takes and gives allocates
// nothing. For the compile's per-shape arrays (a few words per route hop, many thousands taken and given back as
// the scheduler moves from pair to pair), where new[] and delete[] went through the allocator's bins every time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <vector>

namespace loom::sched::detail {

template <class T>
class SizePool {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

public:
    // An array of `size` (> 0) default-made elements, valid until give() or the pool's end.
    T* take(std::size_t size) {
        if (size < free_.size() && free_[size] != nullptr) {
            Link* l = free_[size];
            free_[size] = l->next;
            T* p = reinterpret_cast<T*>(l);
            for (std::size_t i = 0; i < size; ++i) p[i] = T{};
            return p;
        }
        const std::size_t words = std::max<std::size_t>(size, kMinElements);
        if (words > left_) {
            const std::size_t slab = std::max<std::size_t>(words, kSlabElements);
            slabs_.push_back(std::make_unique<Cell[]>(slab));
            next_ = reinterpret_cast<T*>(slabs_.back().get());
            left_ = slab;
        }
        T* p = next_;
        next_ += words;
        left_ -= words;
        for (std::size_t i = 0; i < size; ++i) p[i] = T{};
        return p;
    }

    // Gives back an array take(size) returned (null: nothing).
    void give(T* p, std::size_t size) {
        if (p == nullptr) return;
        if (free_.size() <= size) free_.resize(size + 1, nullptr);
        Link* l = reinterpret_cast<Link*>(p);
        l->next = free_[size];
        free_[size] = l;
    }

private:
    struct Link {
        Link* next;
    };
    // Storage suitably aligned for T and for a Link in a given-back array.
    struct alignas(alignof(T) > alignof(Link) ? alignof(T) : alignof(Link)) Cell {
        unsigned char bytes[sizeof(T)];
    };
    static_assert(sizeof(Cell) == sizeof(T));
    static constexpr std::size_t kMinElements = (sizeof(Link) + sizeof(T) - 1) / sizeof(T);
    static constexpr std::size_t kSlabElements = 65536 / sizeof(T);
    std::vector<std::unique_ptr<Cell[]>> slabs_;
    T* next_ = nullptr;
    std::size_t left_ = 0;
    std::vector<Link*> free_;  // by size
};

}  // namespace loom::sched::detail
