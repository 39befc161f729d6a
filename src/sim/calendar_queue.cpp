#include "loom/sim/calendar_queue.hpp"

#include <algorithm>
#include <bit>

namespace loom::sim {

namespace {

std::int64_t align_down(std::int64_t t, int shift) { return t & ~((std::int64_t{1} << shift) - 1); }

std::size_t floor_pow2(std::size_t n) { return n == 0 ? 1 : std::bit_floor(n); }

// Sorts a freshly loaded bucket. Buckets hold a handful of events; for those a branch-free rank sort (each
// event's position is the number of events before it, keys being unique) beats insertion sort, whose
// mispredicted branches dominated. Larger buckets go to std::sort.
void sort_bucket(std::vector<Event>& v) {
    __extension__ using U128 = unsigned __int128;
    constexpr std::size_t kRankMax = 24;
    const std::size_t n = v.size();
    if (n <= 1) return;
#ifdef LOOM_SORT_INSERTION
    if (n <= 16) {
        for (std::size_t i = 1; i < n; ++i) {
            const Event x = v[i];
            std::size_t j = i;
            while (j > 0 && before(x, v[j - 1])) {
                v[j] = v[j - 1];
                --j;
            }
            v[j] = x;
        }
        return;
    }
#endif
    if (n <= kRankMax) {
        U128 k[kRankMax];
        Event copy[kRankMax];
        for (std::size_t i = 0; i < n; ++i) {
            copy[i] = v[i];
            k[i] = (static_cast<U128>(static_cast<std::uint64_t>(v[i].time)) << 64) | v[i].key;
        }
        for (std::size_t i = 0; i < n; ++i) {
            std::size_t rank = 0;
            for (std::size_t j = 0; j < n; ++j) rank += static_cast<std::size_t>(k[j] < k[i]);
            v[rank] = copy[i];
        }
        return;
    }
    std::sort(v.begin(), v.end(), [](const Event& a, const Event& b) { return before(a, b); });
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
    cur_.clear();
    pos_ = 0;
    overflow_.clear();
    size_ = 0;
    reset_ring(shift_, heads_.size(), 0);
}

std::size_t CalendarQueue::bytes_held() const {
    return heads_.capacity() * sizeof(std::uint32_t) + occupied_.capacity() * sizeof(std::uint64_t) +
           pool_.capacity() * sizeof(Node) + cur_.capacity() * sizeof(Event) + overflow_.bytes_held();
}

std::uint32_t CalendarQueue::grow_pool() {
    const std::size_t n = pool_.size();
    LOOM_ASSERT(n < kNil, "CalendarQueue: more than 2^32 - 1 events in the ring");
    if (n == pool_.capacity()) {
        // Grow by an eighth rather than doubling: the pool is most of the queue's memory and its peak size
        // is what the per-event budget counts.
        pool_.reserve(n + std::max<std::size_t>(n / 8, 1024));
    }
    pool_.emplace_back();
    return static_cast<std::uint32_t>(n);
}

void CalendarQueue::push_slow(const Event& e) {
    if (e.time < cur_end_) {
        // Lands in (or before) the bucket being popped: keep cur_[pos_..] sorted.
        if (pos_ == cur_.size() || !before(e, cur_.back())) {
            cur_.push_back(e);
        } else {
            const auto it = std::upper_bound(cur_.begin() + static_cast<std::ptrdiff_t>(pos_), cur_.end(), e,
                                             [](const Event& a, const Event& b) { return before(a, b); });
            cur_.insert(it, e);
        }
        return;
    }
    ++win_overflow_;
    overflow_.push(e);
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
    cur_.clear();
    pos_ = 0;
    commit_staged();
    if (adaptive_ && win_activations_ >= kTuneWindow) maybe_retune();
    const std::uint64_t nb = mask_ + 1;
    for (;;) {
        if (size_ == overflow_.size()) {
            // The ring is empty: slide the window straight to the overflow's least event.
            const std::int64_t start = align_down(overflow_.top().time, shift_);
            horizon_ = start + static_cast<std::int64_t>(nb << shift_);
            cur_end_ = start;
            pull_overflow();
            continue;
        }
        // Next non-empty bucket at or after the one starting at cur_end_ (cyclically; one exists).
        const std::uint64_t first = (static_cast<std::uint64_t>(cur_end_) >> shift_) & mask_;
        std::uint64_t b = first;
        std::uint64_t word = occupied_[b >> 6] >> (b & 63);
        while (word == 0) {
            b = ((b | 63) + 1) & mask_;
            word = occupied_[b >> 6];
        }
        b += static_cast<std::uint64_t>(std::countr_zero(word));
        const std::int64_t step = static_cast<std::int64_t>((((b - first) & mask_) + 1) << shift_);
        cur_end_ += step;
        horizon_ += step;
        occupied_[b >> 6] &= ~(std::uint64_t{1} << (b & 63));
        const std::int64_t start = cur_end_ - (std::int64_t{1} << shift_);
        commit_staged();  // pull_overflow may have staged a node in this very bucket
        const std::uint32_t chain = heads_[b];
        heads_[b] = kNil;
        std::uint32_t last = chain;
        for (std::uint32_t n = chain; n != kNil;) {
            const Node& node = pool_[n];
            cur_.push_back(Event{start + node.offset, node.key, node.target, node.arg});
            last = n;
            n = node.next;
        }
        pool_[last].next = free_;  // the whole chain goes back to the free list at once
        free_ = chain;
        break;
    }
    ++win_activations_;
    win_loaded_ += cur_.size();
    sort_bucket(cur_);
    pull_overflow();
}

void CalendarQueue::maybe_retune() {
    __extension__ using U128 = unsigned __int128;
    const std::uint64_t loaded = win_loaded_, overflowed = win_overflow_;
    const std::int64_t elapsed = cur_end_ - win_start_;
    win_activations_ = win_loaded_ = win_overflow_ = 0;
    win_start_ = cur_end_;
    if (loaded == 0) return;

    // Width: kTargetPerBucket events per bucket at the observed pop rate, rounded to the nearest power of two
    // (in log scale: w rounds up when w^2 >= 2^(2s+1)).
    const U128 w = static_cast<U128>(static_cast<std::uint64_t>(elapsed)) * kTargetPerBucket / loaded;
    int want_shift = 0;
    if (w > 1) {
        const auto w64 = static_cast<std::uint64_t>(std::min<U128>(w, U128{1} << 62));
        want_shift = static_cast<int>(std::bit_width(w64)) - 1;
        if (static_cast<U128>(w64) * w64 >= U128{1} << (2 * want_shift + 1)) ++want_shift;
    }
    want_shift = std::min(want_shift, kMaxShift);

    // Ring length in ps: doubled while over 1/16 of pushes overflow; halved (never back below a length that
    // overflowed) when overflow is negligible and the length is what forces buckets wider than wanted.
    const std::size_t nb = heads_.size();
    const std::size_t cap = std::min(kMaxBuckets, std::max(kMinBuckets, floor_pow2(size_)));
    int year_log2 = shift_ + std::countr_zero(nb);
    if (overflowed * 16 > loaded) {
        min_year_log2_ = year_log2 + 1;
        ++year_log2;
    } else if (overflowed * 4096 < loaded && year_log2 - want_shift > std::countr_zero(cap) &&
               year_log2 - 1 >= min_year_log2_) {
        --year_log2;
    }
    year_log2 = std::min(year_log2, kMaxShift + std::countr_zero(kMaxBuckets));

    int new_shift = want_shift;
    int buckets_log2 = year_log2 - want_shift;
    if (buckets_log2 > std::countr_zero(cap)) {
        buckets_log2 = std::countr_zero(cap);
        new_shift = year_log2 - buckets_log2;
    } else if (buckets_log2 < std::countr_zero(kMinBuckets)) {
        buckets_log2 = std::countr_zero(kMinBuckets);
    }
    new_shift = std::clamp(new_shift, 0, kMaxShift);
    const std::size_t new_nb = std::size_t{1} << buckets_log2;
    if (new_shift != shift_ || new_nb != nb) rebuild(new_shift, new_nb);
}

void CalendarQueue::rebuild(int shift, std::size_t buckets) {
    std::vector<Event> all;
    all.reserve(size_);
    for_each([&all](const Event& e) { all.push_back(e); });
    std::int64_t least = cur_end_;
    for (const Event& e : all) least = std::min(least, e.time);
    cur_.clear();
    pos_ = 0;
    overflow_.clear();
    reset_ring(shift, buckets, align_down(least, shift));
    size_ = 0;
    for (const Event& e : all) push(e);
    win_overflow_ = 0;
    ++rebuilds_;
}

}  // namespace loom::sim
