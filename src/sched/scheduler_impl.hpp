// The compile-time scheduler's state and steps (see loom/sched/scheduler.hpp for how it plans), shared by the files
// that implement them: scheduler.cpp (setup, list scheduling), input_checks.cpp, placement.cpp, commit.cpp and
// emission.cpp. The lower bound is apart, in lower_bound.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "block_list.hpp"
#include "flat_key_map.hpp"
#include "hop_timing.hpp"
#include "huge_pages.hpp"
#include "loom/sched/schedule.hpp"
#include "loom/sched/scheduler_config.hpp"
#include "loom/topo/chip_config.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/topo/link_class_timing.hpp"
#include "loom/workload/transfer.hpp"
#include "reservation_table.hpp"
#include "route.hpp"
#include "size_pool.hpp"

namespace loom::sched::detail {

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

// Later: a new train searched with a cutoff (place()) fits, if at all, only with a completion at or past the cutoff,
// so it cannot beat the option that set the cutoff; the search stopped there.
enum class Fit { Ok, Busy, Fifo, Later };

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

    // Back to "no option", the plans' buffers kept (no allocation per option tried).
    void reset() {
        valid = false;
        completion = Time::max();
        n = 0;
        route = -1;
        extend = -1;
        route2 = -1;
    }
};

// 48 bytes: vector counts and numbers fit 32 bits as they do in an Instruction. Its hops' (k_from, cycle) follow
// those of the trains committed before it in committed_hops_, one per hop of its route.
struct CommittedTrain {
    std::uint32_t transfer = 0;  // position in the transfer set
    std::int32_t route = 0;      // index into used routes
    std::int64_t m0 = 0;
    std::uint32_t n = 0;
    std::uint32_t first_vector = 0;
    std::int64_t send_address = 0;
    std::int64_t receive_address = 0;
    bool staged_first = false;  // its leaves are staging points, not destinations
};

class Scheduler {
public:
    Scheduler(const topo::FrozenTopology& t, const topo::LinkClassTiming& links, const topo::ChipConfig& chip,
              const workload::TransferSet& set, const SchedulerConfig& cfg);
    Schedule run();
    // Whether searches start past what earlier searches of the same train shape ruled out, skip Send cycles by the
    // hops' offsets over every clock phase, and remember answers while the overlay leaves a route alone (the
    // default); the schedule is the same either way, only slower without.
    void reuse_known_busy(bool on) { reuse_ = on; }

private:
    // scheduler.cpp
    static Time jitter_of(const topo::LinkClassTiming& links, const SchedulerConfig& cfg);
    static std::array<Serializer, topo::kLinkClassCount> paces(const topo::LinkClassTiming& links);
    std::vector<Time> min_gaps() const;
    // input_checks.cpp
    void check_inputs() const;

    // placement.cpp
    void plan_transfer(std::size_t i, Time ready);
    Time greedy(const std::vector<std::int32_t>& allowed, std::int64_t total, std::int64_t m_ready);
    bool consider_extension(std::int32_t r, std::int64_t c, std::int32_t last, Option& best);
    void consider_new(std::int32_t r, std::int64_t c, std::int64_t m_ready, Option& best);
    Time optimistic_completion(std::int32_t r, std::int64_t n, std::int64_t m_ready);
    Time completion_bound(std::int32_t r, std::int64_t n, std::int64_t m_ready);
    Time bound_at(const Route& route, std::int64_t n, Time start) const;
    // What bound_at() reads of a route: its last hop's offset and latency less every hop's slack, and that hop's
    // link class (its S(n)).
    struct BoundTail {
        Time offset;
        std::uint8_t pace = 0;
    };
    BoundTail bound_tail(const Route& route) const;
    Time bound_at(const BoundTail& tail, std::int64_t n, Time start) const {
        return start + tail.offset + net_.fast_pace[tail.pace](n);
    }
    Time bound_floor(std::int32_t r, std::int64_t n, std::int64_t m_ready);
    // Whether train start `start` still fits every hop of a new train of n vectors in the table alone, given that it
    // did when each hop's channel had had inserts[h] bookings (ReservationTable::untouched_since).
    // `inserts` null: never noted (false).
    bool hops_still_fit(const Route& route, std::int64_t n, Time start, const std::int64_t* inserts) const;
    struct KnownRanges;
    // Notes table_.inserts() of each of the route's channels in known.start_inserts (taken for the route's hops if
    // null).
    void hop_inserts(const Route& route, KnownRanges& known);
    Time hops_fixed_point(const Route& route, std::int64_t n, Time start, bool table_only, int rounds,
                          bool table_fixed = false) const;
    void consider_staged(std::int32_t r, std::size_t at, std::int64_t c, std::int64_t m_ready, Option& best);
    std::pair<std::int32_t, std::int32_t> split_of(std::int32_t r, std::size_t at);
    void apply(const Option& o, std::vector<std::int32_t>& last);
    void add_entries(std::int32_t train);
    bool evaluate(const Route& route, std::int64_t n, std::int64_t m0, Plan& plan);
    // cutoff (new trains only): a completion the train must beat to matter, else Fit::Later (Time::max(): none).
    Fit place(std::int32_t r, std::int64_t n, std::int64_t m_start, std::int32_t exclude, bool fixed, Plan& plan,
              Time cutoff = Time::max());
    Fit earliest_fit(const Route& route, std::int32_t r, std::int64_t n, std::int64_t m_start, Plan& plan,
                     Time cutoff);
    Time need(const Route& route, const Plan& plan, std::int32_t exclude, bool table_only,
              bool table_fits = false) const;
    std::int64_t next_send(const Route& route, const Plan& plan, Time need, std::int32_t exclude, bool table_only) const;
    // What the table alone rules out for trains of one shape and length. Bookings are never removed, so it stays
    // true; searches start past it. (At 10,440 TSPs there are 3.1M of these, one per shape and train length: they
    // keep their per-hop numbers in one allocation each, 80 bytes in all where vectors took 192 and three blocks.)
    struct KnownBusy {
        std::int64_t lo = 0;
        std::int64_t hi = 0;
        // route_stamp() when hi was found to fit (-1: not known to fit): while it is the same, hi still fits
        std::int64_t stamp = -1;
    };
    // Where a train's hops start relative to its train's start, over every phase of the core clock (hop timing
    // depends on the Send cycle's phase only): each hop's least and greatest offset and its length. Every route of a
    // shape has its hop count, so the arrays have the route's length.
    struct HopOffsets {
        bool known = false;   // computed (hop_offsets())
        bool usable = false;  // the clock is periodic and the train fits its FIFOs in every phase
        Time* per_hop = nullptr;  // hop h: lo at 3h, hi at 3h + 1, length at 3h + 2 (from offset_pool_)
        Time reach;  // the least, over the phases, of the train's completion less its start
        Time& lo(std::size_t h) const { return per_hop[3 * h]; }
        Time& hi(std::size_t h) const { return per_hop[3 * h + 1]; }
        Time& length(std::size_t h) const { return per_hop[3 * h + 2]; }
    };
    struct KnownRanges {
        std::int64_t n = 0;
        KnownBusy send;   // place(): no train fits the table alone with its Send cycle in [lo, hi)
        KnownBusy start;  // optimistic_completion(), ps of the train's start: from a start in [lo, hi], none before hi
        // start: per hop, table_.inserts(channel) when hi was found to fit (null: never noted; from insert_pool_)
        std::int64_t* start_inserts = nullptr;
        HopOffsets offsets;
        // templates(): template_pool_ when they were made (-2: they do not fit TemplateHop), and where
        std::int64_t template_pool = -1;
        std::uint32_t template_at = 0;
        std::uint32_t template_span_at = 0;
        std::int32_t shape = -1;   // the shape whose list holds it (-1: free)
        std::int32_t next = -1;    // the next of its shape's list, or of the free list
        std::uint32_t hops = 0;    // the shape's hops: per_hop holds 3 * hops, start_inserts hops
    };
    const HopOffsets& hop_offsets(const Route& route, std::int64_t n, KnownRanges& known);
    // A new train of one shape and length timed at Send cycles base + p for every phase p of the core clock
    // (base: kTemplateBase periods). Hop timing depends on the Send cycle's phase only (for Send cycles >= 0, see
    // hop_offsets()), so the train timed at any Send cycle m >= 0 is the one of m's phase moved by whole periods:
    // every edge index by a multiple of den, every time by the same multiple of num ps (timed()).
    // One hop of a template at one phase, relative to its train's Send cycle (edge index) and start (times), in 32
    // bits: the consumer's edge index (a leaf's issue cycle, else the onward train's start k_out, its issue cycle
    // forward_cycles before), the hop's start and its last vector's FIFO leave. What else a HopPlan holds is the
    // same at every phase or follows from these: k_from is the parent's k_out (the Send edge for the first hop), and
    // end, first_arrival and last_arrival are the start plus S(n), S(1) + latency and S(n) + latency (TemplateSpan,
    // once per hop). 12 bytes a hop and phase where whole HopPlans in 32 bits took 32: the templates of a node's
    // shapes are read once per search step from all over the pool, and miss the cache.
    struct TemplateHop {
        std::int32_t k, start, last_leave;
    };
    struct TemplateSpan {
        std::int32_t length, first_arrival, last_arrival;  // from the hop's start
    };
    struct Templates {
        const TemplateHop* hops = nullptr;    // [phase * hops + h]
        const TemplateSpan* spans = nullptr;  // [h]
    };
    // The templates of candidate route r's shape and length n (its offsets usable), or none (hops == nullptr) when
    // the clock has too many phases to keep them or a value does not fit 32 bits. Kept in a pool of bounded size
    // (emptied when full), found from the shape's KnownRanges; valid until the next call.
    Templates templates(std::int32_t r, std::int64_t n, KnownRanges& known);
    // evaluate(), from the templates when given and m0 >= 0 (then it cannot overflow a FIFO).
    bool timed(const Route& route, std::int64_t n, std::int64_t m0, Plan& plan, const Templates* shifted);
    std::vector<TemplateHop> template_hops_;
    std::vector<TemplateSpan> template_spans_;  // emptied with template_hops_
    std::int64_t template_pool_ = 0;  // how many times the pool was emptied
    std::int64_t skip_busy(const Route& route, const HopOffsets& offsets, std::int64_t m, std::int32_t exclude,
                           bool table_only, Time cutoff = Time::max()) const;
    Fit search(const Route& route, std::int64_t n, std::int64_t m0, std::int32_t exclude, bool table_only, Plan& plan,
               const HopOffsets* offsets = nullptr, Time cutoff = Time::max(), bool table_fits = false,
               const Templates* shifted = nullptr);
    KnownRanges& known(std::int32_t r, std::int64_t n);
    [[gnu::noinline]] KnownRanges& known_lookup(std::int32_t r, std::int64_t n);  // known() past its hint
    std::int32_t shape_id(const Route& route, std::uint64_t* hash = nullptr);  // hash: shapes_.hash_of(its key)
    void shape_key(const Route& route, std::vector<std::int64_t>& hops);  // into `hops`
    std::vector<std::int64_t> shape_key_;  // scratch: the key being looked up
    // Results of place() for a new train (no train excluded, not fixed) and of optimistic_completion(), by candidate
    // route, for the train length and start asked last: both depend only on the table (unchanged while a transfer
    // is planned), the transfer's ordering and the overlay's bookings on the route's channels, so they hold until
    // the overlay changes on one of those channels (forget()).
    struct PlaceMemo {
        bool valid = false;
        std::int64_t n = 0;
        std::int64_t m = 0;
        Fit fit = Fit::Ok;
        Plan plan;  // Fit::Later: the plan where the search stopped; no fit completes before its completion
    };
    struct BoundMemo {
        bool valid = false;
        std::int64_t n = 0;
        std::int64_t m = 0;
        Time value;
    };
    void forget(std::int32_t r);  // the overlay changed on route r's channels
    std::vector<std::uint8_t> channel_mark_;  // forget(): by channel, 1 on the changed route (else 0)
    // The bookings the table has had on the route's channels (a sum of counts that only grow: unchanged exactly
    // while none of those channels got a booking, and then the table answers the route's searches as before).
    std::int64_t route_stamp(const Route& route) const;
    // Whether the overlay has no booking on any of the route's channels.
    bool overlay_free(const Route& route) const;
    // Whether every leaf of the plan consumes no earlier than the transfer's ordering allows (min_consume_cycle_).
    bool meets_ordering(const Route& route, const Plan& plan) const;
    void forget_all();
    Time first_fit(topo::ChannelId c, Time from, Time length, std::int32_t exclude, bool table_fits = false) const;
    // table_.first_fit(c, from, length), remembering the last answer per channel: if fit = first_fit(a) then no
    // interval of that length is free from a start in [a, fit), so first_fit(x) = fit for every x in [a, fit]. Valid
    // while the channel has had no new booking (table_.inserts(c)); fixed points and search steps ask again from
    // points in there (the confirming round of a fixed point, need() and the skip after it).
    // Inlined into its callers in placement.cpp (search steps and fixed points call it per hop, 3.6 M times at
    // 10,000 node transfers: a call's own overhead was about a third of its instructions).
    [[gnu::always_inline]] inline Time table_fit(topo::ChannelId c, Time from, Time length) const;
    // table_.around(c, s), remembering the last answer per channel: the pair holds for every s in
    // (before's start, after's start] while the channel has had no new booking (its bookings do not move until then).
    std::pair<const Booking*, const Booking*> table_around(topo::ChannelId c, Time s) const;
    std::int64_t staging_taken(topo::VertexId v) const;
    Time overlay_completion() const;
    bool overlay_uses_nonminimal() const;
    // commit.cpp
    void commit(std::size_t i, Time ready);
    // Frees what only the search needed (the reservation table, route cache, known ranges, memos) before build().
    void release_search_state();
    // emission.cpp
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
    // Its candidate routes, numbered 0.. num_candidates(): first a point-to-point pair's own, read in place from the
    // route cache (pair_routes_ of them at pair_candidates_), then the routes made for this transfer (own_routes_:
    // split halves, or a fan-out's trees).
    const Route* pair_candidates_ = nullptr;
    std::vector<Route> own_routes_;
    const Route& cand(std::size_t r) const {
        return r < pair_routes_ ? pair_candidates_[r] : own_routes_[r - pair_routes_];
    }
    const Route& cand(std::int32_t r) const { return cand(static_cast<std::size_t>(r)); }
    std::size_t num_candidates() const { return pair_routes_ + own_routes_.size(); }
    std::vector<std::tuple<std::int32_t, std::size_t, std::int32_t, std::int32_t>> splits_;  // (route, at) -> halves
    Overlay overlay_;
    struct FitMemo {
        std::int64_t inserts = -1;  // table_.inserts(channel) when found
        Time length;
        Time from;
        Time fit;
    };
    mutable std::vector<FitMemo> fit_memo_;  // by channel: table_fit()'s last answer
    struct AroundMemo {
        std::int64_t inserts = -1;  // table_.inserts(channel) when found
        Time lo;                    // the answer holds for s in (lo, hi]
        Time hi;
        const Booking* before = nullptr;
        const Booking* after = nullptr;
    };
    mutable std::vector<AroundMemo> around_memo_;  // by channel: table_around()'s last answer

    bool reuse_ = true;  // false: every search starts from its own start (tests compare both)
    // A shape key's hash (shapes are only looked up, never walked in order: a tree's comparisons of whole keys were
    // 2-3 % of the compile at 1,152 TSPs).
    struct ShapeHash {
        std::size_t operator()(std::span<const std::int64_t> key) const noexcept {
            std::uint64_t h = key.size();
            for (const std::int64_t x : key) {
                // splitmix64's finalizer over the running value and each hop's packed number.
                h ^= static_cast<std::uint64_t>(x) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
                h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
                h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
                h ^= h >> 31;
            }
            return static_cast<std::size_t>(h);
        }
    };
    // Route shape (per hop: channel, parent, kind, leaf) -> its id.
    FlatKeyMap<std::int32_t, ShapeHash> shapes_;
    // templates(): where the templates of a timing key are in the pool. A template depends on the route only
    // through its hops' parent, kind, leaf flag and link class, and on the train's length (evaluate()): the
    // thousands of shapes of a system share a few hundred keys, each timed once per pool instead of once per
    // shape and length (evaluate() over every phase was a tenth of the compile at 576 TSPs).
    // hop_offsets() depends on the same: its answer is kept per key too.
    struct TemplateRef {
        std::int64_t pool = -1;  // template_pool_ when made; -2: they do not fit TemplateHop
        std::uint32_t at = 0;
        std::uint32_t span_at = 0;
        bool offsets_known = false;  // hop_offsets() of the key: usable, reach and 3 values a hop
        bool offsets_usable = false;
        Time reach;
        std::vector<Time> per_hop;
    };
    FlatKeyMap<TemplateRef, ShapeHash> template_index_;
    std::vector<std::int64_t> template_key_;  // scratch: the key being looked up
    // template_index_'s entry of route's hops and length n.
    TemplateRef& timing_key(const Route& route, std::int64_t n);
    std::vector<std::int32_t> shape_of_;                        // by candidate route: its shape, -1 until asked
    // By point-to-point pair (src << 32 | dst), one record found by one hash lookup per transfer: the pair's
    // candidates in the route cache (null until its first transfer is planned; stable until release_pair()), their
    // shapes, their least single-vector latency to dst (for transfer_duration_bound(), which otherwise read every
    // candidate's leaves from the route cache per transfer), each candidate's id in used_routes_ (-1: not used yet)
    // and the pair's transfers not planned yet. A node's address is stable, so plan_transfer() keeps the record's.
    struct PairState {
        std::uint64_t key = 0;  // (src << 32 | dst)
        const std::vector<Route>* routes = nullptr;
        std::vector<std::int32_t> shapes;
        std::vector<std::uint64_t> shape_hashes;  // by candidate: its shape's hash in shapes_, to erase it by id
        std::vector<BoundTail> tails;  // by candidate: bound_tail()
        Time latency = Time::max();
        std::vector<std::int32_t> route_ids;
        std::uint32_t remaining = 0;
    };
    // By pair id: the pairs numbered once, in order of their first transfer, before the ready loop (run()), so that
    // a transfer finds its record by position (pair_of_) instead of a hash lookup per transfer.
    std::vector<PairState> pairs_;
    static constexpr std::uint32_t kNoPairId = ~std::uint32_t{0};
    std::vector<std::uint32_t> pair_of_;  // by transfer position: its pair's id (kNoPairId: a fan-out)
    void number_pairs();  // fills pairs_ (keys and transfer counts) and pair_of_
    // After the last point-to-point transfer between a pair of TSPs is planned: frees what was kept to plan the
    // pair's transfers (its candidate routes, their shapes and known ranges, its committed route ids). Only
    // derived data goes (searches find the same answers without it), so the schedule does not change; at 10,440
    // TSPs this is what keeps the compile's peak from holding every pair's search state at once.
    void release_pair(PairState& state);
    // The KnownRanges of every shape, as lists (one entry per train length asked) through nodes in chunks that
    // never move, found by node number; nodes and their per-hop arrays freed with their shape (release_pair()) are
    // reused, so that moving from pair to pair allocates nothing once the pools have grown (a vector per shape and
    // two new[] arrays per entry were a tenth of the compile's calls to the allocator).
    static constexpr std::size_t kKnownChunk = 1024;
    std::vector<std::unique_ptr<KnownRanges[]>> known_chunks_;
    std::uint32_t known_count_ = 0;       // nodes made
    std::int32_t known_free_ = -1;        // first free node
    std::vector<std::int32_t> known_head_;  // by shape: first node of its list (-1: none)
    SizePool<Time> offset_pool_;
    SizePool<std::int64_t> insert_pool_;
    KnownRanges& known_node(std::size_t i) { return known_chunks_[i / kKnownChunk][i % kKnownChunk]; }
    void drop_known(std::int32_t shape);  // frees a shape's list
    std::vector<std::uint32_t> known_hint_;  // by candidate route: the node known() found last
    std::vector<PlaceMemo> place_memo_;                         // by candidate route
    std::vector<BoundMemo> bound_memo_;                         // by candidate route
    // greedy(): the routes that may take a new train for the piece being placed, with a bound of their completion
    // (exact: optimistic_completion(); else a floor of it).
    struct FreshRoute {
        Time bound;
        std::int32_t route = 0;
        bool exact = false;
    };
    std::vector<FreshRoute> fresh_;
    // Scratch kept from transfer to transfer (no allocation per transfer): plan_transfer()'s lists of candidate
    // routes (all, minimal ones), greedy()'s last train by route and best option, and commit()'s order of trains,
    // used route by candidate and routes seen.
    std::vector<std::int32_t> all_routes_;
    std::vector<std::int32_t> minimal_routes_;
    std::vector<std::int32_t> last_train_;
    Option greedy_best_;
    std::vector<std::int32_t> commit_order_;
    std::vector<std::int32_t> commit_used_;
    std::vector<std::int32_t> commit_routes_seen_;
    Option scratch_;  // scratch(): an option being tried by consider_extension() or consider_new()
    Option& scratch();

    // Committed.
    std::vector<Route> used_routes_;
    // The transfer being planned, when point-to-point: (src << 32 | dst) and how many of the candidates are the pair's
    // own (split halves follow them); the index into used_routes_ of each such candidate committed so far.
    static constexpr std::uint64_t kNoPair = ~std::uint64_t{0};
    std::uint64_t pair_ = kNoPair;
    std::size_t pair_routes_ = 0;
    PairState* pair_state_ = nullptr;  // pairs_'s record of pair_
    BlockList<CommittedTrain> committed_;
    BlockList<std::pair<std::int64_t, std::int64_t>> committed_hops_;  // (k_from, cycle), train after train
    std::vector<std::int64_t> staging_used_;                          // by TSP, bytes
    std::vector<Time> done_;                                          // by transfer position: completion
    std::vector<Time> duration_lb_;                                   // by transfer position
    std::vector<Time> consume_after_;                                 // by position: latest `after` completion
    std::vector<TransferTiming> timings_;                             // by transfer position
};

}  // namespace loom::sched::detail
