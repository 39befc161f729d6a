#include "hop_timing.hpp"

#include <algorithm>
#include <limits>

#include "loom/base/assert.hpp"

namespace loom::sched::detail {
namespace {

constexpr std::int64_t kMaxPhases = 4096;
constexpr std::int64_t kMaxNum = std::int64_t{1} << 40;
constexpr std::int64_t kMaxPeriodVectors = 4096;

}  // namespace

std::int64_t period_vectors(const Serializer& s, const HopTiming& timing, std::int64_t limit) {
    if (!timing.periodic()) return 0;
    const i128 w = static_cast<i128>(s.wire_bits()) * 1'000'000'000'000LL;
    const i128 r = s.rate();
    const i128 g = gcd128(w, r);
    const i128 r1 = r / g;     // S(i + r1) = S(i) + step exactly
    const i128 step = w / g;
    const i128 q = r1 * (timing.num() / gcd128(step, timing.num()));
    return q > limit ? 0 : static_cast<std::int64_t>(q);
}

Pace::Pace(const Serializer& s)
    : wire_bits_(s.wire_bits()), rate_(s.rate()), one_(s(1)), latency_(s.latency()) {
    const i128 bits_ps = static_cast<i128>(wire_bits_) * 1'000'000'000'000LL;
    if (rate_ > 0 && bits_ps > 0 && bits_ps <= std::numeric_limits<std::int64_t>::max() - rate_) {
        bits_ps_ = static_cast<std::int64_t>(bits_ps);
        k_fast_ = (std::numeric_limits<std::int64_t>::max() - rate_) / bits_ps_;
        by_rate_ = FixedDivisor(static_cast<std::uint64_t>(rate_));
    }
}

HopTiming::HopTiming(const ClockDomain& clock, std::int64_t forward_cycles, std::int64_t crossing_cycles,
                     std::int32_t fifo_depth, Time jitter_allowance)
    : clock_(clock),
      forward_cycles_(forward_cycles),
      crossing_cycles_(crossing_cycles),
      fifo_depth_(fifo_depth),
      jitter_(jitter_allowance),
      period_floor_(clock.period_floor()) {
    const i128 num = clock.period_num(), den = clock.period_den();
    if (clock.phase() == Time::zero() && den <= kMaxPhases && num < kMaxNum) {
        num_ = static_cast<std::int64_t>(num);
        den_ = static_cast<std::int64_t>(den);
        // The memo's premise: one period of edges later, everything repeats num ps later.
        LOOM_ASSERT(clock.edge(den_).count() == num_, "core clock period does not match its rational form");
        by_den_ = FixedDivisor(static_cast<std::uint64_t>(den_));
        by_num_ = FixedDivisor(static_cast<std::uint64_t>(num_));
        constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
        n_fast_ = kMax / num_;
        rel_fast_ = (kMax - num_) / den_ - 1;
    }
}

std::int32_t HopTiming::kind(const Serializer* in, const std::vector<const Serializer*>& outs) {
    HopKind k;
    k.in = in;
    k.receive = outs.empty();
    for (const Serializer* o : outs) {
        // Fastest / slowest by the time of one unit (equal paces compare equal).
        if (k.out_first == nullptr || (*o)(1) < (*k.out_first)(1)) k.out_first = o;
        if (k.out_last == nullptr || (*o)(1) > (*k.out_last)(1)) k.out_last = o;
    }
    const auto bits = [](const Serializer* p) {
        return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p));
    };
    std::uint64_t h = (bits(k.in) ^ (bits(k.out_first) * 31) ^ (bits(k.out_last) * 1009) ^ (k.receive ? 1 : 0)) *
                      0x9e3779b97f4a7c15ULL;
    KindSlot& slot = kind_cache_[static_cast<std::size_t>(h >> 58)];
    if (slot.in == k.in && slot.receive == k.receive && slot.out_first == k.out_first && slot.out_last == k.out_last)
        return slot.id;
    for (std::size_t i = 0; i < kinds_.size(); ++i) {
        const HopKind& e = kinds_[i];
        if (e.in == k.in && e.receive == k.receive && e.out_first == k.out_first && e.out_last == k.out_last) {
            slot = KindSlot{k.in, k.out_first, k.out_last, k.receive, static_cast<std::int32_t>(i)};
            return static_cast<std::int32_t>(i);
        }
    }
    const std::int64_t q = period_vectors(*in, *this, kMaxPeriodVectors);
    const bool same_pace = k.receive || (k.out_first->same_pace(*in) && k.out_last->same_pace(*in));
    k.periodic = q > 0 && same_pace;
    if (k.out_last != nullptr) k.out_last_pace = Pace(*k.out_last);
    k.period_vectors = q;
    // Past two periods (plus the FIFO's depth, which bounds how far back an occupancy count looks) the
    // per-vector pattern only repeats: the earliest start and the FIFO's high-water mark no longer change.
    k.n_cap = k.periodic ? 2 * q + 2 * (static_cast<std::int64_t>(fifo_depth_) + 1) : 0;
    LOOM_ASSERT(kinds_.size() < (std::size_t{1} << 16), "too many hop kinds");
    kinds_.push_back(k);
    tables_.emplace_back();
    if (k.periodic) tables_.back().assign(static_cast<std::size_t>(den_ * (k.n_cap + 1)), HopResult{0, -1});
    return static_cast<std::int32_t>(kinds_.size() - 1);
}

std::int64_t HopTiming::memo_entries() const {
    std::int64_t n = static_cast<std::int64_t>(memo_.size());
    for (const auto& t : tables_) {
        for (const HopResult& r : t) n += r.occupancy >= 0 ? 1 : 0;
    }
    return n;
}

Time HopTiming::available(Time arrival) const {
    return next_edge(arrival + jitter_, crossing_cycles_);
}

HopResult HopTiming::evaluate(std::int32_t kind, std::int64_t k_from, std::int64_t n) {
    const HopKind& hk = kinds_[static_cast<std::size_t>(kind)];
    const std::int64_t min_k = hk.receive ? 0 : forward_cycles_;
    if (hk.periodic) {
        const std::int64_t n_eff = std::min(n, hk.n_cap);
        HopResult& slot = tables_[static_cast<std::size_t>(kind)]
                                 [static_cast<std::size_t>(phase(k_from) * (hk.n_cap + 1) + n_eff)];
        if (slot.occupancy < 0) {
            slot = exact(hk, k_from, n_eff, std::numeric_limits<std::int64_t>::min());
            slot.k -= k_from;
        }
        HopResult r = slot;
        r.k += k_from;
        if (r.k < min_k) return exact(hk, k_from, n_eff, min_k);
        return r;
    }
    const std::int64_t n_eff = n;
    if (!periodic() || n_eff >= (std::int64_t{1} << 28)) return exact(hk, k_from, n_eff, min_k);
    const std::uint64_t key = (static_cast<std::uint64_t>(kind) << 48) |
                              (static_cast<std::uint64_t>(phase(k_from)) << 28) |
                              static_cast<std::uint64_t>(n_eff);
    auto it = memo_.find(key);
    if (it == memo_.end()) {
        HopResult r = exact(hk, k_from, n_eff, std::numeric_limits<std::int64_t>::min());
        r.k -= k_from;
        it = memo_.emplace(key, r).first;
    }
    HopResult r = it->second;
    r.k += k_from;
    if (r.k < min_k) return exact(hk, k_from, n_eff, min_k);
    return r;
}

HopResult HopTiming::exact(const HopKind& hk, std::int64_t k_from, std::int64_t n, std::int64_t min_k) {
    const Serializer& in = *hk.in;
    const Time t0 = edge(k_from);
    const Time lat = in.latency();
    std::int64_t g = std::numeric_limits<std::int64_t>::min();
    for (std::int64_t i = 1; i <= n; ++i) {
        const Time v = available(t0 + in(i) + lat);
        const Time slot = hk.receive ? in(i - 1) : (*hk.out_first)(i - 1);
        g = std::max(g, (v - slot).count());
    }
    // Rules 5 and 6: the consumer issues at the first edge by which every vector is available at its slot; a
    // Forward's onward train starts forward_cycles after that issue.
    const std::int64_t shift = hk.receive ? 0 : forward_cycles_;
    HopResult r;
    r.k = std::max(edge_at_or_after(Time::ps(g)) + shift, min_k);
    const Time issue = edge(r.k - shift);
    leave_.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 1; i <= n; ++i) {
        leave_[static_cast<std::size_t>(i - 1)] =
            hk.receive ? std::max(available(t0 + in(i) + lat), issue) : issue + (*hk.out_last)(i - 1);
    }
    // Arrivals and departures are both in vector order: when vector i arrives, the FIFO holds it and every
    // earlier vector that has not left yet (leave > a_i), i.e. vectors p+1 .. i for the first p not gone.
    std::size_t p = 0;
    for (std::int64_t i = 1; i <= n; ++i) {
        const Time a = t0 + in(i) + lat;
        while (p + 1 < static_cast<std::size_t>(i) && leave_[p] <= a) ++p;
        r.occupancy = std::max(r.occupancy, static_cast<std::int32_t>(static_cast<std::size_t>(i) - p));
    }
    return r;
}

}  // namespace loom::sched::detail
