// An open-addressing map from a non-zero 64-bit key to a small value: linear probing, deletion by backward
// shift, at most 1/2 full. For per-port tables filled in bulk (a Mux's SNAT ports: thousands of entries set by
// range commands), where a node per entry (std::map) costs an allocation and a tree walk each. Lookups only:
// the table is never iterated, so no result depends on its layout.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "loom/base/assert.hpp"

namespace loom::ananta {

template <class V>
class U64Map {
public:
    // The value stored for `key` (non-zero), or nullptr.
    const V* find(std::uint64_t key) const {
        if (size_ == 0) return nullptr;
        for (std::size_t i = home(key);; i = (i + 1) & mask_) {
            const Cell& c = cells_[i];
            if (c.key == key) return &c.value;
            if (c.key == 0) return nullptr;
        }
    }
    // Sets the value of `key` (non-zero), inserting it if absent.
    void set(std::uint64_t key, const V& value) {
        LOOM_DEBUG_ASSERT(key != 0, "U64Map keys are non-zero");
        if ((size_ + 1) * 2 > cells_.size()) grow();
        std::size_t i = home(key);
        while (cells_[i].key != 0 && cells_[i].key != key) i = (i + 1) & mask_;
        if (cells_[i].key == 0) ++size_;
        cells_[i] = Cell{key, value};
    }
    // Removes `key` if present.
    void erase(std::uint64_t key) {
        if (size_ == 0) return;
        std::size_t i = home(key);
        for (;; i = (i + 1) & mask_) {
            if (cells_[i].key == 0) return;
            if (cells_[i].key == key) break;
        }
        // Backward shift: move later members of the cluster into the hole when their home allows it.
        std::size_t hole = i;
        for (std::size_t j = (i + 1) & mask_; cells_[j].key != 0; j = (j + 1) & mask_) {
            const std::size_t h = home(cells_[j].key);
            // j may move to `hole` if its home is not in (hole, j] (cyclically).
            if (((j - h) & mask_) >= ((j - hole) & mask_)) {
                cells_[hole] = cells_[j];
                hole = j;
            }
        }
        cells_[hole] = Cell{};
        --size_;
    }
    std::size_t size() const { return size_; }

private:
    struct Cell {
        std::uint64_t key = 0;  // 0: empty
        V value{};
    };
    std::size_t home(std::uint64_t key) const {
        // Fibonacci hashing: the top bits of key * 2^64 / phi.
        return static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ULL) >> (64 - shift_)) & mask_;
    }
    void grow() {
        std::vector<Cell> old = std::move(cells_);
        // Not published: 64 cells to start with, doubling.
        const std::size_t n = old.empty() ? 64 : old.size() * 2;
        cells_.assign(n, Cell{});
        mask_ = n - 1;
        shift_ = static_cast<unsigned>(std::countr_zero(n));
        for (const Cell& c : old) {
            if (c.key == 0) continue;
            std::size_t i = home(c.key);
            while (cells_[i].key != 0) i = (i + 1) & mask_;
            cells_[i] = c;
        }
    }

    std::vector<Cell> cells_;
    std::size_t mask_ = 0;
    unsigned shift_ = 1;
    std::size_t size_ = 0;
};

}  // namespace loom::ananta
