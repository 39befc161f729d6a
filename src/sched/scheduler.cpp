#include "loom/sched/scheduler.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "hop_timing.hpp"
#include "loom/base/assert.hpp"
#include "loom/base/error.hpp"
#include "reservation_table.hpp"
#include "route.hpp"

namespace loom::sched {
namespace {

using detail::Booking;
using detail::HopTiming;
using detail::Network;
using detail::ReservationTable;
using detail::Route;
using detail::RouteHop;
using detail::Serializer;

__extension__ using i128 = __int128;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Timing of one train on one hop of its route.
struct HopPlan {
    std::int64_t k_from = 0;  // edge index at which the train's first bit enters the hop's channel
    std::int64_t k_out = 0;   // Forward at the far end: edge index of the onward train's start
    std::int64_t cycle = 0;   // issue cycle of the consuming instruction at the far end
    Time start;               // = edge(k_from)
    Time end;                 // start + S(n): the channel is busy over [start, end)
    Time first_arrival;       // vector 1 fully arrived at the far end (no jitter)
    Time last_arrival;        // vector n fully arrived (no jitter)
    Time last_leave;          // vector n out of the far end's FIFO (latest)
};

struct Plan {
    std::int64_t m0 = 0;  // issue cycle of the Send
    std::int64_t n = 0;   // vectors
    std::vector<HopPlan> hops;
    Time completion;      // last arrival (no jitter) at a leaf
    Time write_done;      // last vector in memory at every leaf (jitter allowed)
};

enum class Fit { Ok, Busy, Fifo };

// A train of the transfer being planned.
struct Train {
    std::int32_t route = 0;  // index into the candidate routes
    Plan plan;
    std::int32_t partner = -1;   // staged pieces: the other half
    bool staged_first = false;   // ends in a Receive into staging memory
    bool staged_second = false;  // starts with a Send from staging memory
};

struct OverlayEntry {
    topo::ChannelId channel = 0;
    Booking booking;
    std::int32_t train = 0;
};

// Overlay entries are kept sorted by channel (then train), so that a hop finds its channel's by binary search.
struct ByChannel {
    bool operator()(const OverlayEntry& e, topo::ChannelId c) const { return e.channel < c; }
    bool operator()(topo::ChannelId c, const OverlayEntry& e) const { return c < e.channel; }
};

// The bookings of the transfer being planned, kept apart from the table until the plan is chosen.
struct Overlay {
    std::vector<Train> trains;
    std::vector<OverlayEntry> entries;
    std::vector<std::pair<topo::VertexId, std::int64_t>> staging;  // bytes of staging memory taken, by TSP
};

// One way to place the next piece of a tensor.
struct Option {
    bool valid = false;
    Time completion = Time::max();
    std::int64_t n = 0;
    std::int32_t route = -1;
    std::int32_t extend = -1;  // train extended by n vectors, or -1 for a new train
    Plan plan;
    std::int32_t route2 = -1;  // staged: the second half's route
    Plan plan2;
};

struct CommittedTrain {
    std::uint32_t transfer = 0;  // position in the transfer set
    std::int32_t route = 0;      // index into used routes
    std::int64_t m0 = 0;
    std::int64_t n = 0;
    std::int64_t first_vector = 0;
    std::int64_t send_address = 0;
    std::int64_t receive_address = 0;
    bool staged_first = false;  // its leaves are staging points, not destinations
    std::size_t hop_offset = 0;  // into committed_hops_: (k_from, cycle) per hop
};

class Scheduler {
public:
    Scheduler(const topo::FrozenTopology& t, const topo::LinkClassTiming& links, const topo::ChipConfig& chip,
              const workload::TransferSet& set, const SchedulerConfig& cfg);
    Schedule run();

private:
    static Time jitter_of(const topo::LinkClassTiming& links, const SchedulerConfig& cfg);
    static std::array<Serializer, topo::kLinkClassCount> paces(const topo::LinkClassTiming& links);
    std::vector<Time> min_gaps() const;
    void check_inputs() const;

    void plan_transfer(std::size_t i, Time ready);
    Time greedy(const std::vector<std::int32_t>& allowed, std::int64_t total, std::int64_t m_ready);
    bool consider_extension(std::int32_t r, std::int64_t c, std::int32_t last, Option& best);
    void consider_new(std::int32_t r, std::int64_t c, std::int64_t m_ready, Option& best);
    Time optimistic_completion(const Route& route, std::int64_t n, std::int64_t m_ready) const;
    void consider_staged(std::int32_t r, std::size_t at, std::int64_t c, std::int64_t m_ready, Option& best);
    std::pair<std::int32_t, std::int32_t> split_of(std::int32_t r, std::size_t at);
    void apply(const Option& o, std::vector<std::int32_t>& last);
    void add_entries(std::int32_t train);
    bool evaluate(const Route& route, std::int64_t n, std::int64_t m0, Plan& plan);
    Fit place(const Route& route, std::int64_t n, std::int64_t m_start, std::int32_t exclude, bool fixed, Plan& plan);
    std::int64_t staging_taken(topo::VertexId v) const;
    Time overlay_completion() const;
    bool overlay_uses_nonminimal() const;
    Time duration_bound(const workload::Transfer& x, std::int64_t n) const;
    void commit(std::size_t i, Time ready);
    Schedule build();

    const topo::FrozenTopology& topo_;
    const topo::ChipConfig& chip_;
    const workload::TransferSet& set_;
    SchedulerConfig cfg_;
    Bytes unit_;
    Time jitter_;
    HopTiming timing_;
    Network net_;
    ReservationTable table_;

    // The transfer being planned.
    bool stage_ = false;  // staging is considered for point-to-point transfers (paths) only
    // Its `after` transfers: no destination may consume a vector before this cycle (0: no such constraint).
    std::int64_t min_consume_cycle_ = 0;
    std::vector<Route> candidates_;
    std::vector<std::tuple<std::int32_t, std::size_t, std::int32_t, std::int32_t>> splits_;  // (route, at) -> halves
    Overlay overlay_;

    // Committed.
    std::vector<Route> used_routes_;
    std::vector<CommittedTrain> committed_;
    std::vector<std::pair<std::int64_t, std::int64_t>> committed_hops_;  // (k_from, cycle)
    std::vector<std::int64_t> staging_used_;                          // by TSP, bytes
    std::vector<Time> done_;                                          // by transfer position: completion
    std::vector<Time> duration_lb_;                                   // by transfer position
    std::vector<Time> consume_after_;                                 // by position: latest `after` completion
    std::vector<TransferTiming> timings_;                             // by transfer position
};

Time Scheduler::jitter_of(const topo::LinkClassTiming& links, const SchedulerConfig& cfg) {
    if (cfg.jitter_allowance) return *cfg.jitter_allowance;
    Time j;
    for (topo::LinkClass c : topo::kAllLinkClasses) j = std::max(j, links.timing(c).jitter);
    return j;
}

std::array<Serializer, topo::kLinkClassCount> Scheduler::paces(const topo::LinkClassTiming& links) {
    std::array<Serializer, topo::kLinkClassCount> p;
    for (topo::LinkClass c : topo::kAllLinkClasses) p[topo::index_of(c)] = Serializer(links.timing(c));
    return p;
}

Scheduler::Scheduler(const topo::FrozenTopology& t, const topo::LinkClassTiming& links, const topo::ChipConfig& chip,
                     const workload::TransferSet& set, const SchedulerConfig& cfg)
    : topo_(t),
      chip_(chip),
      set_(set),
      cfg_(cfg),
      unit_(links.unit_payload),
      jitter_(jitter_of(links, cfg)),
      timing_(chip.clock(), chip.forward_cycles, chip.crossing_cycles, chip.fifo_depth, jitter_),
      net_{t, paces(links), timing_, cfg.max_train_vectors},
      table_(min_gaps()) {
    for (topo::LinkClass c : topo::kAllLinkClasses) {
        if (t.link_count(c) > 0)
            links.timing(c).validate(fmt::format("/links/{}", topo::link_class_name(c)));
    }
    check_inputs();
}

std::vector<Time> Scheduler::min_gaps() const {
    std::vector<Time> g(static_cast<std::size_t>(topo_.num_channels()));
    for (topo::ChannelId c = 0; c < topo_.num_channels(); ++c) g[static_cast<std::size_t>(c)] = net_.channel(c)(1);
    return g;
}

void Scheduler::check_inputs() const {
    if (cfg_.max_paths < 1) throw InputError("/scheduler/max_paths: expected at least 1");
    if (cfg_.min_chunk_vectors < 1) throw InputError("/scheduler/min_chunk_vectors: expected at least 1");
    if (cfg_.max_train_vectors < 0) throw InputError("/scheduler/max_train_vectors: expected 0 or more");
    if (jitter_ < Time::zero()) throw InputError("/scheduler/jitter_allowance: must not be negative");
    if (chip_.issue_cycles < 0 || chip_.forward_cycles < 0 || chip_.crossing_cycles < 0 || chip_.fifo_depth < 1)
        throw InputError("/chip: issue_cycles, forward_cycles and crossing_cycles must be >= 0, fifo_depth >= 1");
    config::Errors errors;
    workload::validate(set_, topo_, chip_, "/workload", errors, unit_);
    if (cfg_.staging) {
        const std::int64_t limit = chip_.memory.count() - cfg_.staging_bytes.count();
        if (limit < 0) errors.add("/scheduler/staging_bytes", "is larger than the chip's memory");
        for (std::size_t i = 0; i < set_.transfers.size() && limit >= 0; ++i) {
            const workload::Transfer& x = set_.transfers[i];
            const std::int64_t size = x.vectors(unit_) * unit_.count();
            for (const char* key : {"src_address", "dst_address"}) {
                const std::int64_t a = std::string(key) == "src_address" ? x.src_address : x.dst_address;
                if (a + size > limit)
                    errors.add(fmt::format("/workload/transfers/{}/{}", i, key),
                               fmt::format("overlaps the staging area (the top {} of memory, from offset {})",
                                           to_string(cfg_.staging_bytes), limit));
            }
        }
    }
    errors.throw_if_any();
}

std::int64_t Scheduler::staging_taken(topo::VertexId v) const {
    std::int64_t b = staging_used_[static_cast<std::size_t>(v)];
    for (const auto& [tsp, bytes] : overlay_.staging) {
        if (tsp == v) b += bytes;
    }
    return b;
}

bool Scheduler::evaluate(const Route& route, std::int64_t n, std::int64_t m0, Plan& plan) {
    const detail::CoreClock& clock = timing_.clock();
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
        const Serializer& s = net_.channel(hop.channel);
        hp.start = clock.edge(hp.k_from);
        hp.end = hp.start + s(n);
        hp.first_arrival = hp.start + s(1) + s.latency();
        hp.last_arrival = hp.end + s.latency();
        if (hop.leaf) {
            hp.cycle = res.k;
            hp.k_out = 0;
            hp.last_leave = std::max(timing_.available(hp.last_arrival), clock.edge(res.k));
            plan.completion = std::max(plan.completion, hp.last_arrival);
            plan.write_done = std::max(plan.write_done, hp.last_leave);
        } else {
            hp.k_out = res.k;
            hp.cycle = res.k - chip_.forward_cycles;
            hp.last_leave = clock.edge(res.k) + (*timing_.hop_kind(hop.kind).out_last)(n - 1);
        }
    }
    return true;
}

// Finds the earliest Send cycle >= m_start (or checks m_start itself when `fixed`) at which the train fits: every
// channel free over its interval, the far end's consumers in arrival order, FIFO spans disjoint. Bookings of train
// `exclude` of the overlay are ignored (it is the train being extended).
Fit Scheduler::place(const Route& route, std::int64_t n, std::int64_t m_start, std::int32_t exclude, bool fixed,
                     Plan& plan) {
    const detail::CoreClock& clock = timing_.clock();
    std::int64_t m0 = m_start;
    for (;;) {
        if (!evaluate(route, n, m0, plan)) return Fit::Fifo;
        Time need;
        for (std::size_t h = 0; h < route.hops.size(); ++h) {
            const topo::ChannelId c = route.hops[h].channel;
            const HopPlan& hp = plan.hops[h];
            // The earliest this hop could start without crossing a block of the table.
            Time hneed = table_.first_fit(c, hp.start, hp.end - hp.start) - hp.start;
            const Booking* before = nullptr;
            const Booking* after = nullptr;
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
            if (hneed == Time::zero()) {
                const Booking* tb = table_.before(c, hp.start);
                const Booking* ta = table_.after(c, hp.start);
                if (tb && (!before || tb->start > before->start)) before = tb;
                if (ta && (!after || ta->start < after->start)) after = ta;
                if (before) {
                    if (before->consumer_cycle > hp.cycle)
                        hneed = std::max(hneed, clock.period_floor() * (before->consumer_cycle - hp.cycle));
                    if (before->last_leave > hp.first_arrival)
                        hneed = std::max(hneed, before->last_leave - hp.first_arrival);
                }
                if (after && (after->consumer_cycle < hp.cycle || hp.last_leave > after->first_arrival))
                    hneed = std::max(hneed, after->end - hp.start);
            }
            // Ordered after other transfers' writes (workload::Transfer::after): the consumer waits for them, and
            // its vectors must not wait in the FIFO, so the whole train moves later.
            if (route.hops[h].leaf && hp.cycle < min_consume_cycle_)
                hneed = std::max(hneed, clock.period_floor() * (min_consume_cycle_ - hp.cycle));
            need = std::max(need, hneed);
        }
        if (need == Time::zero()) return Fit::Ok;
        if (fixed) return Fit::Busy;
        // Moving the Send moves every hop by about as much (a hop's offset from the train's start varies by a cycle
        // with the clock phase). Before timing the train again, find the earliest train start at which every hop,
        // at this plan's offsets, fits between the bookings: a fixed point over the hops' first fits.
        const Time t0 = clock.edge(m0 + chip_.issue_cycles);
        Time target = t0 + need;
        for (int round = 0; round < 64; ++round) {
            Time next = target;
            for (std::size_t h = 0; h < route.hops.size(); ++h) {
                const topo::ChannelId c = route.hops[h].channel;
                const HopPlan& hp = plan.hops[h];
                const Time offset = hp.start - t0;
                const Time length = hp.end - hp.start;
                Time fit = target + offset;
                const auto range = std::equal_range(overlay_.entries.begin(), overlay_.entries.end(), c, ByChannel{});
                for (bool moved = true; moved;) {
                    fit = table_.first_fit(c, fit, length);
                    moved = false;
                    for (auto it = range.first; it != range.second; ++it) {
                        if (it->train != exclude && it->booking.start < fit + length && it->booking.end > fit) {
                            fit = it->booking.end;
                            moved = true;
                        }
                    }
                }
                next = std::max(next, fit - offset);
            }
            if (next == target) break;
            target = next;
        }
        // One cycle of slack for the offsets' variation; the loop confirms.
        m0 = std::max(m0 + 1, clock.edge_at_or_before(target) - chip_.issue_cycles - 1);
    }
}

// Appends c vectors to the train the route already carries, keeping its Send cycle.
// Whether it fits.
bool Scheduler::consider_extension(std::int32_t r, std::int64_t c, std::int32_t last, Option& best) {
    const Route& route = candidates_[static_cast<std::size_t>(r)];
    const std::int64_t cr = std::min(c, route.max_train);
    const Train& t = overlay_.trains[static_cast<std::size_t>(last)];
    const std::int64_t n = t.plan.n + cr;
    if (n > route.max_train) return false;
    Option o;
    if (place(route, n, t.plan.m0, last, true, o.plan) != Fit::Ok) return false;
    o.valid = true;
    o.completion = o.plan.completion;
    o.n = cr;
    o.route = r;
    o.extend = last;
    if (o.completion < best.completion) best = std::move(o);
    return true;
}

// A new train of c vectors (fewer if the route's FIFOs cannot take that many) at its earliest fit.
void Scheduler::consider_new(std::int32_t r, std::int64_t c, std::int64_t m_ready, Option& best) {
    const Route& route = candidates_[static_cast<std::size_t>(r)];
    std::int64_t cr = std::min(c, route.max_train);
    Option o;
    for (;;) {
        if (place(route, cr, m_ready, -1, false, o.plan) == Fit::Ok) {
            o.valid = true;
            o.completion = o.plan.completion;
            o.n = cr;
            o.route = r;
            if (o.completion < best.completion) best = std::move(o);
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
Time Scheduler::optimistic_completion(const Route& route, std::int64_t n, std::int64_t m_ready) const {
    const Time t0 = timing_.clock().edge(m_ready + chip_.issue_cycles);
    Time start = t0;
    for (int round = 0; round < 64; ++round) {
        Time next = start;
        Time offset;
        for (const RouteHop& hop : route.hops) {
            const Serializer& s = net_.channel(hop.channel);
            const Time length = s(n);
            Time fit = start + offset;
            const auto range =
                std::equal_range(overlay_.entries.begin(), overlay_.entries.end(), hop.channel, ByChannel{});
            for (bool moved = true; moved;) {
                fit = table_.first_fit(hop.channel, fit, length);
                moved = false;
                for (auto it = range.first; it != range.second; ++it) {
                    if (it->booking.start < fit + length && it->booking.end > fit) {
                        fit = it->booking.end;
                        moved = true;
                    }
                }
            }
            next = std::max(next, fit - offset);
            offset += s(1) + s.latency();
        }
        if (next == start) break;
        start = next;
    }
    Time offset;
    for (const RouteHop& hop : route.hops) offset += net_.channel(hop.channel)(1) + net_.channel(hop.channel).latency();
    const Serializer& s = net_.channel(route.hops.back().channel);
    const Time per_hop =
        timing_.clock().period_floor() * (2 + chip_.crossing_cycles) + timing_.jitter_allowance();
    return start + offset - s(1) + s(n) - per_hop * static_cast<std::int64_t>(route.hops.size());
}

std::pair<std::int32_t, std::int32_t> Scheduler::split_of(std::int32_t r, std::size_t at) {
    for (const auto& [route, a, first, second] : splits_) {
        if (route == r && a == at) return {first, second};
    }
    auto halves = detail::split_route(net_, candidates_[static_cast<std::size_t>(r)], at);
    candidates_.push_back(std::move(halves.first));
    candidates_.push_back(std::move(halves.second));
    const auto first = static_cast<std::int32_t>(candidates_.size()) - 2;
    splits_.emplace_back(r, at, first, first + 1);
    return {first, first + 1};
}

void Scheduler::consider_staged(std::int32_t r, std::size_t at, std::int64_t c, std::int64_t m_ready, Option& best) {
    const auto [r1, r2] = split_of(r, at);
    const Route& first = candidates_[static_cast<std::size_t>(r1)];
    const Route& second = candidates_[static_cast<std::size_t>(r2)];
    std::int64_t cr = std::min({c, first.max_train, second.max_train});
    const topo::VertexId x = first.hops.back().to;
    const std::int64_t room = cfg_.staging_bytes.count() - staging_taken(x);
    cr = std::min(cr, room / unit_.count());
    if (cr < 1) return;
    Option o;
    for (;;) {
        if (place(first, cr, m_ready, -1, false, o.plan) == Fit::Ok) {
            const std::int64_t m2 = timing_.clock().edge_at_or_after(o.plan.write_done);
            if (place(second, cr, m2, -1, false, o.plan2) == Fit::Ok) break;
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
    const Route& route = candidates_[static_cast<std::size_t>(t.route)];
    for (std::size_t h = 0; h < route.hops.size(); ++h) {
        const HopPlan& hp = t.plan.hops[h];
        overlay_.entries.push_back(
            {route.hops[h].channel, Booking{hp.start, hp.end, hp.cycle, hp.first_arrival, hp.last_leave}, train});
    }
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
        const topo::VertexId x = candidates_[static_cast<std::size_t>(o.route)].hops.back().to;
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
        if (!candidates_[static_cast<std::size_t>(t.route)].minimal) return true;
    }
    return false;
}

Time Scheduler::greedy(const std::vector<std::int32_t>& allowed, std::int64_t total, std::int64_t m_ready) {
    std::vector<std::int32_t> last(candidates_.size(), -1);
    const auto k = static_cast<std::int64_t>(allowed.size());
    std::int64_t remaining = total;
    while (remaining > 0) {
        std::int64_t c = k == 1 ? remaining : std::max<std::int64_t>(cfg_.min_chunk_vectors, ceil_div(remaining, k));
        c = std::min(c, remaining);
        Option best;
        // Appending to a route's train is never later than a new train on that route: try those first, then new
        // trains on the other routes in order of a lower bound of their completion, while that can still win.
        std::vector<std::pair<Time, std::int32_t>> fresh;
        for (std::int32_t r : allowed) {
            if (static_cast<std::size_t>(r) >= last.size()) last.resize(static_cast<std::size_t>(r) + 1, -1);
            const std::int32_t t = last[static_cast<std::size_t>(r)];
            if (t >= 0 && consider_extension(r, c, t, best)) continue;
            const Route& route = candidates_[static_cast<std::size_t>(r)];
            const Time bound = route.leaf_latency.size() == 1
                                   ? optimistic_completion(route, std::min(c, route.max_train), m_ready)
                                   : Time::zero();
            fresh.emplace_back(bound, r);
        }
        std::sort(fresh.begin(), fresh.end());
        for (const auto& [bound, r] : fresh) {
            if (best.valid && bound >= best.completion) break;
            consider_new(r, c, m_ready, best);
        }
        if (cfg_.staging && stage_) {
            for (std::int32_t r : allowed) {
                const std::size_t hops = candidates_[static_cast<std::size_t>(r)].hops.size();
                for (std::size_t at = 0; at + 1 < hops; ++at) consider_staged(r, at, c, m_ready, best);
            }
        }
        if (!best.valid)
            throw ModelError(fmt::format("no route can carry even one vector within fifo_depth {} (chip section)",
                                         chip_.fifo_depth));
        if (last.size() < candidates_.size()) last.resize(candidates_.size(), -1);
        apply(best, last);
        remaining -= best.n;
    }
    return overlay_completion();
}

Time Scheduler::duration_bound(const workload::Transfer& x, std::int64_t n) const {
    Time fast = Time::max();
    Time slow;
    for (topo::LinkClass c : topo::kAllLinkClasses) {
        if (topo_.link_count(c) == 0) continue;
        const Serializer& s = net_.pace[topo::index_of(c)];
        if (s(1) < fast) {
            fast = s(1);
        }
        slow = std::max(slow, s(1));
    }
    // The serializer of the fastest class, for the time n vectors take through P ports.
    const Serializer* fastest = nullptr;
    for (topo::LinkClass c : topo::kAllLinkClasses) {
        if (topo_.link_count(c) > 0 && net_.pace[topo::index_of(c)](1) == fast) {
            fastest = &net_.pace[topo::index_of(c)];
            break;
        }
    }
    Time bound;
    const auto ports_src = static_cast<std::int64_t>(topo_.out_channels(x.src).size());
    for (topo::VertexId d : x.dsts) {
        Time z = Time::max();
        for (const Route& r : candidates_) {
            for (const auto& [leaf, lat] : r.leaf_latency) {
                if (leaf == d) z = std::min(z, lat);
            }
        }
        if (z == Time::max() || fastest == nullptr) continue;
        const auto ports_dst = static_cast<std::int64_t>(topo_.out_channels(d).size());
        // The last vector leaves the source no earlier than n / P_src vector times after the start, then needs at
        // least the rest of a path's latency; and it arrives no earlier than n / P_dst vector times after the
        // earliest first arrival.
        const Time by_src = (*fastest)(ceil_div(n, std::max<std::int64_t>(ports_src, 1))) + z - slow;
        const Time by_dst = z - fast + (*fastest)(ceil_div(n, std::max<std::int64_t>(ports_dst, 1)));
        bound = std::max({bound, z, by_src, by_dst});
    }
    return bound;
}

void Scheduler::plan_transfer(std::size_t i, Time ready) {
    const workload::Transfer& x = set_.transfers[i];
    const std::int64_t n = x.vectors(unit_);
    const std::int64_t m_ready = timing_.clock().edge_at_or_after(ready);
    // Strictly after the last write of every `after` transfer: a Reduce reads its operands at issue.
    min_consume_cycle_ =
        consume_after_[i] > Time::zero() ? timing_.clock().edge_at_or_after(consume_after_[i]) + 1 : 0;
    candidates_.clear();
    splits_.clear();
    overlay_ = Overlay{};
    stage_ = x.dsts.size() == 1;
    if (x.dsts.size() == 1) {
        candidates_ = detail::point_to_point_routes(net_, x.src, x.dsts[0], cfg_);
        if (candidates_.empty())
            throw ModelError(fmt::format("transfer {}: no path from TSP {} ({}) to TSP {} ({})", x.id, x.src,
                                         topo_.vertex_name(x.src), x.dsts[0], topo_.vertex_name(x.dsts[0])));
        duration_lb_[i] = duration_bound(x, n);
        std::vector<std::int32_t> all;
        std::vector<std::int32_t> minimal;
        for (std::size_t r = 0; r < candidates_.size(); ++r) {
            all.push_back(static_cast<std::int32_t>(r));
            if (candidates_[r].minimal) minimal.push_back(static_cast<std::int32_t>(r));
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
        candidates_ = detail::fanout_routes(net_, x.src, x.dsts, cfg_);
        if (candidates_.empty())
            throw ModelError(fmt::format("transfer {}: some destination cannot be reached from TSP {} ({})", x.id,
                                         x.src, topo_.vertex_name(x.src)));
        duration_lb_[i] = duration_bound(x, n);
        const auto trees = static_cast<std::int32_t>(candidates_.size());
        for (std::int32_t r = 0; r < trees; ++r) {
            const Route& route = candidates_[static_cast<std::size_t>(r)];
            std::int64_t start = m_ready;
            if (route.feeder >= 0) {
                // A relay sends from a destination's memory once every vector is written there.
                Time written;
                for (const Train& t : overlay_.trains) {
                    if (t.route != route.feeder) continue;
                    const Route& feeder = candidates_[static_cast<std::size_t>(t.route)];
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

void Scheduler::commit(std::size_t i, Time ready) {
    const workload::Transfer& x = set_.transfers[i];
    const detail::CoreClock& clock = timing_.clock();
    // Vector numbers go to trains in order of their Send (then route): a staged second half carries its first
    // half's vectors. Every tree of a fan-out carries the whole tensor, so each tree numbers its trains from 0.
    const bool fanout = x.dsts.size() > 1;
    auto group = [&](const Train& t) { return fanout ? t.route : 0; };
    std::vector<std::int32_t> order;
    for (std::size_t t = 0; t < overlay_.trains.size(); ++t) {
        if (!overlay_.trains[t].staged_second) order.push_back(static_cast<std::int32_t>(t));
    }
    std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
        const Train& ta = overlay_.trains[static_cast<std::size_t>(a)];
        const Train& tb = overlay_.trains[static_cast<std::size_t>(b)];
        return std::make_tuple(group(ta), ta.plan.m0, ta.route, a) < std::make_tuple(group(tb), tb.plan.m0, tb.route, b);
    });
    std::vector<std::int32_t> used(candidates_.size(), -1);
    auto route_id = [&](std::int32_t r) {
        auto& u = used[static_cast<std::size_t>(r)];
        if (u < 0) {
            u = static_cast<std::int32_t>(used_routes_.size());
            used_routes_.push_back(candidates_[static_cast<std::size_t>(r)]);
        }
        return u;
    };
    TransferTiming tt;
    tt.transfer = x.id;
    tt.ready = ready;
    tt.first_issue = Time::max();
    tt.vectors = static_cast<std::uint32_t>(x.vectors(unit_));
    std::vector<std::int32_t> routes_seen;
    auto emit = [&](const Train& t, std::int64_t first_vector, std::int64_t send_address, std::int64_t receive_address) {
        CommittedTrain ct;
        ct.transfer = static_cast<std::uint32_t>(i);
        ct.route = route_id(t.route);
        ct.m0 = t.plan.m0;
        ct.n = t.plan.n;
        ct.first_vector = first_vector;
        ct.send_address = send_address;
        ct.receive_address = receive_address;
        ct.staged_first = t.staged_first;
        ct.hop_offset = committed_hops_.size();
        for (const HopPlan& hp : t.plan.hops) committed_hops_.emplace_back(hp.k_from, hp.cycle);
        committed_.push_back(ct);
        if (!t.staged_first) {
            tt.last_arrival = std::max(tt.last_arrival, t.plan.completion);
            tt.completion = std::max(tt.completion, t.plan.write_done);
        }
    };
    const std::int64_t staging_base = chip_.memory.count() - cfg_.staging_bytes.count();
    std::int64_t next = 0;
    std::int32_t current_group = order.empty() ? 0 : group(overlay_.trains[static_cast<std::size_t>(order[0])]);
    for (std::int32_t ti : order) {
        const Train& t = overlay_.trains[static_cast<std::size_t>(ti)];
        if (group(t) != current_group) {
            LOOM_ASSERT(next == x.vectors(unit_), "every tree of a fan-out carries every vector once");
            current_group = group(t);
            next = 0;
        }
        const std::int64_t fv = next;
        next += t.plan.n;
        const bool relay = candidates_[static_cast<std::size_t>(t.route)].feeder >= 0;
        // A relay reads the vectors where its source, a destination, has just written them.
        const std::int64_t src_addr = (relay ? x.dst_address : x.src_address) + fv * unit_.count();
        const std::int64_t dst_addr = x.dst_address + fv * unit_.count();
        if (!relay) {
            tt.first_issue = std::min(tt.first_issue, clock.edge(t.plan.m0));
            ++tt.trains;
        }
        if (std::find(routes_seen.begin(), routes_seen.end(), t.route) == routes_seen.end())
            routes_seen.push_back(t.route);
        if (!candidates_[static_cast<std::size_t>(t.route)].minimal)
            tt.nonminimal_vectors += static_cast<std::uint32_t>(t.plan.n);
        if (t.staged_first) {
            const topo::VertexId at = candidates_[static_cast<std::size_t>(t.route)].hops.back().to;
            std::int64_t& used_bytes = staging_used_[static_cast<std::size_t>(at)];
            const std::int64_t buffer = staging_base + used_bytes;
            used_bytes += t.plan.n * unit_.count();
            emit(t, fv, src_addr, buffer);
            emit(overlay_.trains[static_cast<std::size_t>(t.partner)], fv, buffer, dst_addr);
            tt.staged_vectors += static_cast<std::uint32_t>(t.plan.n);
        } else {
            emit(t, fv, src_addr, dst_addr);
        }
    }
    LOOM_ASSERT(next == x.vectors(unit_), "every vector of a transfer is in exactly one train");
    tt.paths = static_cast<std::uint32_t>(routes_seen.size());
    for (const OverlayEntry& e : overlay_.entries) table_.insert(e.channel, e.booking);
    done_[i] = tt.completion;
    timings_[i] = tt;
}

Schedule Scheduler::run() {
    const std::size_t n = set_.transfers.size();
    done_.assign(n, Time::zero());
    duration_lb_.assign(n, Time::zero());
    consume_after_.assign(n, Time::zero());
    timings_.assign(n, TransferTiming{});
    staging_used_.assign(static_cast<std::size_t>(topo_.num_vertices()), 0);

    // List scheduling: a transfer is ready when its dependencies are complete; the earliest ready goes first.
    std::vector<std::size_t> position(n);
    std::vector<std::vector<std::size_t>> dependents(n);
    std::vector<std::vector<std::size_t>> followers(n);  // by `after`: placed later, consume later, start freely
    std::vector<std::size_t> waiting(n, 0);
    {
        std::vector<std::pair<workload::TransferId, std::size_t>> ids;
        for (std::size_t i = 0; i < n; ++i) ids.emplace_back(set_.transfers[i].id, i);
        std::sort(ids.begin(), ids.end());
        for (std::size_t i = 0; i < n; ++i) {
            for (const auto* list : {&set_.transfers[i].deps, &set_.transfers[i].paced_by}) {
                for (workload::TransferId d : *list) {
                    const auto it = std::lower_bound(ids.begin(), ids.end(), std::make_pair(d, std::size_t{0}));
                    LOOM_ASSERT(it != ids.end() && it->first == d, "validated dependencies exist");
                    dependents[it->second].push_back(i);
                    ++waiting[i];
                }
            }
            for (workload::TransferId d : set_.transfers[i].after) {
                const auto it = std::lower_bound(ids.begin(), ids.end(), std::make_pair(d, std::size_t{0}));
                LOOM_ASSERT(it != ids.end() && it->first == d, "validated orderings exist");
                followers[it->second].push_back(i);
                ++waiting[i];
            }
        }
    }
    using Ready = std::pair<std::int64_t, std::size_t>;  // (ready ps, position)
    std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
    std::vector<Time> ready_at(n);
    for (std::size_t i = 0; i < n; ++i) {
        ready_at[i] = set_.transfers[i].earliest;
        if (waiting[i] == 0) ready.emplace(ready_at[i].count(), i);
    }
    while (!ready.empty()) {
        const std::size_t i = ready.top().second;
        ready.pop();
        plan_transfer(i, ready_at[i]);
        for (std::size_t j : dependents[i]) {
            ready_at[j] = std::max(ready_at[j], done_[i] + set_.transfers[j].compute_before);
            if (--waiting[j] == 0) ready.emplace(ready_at[j].count(), j);
        }
        for (std::size_t j : followers[i]) {
            consume_after_[j] = std::max(consume_after_[j], done_[i]);
            if (--waiting[j] == 0) ready.emplace(ready_at[j].count(), j);
        }
    }
    return build();
}

Schedule Scheduler::build() {
    const detail::CoreClock& clock = timing_.clock();
    Schedule s;
    s.jitter_allowance = jitter_;

    struct Keyed {
        std::int64_t cycle;
        Time tie;  // consumers: first arrival (their port's order); sends: train start
        Instruction ins;
    };
    std::vector<std::vector<Keyed>> per_tsp(static_cast<std::size_t>(topo_.num_vertices()));
    std::size_t hop_count = 0;
    for (const CommittedTrain& ct : committed_)
        hop_count += used_routes_[static_cast<std::size_t>(ct.route)].hops.size();
    s.reservations.reserve(hop_count);
    s.predicted.reserve(hop_count);
    for (const CommittedTrain& ct : committed_) {
        const Route& route = used_routes_[static_cast<std::size_t>(ct.route)];
        const workload::Transfer& x = set_.transfers[ct.transfer];
        const auto fv = static_cast<std::uint32_t>(ct.first_vector);
        const auto count = static_cast<std::uint32_t>(ct.n);
        Instruction send;
        send.cycle = ct.m0;
        send.op = Op::Send;
        send.out_ports = route.src_ports;
        send.transfer = x.id;
        send.first_vector = fv;
        send.count = count;
        send.address = ct.send_address;
        per_tsp[static_cast<std::size_t>(route.src)].push_back(
            {ct.m0, clock.edge(ct.m0 + chip_.issue_cycles), send});
        for (std::size_t h = 0; h < route.hops.size(); ++h) {
            const RouteHop& hop = route.hops[h];
            const auto [k_from, cycle] = committed_hops_[ct.hop_offset + h];
            const Serializer& ser = net_.channel(hop.channel);
            const topo::Channel& ch = topo_.channel(hop.channel);
            const Time start = clock.edge(k_from);
            s.reservations.push_back(
                {static_cast<std::uint32_t>(hop.channel), start, start + ser(ct.n), x.id, fv, count});
            const bool final_destination = hop.leaf && !ct.staged_first;
            s.predicted.push_back({x.id, static_cast<std::uint32_t>(hop.to), static_cast<std::uint32_t>(hop.channel), fv,
                                   count, 0, start, final_destination});
            if (final_destination) s.makespan = std::max(s.makespan, start + ser(ct.n) + ser.latency());
            Instruction in;
            in.cycle = cycle;
            // A summing transfer's final consumer adds the vectors to memory: a storing Reduce, timed as a Receive.
            const bool sum = final_destination && x.combine == workload::Combine::Sum;
            in.op = hop.leaf ? (sum ? Op::Reduce : Op::Receive) : Op::Forward;
            in.in_port = static_cast<std::uint8_t>(ch.dst_port);
            in.out_ports = hop.leaf ? PortMask{0} : hop.out_ports;
            in.transfer = x.id;
            in.first_vector = fv;
            in.count = count;
            in.address = hop.leaf ? ct.receive_address : 0;
            per_tsp[static_cast<std::size_t>(hop.to)].push_back({cycle, start + ser(1) + ser.latency(), in});
        }
    }
    for (std::size_t v = 0; v < per_tsp.size(); ++v) {
        auto& list = per_tsp[v];
        if (list.empty()) continue;
        std::sort(list.begin(), list.end(), [](const Keyed& a, const Keyed& b) {
            return std::tie(a.cycle, a.tie, a.ins.transfer, a.ins.first_vector, a.ins.op) <
                   std::tie(b.cycle, b.tie, b.ins.transfer, b.ins.first_vector, b.ins.op);
        });
        TspProgram p;
        p.tsp = static_cast<std::uint32_t>(v);
        p.instructions.reserve(list.size());
        for (const Keyed& k : list) p.instructions.push_back(k.ins);
        s.programs.push_back(std::move(p));
        std::vector<Keyed>().swap(list);
    }
    std::sort(s.reservations.begin(), s.reservations.end(), [](const Reservation& a, const Reservation& b) {
        return std::tie(a.channel, a.start) < std::tie(b.channel, b.start);
    });
    std::sort(s.predicted.begin(), s.predicted.end(), [](const PredictedRun& a, const PredictedRun& b) {
        return std::tie(a.transfer, a.first_vector, a.train_start, a.channel) <
               std::tie(b.transfer, b.first_vector, b.train_start, b.channel);
    });

    // Lower bound (DESIGN "Scheduler figures").
    {
        std::vector<Time> busy(static_cast<std::size_t>(topo_.num_channels()));
        for (const Reservation& r : s.reservations) busy[r.channel] += r.end - r.start;
        for (std::size_t c = 0; c < busy.size(); ++c) {
            if (busy[c] > s.bound.busiest_link) {
                s.bound.busiest_link = busy[c];
                s.bound.busiest_channel = static_cast<std::int32_t>(c);
            }
        }
    }
    {
        const std::size_t V = static_cast<std::size_t>(topo_.num_vertices());
        std::vector<std::int64_t> sent(V, 0);
        std::vector<std::int64_t> received(V, 0);
        for (const workload::Transfer& x : set_.transfers) {
            const std::int64_t n = x.vectors(unit_);
            sent[static_cast<std::size_t>(x.src)] += n;
            for (topo::VertexId d : x.dsts) received[static_cast<std::size_t>(d)] += n;
        }
        for (topo::VertexId v = 0; v < topo_.num_vertices(); ++v) {
            // Every channel of a TSP goes both ways, so its total rate is the same for sending and receiving.
            i128 rate = 0;
            std::int64_t wire_bits = 0;
            for (topo::ChannelId c : topo_.out_channels(v)) {
                rate += net_.channel(c).rate();
                wire_bits = net_.channel(c).wire_bits();
            }
            const auto vi = static_cast<std::size_t>(v);
            const std::int64_t vectors = std::max(sent[vi], received[vi]);
            if (rate == 0 || vectors == 0) continue;
            const i128 num = static_cast<i128>(vectors) * wire_bits * 1'000'000'000'000LL;
            const Time t = Time::ps(static_cast<std::int64_t>((num + rate - 1) / rate));
            if (t > s.bound.tsp_bandwidth) {
                s.bound.tsp_bandwidth = t;
                s.bound.busiest_tsp = v;
            }
        }
    }
    {
        // Longest chain: each transfer starts no earlier than its earliest time and its dependencies' bound plus
        // compute_before, and takes at least its duration bound; it completes a core cycle after the transfers it
        // is ordered `after` at the earliest (its consumer issues later and writes no earlier than its issue).
        const std::vector<std::size_t> order = workload::topological_order(set_);
        std::vector<Time> finish(set_.transfers.size());
        std::vector<std::pair<workload::TransferId, std::size_t>> ids;
        for (std::size_t i = 0; i < set_.transfers.size(); ++i) ids.emplace_back(set_.transfers[i].id, i);
        std::sort(ids.begin(), ids.end());
        for (std::size_t i : order) {
            const workload::Transfer& x = set_.transfers[i];
            Time start = x.earliest;
            for (workload::TransferId d : x.deps) {
                const auto it = std::lower_bound(ids.begin(), ids.end(), std::make_pair(d, std::size_t{0}));
                start = std::max(start, finish[it->second] + x.compute_before);
            }
            finish[i] = start + duration_lb_[i];
            for (workload::TransferId d : x.after) {
                const auto it = std::lower_bound(ids.begin(), ids.end(), std::make_pair(d, std::size_t{0}));
                finish[i] = std::max(finish[i], finish[it->second] + clock.period_floor());
            }
            s.bound.dependency_chain = std::max(s.bound.dependency_chain, finish[i]);
        }
    }
    s.lower_bound = std::max({s.bound.busiest_link, s.bound.tsp_bandwidth, s.bound.dependency_chain});

    s.transfers = timings_;
    std::sort(s.transfers.begin(), s.transfers.end(),
              [](const TransferTiming& a, const TransferTiming& b) { return a.transfer < b.transfer; });
    return s;
}

}  // namespace

Schedule compile(const topo::FrozenTopology& topology, const topo::LinkClassTiming& links, const topo::ChipConfig& chip,
                 const workload::TransferSet& transfers, const SchedulerConfig& config) {
    Scheduler scheduler(topology, links, chip, transfers, config);
    return scheduler.run();
}

}  // namespace loom::sched
