#include "loom/sim/radix_queue.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ring_tuning.hpp"

namespace loom::sim {

using ring::align_down;
using ring::floor_pow2;

namespace {

// Radix sorts cover offsets of up to two digits; wider windows (sparse workloads) sort by comparison.
constexpr int kMaxRadixShift = RadixQueue::kDigitBits + 8;  // fine buckets of up to 256 ps
constexpr std::size_t kDigits = std::size_t{1} << RadixQueue::kDigitBits;
// Digit width per load: bit_width(events), i.e. 1-2 fine buckets per event (bench-tuned on PHOLD: one more
// bit, or the full kDigitBits, run 9-10 more instructions per event for 0.08 fewer mispredicted branches; see
// bench/README.md, 2026-12-06 "the kernel's per-event cost"), and at least kMinDigitBits.
constexpr int kMinDigitBits = 4;
// The insertion pass's budget of moves per event (plus kInsertionSlack): past it (bursts, many events at one
// time in a fine bucket, where insertion sort turns quadratic) the window is sorted by comparison instead, so
// that a load stays O(n log n). Spread windows move well under one event per event.
constexpr std::ptrdiff_t kInsertionMoves = 8;
constexpr std::ptrdiff_t kInsertionSlack = 64;

// The scan one digit at a time, from digit `d` on with the running `sum` so far: the digits the vector steps
// below leave (all of them without SSE2).
template <typename Count, std::size_t N>
void exclusive_prefix_tail(std::array<Count, N>& count, std::size_t d, std::size_t n, Count sum) {
    for (; d < n; ++d) {
        const Count c = count[d];
        count[d] = sum;
        sum = static_cast<Count>(sum + c);
    }
}

// Turns digit counts into the first output offset of each digit (counts and offsets are in bytes:
// sizeof(Event) per event). Four digits per step where SSE2 is available (every x86-64): the scan runs once
// per fine bucket, 1-2 per event, and was a fifth of a window load's instructions one digit at a time.
void exclusive_prefix(std::array<std::uint32_t, kDigits>& count, std::size_t n) {
    std::size_t d = 0;
    std::uint32_t sum = 0;
#if defined(__SSE2__)
    __m128i carry = _mm_setzero_si128();
    for (; d + 4 <= n; d += 4) {
        auto* at = reinterpret_cast<__m128i*>(count.data() + d);
        const __m128i x = _mm_loadu_si128(at);
        __m128i scan = _mm_add_epi32(x, _mm_slli_si128(x, 4));
        scan = _mm_add_epi32(scan, _mm_slli_si128(scan, 8));  // inclusive sums inside the four
        _mm_storeu_si128(at, _mm_add_epi32(carry, _mm_sub_epi32(scan, x)));
        carry = _mm_add_epi32(carry, _mm_shuffle_epi32(scan, 0xff));
    }
    sum = static_cast<std::uint32_t>(_mm_cvtsi128_si32(carry));
#endif
    exclusive_prefix_tail(count, d, n, sum);
}

// The same on 16-bit counts, eight digits per step: for windows of at most kMaxBytes16 bytes of events, i.e.
// every window of PHOLD (~64 events), whose loads spent a fifth of their instructions in the 32-bit scan.
constexpr std::size_t kMaxBytes16 = 0x7fff;  // below 2^15: the signed 16-bit comparison is the unsigned one
constexpr std::size_t kMaxBytes32 = 0x7fffffff;
void exclusive_prefix(std::array<std::uint16_t, kDigits>& count, std::size_t n) {
    std::size_t d = 0;
    std::uint16_t sum = 0;
#if defined(__SSE2__)
    __m128i carry = _mm_setzero_si128();
    for (; d + 8 <= n; d += 8) {
        auto* at = reinterpret_cast<__m128i*>(count.data() + d);
        const __m128i x = _mm_loadu_si128(at);
        __m128i scan = _mm_add_epi16(x, _mm_slli_si128(x, 2));
        scan = _mm_add_epi16(scan, _mm_slli_si128(scan, 4));
        scan = _mm_add_epi16(scan, _mm_slli_si128(scan, 8));  // inclusive sums inside the eight
        _mm_storeu_si128(at, _mm_add_epi16(carry, _mm_sub_epi16(scan, x)));
        carry = _mm_add_epi16(carry, _mm_shuffle_epi32(_mm_shufflehi_epi16(scan, 0xff), 0xff));
    }
    sum = static_cast<std::uint16_t>(_mm_extract_epi16(carry, 0));
#endif
    exclusive_prefix_tail(count, d, n, sum);
}

// The same on 8-bit counts in 8-byte units (3 per event), sixteen digits per step: for windows of at most
// kMaxUnits8 / 3 = 85 events, most of PHOLD's (~66 events each), whose loads spent a sixth of their
// instructions in the 16-bit scan. Sums stay at most 255: the scan cannot wrap.
constexpr std::size_t kMaxUnits8 = 0xff;
void exclusive_prefix(std::array<std::uint8_t, kDigits>& count, std::size_t n) {
    std::size_t d = 0;
    std::uint8_t sum = 0;
#if defined(__SSE2__)
    __m128i carry = _mm_setzero_si128();
    for (; d + 16 <= n; d += 16) {
        auto* at = reinterpret_cast<__m128i*>(count.data() + d);
        const __m128i x = _mm_loadu_si128(at);
        __m128i scan = _mm_add_epi8(x, _mm_slli_si128(x, 1));
        scan = _mm_add_epi8(scan, _mm_slli_si128(scan, 2));
        scan = _mm_add_epi8(scan, _mm_slli_si128(scan, 4));
        scan = _mm_add_epi8(scan, _mm_slli_si128(scan, 8));  // inclusive sums inside the sixteen
        _mm_storeu_si128(at, _mm_add_epi8(carry, _mm_sub_epi8(scan, x)));
        // The last byte's sum in every byte: doubled bytes (word 7 is byte 15 twice), then word 7 everywhere.
        const __m128i pairs = _mm_unpackhi_epi8(scan, scan);
        carry = _mm_add_epi8(carry, _mm_shuffle_epi32(_mm_shufflehi_epi16(pairs, 0xff), 0xff));
    }
    sum = static_cast<std::uint8_t>(_mm_cvtsi128_si32(carry));
#endif
    exclusive_prefix_tail(count, d, n, sum);
}

// at += n as one add to memory: g++ otherwise copies the count it has just read (for the address) to another
// register, adds there and stores it back (two instructions more per event in the load's scatter).
template <typename Count>
[[gnu::always_inline]] inline void add_to(Count& at, std::uint32_t n) {
#if defined(__x86_64__)
    if constexpr (sizeof(Count) == 1) {
        asm("addb %1, %0" : "+m"(at) : "ri"(static_cast<std::uint8_t>(n)));
        return;
    } else if constexpr (sizeof(Count) == 2) {
        asm("addw %1, %0" : "+m"(at) : "ri"(static_cast<std::uint16_t>(n)));
        return;
    } else if constexpr (sizeof(Count) == 4) {
        asm("addl %1, %0" : "+m"(at) : "ri"(n));
        return;
    }
#endif
    at = static_cast<Count>(at + n);
}

}  // namespace

RadixQueue::RadixQueue(int shift, std::size_t windows, bool adaptive) : shift_(shift), adaptive_(adaptive) {
    LOOM_ASSERT(shift >= 0 && shift <= kMaxShift, "RadixQueue: shift out of range");
    LOOM_ASSERT(windows >= 1 && std::has_single_bit(windows) && windows <= kMaxWindows,
                "RadixQueue: windows must be a power of two in 1..2^22");
    reset_ring(shift, windows, 0);
}

void RadixQueue::reset_ring(int shift, std::size_t windows, std::int64_t cur_end) {
    shift_ = shift;
    mask_ = windows - 1;
    windows_.assign(windows, Window{nullptr, kNil, 1});
    cur_end_ = cur_end;
    horizon_ = cur_end + (static_cast<std::int64_t>(windows) << shift);
    span_ = static_cast<std::uint64_t>(windows) << shift;
    pool_.clear();
    next_.clear();
    free_ = kNil;
    win_activations_ = win_loaded_ = win_overflow_ = 0;
    win_start_ = cur_end;
}

void RadixQueue::clear() {
    run_.clear();
    overflow_.clear();
    slack_ = mark_;
    reset_ring(shift_, windows_.size(), 0);
}

std::size_t RadixQueue::bytes_held() const {
    return windows_.capacity() * sizeof(Window) + pool_.capacity() * sizeof(Event) +
           next_.capacity() * sizeof(std::uint32_t) + run_.bytes_held() +
           overflow_.bytes_held();
}

std::size_t RadixQueue::peak_bytes() const { return std::max(peak_bytes_, bytes_held()); }

std::uint32_t RadixQueue::grow_pool() {
    const std::size_t n = next_.size();
    LOOM_ASSERT(n < kNil, "RadixQueue: more than 2^32 - 1 chunks");
    if (n == next_.capacity()) {
        // Grow by a 64th rather than doubling: the pool is most of the queue's memory and its peak
        // capacity is what the per-event budget counts.
        const std::size_t more = std::max<std::size_t>(n / 64, 128);
        next_.reserve(n + more);
        const auto old_base = reinterpret_cast<std::uintptr_t>(pool_.data());
        pool_.reserve((n + more) * kChunk);
        const auto new_base = reinterpret_cast<std::uintptr_t>(pool_.data());
        if (new_base != old_base) {
            // The windows' write positions move with the pool (the one taking this chunk is among them).
            for (Window& x : windows_) {
                if (x.head == kNil) continue;
                const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(x.write) - old_base;
                x.write = reinterpret_cast<Event*>(new_base + at);
            }
        }
    }
    next_.push_back(free_);  // kNil: the free list was empty
    pool_.resize((n + 1) * kChunk);
    const auto c = static_cast<std::uint32_t>(n);
    free_ = c;
    return c;
}

void RadixQueue::append_chunk(Window& w, std::int64_t time, std::uint64_t key, std::uint32_t target,
                              std::uint32_t arg) {
    const std::uint32_t c = free_;
    if (c == kNil) [[unlikely]] {
        // A tail call, like every call here: the common path saves no registers.
        append_grown(w, time, key, target, arg);
        return;
    }
    free_ = next_[c];
    next_[c] = w.head;  // kNil when w was empty
    w.head = c;
    w.room = static_cast<std::uint8_t>(kChunk);  // the other kChunk - 1 places are free
    put(w, &pool_[std::size_t{c} * kChunk], time, key, target, arg);
}

void RadixQueue::append_grown(Window& w, std::int64_t time, std::uint64_t key, std::uint32_t target,
                              std::uint32_t arg) {
    grow_pool();
    append_chunk(w, time, key, target, arg);
}

void RadixQueue::push_slow(std::int64_t time, std::uint64_t key, std::uint32_t target, std::uint32_t arg) {
    const Event e{time, key, target, arg};
    if (time < cur_end_) {
        run_.insert(e);  // lands in (or before) the window being popped
        run_.mark_end();
        return;
    }
    ++win_overflow_;
    overflow_.push(e);
}

void RadixQueue::pull_overflow() {
    while (!overflow_.empty()) {
        const Event& e = overflow_.top();
        if (e.time >= horizon_) break;
        append(e);
        overflow_.pop();
    }
}

void RadixQueue::advance() {
    LOOM_DEBUG_ASSERT(size() > 0, "RadixQueue::top on an empty queue");
    run_.clear();
    if (adaptive_ && win_activations_ >= kTuneWindow) maybe_retune();
    const std::int64_t width = std::int64_t{1} << shift_;
    if (size() == overflow_.size()) {
        // The ring is empty: slide it straight to the overflow's least event.
        const std::int64_t start = align_down(overflow_.top().time, shift_);
        cur_end_ = start;
        horizon_ = start + static_cast<std::int64_t>((mask_ + 1) << shift_);
        pull_overflow();
    }
    // The next non-empty window (one exists: the ring holds an event). Each window skipped frees a place at
    // the far end of the ring, which overflow events may now fill.
    std::uint64_t b = (static_cast<std::uint64_t>(cur_end_) >> shift_) & mask_;
    while (windows_[b].head == kNil) {
        cur_end_ += width;
        horizon_ += width;
        pull_overflow();
        b = (b + 1) & mask_;
    }
    load(windows_[b], cur_end_);
    cur_end_ += width;
    horizon_ += width;
    ++win_activations_;
    win_loaded_ += run_.length();
    pull_overflow();
}

void RadixQueue::load(Window& w, std::int64_t start) {
    const std::size_t n = count_of(w);
    Event* const out = run_.fill(n);
    run_.filled(n);
    // Visits the window's events, chunk by chunk.
    std::uint32_t oldest = kNil;  // the window's last chunk, where its list joins the free list
    auto each = [this, &w, &oldest](auto&& f) { oldest = each_in(w, f); };
    if (shift_ <= kMaxRadixShift && n * sizeof(Event) <= kMaxBytes32) [[likely]] {
        // One counting-sort pass on the offset's top digit (the whole offset when it fits one digit): the
        // output is sorted by time up to events that share a fine bucket of 2^drop ps.
        // The digit is bit_width(n) bits wide (kMinDigitBits..kDigitBits): clearing the counters and the prefix
        // pass cost per fine bucket, the insertion pass per event sharing one.
        const int bits = std::clamp(static_cast<int>(std::bit_width(n)), kMinDigitBits, RadixQueue::kDigitBits);
        const int drop = std::max(shift_ - bits, 0);
        const std::size_t digits = std::size_t{1} << (shift_ - drop);
        // Counts are in units of kScale bytes (kStep units per event), so that the scatter adds a count to the
        // output's address as it is, or with a scaled index: 8-bit counts in 8-byte units where the window's
        // events fit, else 16-bit or 32-bit counts in bytes (the narrower, the less clearing and scan work).
        constexpr std::uint32_t kSize = sizeof(Event);
        char* const base = reinterpret_cast<char*>(out);
        auto counting_sort = [&](auto& count, auto scale) {
            using Count = typename std::remove_reference_t<decltype(count)>::value_type;
            constexpr std::uint32_t kScale = decltype(scale)::value;
            constexpr std::uint32_t kStep = kSize / kScale;
            std::fill_n(count.begin(), digits, Count{0});
            each([&](const Event& e) { count[static_cast<std::uint64_t>(e.time - start) >> drop] += kStep; });
            exclusive_prefix(count, digits);
            each([&](const Event& e) {
                Count& at = count[static_cast<std::uint64_t>(e.time - start) >> drop];
                *reinterpret_cast<Event*>(base + std::size_t{at} * kScale) = e;
                add_to(at, kStep);
            });
        };
        if (n * (kSize / 8) <= kMaxUnits8) [[likely]] {
            std::array<std::uint8_t, kDigits> count;
            counting_sort(count, std::integral_constant<std::uint32_t, 8>{});
        } else if (n * kSize <= kMaxBytes16) {
            std::array<std::uint16_t, kDigits> count;
            counting_sort(count, std::integral_constant<std::uint32_t, 1>{});
        } else {
            std::array<std::uint32_t, kDigits> count;
            counting_sort(count, std::integral_constant<std::uint32_t, 1>{});
        }
        // An insertion pass orders each fine bucket by (time, key): fine buckets hold about one event, so
        // the inner loop is rarely entered. The scan runs while times rise, comparing each event's time with
        // the one before it; a stop event (time INT64_MIN, below every event's) at out[n] ends it without a
        // test of the position (the window's sentinel is written over it afterwards). The full (time, key)
        // comparison only runs where the times are out of order or equal.
        Event* const last = out + n;
        last->time = std::numeric_limits<std::int64_t>::min();
        Event* p = out;  // out[0..p] is ordered
        // Moves left, in bytes (kept in bytes: a count of events would divide the pointers' difference by 24).
        std::ptrdiff_t budget = (static_cast<std::ptrdiff_t>(n) * kInsertionMoves + kInsertionSlack) *
                                static_cast<std::ptrdiff_t>(sizeof(Event));
        for (;;) {
            while (p[1].time > p[0].time) ++p;
            ++p;
            if (p == last) break;
            if (before(p[0], p[-1])) {
                const Event e = *p;
                Event* at = p;
                do {
                    *at = at[-1];
                    --at;
                } while (at != out && before(e, at[-1]));
                *at = e;
                budget -= reinterpret_cast<char*>(p) - reinterpret_cast<char*>(at);
                if (budget < 0) [[unlikely]] {
                    std::sort(out, last, [](const Event& a, const Event& b) { return before(a, b); });
                    break;
                }
            }
        }
    } else {
        Event* o = out;
        each([&](const Event& e) { *o++ = e; });
        std::sort(out, out + n, [](const Event& a, const Event& b) { return before(a, b); });
    }
    run_.mark_end();  // past the n events
    // The window's chunks go back to the free list at once.
    next_[oldest] = free_;
    free_ = w.head;
    w = Window{nullptr, kNil, 1};
}

void RadixQueue::maybe_retune() {
    const std::uint64_t loaded = win_loaded_, overflowed = win_overflow_;
    const std::int64_t elapsed = cur_end_ - win_start_;
    win_activations_ = win_loaded_ = win_overflow_ = 0;
    win_start_ = cur_end_;
    if (loaded == 0) return;
    const ring::Shape now{shift_, windows_.size()};
    const std::size_t cap = std::min(kMaxWindows, std::max(kMinWindows, floor_pow2(size() / kMinPerWindow)));
    const ring::Limits limits{kTargetPerWindow, kMinWindows, kMaxWindows, kMaxShift};
    const ring::Shape next = ring::retune(now, limits, elapsed, loaded, overflowed, cap, min_year_log2_);
    if (next.shift != now.shift || next.slots != now.slots) rebuild(next.shift, next.slots);
}

void RadixQueue::rebuild(int shift, std::size_t windows) {
    std::int64_t least = 0;
    const std::vector<Event> all = ring::take_all(*this, size(), cur_end_, least);
    peak_bytes_ = std::max(peak_bytes_, bytes_held());
    // The load buffers and the overflow heap are sized for the old tuning: let them grow again from what the
    // new one needs (this is the only way the queue's holdings shrink, so the peak is recorded first).
    run_.release();
    overflow_ = HeapQueue();
    reset_ring(shift, windows, align_down(least, shift));
    slack_ = mark_;  // empty
    for (const Event& e : all) push(e);
    win_overflow_ = 0;
    ++rebuilds_;
}

}  // namespace loom::sim
