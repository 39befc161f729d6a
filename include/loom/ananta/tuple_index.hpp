// An open-addressing index from a FiveTuple to a position in the caller's own array (connection slots, NAT
// bindings, flow-table entries): 4 bytes per table cell, linear probing, deletion by backward shift, at most
// 3/4 full. The keys are not stored here: the caller passes `key_of(position)` to read them from its array,
// so an indexed record costs its own size plus about 6 bytes. A cell holds the position in its low 24 bits and
// 8 bits of the key's hash (a tag) above them: a lookup reads the caller's record (a cache line of its array,
// usually cold) only for cells whose tag matches, so a probe past other keys' cells costs no record reads but
// about one in 256. Positions are below kMaxPosition. Lookups only: the table is never iterated, so no result
// depends on its layout.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "loom/ananta/ip_packet.hpp"
#include "loom/base/assert.hpp"

namespace loom::ananta {

// A cheap hash of a tuple for in-process tables (not tuple_hash: nothing outside the table depends on it).
inline std::uint64_t index_hash(const FiveTuple& t) {
    std::uint64_t a = (static_cast<std::uint64_t>(t.src) << 32) | t.dst;
    std::uint64_t b = (static_cast<std::uint64_t>(t.src_port) << 24) | (static_cast<std::uint64_t>(t.dst_port) << 8) |
                      static_cast<std::uint64_t>(t.proto);
    std::uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
    return h ^ (h >> 31);
}

class TupleIndex {
public:
    static constexpr std::uint32_t kNone = 0xffff'ffffU;
    static constexpr std::uint32_t kMaxPosition = (std::uint32_t{1} << 24) - 1;  // positions are below it

    // The position stored for `key`, or kNone.
    template <class KeyOf>
    std::uint32_t find(const FiveTuple& key, const KeyOf& key_of) const {
        if (size_ == 0) return kNone;
        const std::uint64_t h = index_hash(key);
        const std::uint32_t tag = tag_of(h);
        for (std::size_t i = home_of(h);; i = (i + 1) & mask_) {
            const std::uint32_t v = cells_[i];
            if (v == kNone) return kNone;
            if ((v & kTagMask) == tag && key_of(v & kPosMask) == key) return v & kPosMask;
        }
    }
    // The position a lookup of `key` would read first (its home cell's, if the tags match), or kNone: for a
    // caller that prefetches the record before the lookup. Reads one cell, no record.
    std::uint32_t guess(const FiveTuple& key) const {
        if (size_ == 0) return kNone;
        const std::uint64_t h = index_hash(key);
        const std::uint32_t v = cells_[home_of(h)];
        return v != kNone && (v & kTagMask) == tag_of(h) ? v & kPosMask : kNone;
    }
    // Stores `pos` (< kMaxPosition) for `key`, which must not be present.
    template <class KeyOf>
    void insert(const FiveTuple& key, std::uint32_t pos, const KeyOf& key_of) {
        LOOM_ASSERT(pos < kMaxPosition, "TupleIndex: a position beyond 2^24 - 1");
        if ((size_ + 1) * 4 > cells_.size() * 3) grow(key_of);
        place(index_hash(key), pos);
        ++size_;
    }
    // Removes `key` if present; returns its position or kNone.
    template <class KeyOf>
    std::uint32_t erase(const FiveTuple& key, const KeyOf& key_of) {
        if (size_ == 0) return kNone;
        const std::uint64_t hk = index_hash(key);
        const std::uint32_t tag = tag_of(hk);
        std::size_t i = home_of(hk);
        for (;; i = (i + 1) & mask_) {
            const std::uint32_t v = cells_[i];
            if (v == kNone) return kNone;
            if ((v & kTagMask) == tag && key_of(v & kPosMask) == key) break;
        }
        const std::uint32_t found = cells_[i] & kPosMask;
        // Backward shift: move later members of the cluster into the hole when their home allows it.
        std::size_t hole = i;
        for (std::size_t j = (i + 1) & mask_; cells_[j] != kNone; j = (j + 1) & mask_) {
            const std::size_t h = home(key_of(cells_[j] & kPosMask));
            // j may move to `hole` if its home is not in (hole, j] (cyclically).
            if (((j - h) & mask_) >= ((j - hole) & mask_)) {
                cells_[hole] = cells_[j];
                hole = j;
            }
        }
        cells_[hole] = kNone;
        --size_;
        return found;
    }

    std::size_t size() const { return size_; }
    std::size_t bytes() const { return cells_.capacity() * sizeof(std::uint32_t); }

private:
    static constexpr std::uint32_t kPosMask = kMaxPosition;
    static constexpr std::uint32_t kTagMask = ~kPosMask;
    // The home cell takes the hash's top bits (at most 2^shift_ cells); the tag its low 8 bits.
    std::size_t home_of(std::uint64_t h) const { return static_cast<std::size_t>(h >> (64 - shift_)) & mask_; }
    static std::uint32_t tag_of(std::uint64_t h) { return static_cast<std::uint32_t>(h << 24); }
    std::size_t home(const FiveTuple& key) const { return home_of(index_hash(key)); }
    void place(std::uint64_t h, std::uint32_t pos) {
        std::size_t i = home_of(h);
        while (cells_[i] != kNone) i = (i + 1) & mask_;
        cells_[i] = tag_of(h) | pos;
    }
    template <class KeyOf>
    void grow(const KeyOf& key_of) {
        std::vector<std::uint32_t> old = std::move(cells_);
        const std::size_t n = old.empty() ? 16 : old.size() * 2;
        cells_.assign(n, kNone);
        mask_ = n - 1;
        shift_ = static_cast<unsigned>(std::countr_zero(n));
        for (std::uint32_t v : old)
            if (v != kNone) place(index_hash(key_of(v & kPosMask)), v & kPosMask);
    }

    std::vector<std::uint32_t> cells_;
    std::size_t mask_ = 0;
    unsigned shift_ = 1;
    std::size_t size_ = 0;
};

}  // namespace loom::ananta
