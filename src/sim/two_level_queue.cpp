#include "loom/sim/two_level_queue.hpp"

#include <algorithm>
#include <bit>

#include "ring_tuning.hpp"

namespace loom::sim {

namespace {

// Events drained into the run at once when the window has them: lets the run loop see (and prefetch for)
// the next events.
constexpr std::size_t kBatch = 4;
// Wanted events per fine bucket, as a fraction.
constexpr std::uint64_t kTargetNum = 1, kTargetDen = 1;

// Sorts one drained bucket. Buckets are tuned to hold about one event, so a run of two or three is the
// common case: insertion sort, with std::sort for the large buckets of workloads with many simultaneous
// events (a clock edge that wakes every component).
void sort_run(Event* v, std::size_t n) {
    if (n > 16) {
        std::sort(v, v + n, [](const Event& a, const Event& b) { return before(a, b); });
        return;
    }
    for (std::size_t i = 1; i < n; ++i) {
        const Event e = v[i];
        std::size_t j = i;
        for (; j > 0 && before(e, v[j - 1]); --j) v[j] = v[j - 1];
        v[j] = e;
    }
}

}  // namespace

TwoLevelQueue::TwoLevelQueue(int fine_shift, std::size_t coarse, bool adaptive) : adaptive_(adaptive) {
    LOOM_ASSERT(fine_shift >= 0 && fine_shift <= kMaxFineShift, "TwoLevelQueue: fine_shift out of range");
    LOOM_ASSERT(coarse >= kMinCoarse && std::has_single_bit(coarse) && coarse <= kMaxCoarse,
                "TwoLevelQueue: the coarse ring must be a power of two in 64..2^22 windows");
    reset(fine_shift, coarse, 0);
}

void TwoLevelQueue::reset(int fine_shift, std::size_t coarse, std::int64_t start) {
    fine_shift_ = fine_shift;
    window_shift_ = fine_shift + kFineLog2;
    window_mask_ = (std::uint64_t{1} << window_shift_) - 1;
    coarse_mask_ = coarse - 1;
    fine_heads_.assign(kFine, kNil);
    fine_bits_.assign(kFine / 64, 0);
    coarse_heads_.assign(coarse, kNil);
    coarse_bits_.assign(coarse / 64, 0);
    coarse_count_ = 0;
    near_start_ = start & ~static_cast<std::int64_t>(window_mask_);
    near_end_ = near_start_ + static_cast<std::int64_t>(window_mask_ + 1);
    far_end_ = near_end_ + static_cast<std::int64_t>(coarse << window_shift_);
    cur_end_ = near_start_;
    pool_.clear();
    free_ = kNil;
    run_.clear();
    win_events_ = win_overflow_ = 0;
    win_start_ = near_start_;
}

void TwoLevelQueue::clear() {
    overflow_.clear();
    size_ = 0;
    reset(fine_shift_, coarse_heads_.size(), 0);
}

std::size_t TwoLevelQueue::bytes_held() const {
    return (fine_heads_.capacity() + coarse_heads_.capacity()) * sizeof(std::uint32_t) +
           (fine_bits_.capacity() + coarse_bits_.capacity()) * sizeof(std::uint64_t) +
           pool_.capacity() * sizeof(Node) + run_.bytes_held() + overflow_.bytes_held();
}

std::size_t TwoLevelQueue::peak_bytes() const { return std::max(peak_bytes_, bytes_held()); }

std::uint32_t TwoLevelQueue::grow_pool() {
    const std::size_t n = pool_.size();
    LOOM_ASSERT(n < kNil, "TwoLevelQueue: more than 2^32 - 1 events in the ring");
    if (n == pool_.capacity()) {
        // Grow by a 64th rather than doubling: the pool is most of the queue's memory and its peak capacity
        // is what the per-event budget counts.
        pool_.reserve(n + std::max<std::size_t>(n / 64, 1024));
    }
    pool_.emplace_back();
    return static_cast<std::uint32_t>(n);
}

void TwoLevelQueue::refill() {
    LOOM_DEBUG_ASSERT(size_ > 0, "TwoLevelQueue::top on an empty queue");
    run_.clear();
    if (adaptive_ && win_events_ >= kTuneEvents) maybe_retune();
    for (;;) {
        if (cur_end_ < near_end_) {
            // Locals rather than members in the loop: the stores into the run would otherwise force the
            // compiler to reload every member after each one.
            Event* out = run_.fill(0);
            std::size_t cap = run_.room();
            std::size_t n = 0;
            Node* const pool = pool_.data();
            std::uint32_t* const heads = fine_heads_.data();
            std::uint64_t* const bits = fine_bits_.data();
            const std::int64_t start = near_start_;
            const int shift = fine_shift_;
            std::uint32_t free = free_;
            std::uint64_t b = (static_cast<std::uint64_t>(cur_end_) & window_mask_) >> shift;
            std::size_t w = b >> 6;
            std::uint64_t word = bits[w] & (~std::uint64_t{0} << (b & 63));
            for (;;) {
                while (word == 0) {
                    if (++w == kFine / 64) break;
                    word = bits[w];
                }
                if (word == 0) break;
                b = (w << 6) + static_cast<std::uint64_t>(std::countr_zero(word));
                word &= word - 1;
                bits[w] = word;  // the bits below b in this word were drained already
                // Copy the chain out, hand its nodes back to the free list whole, sort if it holds more
                // than one event.
                const std::uint32_t head = heads[b];
                heads[b] = kNil;
                const std::size_t first = n;
                std::uint32_t i = head, tail = head;
                do {
                    const Node& node = pool[i];
                    if (n == cap) [[unlikely]] {
                        out = run_.grow();
                        cap = run_.room();
                    }
                    out[n++] = Event{start + node.offset, node.key, node.target, node.arg};
                    tail = i;
                    i = node.next;
                } while (i != kNil);
                pool[tail].next = free;
                free = head;
                if (n - first > 1) sort_run(out + first, n - first);
                if (n >= kBatch) break;
            }
            free_ = free;
            if (n > 0) {
                cur_end_ = start + static_cast<std::int64_t>((b + 1) << shift);
                run_.filled(n);
                win_events_ += n;
                return;
            }
        }
        next_window();
    }
}

void TwoLevelQueue::next_window() {
    const std::uint64_t k0 = static_cast<std::uint64_t>(near_start_) >> window_shift_;
    std::uint64_t k = 0;
    bool from_ring = false;
    if (coarse_count_ > 0) {
        // The first non-empty window after k0 (the ring holds k0 + 1 .. k0 + coarse; one is non-empty).
        std::uint64_t s = (k0 + 1) & coarse_mask_;
        std::uint64_t d = 0;
        std::uint64_t word = coarse_bits_[s >> 6] >> (s & 63);
        while (word == 0) {
            d += 64 - (s & 63);
            s = ((s | 63) + 1) & coarse_mask_;
            word = coarse_bits_[s >> 6];
        }
        d += static_cast<std::uint64_t>(std::countr_zero(word));
        k = k0 + 1 + d;
        from_ring = true;
    } else {
        LOOM_DEBUG_ASSERT(!overflow_.empty(), "TwoLevelQueue: pending events lost");
        k = static_cast<std::uint64_t>(overflow_.top().time) >> window_shift_;
    }
    near_start_ = static_cast<std::int64_t>(k << window_shift_);
    near_end_ = near_start_ + static_cast<std::int64_t>(window_mask_ + 1);
    far_end_ = near_end_ + static_cast<std::int64_t>((coarse_mask_ + 1) << window_shift_);
    cur_end_ = near_start_;
    if (from_ring) {
        // Relink the window's chain into the fine buckets: offsets inside the window stay as they are.
        const std::uint64_t s = k & coarse_mask_;
        std::uint32_t n = coarse_heads_[s];
        coarse_heads_[s] = kNil;
        coarse_bits_[s >> 6] &= ~(std::uint64_t{1} << (s & 63));
        std::size_t moved = 0;
        while (n != kNil) {
            Node& node = pool_[n];
            const std::uint32_t next = node.next;
            const std::uint64_t b = node.offset >> fine_shift_;
            node.next = fine_heads_[b];
            fine_heads_[b] = n;
            fine_bits_[b >> 6] |= std::uint64_t{1} << (b & 63);
            n = next;
            ++moved;
        }
        coarse_count_ -= moved;
    }
    pull_overflow();
}

void TwoLevelQueue::pull_overflow() {
    while (!overflow_.empty()) {
        const Event e = overflow_.top();
        if (e.time >= far_end_) break;
        overflow_.pop();
        if (e.time >= near_end_) {
            link(e, coarse_heads_.data(), coarse_bits_.data(),
                 (static_cast<std::uint64_t>(e.time) >> window_shift_) & coarse_mask_);
            ++coarse_count_;
        } else {
            link(e, fine_heads_.data(), fine_bits_.data(),
                 (static_cast<std::uint64_t>(e.time) & window_mask_) >> fine_shift_);
        }
    }
}

void TwoLevelQueue::maybe_retune() {
    const std::uint64_t events = win_events_, overflowed = win_overflow_;
    const std::int64_t elapsed = cur_end_ - win_start_;
    win_events_ = win_overflow_ = 0;
    win_start_ = cur_end_;
    if (events == 0 || elapsed <= 0) return;

    // Fine width: kTargetNum / kTargetDen events per bucket at the observed pop rate, rounded to the nearest
    // power of two in log scale (w rounds up when w^2 >= 2^(2s+1)).
    __extension__ using U128 = unsigned __int128;
    const U128 w =
        static_cast<U128>(static_cast<std::uint64_t>(elapsed)) * kTargetNum / (U128{events} * kTargetDen);
    int want = 0;
    if (w > 1) {
        const auto w64 = static_cast<std::uint64_t>(std::min<U128>(w, U128{1} << 40));
        want = static_cast<int>(std::bit_width(w64)) - 1;
        if (static_cast<U128>(w64) * w64 >= U128{1} << (2 * want + 1)) ++want;
    }
    want = std::min(want, kMaxFineShift);

    // Ring: keep its span in ps (doubled while the overflow heap takes too many events), within the memory
    // cap of max(kMinCoarse, pending) windows.
    const std::size_t coarse = coarse_heads_.size();
    int span_log2 = window_shift_ + std::countr_zero(coarse);
    if (overflowed * kOverflowRatio > events) ++span_log2;
    const std::size_t pow2 = std::bit_floor(std::max<std::size_t>(size_, 1));
    const std::size_t cap = std::min(kMaxCoarse, std::max(kMinCoarse, pow2));
    int coarse_log2 = span_log2 - (want + kFineLog2);
    coarse_log2 = std::clamp(coarse_log2, std::countr_zero(kMinCoarse), std::countr_zero(cap));
    const std::size_t new_coarse = std::size_t{1} << coarse_log2;
    if (want != fine_shift_ || new_coarse != coarse) rebuild(want, new_coarse);
}

void TwoLevelQueue::rebuild(int fine_shift, std::size_t coarse) {
    std::int64_t least = 0;
    const std::vector<Event> all = ring::take_all(*this, size_, cur_end_, least);
    peak_bytes_ = std::max(peak_bytes_, bytes_held());
    // The run buffer and the overflow heap are largest while the tuning is off (the usual reason to
    // rebuild): release them rather than keep their capacity for the rest of the run.
    run_.release();
    overflow_ = HeapQueue();
    reset(fine_shift, coarse, least);
    size_ = 0;
    for (const Event& e : all) push(e);
    win_overflow_ = 0;
    ++rebuilds_;
}

}  // namespace loom::sim
