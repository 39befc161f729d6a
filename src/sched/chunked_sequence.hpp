// An ordered sequence stored as a list of short chunks, for the reservation table's per-channel bookings and blocks.
// A std::vector moves every element after an insertion point: placement books trains anywhere in a channel's
// history, so with a million transfers those moves (about 100,000 bookings per channel) grew with the table and
// made the compile super-linear. Here an insert or erase moves at most one chunk (kMaxChunk elements), and a search
// first finds its chunk in a small array holding each chunk's last element, then searches that chunk alone: a few
// cache lines, where a binary search over the whole vector missed the cache at every probe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "loom/base/assert.hpp"

namespace loom::sched::detail {

// The first element of [first, last) that is `past` (false, then true, along the range), found by galloping from
// `hint` (any position in [first, last]) in the direction of the answer: a query costs O(log distance from the hint).
template <class It, class Past>
It first_past_near(It first, It last, It hint, Past past) {
    if (hint == last || past(*hint)) {
        It hi = hint;  // every element in [hi, last) is past
        std::ptrdiff_t step = 1;
        while (hi != first) {
            const It probe = hi - std::min<std::ptrdiff_t>(step, hi - first);
            if (!past(*probe)) return std::partition_point(probe + 1, hi, [&](const auto& x) { return !past(x); });
            hi = probe;
            step *= 2;
        }
        return first;
    }
    It lo = hint + 1;  // every element in [first, lo) is not past
    std::ptrdiff_t step = 1;
    while (lo != last) {
        const It probe = lo + (std::min<std::ptrdiff_t>(step, last - lo) - 1);
        if (past(*probe)) return std::partition_point(lo, probe, [&](const auto& x) { return !past(x); });
        lo = probe + 1;
        step *= 2;
    }
    return last;
}

template <class T>
class ChunkedSequence {
public:
    // At most this many elements per chunk (a full chunk splits in halves when an element goes into it): small
    // enough that moving a chunk's tail is cheap and a binary search in a chunk touches few cache lines, large enough
    // that the array of chunk ends stays small (a chunk per 64-128 elements). Not tuned: 128 bookings are 5 KiB,
    // which a binary search covers in 7 probes.
    static constexpr std::size_t kMaxChunk = 128;
    static constexpr std::size_t kFirstChunk = 4;  // a new chunk's room

    // A position: chunk index and index in the chunk; end() is {chunk count, 0}.
    struct Pos {
        std::size_t chunk = 0;
        std::size_t i = 0;
        bool operator==(const Pos&) const = default;
    };

    bool empty() const { return chunks_.empty(); }
    std::size_t size() const { return size_; }
    Pos begin() const { return Pos{0, 0}; }
    Pos end() const { return Pos{chunks_.size(), 0}; }
    bool at_end(Pos p) const { return p.chunk == chunks_.size(); }
    const T& operator[](Pos p) const { return chunks_[p.chunk][p.i]; }
    const T& back() const { return chunks_.back().back(); }
    Pos next(Pos p) const { return ++p.i == chunks_[p.chunk].size() ? Pos{p.chunk + 1, 0} : p; }
    // Requires p != begin().
    Pos prev(Pos p) const {
        return p.i == 0 ? Pos{p.chunk - 1, chunks_[p.chunk - 1].size() - 1} : Pos{p.chunk, p.i - 1};
    }

    // The first element for which past(x) holds (past must be false, then true, along the sequence), or end().
    // `hint`: a position near which the answer may lie (any value; it changes no answer, only the time).
    template <class Past>
    Pos first_past(Past past, Pos hint = {}) const {
        if (hint.chunk < chunks_.size()) {
            // Most queries land near the hint: search its chunk first; the answer is there unless every element of
            // the chunk is past (and the chunk before has one that is not) or none is.
            const auto& chunk = chunks_[hint.chunk];
            const auto from = chunk.begin() + static_cast<std::ptrdiff_t>(std::min(hint.i, chunk.size()));
            const auto it = first_past_near(chunk.begin(), chunk.end(), from, past);
            const bool earlier = it == chunk.begin() && hint.chunk > 0 && past(backs_[hint.chunk - 1]);
            if (it != chunk.end() && !earlier) return Pos{hint.chunk, static_cast<std::size_t>(it - chunk.begin())};
        }
        const std::size_t c = first_chunk_past(past, hint.chunk);
        if (c == chunks_.size()) return end();
        const auto& chunk = chunks_[c];
        const auto it = std::partition_point(chunk.begin(), chunk.end(), [&](const T& x) { return !past(x); });
        return Pos{c, static_cast<std::size_t>(it - chunk.begin())};
    }

    // Inserts x before position p (end(): after the last element).
    void insert(Pos p, const T& x) {
        ++size_;
        if (chunks_.empty()) {
            start_chunk(x);
            return;
        }
        if (at_end(p)) {
            // Appending: start a new chunk when the last is full (no half-empty chunks behind the end).
            if (chunks_.back().size() == kMaxChunk) {
                start_chunk(x);
                return;
            }
            p = Pos{chunks_.size() - 1, chunks_.back().size()};
        }
        if (chunks_[p.chunk].size() == kMaxChunk) {
            // Split a full chunk before inserting (inserting first would double its capacity for nothing).
            split(p.chunk);
            if (p.i > kMaxChunk / 2) p = Pos{p.chunk + 1, p.i - kMaxChunk / 2};
        }
        auto& chunk = chunks_[p.chunk];
        chunk.insert(chunk.begin() + static_cast<std::ptrdiff_t>(p.i), x);
        if (p.i + 1 == chunk.size()) backs_[p.chunk] = x;
    }

    // Replaces the element at p (the order must stay as it was).
    void set(Pos p, const T& x) {
        auto& chunk = chunks_[p.chunk];
        chunk[p.i] = x;
        if (p.i + 1 == chunk.size()) backs_[p.chunk] = x;
    }

    // Erases the element at p; returns the position of the element that followed it.
    Pos erase(Pos p) {
        LOOM_DEBUG_ASSERT(!at_end(p), "chunked sequence: erase at end");
        --size_;
        auto& chunk = chunks_[p.chunk];
        chunk.erase(chunk.begin() + static_cast<std::ptrdiff_t>(p.i));
        if (chunk.empty()) {
            chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(p.chunk));
            backs_.erase(backs_.begin() + static_cast<std::ptrdiff_t>(p.chunk));
            return Pos{p.chunk, 0};
        }
        if (p.i == chunk.size()) {
            backs_[p.chunk] = chunk.back();
            return Pos{p.chunk + 1, 0};
        }
        return p;
    }

    // The elements in order (for tests and inspection).
    std::vector<T> to_vector() const {
        std::vector<T> v;
        v.reserve(size_);
        for (const auto& chunk : chunks_) v.insert(v.end(), chunk.begin(), chunk.end());
        return v;
    }
    std::size_t chunks() const { return chunks_.size(); }
    // Chunk c's elements, in order (never empty), and its last element: for searches that walk a chunk directly.
    const std::vector<T>& chunk(std::size_t c) const { return chunks_[c]; }
    const T& chunk_back(std::size_t c) const { return backs_[c]; }

private:
    // The first chunk whose last element is past (then the answer lies in it), or the chunk count.
    template <class Past>
    std::size_t first_chunk_past(Past past, std::size_t hint) const {
        const auto from = backs_.begin() + static_cast<std::ptrdiff_t>(std::min(hint, backs_.size()));
        return static_cast<std::size_t>(first_past_near(backs_.begin(), backs_.end(), from, past) - backs_.begin());
    }

    // A new last chunk holding x, with room for kFirstChunk elements: the growth through 1 and 2 elements (a
    // reallocation each) is skipped.
    void start_chunk(const T& x) {
        std::vector<T> chunk;
        chunk.reserve(kFirstChunk);
        chunk.push_back(x);
        chunks_.push_back(std::move(chunk));
        backs_.push_back(x);
    }

    void split(std::size_t c) {
        auto& chunk = chunks_[c];
        const auto half = static_cast<std::ptrdiff_t>(kMaxChunk / 2);
        // The upper half is about to take an element: its room for a whole chunk now, not on that insert.
        std::vector<T> upper;
        upper.reserve(kMaxChunk);
        upper.assign(chunk.begin() + half, chunk.end());
        chunk.erase(chunk.begin() + half, chunk.end());
        backs_[c] = chunk.back();
        const T upper_back = upper.back();
        chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(c) + 1, std::move(upper));
        backs_.insert(backs_.begin() + static_cast<std::ptrdiff_t>(c) + 1, upper_back);
    }

    std::vector<std::vector<T>> chunks_;
    std::vector<T> backs_;  // backs_[c] == chunks_[c].back()
    std::size_t size_ = 0;
};

}  // namespace loom::sched::detail
