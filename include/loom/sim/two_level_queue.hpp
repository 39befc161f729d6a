// Two-level bucket event queue: a coarse ring of unsorted windows ahead of a fine array of narrow buckets
// for the current window, so that most buckets hold zero or one event and popping needs almost no sorting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "loom/base/assert.hpp"
#include "loom/sim/event.hpp"
#include "loom/sim/event_queue.hpp"
#include "loom/sim/heap_queue.hpp"
#include "loom/sim/sorted_run.hpp"

namespace loom::sim {

// Layout. Time is cut into windows of W = kFine << fine_shift ps (W a power of two, window k covering
// [k W, (k + 1) W)). Every pending event is in exactly one of four places:
//   current  — a sorted vector holding every event with t < cur_end (the fine buckets drained last, plus any
//              push that lands before their end); pop reads it front to back;
//   fine     — events of the current window with cur_end <= t < near_end, in kFine buckets of 2^fine_shift
//              ps, one bit per bucket marking the non-empty ones;
//   coarse   — events of the next `coarse` windows (near_end <= t < far_end), one unsorted chain per window
//              in a ring, one bit per window;
//   overflow — events at or past far_end, in a 4-ary heap, pulled into the ring as the windows advance.
// Both levels thread singly linked chains through one pool of 24-byte nodes recycled through a LIFO free list
// (the node a pop frees is the one the next push fills, so it is still in cache). A node stores its time as
// the offset inside its window, which is the same at both levels: moving a coarse window into the fine array
// only relinks its nodes (bucket = offset >> fine_shift), it never rewrites them.
// Popping. When `current` runs out, the next non-empty fine buckets are drained into it (each bucket's chain
// copied out and, only if it holds more than one event, sorted) until it holds a few events or the window
// ends, so the run loop can see the next events ahead (peek). When the fine array is empty the next
// non-empty coarse window is spread over it.
// Memory: 24 bytes per ring event plus 4 bytes per fine bucket and per coarse window; the coarse ring is
// kept at most max(kMinCoarse, pending) windows long.
//
// Tuning. After kTuneEvents drained events the queue sets fine_shift so that a fine bucket holds about one
// event at the observed pop rate (two_level_queue.cpp has the bench-tuned figures), and doubles the ring while more than 1/kOverflowRatio of
// the drained events came through the overflow heap; if either changes it rebuilds itself (O(pending), rare).
// Pop order never depends on tuning: it is fixed by (time, key) alone.
class TwoLevelQueue {
public:
    static constexpr int kFineLog2 = 8;  // small windows: a window's nodes stay in L1 from relink to pop
    static constexpr std::size_t kFine = std::size_t{1} << kFineLog2;  // fine buckets per window
    static constexpr int kMaxFineShift = 32 - kFineLog2;                // offsets inside a window are 32-bit
    static constexpr int kDefaultFineShift = 6;    // 64 ps buckets: a guess the tuner corrects at once
    static constexpr std::size_t kMinCoarse = 64;  // one occupancy word
    static constexpr std::size_t kMaxCoarse = std::size_t{1} << 22;
    static constexpr std::uint64_t kTuneEvents = 1 << 14;  // drained events between tuning checks
    static constexpr std::uint64_t kOverflowRatio = 256;

    // `adaptive` false pins fine_shift and the ring (tests use it to force the wrap-around and overflow paths).
    explicit TwoLevelQueue(int fine_shift = kDefaultFineShift, std::size_t coarse = kMinCoarse,
                           bool adaptive = true);

    void push(const Event& e) {
        LOOM_DEBUG_ASSERT(e.time >= 0, "TwoLevelQueue::push: negative time");
        ++size_;
        const std::int64_t t = e.time;
        if (t >= near_end_) [[likely]] {
            if (t < far_end_) [[likely]] {
                const auto b = (static_cast<std::uint64_t>(t) >> window_shift_) & coarse_mask_;
                link(e, coarse_heads_.data(), coarse_bits_.data(), b);
                ++coarse_count_;
                return;
            }
            ++win_overflow_;
            overflow_.push(e);
            return;
        }
        if (t >= cur_end_) [[likely]] {
            link(e, fine_heads_.data(), fine_bits_.data(), (static_cast<std::uint64_t>(t) & window_mask_) >> fine_shift_);
            return;
        }
        run_.insert(e);  // t < cur_end: into the sorted run
    }
    const Event& top() {
        if (run_.exhausted()) [[unlikely]] refill();
        return run_.front();
    }
    void pop() {
        run_.pop_front();
        --size_;
    }
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    void clear();
    std::size_t bytes_held() const;
    // The most bytes_held() has been since construction (a rebuild releases buffers, so the current holding
    // can be below an earlier one).
    std::size_t peak_bytes() const;
    // The drained events are known in order; past them, nothing is.
    const Event* peek(std::size_t k) const { return run_.peek(k); }
    template <class F>
    void for_each(F&& f) const {
        run_.for_each(f);
        for (std::size_t b = 0; b < kFine; ++b) each_in_chain(fine_heads_[b], near_start_, f);
        const std::uint64_t k0 = static_cast<std::uint64_t>(near_start_) >> window_shift_;
        for (std::uint64_t s = 0; s <= coarse_mask_; ++s) {
            const std::uint64_t k = k0 + 1 + ((s - (k0 + 1)) & coarse_mask_);
            each_in_chain(coarse_heads_[s], static_cast<std::int64_t>(k << window_shift_), f);
        }
        overflow_.for_each(f);
    }

    // Current tuning, for benchmarks and tests.
    int fine_shift() const { return fine_shift_; }
    std::size_t coarse_windows() const { return coarse_heads_.size(); }
    std::uint64_t rebuilds() const { return rebuilds_; }

private:
    static constexpr std::uint32_t kNil = 0xffffffffu;

    struct Node {
        std::uint32_t offset;  // time - window start, < 2^window_shift
        std::uint32_t next;
        std::uint64_t key;
        std::uint32_t target;
        std::uint32_t arg;
    };
    static_assert(sizeof(Node) == 24);

    void link(const Event& e, std::uint32_t* heads, std::uint64_t* bits, std::uint64_t b) {
        std::uint32_t n = free_;
        if (n != kNil) [[likely]] {
            free_ = pool_[n].next;
        } else {
            n = grow_pool();
        }
        // Field by field: a Node built on the stack and copied stalls on store forwarding.
        Node& node = pool_[n];
        node.offset = static_cast<std::uint32_t>(static_cast<std::uint64_t>(e.time) & window_mask_);
        node.next = heads[b];
        node.key = e.key;
        node.target = e.target;
        node.arg = e.arg;
        heads[b] = n;
        bits[b >> 6] |= std::uint64_t{1} << (b & 63);
    }
    template <class F>
    void each_in_chain(std::uint32_t n, std::int64_t start, F& f) const {
        for (; n != kNil; n = pool_[n].next) {
            const Node& node = pool_[n];
            f(Event{start + node.offset, node.key, node.target, node.arg});
        }
    }
    std::uint32_t grow_pool();
    void refill();                        // current run exhausted: drain the next fine buckets
    void next_window();                   // fine array empty: spread the next non-empty window over it
    void pull_overflow();                 // overflow events now before far_end go to the ring
    void maybe_retune();
    void rebuild(int fine_shift, std::size_t coarse);
    void reset(int fine_shift, std::size_t coarse, std::int64_t start);

    int fine_shift_ = kDefaultFineShift;
    int window_shift_ = 0;            // fine_shift + kFineLog2
    std::uint64_t window_mask_ = 0;   // W - 1
    std::uint64_t coarse_mask_ = 0;   // coarse windows - 1
    bool adaptive_;
    std::int64_t cur_end_ = 0;     // every pending event before it is in run_
    std::int64_t near_start_ = 0;  // the current (fine) window ...
    std::int64_t near_end_ = 0;
    std::int64_t far_end_ = 0;     // ... and the end of the coarse ring
    SortedRun run_;  // the drained events
    std::vector<std::uint32_t> fine_heads_;
    std::vector<std::uint64_t> fine_bits_;
    std::vector<std::uint32_t> coarse_heads_;
    std::vector<std::uint64_t> coarse_bits_;
    std::size_t coarse_count_ = 0;
    std::vector<Node> pool_;
    std::uint32_t free_ = kNil;
    HeapQueue overflow_;
    std::size_t size_ = 0;
    // Tuning window.
    std::uint64_t win_events_ = 0, win_overflow_ = 0;
    std::int64_t win_start_ = 0;
    std::uint64_t rebuilds_ = 0;
    std::size_t peak_bytes_ = 0;
};

static_assert(EventQueue<TwoLevelQueue>);

}  // namespace loom::sim
