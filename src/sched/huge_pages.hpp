// Large buffers backed by transparent huge pages where the kernel offers them on request (Linux, THP mode
// "madvise"): a compile of 100,000 transfers touches about 300 MiB for the first time, and on small pages each 4 KiB
// is a page fault (about 80,000 of them, a tenth of the compile's CPU time on a virtual machine). Advice only: the
// contents and every result are the same with or without it.
#pragma once

#include <cstddef>
#include <new>

namespace loom::sched::detail {

// Advises the kernel to back the 2 MiB-aligned part of [p, p + bytes) with huge pages. Call it on memory not yet
// touched (a fresh reservation); no effect elsewhere than Linux, and none on buffers smaller than 4 MiB.
void advise_huge_pages(const void* p, std::size_t bytes);

// std::allocator that advises huge pages for large allocations (freshly allocated, so not yet touched).
template <class T>
struct HugePageAllocator {
    using value_type = T;
    HugePageAllocator() = default;
    template <class U>
    HugePageAllocator(const HugePageAllocator<U>&) {}  // NOLINT(google-explicit-constructor)
    T* allocate(std::size_t n) {
        T* p = static_cast<T*>(::operator new(n * sizeof(T)));
        advise_huge_pages(p, n * sizeof(T));
        return p;
    }
    void deallocate(T* p, std::size_t) noexcept { ::operator delete(p); }
    template <class U>
    bool operator==(const HugePageAllocator<U>&) const {
        return true;
    }
};

}  // namespace loom::sched::detail
