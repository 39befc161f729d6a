// An open-addressing index from a FiveTuple to a position in the caller's own array (connection slots, NAT
// bindings, flow-table entries): 4 bytes per table cell, linear probing, deletion by backward shift, at most
// 3/4 full. The keys are not stored here: the caller passes `key_of(position)` to read them from its array,
// so an indexed record costs its own size plus about 6 bytes. Lookups only: the table is never iterated, so
// no result depends on its layout.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "loom/ananta/ip_packet.hpp"

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

    // The position stored for `key`, or kNone.
    template <class KeyOf>
    std::uint32_t find(const FiveTuple& key, const KeyOf& key_of) const {
        if (size_ == 0) return kNone;
        for (std::size_t i = home(key);; i = (i + 1) & mask_) {
            const std::uint32_t v = cells_[i];
            if (v == kNone) return kNone;
            if (key_of(v) == key) return v;
        }
    }
    // Stores `pos` for `key`, which must not be present.
    template <class KeyOf>
    void insert(const FiveTuple& key, std::uint32_t pos, const KeyOf& key_of) {
        if ((size_ + 1) * 4 > cells_.size() * 3) grow(key_of);
        place(key, pos);
        ++size_;
    }
    // Removes `key` if present; returns its position or kNone.
    template <class KeyOf>
    std::uint32_t erase(const FiveTuple& key, const KeyOf& key_of) {
        if (size_ == 0) return kNone;
        std::size_t i = home(key);
        for (;; i = (i + 1) & mask_) {
            if (cells_[i] == kNone) return kNone;
            if (key_of(cells_[i]) == key) break;
        }
        const std::uint32_t found = cells_[i];
        // Backward shift: move later members of the cluster into the hole when their home allows it.
        std::size_t hole = i;
        for (std::size_t j = (i + 1) & mask_; cells_[j] != kNone; j = (j + 1) & mask_) {
            const std::size_t h = home(key_of(cells_[j]));
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
    std::size_t home(const FiveTuple& key) const {
        return static_cast<std::size_t>(index_hash(key) >> (64 - shift_)) & mask_;
    }
    void place(const FiveTuple& key, std::uint32_t pos) {
        std::size_t i = home(key);
        while (cells_[i] != kNone) i = (i + 1) & mask_;
        cells_[i] = pos;
    }
    template <class KeyOf>
    void grow(const KeyOf& key_of) {
        std::vector<std::uint32_t> old = std::move(cells_);
        const std::size_t n = old.empty() ? 16 : old.size() * 2;
        cells_.assign(n, kNone);
        mask_ = n - 1;
        shift_ = static_cast<unsigned>(std::countr_zero(n));
        for (std::uint32_t v : old)
            if (v != kNone) place(key_of(v), v);
    }

    std::vector<std::uint32_t> cells_;
    std::size_t mask_ = 0;
    unsigned shift_ = 1;
    std::size_t size_ = 0;
};

}  // namespace loom::ananta
