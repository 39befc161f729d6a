// Radix event queue: a ring of wide, unsorted time windows filled by appending to chunks of events, each
// window radix-sorted by its events' offsets when it becomes current. No linked nodes per event, no
// per-event allocation, and no comparison sort on the common path.
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

// Layout. Windows are 2^shift ps wide; the ring has `windows` (a power of two) of them and covers
// [cur_end, horizon) ahead of the current window, an event at t living in window (t >> shift) & (windows - 1).
// Every pending event is in exactly one of three places:
//   current  — a sorted vector holding every event with t < cur_end (the window being popped, plus any push
//              that lands in it); pop reads it front to back, so the run loop can see the next events (peek);
//   ring     — events with cur_end <= t < horizon, appended unsorted to their window: a window is a list of
//              chunks of kChunk events (whole Events, contiguous), recycled through a free list of chunks.
//              A push writes one event at the window's tail (the tails of the live windows stay in L1);
//   overflow — events at or past the horizon, in a 4-ary heap, pulled into the ring as the window slides.
// Loading. When `current` runs out, the next non-empty window is sorted into it: one counting-sort pass on
// the top bits of the events' offsets inside the window (bit_width(events) of them, at most kDigitBits; both
// reads of the window walk its chunks in order) spreads them over 1-2 fine buckets per event, then an
// insertion pass orders each fine bucket by (time, key); its inner loop runs only for the few events that
// arrived out of order inside a fine bucket. A pass that moves over 8 events per event (bursts at one time)
// sorts the window by comparison instead, and windows wider than 2^16 ps (sparse workloads) sort by comparison.
// Memory: 24 bytes per ring event, the unused tail of each window's last chunk, 16 bytes per window, and the
// load buffer (the largest window's events); the tuner keeps windows <= pending / kMinPerWindow (at least
// kMinWindows), which keeps the chunk tails small next to the events.
//
// Tuning. Every kTuneWindow window activations the queue compares what it saw with its targets and, if a
// power-of-two parameter should change, rebuilds itself (O(pending), rare):
//   width — about kTargetPerWindow events per window, from the pop rate over the tuning window;
//   ring  — long enough that under 1/16 of pushes land in the overflow heap; shortened again when overflow
//           falls under 1/4096 and the length is what forces windows wider than wanted.
// Pop order never depends on tuning: it is fixed by (time, key) alone.
class RadixQueue {
public:
    static constexpr int kDefaultShift = 11;                 // 2048 ps: a guess the tuner corrects at once
    static constexpr int kDigitBits = 8;                     // at most 256 fine buckets per window
    static constexpr int kMaxShift = 32;                     // 2^32 ps = 4.3 ms per window
    static constexpr std::size_t kMinWindows = 64;
    static constexpr std::size_t kDefaultWindows = 256;      // with the default width, a 524 ns ring
    static constexpr std::size_t kMaxWindows = std::size_t{1} << 22;
    static constexpr std::size_t kChunk = 16;                // events per chunk: 384 bytes, six cache lines
    static constexpr std::uint64_t kTargetPerWindow = 64;    // events per activated window (bench-tuned: 32-128
                                                             // alike on PHOLD, 512 and up slower)
    static constexpr std::uint64_t kMinPerWindow = 16;       // memory: windows <= pending / this
    static constexpr std::uint64_t kTuneWindow = 64;         // activations between tuning checks

    // `adaptive` false pins shift and windows (tests use it to force overflow and wrap-around paths).
    explicit RadixQueue(int shift = kDefaultShift, std::size_t windows = kDefaultWindows, bool adaptive = true);

    void push(const Event& e) { push(e.time, e.key, e.target, e.arg); }
    // The same from the event's fields, which the common path writes straight into the window's chunk.
    void push(std::int64_t time, std::uint64_t key, std::uint32_t target, std::uint32_t arg) {
        LOOM_DEBUG_ASSERT(time >= 0, "RadixQueue::push: negative time");
        --slack_;
        // cur_end_ <= t < horizon_ as one unsigned comparison (t < cur_end_ wraps to a large offset).
        if (static_cast<std::uint64_t>(time - cur_end_) < span_) [[likely]] {
            append(time, key, target, arg);
            return;
        }
        push_slow(time, key, target, arg);
    }
    // push() for an event inside the ring (returns true: its window's head chunk has room fifteen pushes
    // in sixteen, else a new chunk is taken by a call); an event outside it changes nothing and returns false, and
    // the caller calls push(). For Simulator::push_to, whose common path then needs no saved register (the
    // slow paths' arguments are set up only where they are taken).
    // The ring test is two comparisons with memory, the horizon first: a refusing queue (refuse_try_push) has
    // its horizon at 0, so that it refuses in one.
    bool try_push(std::int64_t time, std::uint64_t key, std::uint32_t target, std::uint32_t arg) {
        if (time >= horizon_) return false;
        if (time < cur_end_) return false;
        Window& w = windows_[(static_cast<std::uint64_t>(time) >> shift_) & mask_];
        --slack_;
        if (!take_room(w)) [[unlikely]] {
            append_chunk(w, time, key, target, arg);
            return true;
        }
        put(w, w.write, time, key, target, arg);
        return true;
    }
    // From now on, while nothing else is pushed or popped, try_push refuses every event (returns false): for a
    // simulator with another queue kind, which never uses this queue otherwise but calls try_push first on its
    // channel sends (Simulator::push_channel), so that the radix queue's send path needs no test of the kind.
    // The queue stays correct if it is used (push() then takes the slow path, through the overflow heap, and
    // the first load restores the horizon), only slower; clear() restores the ring.
    void refuse_try_push() {
        span_ = 0;
        horizon_ = 0;
    }
    const Event& top() {
        if (run_.exhausted()) [[unlikely]] advance();
        return run_.front();
    }
    void pop() {
        run_.pop_front();
        ++slack_;
    }
    // pop(), telling whether the queue held more events than the mark (raise_mark) before it: one add to
    // memory and a branch on the sign of its result, for the kernel's batch dispatch, which samples the peak
    // of pending events before each pop (Simulator::next_in_batch).
    bool pop_above_mark() {
        run_.pop_front();
        return ++slack_ < 0;
    }
    void raise_mark(std::size_t level) {
        const std::int64_t m = static_cast<std::int64_t>(level) - 1;
        slack_ += m - mark_;
        mark_ = m;
    }
    // For the kernel's run loop, which reads the current window in place: the least event (loading the next
    // window when the current one is exhausted), nullptr when the queue is empty. The event stays where it is
    // until the next push or pop: a push may move the current window's events.
    const Event* front() {
        if (run_.exhausted()) [[unlikely]] {
            if (size() == 0) return nullptr;
            advance();
        }
        const Event* const e = run_.cursor();
        if (e == nullptr) __builtin_unreachable();  // a run that is not exhausted has a buffer
        return e;
    }
    // One past the current window's last event: front()[1], front()[2], ... up to it are the next events, in
    // place (until the next push or pop). While the window is not exhausted, front()[1] and front()[2] may be
    // read even past it (SortedRun::kPad): there they are stale events, good for nothing but a prefetch.
    const Event* window_end() const { return run_.limit(); }
    // The current window's next event in place, without loading the next window: window_end() when the
    // window is exhausted. For the kernel's batch dispatch (Simulator::next_in_batch), while the queue is not
    // empty and a window has been loaded: then window_end() is SortedRun::kSentinel (time INT64_MAX), so that
    // a reader whose time limit is below INT64_MAX needs no test for the window's end.
    const Event* window_cursor() const { return run_.cursor(); }
    std::size_t size() const { return static_cast<std::size_t>(mark_ - slack_); }
    bool empty() const { return size() == 0; }
    void clear();
    std::size_t bytes_held() const;
    // The most bytes_held() has been since construction (a rebuild releases the load buffers and the heap).
    std::size_t peak_bytes() const;
    const Event* peek(std::size_t k) const { return run_.peek(k); }
    template <class F>
    void for_each(F&& f) const {
        run_.for_each(f);
        for (const Window& w : windows_) {
            if (w.head != kNil) each_in(w, f);
        }
        overflow_.for_each(f);
    }

    // Current tuning, for benchmarks and tests.
    int shift() const { return shift_; }
    std::size_t windows() const { return windows_.size(); }
    std::uint64_t rebuilds() const { return rebuilds_; }

private:
    static constexpr std::uint32_t kNil = 0xffffffffu;

    // 16 bytes (a window's address is its index shifted). Its chunks are listed newest first: a new chunk
    // becomes the head, so no tail is kept (the order events are visited in does not matter to the sort). The
    // window keeps no event count: a push only counts the head chunk's free places down (one decrement in
    // memory, whose zero flag is the test for a full chunk or an empty window), and a load counts the chunks.
    struct Window {
        Event* write;        // where the next event goes in the head chunk, while room > 1
        std::uint32_t head;  // newest chunk, the only one not full (kNil when empty)
        std::uint8_t room;   // 1 + the free places in the head chunk (1 when empty)
    };
    static_assert(sizeof(Window) == 16);
    // Takes a place in w's head chunk: false when it is full or w is empty (room is then 0, to be set again
    // by the caller).
    static bool take_room(Window& w) { return --w.room != 0; }
    // Events in a non-empty window.
    std::size_t count_of(const Window& w) const {
        std::size_t chunks = 1;
        for (std::uint32_t c = next_[w.head]; c != kNil; c = next_[c]) ++chunks;
        return chunks * kChunk + 1 - w.room;
    }
    // Calls f on each event of a non-empty window (the head chunk's, then the full chunks'); returns the
    // window's last (oldest) chunk.
    template <class F>
    std::uint32_t each_in(const Window& w, F&& f) const {
        std::uint32_t c = w.head;
        const Event* chunk = &pool_[std::size_t{c} * kChunk];
        const std::size_t first = kChunk + 1 - w.room;
        for (std::size_t k = 0; k < first; ++k) f(chunk[k]);
        for (std::uint32_t d = next_[c]; d != kNil; d = next_[d]) {
            c = d;
            chunk = &pool_[std::size_t{c} * kChunk];
            for (std::size_t k = 0; k < kChunk; ++k) f(chunk[k]);
        }
        return c;
    }

    void append(const Event& e) { append(e.time, e.key, e.target, e.arg); }
    // Every call on the push path is a tail call (append_chunk, push_slow), so that the inlined common path
    // saves no registers: a push is about twenty instructions.
    void append(std::int64_t time, std::uint64_t key, std::uint32_t target, std::uint32_t arg) {
        const auto t = static_cast<std::uint64_t>(time);
        Window& w = windows_[(t >> shift_) & mask_];
        if (!take_room(w)) [[unlikely]] {
            append_chunk(w, time, key, target, arg);
            return;
        }
        put(w, w.write, time, key, target, arg);
    }
    static void put(Window& w, Event* p, std::int64_t time, std::uint64_t key, std::uint32_t target,
                    std::uint32_t arg) {
        w.write = p + 1;
        p->time = time;
        p->key = key;
        p->target = target;
        // Keeps g++'s SLP vectorizer from pairing the two 32-bit stores through a vector register (four
        // instructions instead of two where the push is inlined into a handler).
        asm("");
        p->arg = arg;
    }
    // append() when w's head chunk is full (or w is empty; either way room is not yet reset): a new chunk at
    // the head of w's list.
    // Not inlined: try_push, inlined into the kernel's send paths, calls it.
    [[gnu::noinline]] void append_chunk(Window& w, std::int64_t time, std::uint64_t key, std::uint32_t target,
                                        std::uint32_t arg);
    // append_chunk() when the free list is empty: grows the pool first (not inlined there, so that it stays a
    // tail call).
    [[gnu::noinline]] void append_grown(Window& w, std::int64_t time, std::uint64_t key, std::uint32_t target,
                                        std::uint32_t arg);
    std::uint32_t grow_pool();  // a new chunk on the free list (which was empty); returns it
    // Into the current window or the overflow heap.
    void push_slow(std::int64_t time, std::uint64_t key, std::uint32_t target, std::uint32_t arg);
    void advance();                      // current window exhausted: sort the next non-empty one into it
    void load(Window& w, std::int64_t start);
    void pull_overflow();                // overflow events now inside the ring go to their windows
    void maybe_retune();
    void rebuild(int shift, std::size_t windows);
    void reset_ring(int shift, std::size_t windows, std::int64_t cur_end);

    int shift_;
    std::uint64_t mask_ = 0;  // windows - 1
    bool adaptive_;
    std::int64_t cur_end_ = 0;  // end of the current window: every event before it is in run_
    std::int64_t horizon_ = 0;  // end of the ring
    std::uint64_t span_ = 0;    // horizon_ - cur_end_: the ring's length, windows << shift
    std::vector<Window> windows_;
    std::vector<Event> pool_;           // chunk c is pool_[c * kChunk, (c + 1) * kChunk)
    std::vector<std::uint32_t> next_;   // chunk links: a window's list, or the free list
    std::uint32_t free_ = kNil;
    SortedRun run_;  // the current window's events
    HeapQueue overflow_;
    // The number of events is mark_ - slack_: pushes count slack_ down, pops up. mark_ is the mark (0 until
    // raise_mark) less one, so that "more than the mark before the pop" is "slack_ negative after it".
    std::int64_t mark_ = -1;
    std::int64_t slack_ = -1;
    // Tuning window.
    std::uint64_t win_activations_ = 0, win_loaded_ = 0, win_overflow_ = 0;
    std::int64_t win_start_ = 0;
    int min_year_log2_ = 0;  // log2 of the shortest ring (ps) that did not overflow too much
    std::uint64_t rebuilds_ = 0;
    std::size_t peak_bytes_ = 0;
};

static_assert(EventQueue<RadixQueue>);

}  // namespace loom::sim
