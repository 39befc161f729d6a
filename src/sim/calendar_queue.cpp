#include "loom/sim/calendar_queue.hpp"

#include <algorithm>
#include <bit>

#include "ring_tuning.hpp"

namespace loom::sim {

using ring::align_down;
using ring::floor_pow2;

namespace {

// Sorts v[0..n) (n <= N) by rank: each event's position is the number of events before it (keys are
// unique). Free of data-dependent branches: the keys are padded to N with the largest value, so every inner
// loop runs exactly N times and unrolls. For the handful of events a bucket holds this beats insertion sort,
// whose mispredicted branches dominated, and std::sort.
template <std::size_t N>
void rank_sort(Event* v, std::size_t n) {
    __extension__ using U128 = unsigned __int128;
    U128 k[N];
    Event copy[N];
    for (std::size_t i = 0; i < n; ++i) {
        copy[i] = v[i];
        k[i] = (static_cast<U128>(static_cast<std::uint64_t>(v[i].time)) << 64) | v[i].key;
    }
    for (std::size_t i = n; i < N; ++i) k[i] = ~U128{0};
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t rank = 0;
        for (std::size_t j = 0; j < N; ++j) rank += static_cast<std::size_t>(k[j] < k[i]);
        v[rank] = copy[i];
    }
}

void sort_bucket(Event* v, std::size_t n) {
    if (n <= 1) return;
    if (n <= 4) return rank_sort<4>(v, n);
    if (n <= 8) return rank_sort<8>(v, n);
    if (n <= 16) return rank_sort<16>(v, n);
    std::sort(v, v + n, [](const Event& a, const Event& b) { return before(a, b); });
}

}  // namespace

CalendarQueue::CalendarQueue(int shift, std::size_t buckets, bool adaptive) : shift_(shift), adaptive_(adaptive) {
    LOOM_ASSERT(shift >= 0 && shift <= kMaxShift, "CalendarQueue: shift out of range");
    LOOM_ASSERT(buckets >= 64 && std::has_single_bit(buckets) && buckets <= kMaxBuckets,
                "CalendarQueue: buckets must be a power of two in 64..2^24");
    reset_ring(shift, buckets, 0);
}

void CalendarQueue::reset_ring(int shift, std::size_t buckets, std::int64_t cur_end) {
    shift_ = shift;
    mask_ = buckets - 1;
    width_mask_ = (std::uint64_t{1} << shift) - 1;
    heads_.assign(buckets, kNil);
    occupied_.assign(buckets / 64, 0);
    cur_end_ = cur_end;
    horizon_ = cur_end + (static_cast<std::int64_t>(buckets) << shift);
    pool_.clear();
    free_ = kNil;
    staged_ = kNil;
    win_activations_ = win_loaded_ = win_overflow_ = 0;
    win_start_ = cur_end;
}

void CalendarQueue::clear() {
    run_.clear();
    near_.clear();
    from_near_ = false;
    overflow_.clear();
    size_ = 0;
    reset_ring(shift_, heads_.size(), 0);
}

std::size_t CalendarQueue::peak_bytes() const { return std::max(peak_bytes_, bytes_held()); }

std::size_t CalendarQueue::bytes_held() const {
    return heads_.capacity() * sizeof(std::uint32_t) + occupied_.capacity() * sizeof(std::uint64_t) +
           pool_.capacity() * sizeof(Node) + run_.bytes_held() + near_.bytes_held() + overflow_.bytes_held() +
           runs_bytes();
}

std::size_t CalendarQueue::runs_bytes() const {
    std::size_t n = 0;
    for (const auto& run : runs_) n += run.capacity();
    return n * sizeof(Event);
}

std::uint32_t CalendarQueue::grow_pool() {
    const std::size_t n = pool_.size();
    LOOM_ASSERT(n < kNil, "CalendarQueue: more than 2^32 - 1 events in the ring");
    if (n == pool_.capacity()) {
        // Grow by a 64th rather than doubling: the pool is most of the queue's memory and its peak capacity
        // is what the per-event budget counts. The copies this costs happen while the population builds up.
        pool_.reserve(n + std::max<std::size_t>(n / 64, 1024));
    }
    pool_.emplace_back();
    return static_cast<std::uint32_t>(n);
}

void CalendarQueue::link_grown(std::int64_t time, std::uint64_t key, std::uint32_t target, std::uint32_t arg) {
    const auto t = static_cast<std::uint64_t>(time);
    place(grow_pool(), (t >> shift_) & mask_, t, key, target, arg);
}

void CalendarQueue::push_near(std::int64_t time, std::uint64_t key, std::uint32_t target, std::uint32_t arg) {
    // Lands in (or before) the buckets being popped; top() picks the front.
    near_.insert_from_back(Event{time, key, target, arg});
}

void CalendarQueue::push_overflow(std::int64_t time, std::uint64_t key, std::uint32_t target, std::uint32_t arg) {
    ++win_overflow_;
    overflow_.push(Event{time, key, target, arg});
}

void CalendarQueue::pull_overflow() {
    while (!overflow_.empty()) {
        const Event& e = overflow_.top();
        if (e.time >= horizon_) break;
        link(e);
        overflow_.pop();
    }
}

void CalendarQueue::advance() {
    LOOM_DEBUG_ASSERT(size_ > 0, "CalendarQueue::top on an empty queue");
    run_.clear();
    if (adaptive_ && (win_activations_ >= kTuneWindow || win_loaded_ >= kTuneWindow * kTargetPerBucket * 4)) {
        maybe_retune();
    }
    const std::uint64_t nb = mask_ + 1;
    if (size_ == overflow_.size()) {
        // The ring is empty: slide the window straight to the overflow's least event.
        const std::int64_t start = align_down(overflow_.top().time, shift_);
        horizon_ = start + static_cast<std::int64_t>(nb << shift_);
        cur_end_ = start;
        pull_overflow();
    }
    commit_staged();  // the ring is walked below
    // The next non-empty bucket at or after the one starting at cur_end_ (cyclically; one exists) ...
    const std::uint64_t first = (static_cast<std::uint64_t>(cur_end_) >> shift_) & mask_;
    std::uint64_t b1 = first;
    std::uint64_t word = occupied_[b1 >> 6] >> (b1 & 63);
    while (word == 0) {
        b1 = ((b1 | 63) + 1) & mask_;
        word = occupied_[b1 >> 6];
    }
    b1 += static_cast<std::uint64_t>(std::countr_zero(word));
    // ... and up to kGroup - 1 more non-empty buckets that follow within kGroupReach buckets of each other:
    // walking several chains at once overlaps their cache misses, which are most of a load's cost. Each
    // bucket is still sorted on its own.
    std::uint64_t group[kGroup];
    std::size_t g = 1;
    group[0] = b1;
    for (std::uint64_t k = 1, at = b1; g < kGroup && k <= kGroupReach; ++k) {
        const std::uint64_t c = (at + k) & mask_;
        if ((occupied_[c >> 6] >> (c & 63)) & 1) {
            group[g++] = c;
            at = c;
            k = 0;
        }
    }
    const std::uint64_t last = group[g - 1];
    const std::int64_t step = static_cast<std::int64_t>((((last - first) & mask_) + 1) << shift_);
    std::int64_t start[kGroup];
    std::uint32_t cursor[kGroup], chain[kGroup], tail[kGroup];
    for (std::size_t i = 0; i < g; ++i) {
        const std::uint64_t b = group[i];
        start[i] = cur_end_ + static_cast<std::int64_t>(((b - first) & mask_) << shift_);
        occupied_[b >> 6] &= ~(std::uint64_t{1} << (b & 63));
        cursor[i] = chain[i] = tail[i] = heads_[b];
        heads_[b] = kNil;
    }
    cur_end_ += step;
    horizon_ += step;
    for (std::size_t i = 1; i < g; ++i) runs_[i - 1].clear();
    Event* out = run_.fill(0);  // the first bucket's events, written in place
    std::size_t room = run_.room(), loaded = 0;
    for (bool any = true; any;) {
        any = false;
        for (std::size_t i = 0; i < g; ++i) {
            const std::uint32_t n = cursor[i];
            if (n == kNil) continue;
            const Node& node = pool_[n];
            const Event e{start[i] + node.offset, node.key, node.target, node.arg};
            if (i == 0) {
                if (loaded == room) [[unlikely]] {
                    out = run_.grow();
                    room = run_.room();
                }
                out[loaded++] = e;
            } else {
                runs_[i - 1].push_back(e);
            }
            tail[i] = n;
            cursor[i] = node.next;
            any = true;
        }
    }
    // All chains go back to the free list at once.
    for (std::size_t i = 0; i + 1 < g; ++i) pool_[tail[i]].next = chain[i + 1];
    pool_[tail[g - 1]].next = free_;
    free_ = chain[0];
    win_activations_ += g;
    sort_bucket(out, loaded);
    for (std::size_t i = 1; i < g; ++i) {
        std::vector<Event>& later = runs_[i - 1];
        sort_bucket(later.data(), later.size());
        while (room < loaded + later.size()) {
            out = run_.grow();
            room = run_.room();
        }
        std::copy(later.begin(), later.end(), out + loaded);
        loaded += later.size();
    }
    run_.filled(loaded);
    run_.mark_end();  // the loop's merge with near_ reads the sentinel past the run's last event (loop_calendar)
    win_loaded_ += loaded;
    pull_overflow();
}

void CalendarQueue::maybe_retune() {
    const std::uint64_t loaded = win_loaded_, overflowed = win_overflow_;
    const std::int64_t elapsed = cur_end_ - win_start_;
    win_activations_ = win_loaded_ = win_overflow_ = 0;
    win_start_ = cur_end_;
    if (loaded == 0) return;
    const ring::Shape now{shift_, heads_.size()};
    const std::size_t cap = std::min(kMaxBuckets, std::max(kMinBuckets, floor_pow2(size_)));
    const ring::Limits limits{kTargetPerBucket, kMinBuckets, kMaxBuckets, kMaxShift};
    const ring::Shape next = ring::retune(now, limits, elapsed, loaded, overflowed, cap, min_year_log2_);
    if (next.shift != now.shift || next.slots != now.slots) rebuild(next.shift, next.slots);
}

void CalendarQueue::rebuild(int shift, std::size_t buckets) {
    std::int64_t least = 0;
    const std::vector<Event> all = ring::take_all(*this, size_, cur_end_, least);
    // The load buffers keep the capacity of the largest bucket seen; a rebuild is when the bucket size
    // changes, so let them grow again from what the new width needs. Releasing them (and the overflow heap,
    // below) is the only way the queue's holdings shrink, so the peak is recorded first.
    peak_bytes_ = std::max(peak_bytes_, bytes_held());
    run_.release();
    near_.release();
    for (auto& run : runs_) {
        run.clear();
        run.shrink_to_fit();
    }
    // Likewise the overflow heap: it is largest while the ring is still too short for the workload (the
    // usual reason to rebuild), and its capacity would otherwise be kept for the rest of the run.
    overflow_ = HeapQueue();
    reset_ring(shift, buckets, align_down(least, shift));
    size_ = 0;
    for (const Event& e : all) push(e);
    win_overflow_ = 0;
    ++rebuilds_;
}

}  // namespace loom::sim
