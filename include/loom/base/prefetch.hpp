// Prefetching a whole object: the loads of a record that a handler will read soon, issued ahead (a hint only: it
// changes nothing and costs a few instructions; an object that is already cached costs no memory traffic).
#pragma once

#include <cstddef>

namespace loom {

inline constexpr std::size_t kCacheLine = 64;  // x86-64 and most AArch64 cores

// Prefetches every cache line `object` spans (its first byte's line, each 64 bytes on, and its last byte's).
template <class T>
inline void prefetch_object(const T& object) {
    const char* a = reinterpret_cast<const char*>(&object);
    for (std::size_t b = 0; b < sizeof(T); b += kCacheLine) __builtin_prefetch(a + b);
    __builtin_prefetch(a + sizeof(T) - 1);
}

}  // namespace loom
