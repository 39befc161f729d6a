// A growable array stored in fixed-size chunks: for per-connection records that a component holds by the
// thousand (connection slots, sightings), where a std::vector's doubling leaves up to half its capacity unused
// (1.5x on average over growth) and a reallocation moves every record. Growing adds one chunk; an index
// reaches its element through one chunk table lookup; elements never move.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "loom/base/assert.hpp"

namespace loom::ananta {

// `kChunk` elements per chunk (a power of two). Chunks are value-initialized whole and start on a cache line
// (kChunkAlign), so that an element whose size divides 64 (or is a multiple of 64) never straddles two lines.
template <class T, std::size_t kChunk>
class ChunkedVector {
    static_assert(kChunk > 0 && (kChunk & (kChunk - 1)) == 0, "the chunk size is a power of two");
    static constexpr std::size_t kChunkAlign = alignof(T) > 64 ? alignof(T) : 64;
    struct alignas(kChunkAlign) Chunk {
        T items[kChunk];
    };

public:
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    T& operator[](std::size_t i) {
        LOOM_DEBUG_ASSERT(i < size_, "chunked vector index out of range");
        return chunks_[i / kChunk]->items[i % kChunk];
    }
    const T& operator[](std::size_t i) const {
        LOOM_DEBUG_ASSERT(i < size_, "chunked vector index out of range");
        return chunks_[i / kChunk]->items[i % kChunk];
    }
    // Appends a default-constructed element (one already constructed in the last chunk) and returns it.
    T& emplace_back() {
        if (size_ == chunks_.size() * kChunk) chunks_.push_back(std::make_unique<Chunk>());
        return (*this)[size_++];
    }
    void push_back(const T& v) { emplace_back() = v; }
    // Read-only iteration in index order.
    class const_iterator {
    public:
        const_iterator(const ChunkedVector* v, std::size_t i) : v_(v), i_(i) {}
        const T& operator*() const { return (*v_)[i_]; }
        const_iterator& operator++() {
            ++i_;
            return *this;
        }
        bool operator==(const const_iterator& o) const { return i_ == o.i_; }

    private:
        const ChunkedVector* v_;
        std::size_t i_;
    };
    const_iterator begin() const { return const_iterator(this, 0); }
    const_iterator end() const { return const_iterator(this, size_); }
    // Bytes allocated: whole chunks and the chunk table's capacity.
    std::size_t bytes() const {
        return chunks_.size() * kChunk * sizeof(T) + chunks_.capacity() * sizeof(std::unique_ptr<Chunk>);
    }

private:
    std::vector<std::unique_ptr<Chunk>> chunks_;
    std::size_t size_ = 0;
};

}  // namespace loom::ananta
