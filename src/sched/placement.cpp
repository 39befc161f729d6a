// Placing one transfer: its candidate routes, then piece by piece the option that completes first (extending a
// train, a new train, or a staged pair), each train timed hop by hop and fitted between the bookings of the table
// and of the transfer's own overlay.
#include <algorithm>
#include <limits>
#include <memory>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "loom/base/assert.hpp"
#include "loom/base/error.hpp"
#include "fixed_point.hpp"
#include "lower_bound.hpp"
#include "scheduler_impl.hpp"

namespace loom::sched::detail {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Scheduler::Templates: the plans of every phase are timed this many clock periods past Send cycle 0, as
// hop_offsets() does (any Send cycle >= 0 would do).
constexpr std::int64_t kTemplateBase = 1024;
// Templates are kept only for clocks of at most this many phases (9 at 900 MHz; up to 4096 in general, when one
// shape's plans would take hundreds of KiB), and at most this many hops in all (3 MiB at 12 bytes a hop; a node's
// 100,000 random transfers use about 40,000), so that they stay small on large systems.
constexpr std::int64_t kTemplateMaxPhases = 64;
constexpr std::size_t kTemplatePoolHops = std::size_t{1} << 18;

}  // namespace

std::int64_t Scheduler::staging_taken(topo::VertexId v) const {
    std::int64_t b = staging_used_[static_cast<std::size_t>(v)];
    for (const auto& [tsp, bytes] : overlay_.staging) {
        if (tsp == v) b += bytes;
    }
    return b;
}

bool Scheduler::evaluate(const Route& route, std::int64_t n, std::int64_t m0, Plan& plan) {
    plan.m0 = m0;
    plan.n = n;
    plan.hops.resize(route.hops.size());
    plan.completion = Time::zero();
    plan.write_done = Time::zero();
    const std::int64_t k_src = m0 + chip_.issue_cycles;
    for (std::size_t h = 0; h < route.hops.size(); ++h) {
        const RouteHop& hop = route.hops[h];
        HopPlan& hp = plan.hops[h];
        hp.k_from = hop.parent < 0 ? k_src : plan.hops[static_cast<std::size_t>(hop.parent)].k_out;
        const detail::HopResult res = timing_.evaluate(hop.kind, hp.k_from, n);
        if (res.occupancy > chip_.fifo_depth) return false;
        const Pace& s = net_.fast(hop.channel);
        hp.start = timing_.edge(hp.k_from);
        hp.end = hp.start + s(n);
        hp.first_arrival = hp.start + s.one() + s.latency();
        hp.last_arrival = hp.end + s.latency();
        if (hop.leaf) {
            hp.cycle = res.k;
            hp.k_out = 0;
            hp.last_leave = std::max(timing_.available(hp.last_arrival), timing_.edge(res.k));
            plan.completion = std::max(plan.completion, hp.last_arrival);
            plan.write_done = std::max(plan.write_done, hp.last_leave);
        } else {
            hp.k_out = res.k;
            hp.cycle = res.k - chip_.forward_cycles;
            hp.last_leave = timing_.edge(res.k) + timing_.hop_kind(hop.kind).out_last_pace(n - 1);
        }
    }
    return true;
}

inline Time Scheduler::table_fit(topo::ChannelId c, Time from, Time length) const {
    FitMemo& m = fit_memo_[static_cast<std::size_t>(c)];
    const std::int64_t inserts = table_.inserts(c);
    if (m.inserts == inserts && m.length == length && m.from <= from && from <= m.fit) return m.fit;
    const Time fit = table_.first_fit(c, from, length);
    if (m.inserts == inserts && m.length == length && fit == m.fit && from < m.from) {
        m.from = from;  // [from, fit) holds no fit either
    } else {
        m = FitMemo{inserts, length, from, fit};
    }
    return fit;
}

std::pair<const Booking*, const Booking*> Scheduler::table_around(topo::ChannelId c, Time s) const {
    AroundMemo& m = around_memo_[static_cast<std::size_t>(c)];
    const std::int64_t inserts = table_.inserts(c);
    if (m.inserts == inserts && m.lo < s && s <= m.hi) return {m.before, m.after};
    const auto [before, after] = table_.around(c, s);
    m.inserts = inserts;
    m.lo = before ? before->start : Time::ps(std::numeric_limits<std::int64_t>::min());
    m.hi = after ? after->start : Time::max();
    m.before = before;
    m.after = after;
    return {before, after};
}

Scheduler::TemplateRef& Scheduler::timing_key(const Route& route, std::int64_t n) {
    // The length, then per hop its parent, kind and leaf flag with its link class.
    template_key_.clear();
    template_key_.push_back(n);
    for (const RouteHop& hop : route.hops) {
        template_key_.push_back(hop.parent);
        template_key_.push_back(hop.kind);
        template_key_.push_back(static_cast<std::int64_t>(hop.pace) << 1 | (hop.leaf ? 1 : 0));
    }
    return template_index_[template_key_];
}

Scheduler::Templates Scheduler::templates(std::int32_t r, std::int64_t n, KnownRanges& known) {
    constexpr std::int64_t kNone = -2;
    if (!timing_.periodic() || timing_.den() > kTemplateMaxPhases || known.template_pool == kNone) return {};
    const Route& route = cand(r);
    const auto phases = static_cast<std::size_t>(timing_.den());
    const std::size_t hops = route.hops.size();
    TemplateRef* ref = nullptr;
    if (known.template_pool != template_pool_) {
        ref = &timing_key(route, n);
        if (ref->pool == kNone) {
            known.template_pool = kNone;
            return {};
        }
        if (ref->pool == template_pool_) {
            known.template_pool = template_pool_;
            known.template_at = ref->at;
            known.template_span_at = ref->span_at;
        }
    }
    if (known.template_pool != template_pool_) {
        if (template_hops_.size() + phases * hops > kTemplatePoolHops) {
            template_hops_.clear();
            template_spans_.clear();
            ++template_pool_;
        }
        const std::size_t at = template_hops_.size();
        const std::size_t span_at = template_spans_.size();
        template_spans_.resize(span_at + hops);  // filled from the first phase
        Plan plan;
        bool fits32 = true;
        const auto rel = [&fits32](std::int64_t v) {
            fits32 = fits32 && v >= std::numeric_limits<std::int32_t>::min() &&
                     v <= std::numeric_limits<std::int32_t>::max();
            return static_cast<std::int32_t>(v);
        };
        for (std::int64_t p = 0; p < timing_.den(); ++p) {
            const std::int64_t m = timing_.den() * kTemplateBase + p;
            const bool fits = evaluate(route, n, m, plan);
            LOOM_ASSERT(fits, "templates are made only where every phase fits the FIFOs");
            const Time t0 = timing_.edge(m + chip_.issue_cycles);
            for (std::size_t h = 0; h < hops; ++h) {
                const HopPlan& hp = plan.hops[h];
                const bool leaf = route.hops[h].leaf;
                const TemplateSpan span{rel((hp.end - hp.start).count()), rel((hp.first_arrival - hp.start).count()),
                                        rel((hp.last_arrival - hp.start).count())};
                TemplateSpan& first = template_spans_[span_at + h];
                if (p == 0) first = span;
                LOOM_ASSERT(span.length == first.length && span.first_arrival == first.first_arrival &&
                                span.last_arrival == first.last_arrival,
                            "a hop's length and arrivals from its start are the same at every phase");
                LOOM_ASSERT(leaf || hp.cycle == hp.k_out - chip_.forward_cycles, "a Forward issues before its train");
                LOOM_ASSERT(route.hops[h].parent >= 0 || hp.k_from == m + chip_.issue_cycles,
                            "the first hop starts at the Send edge");
                template_hops_.push_back(TemplateHop{rel((leaf ? hp.cycle : hp.k_out) - m),
                                                     rel((hp.start - t0).count()), rel((hp.last_leave - t0).count())});
            }
        }
        if (!fits32) {
            template_hops_.resize(at);
            template_spans_.resize(span_at);
            known.template_pool = kNone;
            ref->pool = kNone;
            return {};
        }
        known.template_pool = template_pool_;
        known.template_at = static_cast<std::uint32_t>(at);
        known.template_span_at = static_cast<std::uint32_t>(span_at);
        ref->pool = template_pool_;
        ref->at = known.template_at;
        ref->span_at = known.template_span_at;
    }
    const TemplateHop* first = template_hops_.data() + known.template_at;
    const TemplateSpan* spans = template_spans_.data() + known.template_span_at;
    // A search reads a few phases, one per step, after table searches of its own: ask for all of them now (a hint
    // only; the pool is read from all over, once per step, and misses the cache otherwise).
    const auto* bytes = reinterpret_cast<const char*>(first);
    constexpr std::size_t kLine = 64;  // cache line (bytes)
    for (std::size_t b = 0; b < phases * hops * sizeof(TemplateHop); b += kLine) __builtin_prefetch(bytes + b);
    __builtin_prefetch(spans);
    return Templates{first, spans};
}

bool Scheduler::timed(const Route& route, std::int64_t n, std::int64_t m0, Plan& plan, const Templates* shifted) {
    std::int64_t periods = 0;
    std::int64_t phase = 0;
    if (shifted == nullptr || shifted->hops == nullptr || !timing_.split(m0, periods, phase))
        return evaluate(route, n, m0, plan);
    const std::size_t hops = route.hops.size();
    const TemplateSpan* span = shifted->spans;
    const TemplateHop* t = shifted->hops + static_cast<std::size_t>(phase) * hops;
    // The train's start: the template's moved by whole periods (the same value as edge() of the Send edge).
    const Time t0 = timing_.edge(m0 + chip_.issue_cycles);
    plan.m0 = m0;
    plan.n = n;
    plan.hops.resize(hops);
    plan.completion = Time::zero();
    plan.write_done = Time::zero();
    for (std::size_t h = 0; h < hops; ++h) {
        const TemplateHop& a = t[h];
        const RouteHop& hop = route.hops[h];
        HopPlan& b = plan.hops[h];
        b.k_from = hop.parent < 0 ? m0 + chip_.issue_cycles : plan.hops[static_cast<std::size_t>(hop.parent)].k_out;
        b.start = t0 + Time::ps(a.start);
        b.end = b.start + Time::ps(span[h].length);
        b.first_arrival = b.start + Time::ps(span[h].first_arrival);
        b.last_arrival = b.start + Time::ps(span[h].last_arrival);
        b.last_leave = t0 + Time::ps(a.last_leave);
        if (hop.leaf) {
            b.k_out = 0;
            b.cycle = m0 + a.k;
            plan.completion = std::max(plan.completion, b.last_arrival);
            plan.write_done = std::max(plan.write_done, b.last_leave);
        } else {
            b.k_out = m0 + a.k;
            b.cycle = b.k_out - chip_.forward_cycles;
        }
    }
    return true;
}

// The earliest time at or after `from` at which channel c is free for `length`, both in the table and in the overlay
// (whose bookings of train `exclude` are ignored; -1: none). `table_fits`: the table is known to be free there for
// `length` at `from` (it need not be asked again).
Time Scheduler::first_fit(topo::ChannelId c, Time from, Time length, std::int32_t exclude, bool table_fits) const {
    const auto range = std::equal_range(overlay_.entries.begin(), overlay_.entries.end(), c, ByChannel{});
    Time fit = from;
    for (bool moved = true; moved; table_fits = false) {
        if (!table_fits) fit = table_fit(c, fit, length);
        moved = false;
        for (auto it = range.first; it != range.second; ++it) {
            if (it->train != exclude && it->booking.start < fit + length && it->booking.end > fit) {
                fit = it->booking.end;
                moved = true;
            }
        }
    }
    return fit;
}

// How much later than `plan` (the train timed at its Send cycle) its hops must start for each to fit: zero when the
// train fits. Every channel free over its interval, the far end's consumers in arrival order, FIFO spans disjoint.
// `table_only`: the table's bookings alone (neither the overlay nor the transfer's `after` ordering), a subset of the
// constraints; otherwise bookings of train `exclude` of the overlay are ignored (it is the train being extended).
// `table_fits`: every hop is known to be free in the table (the plan fits the table alone).
Time Scheduler::need(const Route& route, const Plan& plan, std::int32_t exclude, bool table_only,
                     bool table_fits) const {
    Time need;
    for (std::size_t h = 0; h < route.hops.size(); ++h) {
        const topo::ChannelId c = route.hops[h].channel;
        const HopPlan& hp = plan.hops[h];
        // The earliest this hop could start without crossing a block of the table.
        Time hneed = table_fits ? Time::zero() : table_fit(c, hp.start, hp.end - hp.start) - hp.start;
        const Booking* before = nullptr;
        const Booking* after = nullptr;
        if (!table_only) {
            const auto range = std::equal_range(overlay_.entries.begin(), overlay_.entries.end(), c, ByChannel{});
            for (auto it = range.first; it != range.second; ++it) {
                const OverlayEntry& o = *it;
                if (o.train == exclude) continue;
                if (o.booking.start < hp.end && o.booking.end > hp.start)
                    hneed = std::max(hneed, o.booking.end - hp.start);
                if (o.booking.start < hp.start) {
                    if (!before || o.booking.start > before->start) before = &o.booking;
                } else if (!after || o.booking.start < after->start) {
                    after = &o.booking;
                }
            }
        }
        if (hneed == Time::zero()) {
            const auto [tb, ta] = table_around(c, hp.start);
            if (tb && (!before || tb->start > before->start)) before = tb;
            if (ta && (!after || ta->start < after->start)) after = ta;
            if (before) {
                if (before->consumer_cycle > hp.cycle)
                    hneed = std::max(hneed, timing_.period_floor() * (before->consumer_cycle - hp.cycle));
                if (before->last_leave > hp.first_arrival)
                    hneed = std::max(hneed, before->last_leave - hp.first_arrival);
            }
            if (after && (after->consumer_cycle < hp.cycle || hp.last_leave > after->first_arrival))
                hneed = std::max(hneed, after->end - hp.start);
        }
        // Ordered after other transfers' writes (workload::Transfer::after): the consumer waits for them, and
        // its vectors must not wait in the FIFO, so the whole train moves later.
        if (!table_only && route.hops[h].leaf && hp.cycle < min_consume_cycle_)
            hneed = std::max(hneed, timing_.period_floor() * (min_consume_cycle_ - hp.cycle));
        need = std::max(need, hneed);
    }
    return need;
}

// The next Send cycle to try after `plan` (timed at its Send cycle) was found to need `need` more.
std::int64_t Scheduler::next_send(const Route& route, const Plan& plan, Time need, std::int32_t exclude,
                                  bool table_only) const {
    // Moving the Send moves every hop by about as much (a hop's offset from the train's start varies by a cycle
    // with the clock phase). Before timing the train again, find the earliest train start at which every hop,
    // at this plan's offsets, fits between the bookings: a fixed point over the hops' first fits.
    // (fixed_point.hpp: hop after hop, the value of 64 rounds.)
    const Time t0 = timing_.edge(plan.m0 + chip_.issue_cycles);
    const Time target = fixed_point(route.hops.size(), t0 + need, 64, [&](std::size_t h, Time s) {
        const topo::ChannelId c = route.hops[h].channel;
        const HopPlan& hp = plan.hops[h];
        const Time offset = hp.start - t0;
        const Time length = hp.end - hp.start;
        const Time fit = table_only ? table_fit(c, s + offset, length) : first_fit(c, s + offset, length, exclude);
        return fit - offset;
    });
    // One cycle of slack for the offsets' variation; the loop confirms.
    return std::max(plan.m0 + 1, timing_.edge_at_or_before(target) - chip_.issue_cycles - 1);
}

// What is known about trains of candidate route r and length n: trains of the same shape (route hops: channel,
// parent, kind, leaf flag) and length see the same table. The usual case inline (the route's shape is known and its
// hint names the entry; known_lookup() otherwise): 528k calls at 144 TSPs, 83 instructions each out of line.
inline Scheduler::KnownRanges& Scheduler::known(std::int32_t r, std::int64_t n) {
    const auto ri = static_cast<std::size_t>(r);
    if (ri < shape_of_.size() && ri < known_hint_.size()) {
        const std::int32_t shape = shape_of_[ri];
        const std::uint32_t hint = known_hint_[ri];
        if (shape >= 0) {
            if (hint < known_count_) {
                KnownRanges& k = known_node(hint);
                if (k.shape == shape && k.n == n) return k;
            }
            // Else the length at the front of the shape's list: the one known_lookup() found or made last.
            const std::int32_t head = known_head_[static_cast<std::size_t>(shape)];
            if (head >= 0) {
                KnownRanges& k = known_node(static_cast<std::size_t>(head));
                if (k.n == n) {
                    known_hint_[ri] = static_cast<std::uint32_t>(head);
                    return k;
                }
            }
        }
    }
    return known_lookup(r, n);
}

Scheduler::KnownRanges& Scheduler::known_lookup(std::int32_t r, std::int64_t n) {
    const auto ri = static_cast<std::size_t>(r);
    if (shape_of_.size() < num_candidates()) shape_of_.resize(num_candidates(), -1);
    if (shape_of_[ri] < 0) shape_of_[ri] = shape_id(cand(ri));
    // A shape sees few train lengths, a route mostly the one it asked last: a list, and by candidate route the
    // node found last (a hint only: the node there is the one asked for exactly when it is of the route's shape
    // and its length matches; a shape's lengths are distinct, and a freed node's shape is -1 until reused).
    const std::int32_t shape = shape_of_[ri];
    if (known_hint_.size() < num_candidates()) known_hint_.resize(num_candidates(), 0);
    std::uint32_t& hint = known_hint_[ri];
    if (hint < known_count_) {
        KnownRanges& k = known_node(hint);
        if (k.shape == shape && k.n == n) return k;
    }
    std::int32_t& head = known_head_[static_cast<std::size_t>(shape)];
    for (std::int32_t i = head, prev = -1; i >= 0;) {
        KnownRanges& k = known_node(static_cast<std::size_t>(i));
        if (k.n == n) {
            hint = static_cast<std::uint32_t>(i);
            if (prev >= 0) {  // to the front: known() tries the head after the hint
                known_node(static_cast<std::size_t>(prev)).next = k.next;
                k.next = head;
                head = i;
            }
            return k;
        }
        prev = i;
        i = k.next;
    }
    std::int32_t i = known_free_;
    if (i >= 0) {
        known_free_ = known_node(static_cast<std::size_t>(i)).next;
    } else {
        if (known_count_ % kKnownChunk == 0) known_chunks_.push_back(std::make_unique<KnownRanges[]>(kKnownChunk));
        i = static_cast<std::int32_t>(known_count_++);
    }
    KnownRanges& k = known_node(static_cast<std::size_t>(i));
    k = KnownRanges{};
    k.n = n;
    k.shape = shape;
    k.next = head;
    k.hops = static_cast<std::uint32_t>(cand(ri).hops.size());
    head = i;
    hint = static_cast<std::uint32_t>(i);
    return k;
}

void Scheduler::shape_key(const Route& route, std::vector<std::int64_t>& hops) {
    // The key: a hop in one number (channel, parent + 1, kind, leaf in 32, 16, 15 and 1 bits; never negative) when
    // its fields fit, else, after a -1 that no packed key starts with, the four fields of every hop. At 10,440 TSPs
    // there are 1.3M shapes: four numbers a hop made their keys about 170 MB.
    const auto packs = [](const RouteHop& hop) {
        return hop.channel >= 0 && hop.parent >= -1 && hop.parent + 1 < (1 << 16) && hop.kind >= 0 &&
               hop.kind < (1 << 15);
    };
    hops.clear();
    if (std::all_of(route.hops.begin(), route.hops.end(), packs)) {
        hops.reserve(route.hops.size());
        for (const RouteHop& hop : route.hops) {
            hops.push_back(static_cast<std::int64_t>(hop.channel) << 32 |
                           static_cast<std::int64_t>(hop.parent + 1) << 16 | static_cast<std::int64_t>(hop.kind) << 1 |
                           (hop.leaf ? 1 : 0));
        }
    } else {
        hops.reserve(1 + route.hops.size() * 4);
        hops.push_back(-1);
        for (const RouteHop& hop : route.hops) {
            hops.push_back(hop.channel);
            hops.push_back(hop.parent);
            hops.push_back(hop.kind);
            hops.push_back(hop.leaf ? 1 : 0);
        }
    }
}

std::int32_t Scheduler::shape_id(const Route& route, std::uint64_t* hash) {
    // The key is made in a reused buffer and copied only for a new shape.
    shape_key(route, shape_key_);
    const std::uint64_t h = shapes_.hash_of(shape_key_);
    if (hash != nullptr) *hash = h;
    if (const std::int32_t* known = shapes_.find(shape_key_, h)) return *known;
    // Ids are positions in known_head_: release_pair() erases keys from shapes_, never entries of known_head_.
    const auto id = static_cast<std::int32_t>(known_head_.size());
    shapes_.insert_new(shape_key_, h, id);
    known_head_.push_back(-1);
    return id;
}

// From Send cycle m0 on, the first Send cycle at which the train fits (see need()), trying the cycles next_send()
// proposes (or, given the hops' offsets over every clock phase, the later ones skip_busy() shows to be no earlier
// than any fit); Fifo as soon as one of them overflows a FIFO. `table_fits`: `plan` is the train timed at m0 and fits
// the table alone (it is not timed again, nor its hops looked up in the table).
// With a cutoff, Later as soon as the train timed at the Send cycle tried completes at or past it: a train's
// completion never decreases with its Send cycle (each hop's consumer issues no earlier when its train arrives
// later), so no fit from there on completes before the cutoff.
Fit Scheduler::search(const Route& route, std::int64_t n, std::int64_t m0, std::int32_t exclude, bool table_only,
                      Plan& plan, const HopOffsets* offsets, Time cutoff, bool table_fits, const Templates* shifted) {
    for (;; table_fits = false) {
        if (!table_fits && !timed(route, n, m0, plan, shifted)) return Fit::Fifo;
        if (plan.completion >= cutoff) return Fit::Later;
        const Time t = need(route, plan, exclude, table_only, table_fits);
        if (t == Time::zero()) return Fit::Ok;
        if (offsets != nullptr && offsets->usable) {
            // next_send()'s start, before its fixed point at this phase's offsets: skip_busy()'s fixed point over
            // every phase's offsets from there is never later than next_send() followed by skip_busy() (both fixed
            // points only move later, and the one over ranges is the weaker), so no Send cycle that fits is passed.
            const Time t0 = timing_.edge(plan.m0 + chip_.issue_cycles);
            const std::int64_t m = std::max(plan.m0 + 1, timing_.edge_at_or_before(t0 + t) - chip_.issue_cycles - 1);
            m0 = m >= 0 ? skip_busy(route, *offsets, m, exclude, table_only, cutoff)
                        : skip_busy(route, *offsets, next_send(route, plan, t, exclude, table_only), exclude,
                                    table_only);
        } else {
            m0 = next_send(route, plan, t, exclude, table_only);
        }
    }
}

// Finds the earliest Send cycle >= m_start (or checks m_start itself when `fixed`) at which the train fits (see
// need()). Bookings of train `exclude` of the overlay are ignored (it is the train being extended; only when
// `fixed`). A new train's answer is remembered (PlaceMemo) until the overlay changes on the route's channels.
Fit Scheduler::place(std::int32_t r, std::int64_t n, std::int64_t m_start, std::int32_t exclude, bool fixed,
                     Plan& plan, Time cutoff) {
    const Route& route = cand(r);
    if (fixed) {
        if (!evaluate(route, n, m_start, plan)) return Fit::Fifo;
        return need(route, plan, exclude, false) == Time::zero() ? Fit::Ok : Fit::Busy;
    }
    LOOM_ASSERT(exclude < 0, "a new train excludes no train of the overlay");
    if (!reuse_) return earliest_fit(route, r, n, m_start, plan, Time::max());
    if (place_memo_.size() < num_candidates()) place_memo_.resize(num_candidates());
    PlaceMemo& memo = place_memo_[static_cast<std::size_t>(r)];
    if (memo.valid && memo.n == n && memo.m == m_start) {
        // A search cut off earlier answers again while the cutoff is no later than where it stopped.
        if (memo.fit != Fit::Later) {
            plan = memo.plan;
            return memo.fit;
        }
        if (cutoff <= memo.plan.completion) return Fit::Later;
    }
    memo.fit = earliest_fit(route, r, n, m_start, plan, cutoff);
    memo.valid = true;
    memo.n = n;
    memo.m = m_start;
    memo.plan = plan;
    return memo.fit;
}

// The earliest Send cycle >= m_start at which a new train of n vectors on route r fits (see need()).
// Every Send cycle the table alone rules out for a train of this shape stays ruled out as the table grows, so the
// search first finds the earliest fit in the table alone, starting past what earlier searches of the same shape
// ruled out (known()), then goes on from there with the overlay and the transfer's ordering: the same earliest fit,
// without walking again over every gap that many earlier transfers already found too small. Should a FIFO overflow
// on the way, the search from m_start decides, as it tries other Send cycles.
//
// With a cutoff (only where every Send cycle fits the FIFOs, so that no search can end in Fifo and make the caller
// try a shorter train), the searches stop once the train's completion reaches it (search()): Later. What the
// table-alone search ruled out before it stopped is kept (with no Send cycle known to fit).
Fit Scheduler::earliest_fit(const Route& route, std::int32_t r, std::int64_t n, std::int64_t m_start, Plan& plan,
                            Time cutoff) {
    if (!reuse_) {
        if (!evaluate(route, n, m_start, plan)) return Fit::Fifo;
        return search(route, n, m_start, -1, false, plan);
    }
    KnownRanges& ranges = this->known(r, n);
    const HopOffsets* offsets = &hop_offsets(route, n, ranges);
    // Usable offsets: every phase fits the FIFOs, so every Send cycle >= 0 does.
    const bool fifo_safe = offsets->usable && m_start >= 0;
    if (!fifo_safe && !evaluate(route, n, m_start, plan)) return Fit::Fifo;
    if (!fifo_safe) cutoff = Time::max();
    const Templates tpl = offsets->usable ? templates(r, n, ranges) : Templates{};
    const Templates* shifted = &tpl;
    KnownBusy& known = ranges.send;
    const bool extends = known.lo <= m_start && m_start <= known.hi;
    const std::int64_t from = extends ? std::max(m_start, known.hi) : m_start;
    // Unchanged since hi was found to fit (the table changes only when a transfer commits): hi is the answer.
    const std::int64_t stamp = route_stamp(route);
    if (extends && known.stamp == stamp) {
        const Fit fit = search(route, n, from, -1, false, plan, offsets, cutoff, false, shifted);
        if (fit == Fit::Ok || fit == Fit::Later) return fit;
    } else {
        const Fit alone = search(route, n, from, -1, true, plan, offsets, cutoff, false, shifted);
        if (alone == Fit::Later) {
            known = KnownBusy{extends ? known.lo : m_start, plan.m0, -1};
            return Fit::Later;
        }
        if (alone == Fit::Ok) {
            known = KnownBusy{extends ? known.lo : m_start, plan.m0, stamp};
            // Without overlay bookings on the route's channels, the full search differs from the table-alone one
            // only by the transfer's ordering at the leaves (need()): if the plan meets it, it is the answer.
            if (overlay_free(route) && meets_ordering(route, plan)) return Fit::Ok;
            const Fit fit = search(route, n, plan.m0, -1, false, plan, offsets, cutoff, true, shifted);
            if (fit == Fit::Ok || fit == Fit::Later) return fit;
        }
    }
    return search(route, n, m_start, -1, false, plan, offsets, Time::max(), false, shifted);
}

// The hops' offsets from the train's start for every phase of the Send cycle (unusable when the clock is not
// periodic or some phase overflows a FIFO: then a search must visit the Send cycles next_send() proposes, since
// it stops at the first overflow). Every Send cycle >= 0 gives k_from >= 0, where hop timing depends on the phase
// alone (no consumer is held back to cycle 0), so one period of Send cycles far from 0 gives every offset.
const Scheduler::HopOffsets& Scheduler::hop_offsets(const Route& route, std::int64_t n, KnownRanges& known) {
    if (known.offsets.known) return known.offsets;
    known.offsets.known = true;
    HopOffsets& o = known.offsets;
    if (!timing_.periodic()) return o;
    const std::size_t hops = route.hops.size();
    o.per_hop = offset_pool_.take(3 * hops);
    TemplateRef& ref = timing_key(route, n);
    if (ref.offsets_known) {
        std::copy(ref.per_hop.begin(), ref.per_hop.end(), o.per_hop);
        o.reach = ref.reach;
        o.usable = ref.offsets_usable;
        return o;
    }
    const auto keep = [&] {
        ref.offsets_known = true;
        ref.offsets_usable = o.usable;
        ref.reach = o.reach;
        ref.per_hop.assign(o.per_hop, o.per_hop + 3 * hops);
    };
    for (std::size_t h = 0; h < hops; ++h) {
        o.lo(h) = Time::max();
        o.hi(h) = Time::ps(std::numeric_limits<std::int64_t>::min());
        o.length(h) = Time::zero();
    }
    o.reach = Time::max();
    Plan plan;
    const std::int64_t base = timing_.den() * 1024;
    for (std::int64_t p = 0; p < timing_.den(); ++p) {
        if (!evaluate(route, n, base + p, plan)) {
            keep();
            return o;
        }
        const Time t0 = timing_.edge(base + p + chip_.issue_cycles);
        o.reach = std::min(o.reach, plan.completion - t0);
        for (std::size_t h = 0; h < hops; ++h) {
            const HopPlan& hp = plan.hops[h];
            o.lo(h) = std::min(o.lo(h), hp.start - t0);
            o.hi(h) = std::max(o.hi(h), hp.start - t0);
            o.length(h) = hp.end - hp.start;
        }
    }
    o.usable = true;
    keep();
    return o;
}

// The first Send cycle >= m at which every hop could be free, whatever the clock phase does to the hops' offsets:
// a Send cycle whose train starts at t fits only if each hop's interval, which starts somewhere in
// [t + lo, t + hi], is free, i.e. only if t + hi >= first_fit(t + lo) for every hop. Over the train starts t >= T
// that bound only grows with T: its fixed point. Never past a Send cycle that fits, so a search may go on from
// there instead of stepping a cycle at a time towards the fit that next_send() aims at with a cycle of slack.
std::int64_t Scheduler::skip_busy(const Route& route, const HopOffsets& offsets, std::int64_t m, std::int32_t exclude,
                                  bool table_only, Time cutoff) const {
    if (m < 0) return m;
    Time target = timing_.edge(m + chip_.issue_cycles);
    if (cutoff == Time::max()) {
        // No cutoff: the fixed point (or the value of 64 rounds), hop after hop (fixed_point.hpp). A hop's step
        // max(s, fit - hi) only moves s later and keeps order, as fixed_point() needs. (With a cutoff, the rounds
        // stop at the first round's start that reaches it, a value of the rounds' own path: they are kept as such.)
        target = fixed_point(route.hops.size(), target, 64, [&](std::size_t h, Time s) {
            const Time fit = table_only ? table_fit(route.hops[h].channel, s + offsets.lo(h), offsets.length(h))
                                        : first_fit(route.hops[h].channel, s + offsets.lo(h), offsets.length(h),
                                                    exclude);
            return std::max(s, fit - offsets.hi(h));
        });
        return std::max(m, timing_.edge_at_or_after(target) - chip_.issue_cycles);
    }
    for (int round = 0; round < 64; ++round) {
        // A train that starts at or after `target` completes at or after target + reach: once that reaches the
        // cutoff, the Send cycle found so far already shows that none can beat it (search() returns Later there),
        // and the Send cycles before it are ruled out, as they are at every round.
        if (target + offsets.reach >= cutoff) break;
        Time next = target;
        for (std::size_t h = 0; h < route.hops.size(); ++h) {
            const topo::ChannelId c = route.hops[h].channel;
            const Time from = target + offsets.lo(h);
            const Time length = offsets.length(h);
            const Time fit = table_only ? table_fit(c, from, length) : first_fit(c, from, length, exclude);
            next = std::max(next, fit - offsets.hi(h));
        }
        if (next == target) break;
        target = next;
    }
    return std::max(m, timing_.edge_at_or_after(target) - chip_.issue_cycles);
}

void Scheduler::forget(std::int32_t changed) {
    const Route& route = cand(changed);
    // The changed route's channels marked (a lookup per hop of each candidate, not a scan of the route's hops).
    if (channel_mark_.empty()) channel_mark_.resize(static_cast<std::size_t>(topo_.num_channels()), 0);
    for (const RouteHop& b : route.hops) channel_mark_[static_cast<std::size_t>(b.channel)] = 1;
    for (std::size_t r = 0; r < num_candidates(); ++r) {
        // A candidate with no valid memo has nothing to forget: its hops are not looked at.
        const bool place = r < place_memo_.size() && place_memo_[r].valid;
        const bool bound = r < bound_memo_.size() && bound_memo_[r].valid;
        if (!place && !bound) continue;
        bool shares = false;
        for (const RouteHop& a : cand(r).hops) {
            if (channel_mark_[static_cast<std::size_t>(a.channel)] != 0) {
                shares = true;
                break;
            }
        }
        if (!shares) continue;
        if (place) place_memo_[r].valid = false;
        if (bound) bound_memo_[r].valid = false;
    }
    for (const RouteHop& b : route.hops) channel_mark_[static_cast<std::size_t>(b.channel)] = 0;
}

std::int64_t Scheduler::route_stamp(const Route& route) const {
    std::int64_t s = 0;
    for (const RouteHop& hop : route.hops) s += table_.inserts(hop.channel);
    return s;
}

bool Scheduler::overlay_free(const Route& route) const {
    if (overlay_.entries.empty()) return true;
    for (const RouteHop& hop : route.hops) {
        if (std::binary_search(overlay_.entries.begin(), overlay_.entries.end(), hop.channel, ByChannel{}))
            return false;
    }
    return true;
}

bool Scheduler::meets_ordering(const Route& route, const Plan& plan) const {
    for (std::size_t h = 0; h < route.hops.size(); ++h) {
        if (route.hops[h].leaf && plan.hops[h].cycle < min_consume_cycle_) return false;
    }
    return true;
}

void Scheduler::forget_all() {
    // Marked invalid rather than cleared: their plans' buffers are kept for the next transfer.
    for (PlaceMemo& m : place_memo_) m.valid = false;
    for (BoundMemo& m : bound_memo_) m.valid = false;
}

// Appends c vectors to the train the route already carries, keeping its Send cycle.
// Whether it fits.
bool Scheduler::consider_extension(std::int32_t r, std::int64_t c, std::int32_t last, Option& best) {
    const Route& route = cand(r);
    const std::int64_t cr = std::min(c, route.max_train);
    const Train& t = overlay_.trains[static_cast<std::size_t>(last)];
    const std::int64_t n = t.plan.n + cr;
    if (n > route.max_train) return false;
    Option& o = scratch();
    if (place(r, n, t.plan.m0, last, true, o.plan) != Fit::Ok) return false;
    o.valid = true;
    o.completion = o.plan.completion;
    o.n = cr;
    o.route = r;
    o.extend = last;
    if (o.completion < best.completion) std::swap(best, o);
    return true;
}

// An option to fill in, its plans' buffers kept from earlier ones (no allocation per option tried).
Option& Scheduler::scratch() {
    scratch_.reset();
    return scratch_;
}

// A new train of c vectors (fewer if the route's FIFOs cannot take that many) at its earliest fit.
void Scheduler::consider_new(std::int32_t r, std::int64_t c, std::int64_t m_ready, Option& best) {
    const Route& route = cand(r);
    std::int64_t cr = std::min(c, route.max_train);
    Option& o = scratch();
    // Only a completion before the best option's matters (Fit::Later: this route cannot beat it).
    const Time cutoff = best.valid ? best.completion : Time::max();
    for (;;) {
        const Fit fit = place(r, cr, m_ready, -1, false, o.plan, cutoff);
        if (fit == Fit::Later) return;
        if (fit == Fit::Ok) {
            o.valid = true;
            o.completion = o.plan.completion;
            o.n = cr;
            o.route = r;
            if (o.completion < best.completion) std::swap(best, o);
            return;
        }
        if (cr == 1) return;  // not even one vector fits this route's FIFOs
        cr = (cr + 1) / 2;
    }
}

// An estimate from below of the completion of a new train of n vectors on a path, to try routes in a promising
// order and skip those that cannot win: every hop needs an interval of the train's length free in the table and in
// the overlay, no earlier than the train's start plus the time its first vector takes to get there; the earliest
// start meeting all hops at once is a fixed point of their first fits. Real hop offsets exceed these by the clock
// alignment (at most a cycle, plus crossing cycles and jitter, per hop), which is subtracted as slack.
Time Scheduler::optimistic_completion(std::int32_t r, std::int64_t n, std::int64_t m_ready) {
    if (!reuse_) return completion_bound(r, n, m_ready);
    if (bound_memo_.size() < num_candidates()) bound_memo_.resize(num_candidates());
    BoundMemo& memo = bound_memo_[static_cast<std::size_t>(r)];
    if (memo.valid && memo.n == n && memo.m == m_ready) return memo.value;
    memo = BoundMemo{true, n, m_ready, completion_bound(r, n, m_ready)};
    return memo.value;
}

// optimistic_completion() without the memo.
Time Scheduler::completion_bound(std::int32_t r, std::int64_t n, std::int64_t m_ready) {
    const Route& route = cand(r);
    const Time t0 = timing_.edge(m_ready + chip_.issue_cycles);
    // The fixed point in the table alone is a lower bound of the one with the overlay, and only grows with the
    // table: start from where the last search of this shape from a start at or before t0 ended (known()).
    Time start = t0;
    if (reuse_) {
        KnownRanges& ranges = this->known(r, n);
        KnownBusy& known = ranges.start;
        const bool extends = known.lo <= t0.count() && t0.count() <= known.hi;
        if (extends) start = std::max(t0, Time::ps(known.hi));
        const std::int64_t stamp = route_stamp(route);
        if (extends && known.stamp != stamp && hops_still_fit(route, n, start, ranges.start_inserts)) {
            // No booking since came near the hops at hi: hi still fits, and is still the first to fit.
            known.stamp = stamp;
            hop_inserts(route, ranges);
        } else if (!extends || known.stamp != stamp) {
            start = hops_fixed_point(route, n, start, true, std::numeric_limits<int>::max());
            known.lo = extends ? known.lo : t0.count();
            known.hi = start.count();
            known.stamp = stamp;
            hop_inserts(route, ranges);
        }
    }
    // Without overlay bookings on the route's channels, the table-alone fixed point is the one with the overlay.
    if (!reuse_ || !overlay_free(route)) start = hops_fixed_point(route, n, start, false, 64, reuse_);
    return bound_at(route, n, start);
}

// optimistic_completion()'s value for a train that starts at `start` (the fixed point); no less for a later start.
Time Scheduler::bound_at(const Route& route, std::int64_t n, Time start) const {
    return bound_at(bound_tail(route), n, start);
}

// The start, the last hop's offset plus its S(1) + latency (every hop's: RouteHop::bound_offset), its S(n) in place of
// its S(1), less the alignment slack of every hop.
Scheduler::BoundTail Scheduler::bound_tail(const Route& route) const {
    const RouteHop& last = route.hops.back();
    const Pace& s = net_.fast_pace[last.pace];
    const Time per_hop = timing_.period_floor() * (2 + chip_.crossing_cycles) + timing_.jitter_allowance();
    return BoundTail{last.bound_offset + s.latency() - per_hop * static_cast<std::int64_t>(route.hops.size()),
                     last.pace};
}

// No more than optimistic_completion(r, n, m_ready), without a search: the remembered value, else the bound at the
// start known so far (completion_bound() starts from there and only moves later).
Time Scheduler::bound_floor(std::int32_t r, std::int64_t n, std::int64_t m_ready) {
    const auto ri = static_cast<std::size_t>(r);
    if (ri < bound_memo_.size()) {
        const BoundMemo& memo = bound_memo_[ri];
        if (memo.valid && memo.n == n && memo.m == m_ready) return memo.value;
    }
    Time start = timing_.edge(m_ready + chip_.issue_cycles);
    if (reuse_) {
        const KnownBusy& known = this->known(r, n).start;
        if (known.lo <= start.count() && start.count() <= known.hi) start = Time::ps(known.hi);
    }
    // A pair's candidate: its tail kept beside the pair's shapes (not read from the route's hops, which a route
    // this floor rules out is not otherwise read for).
    if (ri < pair_routes_) return bound_at(pair_state_->tails[ri], n, start);
    return bound_at(cand(ri), n, start);
}

// The earliest train start at or after `start` at which every hop of a new train of n vectors has an interval of its
// length free, no earlier than the start plus the time its first vector takes to get there (in the table alone, or
// also in the overlay), or the estimate after `rounds` rounds. `table_fixed`: `start` is the fixed point in the table
// alone (the first round asks the overlay only).
Time Scheduler::hops_fixed_point(const Route& route, std::int64_t n, Time start, bool table_only, int rounds,
                                 bool table_fixed) const {
    // fixed_point.hpp: the hops asked one after another, each from where the hops before it moved the start. The
    // start is the table-alone fixed point (`table_fixed`) until a hop moves it: the table need not be asked there.
    const Time from = start;
    return fixed_point(route.hops.size(), start, rounds, [&](std::size_t h, Time s) {
        const RouteHop& hop = route.hops[h];
        const Time offset = hop.bound_offset;
        const Time length = net_.fast_pace[hop.pace](n);
        const Time fit = table_only ? table_fit(hop.channel, s + offset, length)
                                    : first_fit(hop.channel, s + offset, length, -1, table_fixed && s == from);
        return fit - offset;
    });
}

bool Scheduler::hops_still_fit(const Route& route, std::int64_t n, Time start, const std::int64_t* inserts) const {
    if (inserts == nullptr) return false;
    for (std::size_t h = 0; h < route.hops.size(); ++h) {
        const RouteHop& hop = route.hops[h];
        const Time from = start + hop.bound_offset;
        if (!table_.untouched_since(hop.channel, inserts[h], from, from + net_.fast_pace[hop.pace](n))) return false;
    }
    return true;
}

void Scheduler::hop_inserts(const Route& route, KnownRanges& known) {
    std::int64_t*& inserts = known.start_inserts;
    if (inserts == nullptr) inserts = insert_pool_.take(route.hops.size());
    for (std::size_t h = 0; h < route.hops.size(); ++h) inserts[h] = table_.inserts(route.hops[h].channel);
}

std::pair<std::int32_t, std::int32_t> Scheduler::split_of(std::int32_t r, std::size_t at) {
    for (const auto& [route, a, first, second] : splits_) {
        if (route == r && a == at) return {first, second};
    }
    auto halves = detail::split_route(net_, cand(r), at);
    own_routes_.push_back(std::move(halves.first));
    own_routes_.push_back(std::move(halves.second));
    const auto first = static_cast<std::int32_t>(num_candidates()) - 2;
    splits_.emplace_back(r, at, first, first + 1);
    return {first, first + 1};
}

void Scheduler::consider_staged(std::int32_t r, std::size_t at, std::int64_t c, std::int64_t m_ready, Option& best) {
    const auto [r1, r2] = split_of(r, at);
    const Route& first = cand(r1);
    const Route& second = cand(r2);
    std::int64_t cr = std::min({c, first.max_train, second.max_train});
    const topo::VertexId x = first.hops.back().to;
    const std::int64_t room = cfg_.staging_bytes.count() - staging_taken(x);
    cr = std::min(cr, room / unit_.count());
    if (cr < 1) return;
    Option o;
    for (;;) {
        if (place(r1, cr, m_ready, -1, false, o.plan) == Fit::Ok) {
            const std::int64_t m2 = timing_.clock().edge_at_or_after(o.plan.write_done);
            if (place(r2, cr, m2, -1, false, o.plan2) == Fit::Ok) break;
        }
        if (cr == 1) return;
        cr = (cr + 1) / 2;
    }
    o.valid = true;
    o.completion = o.plan2.completion;
    o.n = cr;
    o.route = r1;
    o.route2 = r2;
    if (o.completion < best.completion) best = std::move(o);
}

void Scheduler::add_entries(std::int32_t train) {
    const Train& t = overlay_.trains[static_cast<std::size_t>(train)];
    const Route& route = cand(t.route);
    for (std::size_t h = 0; h < route.hops.size(); ++h) {
        const HopPlan& hp = t.plan.hops[h];
        overlay_.entries.push_back(
            {route.hops[h].channel, Booking{hp.start, hp.end, hp.cycle, hp.first_arrival, hp.last_leave}, train});
    }
    forget(t.route);
    std::sort(overlay_.entries.begin(), overlay_.entries.end(), [](const OverlayEntry& a, const OverlayEntry& b) {
        return std::tie(a.channel, a.train, a.booking.start) < std::tie(b.channel, b.train, b.booking.start);
    });
}

void Scheduler::apply(const Option& o, std::vector<std::int32_t>& last) {
    if (o.extend >= 0) {
        overlay_.trains[static_cast<std::size_t>(o.extend)].plan = o.plan;
        std::erase_if(overlay_.entries, [&](const OverlayEntry& e) { return e.train == o.extend; });
        add_entries(o.extend);
        return;
    }
    Train t;
    t.route = o.route;
    t.plan = o.plan;
    const auto index = static_cast<std::int32_t>(overlay_.trains.size());
    if (o.route2 >= 0) {
        t.staged_first = true;
        t.partner = index + 1;
        Train t2;
        t2.route = o.route2;
        t2.plan = o.plan2;
        t2.staged_second = true;
        t2.partner = index;
        overlay_.trains.push_back(std::move(t));
        overlay_.trains.push_back(std::move(t2));
        add_entries(index);
        add_entries(index + 1);
        const topo::VertexId x = cand(o.route).hops.back().to;
        overlay_.staging.emplace_back(x, o.n * unit_.count());
        return;
    }
    overlay_.trains.push_back(std::move(t));
    add_entries(index);
    last[static_cast<std::size_t>(o.route)] = index;
}

Time Scheduler::overlay_completion() const {
    Time c;
    for (const Train& t : overlay_.trains) {
        if (!t.staged_first) c = std::max(c, t.plan.completion);
    }
    return c;
}

bool Scheduler::overlay_uses_nonminimal() const {
    for (const Train& t : overlay_.trains) {
        if (!cand(t.route).minimal) return true;
    }
    return false;
}

Time Scheduler::greedy(const std::vector<std::int32_t>& allowed, std::int64_t total, std::int64_t m_ready) {
    forget_all();  // the overlay starts anew
    std::vector<std::int32_t>& last = last_train_;
    last.assign(num_candidates(), -1);
    const auto k = static_cast<std::int64_t>(allowed.size());
    std::int64_t remaining = total;
    Option& best = greedy_best_;  // per piece; its plans' buffers kept from piece to piece (and transfer to transfer)
    while (remaining > 0) {
        std::int64_t c = k == 1 ? remaining : std::max<std::int64_t>(cfg_.min_chunk_vectors, ceil_div(remaining, k));
        c = std::min(c, remaining);
        best.reset();
        // Appending to a route's train is never later than a new train on that route: try those first, then new
        // trains on the other routes in order of a lower bound of their completion (optimistic_completion(), then
        // route index), while that can still win. The bounds are worked out lazily: each route starts with a cheap
        // floor of its bound (bound_floor()), and the route least by (bound, index) is taken only once its bound is
        // exact, so routes are tried in the same order, and stopped at the same one, as with every bound worked out.
        fresh_.clear();
        for (std::int32_t r : allowed) {
            if (static_cast<std::size_t>(r) >= last.size()) last.resize(static_cast<std::size_t>(r) + 1, -1);
            const std::int32_t t = last[static_cast<std::size_t>(r)];
            if (t >= 0 && consider_extension(r, c, t, best)) continue;
            const Route& route = cand(r);
            if (route.leaf_latency.size() == 1) {
                fresh_.push_back(FreshRoute{bound_floor(r, std::min(c, route.max_train), m_ready), r, false});
            } else {
                fresh_.push_back(FreshRoute{Time::zero(), r, true});
            }
        }
        while (!fresh_.empty()) {
            std::size_t i = 0;
            for (std::size_t j = 1; j < fresh_.size(); ++j) {
                if (std::tie(fresh_[j].bound, fresh_[j].route) < std::tie(fresh_[i].bound, fresh_[i].route)) i = j;
            }
            FreshRoute& f = fresh_[i];
            if (!f.exact) {
                const Route& route = cand(f.route);
                f.bound = optimistic_completion(f.route, std::min(c, route.max_train), m_ready);
                f.exact = true;
                continue;
            }
            if (best.valid && f.bound >= best.completion) break;
            const std::int32_t r = f.route;
            fresh_[i] = fresh_.back();
            fresh_.pop_back();
            consider_new(r, c, m_ready, best);
        }
        if (cfg_.staging && stage_) {
            for (std::int32_t r : allowed) {
                const std::size_t hops = cand(r).hops.size();
                for (std::size_t at = 0; at + 1 < hops; ++at) consider_staged(r, at, c, m_ready, best);
            }
        }
        if (!best.valid)
            throw ModelError(fmt::format("no route can carry even one vector within fifo_depth {} (chip section)",
                                         chip_.fifo_depth));
        if (last.size() < num_candidates()) last.resize(num_candidates(), -1);
        apply(best, last);
        remaining -= best.n;
    }
    return overlay_completion();
}

void Scheduler::plan_transfer(std::size_t i, Time ready) {
    const workload::Transfer& x = set_.transfers[i];
    const std::int64_t n = x.vectors(unit_);
    const std::int64_t m_ready = timing_.clock().edge_at_or_after(ready);
    // Strictly after the last write of every `after` transfer: a Reduce reads its operands at issue.
    min_consume_cycle_ =
        consume_after_[i] > Time::zero() ? timing_.clock().edge_at_or_after(consume_after_[i]) + 1 : 0;
    shape_of_.clear();
    splits_.clear();
    // Emptied, its vectors' buffers kept.
    overlay_.trains.clear();
    overlay_.entries.clear();
    overlay_.staging.clear();
    stage_ = x.dsts.size() == 1;
    pair_ = kNoPair;
    pair_state_ = nullptr;
    pair_candidates_ = nullptr;
    pair_routes_ = 0;
    own_routes_.clear();
    if (x.dsts.size() == 1) {
        const std::uint64_t pair = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(x.src)) << 32) |
                                   static_cast<std::uint32_t>(x.dsts[0]);
        PairState& state = pairs_[pair_of_[i]];
        if (state.routes == nullptr) {
            // Read in place from the route cache (stable until the pair's last transfer is planned: release_pair()).
            const std::vector<Route>& routes = detail::point_to_point_routes(net_, x.src, x.dsts[0], cfg_);
            if (routes.empty())
                throw ModelError(fmt::format("transfer {}: no path from TSP {} ({}) to TSP {} ({})", x.id, x.src,
                                             topo_.vertex_name(x.src), x.dsts[0], topo_.vertex_name(x.dsts[0])));
            // The candidates of a pair are the same every time (route.hpp, RouteCache): so are their shapes.
            for (const Route& route : routes) {
                std::uint64_t hash = 0;
                state.shapes.push_back(shape_id(route, &hash));
                state.shape_hashes.push_back(hash);
                state.tails.push_back(bound_tail(route));
            }
            state.latency = fastest_latency(routes, x.dsts[0]);
            state.routes = &routes;
        }
        pair_candidates_ = state.routes->data();
        pair_routes_ = state.routes->size();
        shape_of_ = state.shapes;
        pair_ = pair;
        pair_state_ = &state;
        duration_lb_[i] = transfer_duration_bound(net_, x, n, std::span<const Time>(&state.latency, 1));
        std::vector<std::int32_t>& all = all_routes_;
        std::vector<std::int32_t>& minimal = minimal_routes_;
        all.clear();
        minimal.clear();
        for (std::size_t r = 0; r < num_candidates(); ++r) {
            all.push_back(static_cast<std::int32_t>(r));
            if (cand(r).minimal) minimal.push_back(static_cast<std::int32_t>(r));
        }
        const Time with_detours = greedy(all, n, m_ready);
        if (overlay_uses_nonminimal()) {
            // Detours are kept only if they lower the predicted completion.
            Overlay spread = std::move(overlay_);
            overlay_ = Overlay{};
            const Time minimal_only = greedy(minimal, n, m_ready);
            if (with_detours < minimal_only) overlay_ = std::move(spread);
        }
    } else {
        own_routes_ = detail::fanout_routes(net_, x.src, x.dsts, cfg_);
        if (own_routes_.empty())
            throw ModelError(fmt::format("transfer {}: some destination cannot be reached from TSP {} ({})", x.id,
                                         x.src, topo_.vertex_name(x.src)));
        duration_lb_[i] = transfer_duration_bound(net_, x, n, own_routes_);
        const auto trees = static_cast<std::int32_t>(num_candidates());
        for (std::int32_t r = 0; r < trees; ++r) {
            const Route& route = cand(r);
            std::int64_t start = m_ready;
            if (route.feeder >= 0) {
                // A relay sends from a destination's memory once every vector is written there.
                Time written;
                for (const Train& t : overlay_.trains) {
                    if (t.route != route.feeder) continue;
                    const Route& feeder = cand(t.route);
                    for (std::size_t h = 0; h < feeder.hops.size(); ++h) {
                        if (feeder.hops[h].leaf && feeder.hops[h].to == route.src)
                            written = std::max(written, t.plan.hops[h].last_leave);
                    }
                }
                start = std::max(start, timing_.clock().edge_at_or_after(written));
            }
            greedy({r}, n, start);
        }
    }
    commit(i, ready);
}

}  // namespace loom::sched::detail
