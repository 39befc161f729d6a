// An append-only list stored in fixed blocks, for the scheduler's committed trains and hops. A std::vector doubles
// as it grows: at its last growth the old buffer, the new one and the new one's unused half are all mapped (at
// 10,440 TSPs the committed trains and hops were a few hundred megabytes, and the moment of a doubling set the
// compile's peak). Here a push_back allocates at most one new block, and nothing is moved.
#pragma once

#include <bit>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "huge_pages.hpp"

namespace loom::sched::detail {

template <class T>
class BlockList {
    static_assert(std::is_trivially_destructible_v<T>, "blocks are freed without destroying their elements");

public:
    // Elements per block: a power of two (an index splits with a shift) giving blocks of at least 4 MiB, the least
    // advise_huge_pages() backs with huge pages (huge_pages.hpp).
    static constexpr std::size_t kBlock = std::bit_ceil((std::size_t{4} << 20) / sizeof(T));
    static constexpr unsigned kShift = static_cast<unsigned>(std::countr_zero(kBlock));

    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const T& operator[](std::size_t i) const { return blocks_[i >> kShift][i & (kBlock - 1)]; }

    void push_back(const T& x) {
        if ((size_ & (kBlock - 1)) == 0) {
            T* block = alloc_.allocate(kBlock);
            blocks_.push_back(Block(block, Free{}));
        }
        ::new (static_cast<void*>(&blocks_.back()[size_ & (kBlock - 1)])) T(x);
        ++size_;
    }
    template <class... A>
    void emplace_back(A&&... a) {
        push_back(T{std::forward<A>(a)...});
    }

    // Visits the elements in order.
    template <class F>
    void for_each(F&& f) const {
        for (std::size_t i = 0; i < size_; ++i) f((*this)[i]);
    }

    // Frees every block.
    void clear() {
        std::vector<Block>().swap(blocks_);
        size_ = 0;
    }

private:
    struct Free {
        void operator()(T* p) const noexcept { HugePageAllocator<T>().deallocate(p, kBlock); }
    };
    using Block = std::unique_ptr<T[], Free>;
    HugePageAllocator<T> alloc_;
    std::vector<Block> blocks_;
    std::size_t size_ = 0;
};

}  // namespace loom::sched::detail
