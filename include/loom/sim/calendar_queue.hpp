// Calendar event queue, the kernel's default: a sliding ring of fixed-width time buckets holding unsorted
// linked events, each bucket sorted only when it becomes current, with an overflow heap past the ring and
// self-tuning bucket width and ring size. O(1) amortized push and pop on the workloads the kernel runs.
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

// Layout. Buckets are 2^shift ps wide; the ring has `buckets` (a power of two) of them and covers the
// bucket-aligned window [cur_end, horizon) ahead of the current bucket, an event at t living in bucket
// (t >> shift) & (buckets - 1). Every pending event is in exactly one of three places:
//   current  — every event with t < cur_end, in two sorted vectors: the run (the buckets being popped, as
//              loaded) and near (pushes that land in them later, mostly a link delay ahead, so mostly in
//              time order: inserted from the back without moving the run). Pop takes the lesser front;
//   ring     — events with cur_end <= t < horizon, as singly linked lists threaded through a pool of 24-byte
//              nodes recycled through a free list. A node stores the event's time as its offset inside its
//              bucket (the bucket's start follows from the ring position when it is loaded), which frees the
//              room for the link: one cache access per event. One bit per bucket marks non-empty ones, so empty
//              stretches are skipped 64 buckets at a time;
//   overflow — events at or past the horizon, in a 4-ary heap, pulled into the ring as the window slides.
// Loading. When `current` runs out, the next non-empty bucket is loaded together with up to kGroup - 1
// non-empty buckets that follow it closely: their chains are walked in lockstep so that the cache misses of
// the walks overlap (a chain walk is a string of dependent misses, and was most of the queue's cost); each
// bucket is sorted on its own (a branch-free rank sort: buckets hold a handful of events) and the sorted
// runs are concatenated. A push writes its node at once but links it into its bucket only at the next push,
// after prefetching the bucket head: the head array is too large for L1 and the delay hides the miss.
// Memory: 24 bytes per ring event plus 4.125 bytes per bucket; the tuner keeps buckets <= pending (rounded
// down to a power of two), so the total stays under 32 bytes per pending event at peak (bench/README.md has
// the measured figure).
//
// Tuning. Every kTuneWindow bucket activations (or sooner when the buckets hold four times too many events)
// the queue compares what it saw with its targets and, if a power-of-two parameter should change, rebuilds
// itself (O(pending), rare):
//   width — about kTargetPerBucket events popped per bucket, from the pop rate over the window (few events
//           per bucket make sorting trivial; measured best on PHOLD and hold workloads);
//   ring  — long enough that under 1/16 of pushes land in the overflow heap; shortened again when overflow
//           falls under 1/4096 and the length is what forces buckets wider than wanted; never more than
//           max(kMinBuckets, pending) buckets (the memory target): the width grows instead when that binds.
// Pop order never depends on tuning: it is fixed by (time, key) alone.
class CalendarQueue {
public:
    static constexpr int kDefaultShift = 10;                // 1024 ps: a guess the tuner corrects within a window
    static constexpr std::size_t kMinBuckets = 256;         // ring floor: 1 KiB of bucket heads
    static constexpr std::size_t kMaxBuckets = std::size_t{1} << 24;
    static constexpr int kMaxShift = 32;                    // 2^32 ps = 4.3 ms per bucket (offsets are 32-bit)
    static constexpr std::uint64_t kTargetPerBucket = 4;    // events per activated bucket (bench-tuned)
    static constexpr std::uint64_t kTuneWindow = 1024;      // activations between tuning checks
    static constexpr std::size_t kGroup = 4;                // buckets loaded together (bench-tuned: 2 < 4 = 8)
    static constexpr std::uint64_t kGroupReach = 4;         // ... each within this many buckets of the previous

    // `adaptive` false pins shift and buckets (tests use it to force overflow and wrap-around paths).
    explicit CalendarQueue(int shift = kDefaultShift, std::size_t buckets = kMinBuckets, bool adaptive = true);

    void push(const Event& e) { push(e.time, e.key, e.target, e.arg); }
    // The same from the event's fields, which the common path writes straight into a ring node.
    void push(std::int64_t t, std::uint64_t key, std::uint32_t target, std::uint32_t arg) {
        LOOM_DEBUG_ASSERT(t >= 0, "CalendarQueue::push: negative time");
        ++size_;
        if (t >= cur_end_) [[likely]] {
            if (t < horizon_) [[likely]] {
                link(t, key, target, arg);
            } else {
                push_overflow(t, key, target, arg);
            }
            return;
        }
        // Into near_: before its front without moving it (over a popped slot), else from its back, inline
        // while its buffer has room there (push_near makes room).
        if (near_.try_insert_front(t, key, target, arg)) return;
        if (near_.try_insert_from_back(t, key, target, arg)) [[likely]] return;
        push_near(t, key, target, arg);
    }
    const Event& top() {
        pick_front();  // a push into near_ leaves from_near_ to be worked out here
        if (from_near_) [[unlikely]] return near_.front();
        if (run_.exhausted()) [[unlikely]] advance();
        return run_.front();
    }
    void pop() {
        --size_;
        if (from_near_) [[unlikely]] {
            near_.pop_front();
        } else {
            run_.pop_front();
            if (near_.exhausted()) [[likely]] return;
        }
        pick_front();
    }
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }

    // ---- for the kernel's run loop (Simulator::loop_calendar), which reads the events in place ----
    // The least pending event is the lesser of two sorted lists' fronts: the loaded run's and near_'s. The
    // run does not move while handlers push (pushes go to the ring, the overflow heap or near_), so the loop
    // walks it with a pointer of its own, from run_cursor() to run_limit(), telling the queue each pop
    // (run_popped); near_ may move at any push, so its front is read afresh (near_cursor, near_popped). The
    // loop keeps its own account of which front is least, as the queue does not once a push went to near_:
    // used through top() (which works out which front is least, as after every push into near_).
    bool near_pending() const { return !near_.exhausted(); }
    // Loads the next buckets if both lists are exhausted; false when the queue is empty.
    bool ready() {
        if (run_.exhausted() && near_.exhausted()) [[unlikely]] {
            if (size_ == 0) return false;
            advance();
        }
        return true;
    }
    const Event* run_cursor() const { return run_.cursor(); }
    const Event* run_limit() const { return run_.limit(); }
    const Event* near_cursor() const { return near_.cursor(); }
    void run_popped() {
        run_.pop_front();
        --size_;
    }
    void near_popped() {
        near_.pop_front();
        --size_;
    }

    void clear();
    std::size_t bytes_held() const;
    // The most bytes_held() has been since construction: capacities only grow, except that a rebuild releases
    // the load buffers, so this is the figure the per-event memory budget is checked against.
    std::size_t peak_bytes() const;
    // Events of the current bucket are known in order; past it, nothing is. With pushes into the current
    // bucket pending (near_), the next event is the lesser of the two fronts and the one after it is guessed
    // as the other front (a hint: the kernel only prefetches with it).
    const Event* peek(std::size_t k) const {
        if (near_.exhausted()) [[likely]] return run_.peek(k);
        const Event* next = from_near_ ? &near_.front() : run_.peek(0);
        const Event* other = from_near_ ? run_.peek(0) : &near_.front();
        return k == 0 ? next : k == 1 ? other : nullptr;
    }
    template <class F>
    void for_each(F&& f) const {
        run_.for_each(f);
        near_.for_each(f);
        for (std::size_t b = 0; b < heads_.size(); ++b) {
            const std::int64_t start = bucket_start(b);
            for (std::uint32_t n = heads_[b]; n != kNil; n = pool_[n].next) {
                const Node& node = pool_[n];
                f(Event{start + node.offset, node.key, node.target, node.arg});
            }
        }
        if (staged_ != kNil) {
            const Node& node = pool_[staged_];
            f(Event{bucket_start(staged_bucket_) + node.offset, node.key, node.target, node.arg});
        }
        overflow_.for_each(f);
    }

    // Current tuning, for benchmarks and tests.
    int shift() const { return shift_; }
    std::size_t buckets() const { return heads_.size(); }
    std::uint64_t rebuilds() const { return rebuilds_; }

private:
    static constexpr std::uint32_t kNil = 0xffffffffu;

    // A ring entry: the event minus the high bits of its time, plus the link to the next entry of its bucket.
    struct Node {
        std::uint32_t offset;  // time - bucket start, < 2^shift
        std::uint32_t next;
        std::uint64_t key;
        std::uint32_t target;
        std::uint32_t arg;
    };
    static_assert(sizeof(Node) == 24);

    // Puts `e` (cur_end <= t < horizon) into its ring bucket. The bucket head is only prefetched here and
    // written at the next link (or before anything walks the ring, see commit_staged): the head array is
    // too large to stay in L1, and the one-push delay hides the miss.
    void link(const Event& e) { link(e.time, e.key, e.target, e.arg); }
    void link(std::int64_t time, std::uint64_t key, std::uint32_t target, std::uint32_t arg) {
        const auto t = static_cast<std::uint64_t>(time);
        const std::uint64_t b = (t >> shift_) & mask_;
        __builtin_prefetch(&heads_[b]);
        const std::uint32_t n = free_;
        if (n == kNil) [[unlikely]] {
            link_grown(time, key, target, arg);  // a tail call: the common path saves no registers
            return;
        }
        free_ = pool_[n].next;
        place(n, b, t, key, target, arg);
    }
    // Writes free node n for bucket b, field by field (a Node built on the stack and copied stalls on store
    // forwarding), and stages it.
    void place(std::uint32_t n, std::uint64_t b, std::uint64_t t, std::uint64_t key, std::uint32_t target,
               std::uint32_t arg) {
        Node& node = pool_[n];
        node.offset = static_cast<std::uint32_t>(t & width_mask_);
        node.key = key;
        node.target = target;
        node.arg = arg;
        occupied_[b >> 6] |= std::uint64_t{1} << (b & 63);
        if (staged_ != kNil) commit(staged_, staged_bucket_);
        staged_ = n;
        staged_bucket_ = b;
    }
    void commit(std::uint32_t n, std::uint64_t b) {
        pool_[n].next = heads_[b];
        heads_[b] = n;
    }
    // Links the node whose head write is still pending; called before any walk of the ring.
    void commit_staged() {
        if (staged_ != kNil) {
            commit(staged_, staged_bucket_);
            staged_ = kNil;
        }
    }
    std::uint32_t grow_pool();  // appends an uninitialized node
    void link_grown(std::int64_t time, std::uint64_t key, std::uint32_t target, std::uint32_t arg);  // pool full
    // t < cur_end: into near_
    void push_near(std::int64_t time, std::uint64_t key, std::uint32_t target, std::uint32_t arg);
    // t >= horizon: into the overflow heap
    void push_overflow(std::int64_t time, std::uint64_t key, std::uint32_t target, std::uint32_t arg);
    // Sets from_near_: whether the least event before cur_end is near_'s front rather than run_'s.
    void pick_front() {
        from_near_ = !near_.exhausted() && (run_.exhausted() || before(near_.front(), run_.front()));
    }
    void advance();                  // current bucket exhausted: load the next non-empty one
    void pull_overflow();            // overflow events now inside the window go to the ring
    void maybe_retune();
    std::size_t runs_bytes() const;
    // Absolute start time of ring bucket b in the current window.
    std::int64_t bucket_start(std::uint64_t b) const {
        const std::uint64_t first = (static_cast<std::uint64_t>(cur_end_) >> shift_) & mask_;
        return cur_end_ + static_cast<std::int64_t>(((b - first) & mask_) << shift_);
    }
    void rebuild(int shift, std::size_t buckets);
    void reset_ring(int shift, std::size_t buckets, std::int64_t cur_end);

    int shift_;
    std::uint64_t mask_ = 0;        // buckets - 1
    std::uint64_t width_mask_ = 0;  // 2^shift - 1
    bool adaptive_;
    std::int64_t cur_end_ = 0;  // end of the current bucket: every event before it is in run_
    std::int64_t horizon_ = 0;  // end of the ring window
    std::vector<std::uint32_t> heads_;
    std::vector<std::uint64_t> occupied_;
    std::vector<Node> pool_;
    std::uint32_t staged_ = kNil;  // node written but not yet linked into bucket staged_bucket_
    std::uint64_t staged_bucket_ = 0;
    std::uint32_t free_ = kNil;
    SortedRun run_;                          // the current buckets' events as loaded
    // Events pushed after the current buckets were loaded that fall before cur_end (a packet's arrival a
    // link delay ahead, when buckets are wider than that). Kept apart from run_ so that inserting one does
    // not move the loaded events after it: they arrive nearly in time order, so near_ stays short and most
    // inserts append. The queue's least event is the lesser of the two fronts: from_near_ says which, worked
    // out by top() and kept by pop() (the pop order is exactly the single sorted run's); a push into near_
    // leaves it for the next top() (peek() is a hint: it may be stale after a push).
    SortedRun near_;
    bool from_near_ = false;  // near_ holds the least pending event
    std::vector<Event> runs_[kGroup - 1];  // scratch: the later buckets of a grouped load
    HeapQueue overflow_;
    std::size_t size_ = 0;
    // Tuning window.
    std::uint64_t win_activations_ = 0, win_loaded_ = 0, win_overflow_ = 0;
    std::int64_t win_start_ = 0;
    int min_year_log2_ = 0;  // log2 of the shortest ring (ps) that did not overflow too much
    std::uint64_t rebuilds_ = 0;
    std::size_t peak_bytes_ = 0;  // bytes_held() just before each rebuild released the load buffers
};

static_assert(EventQueue<CalendarQueue>);

}  // namespace loom::sim
