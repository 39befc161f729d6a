#include "loom/sched/scheduler.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <utility>

#include <fmt/format.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "loom/base/assert.hpp"
#include "scheduler_impl.hpp"

namespace loom::sched {
namespace detail {

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
      table_(min_gaps()),
      fit_memo_(static_cast<std::size_t>(t.num_channels())),
      around_memo_(static_cast<std::size_t>(t.num_channels())) {
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

namespace {
// Frees x's memory (clear() and `= {}` keep a vector's capacity and an unordered map's buckets).
template <class T>
void drop(T& x) {
    T().swap(x);
}

// (src << 32 | dst) of a point-to-point transfer, as plan_transfer() keys its pair.
std::uint64_t pair_key(const workload::Transfer& x) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(x.src)) << 32) |
           static_cast<std::uint32_t>(x.dsts[0]);
}
}  // namespace

Schedule Scheduler::run() {
    const std::size_t n = set_.transfers.size();
    done_.assign(n, Time::zero());
    duration_lb_.assign(n, Time::zero());
    consume_after_.assign(n, Time::zero());
    timings_.assign(n, TransferTiming{});
    staging_used_.assign(static_cast<std::size_t>(topo_.num_vertices()), 0);

    // List scheduling: a transfer is ready when its dependencies are complete; the earliest ready goes first.
    // Each transfer's dependents and followers are a range of one array (counted first, then filled in transfer
    // order): a vector per transfer was 1.2M small blocks at 10,440 TSPs. They are gone before build().
    {
        // Position p's dependents (by deps and paced_by): edges[first[p] .. first[p] + count); its followers (by
        // `after`: placed later, consume later, start freely) come after them, up to first[p + 1].
        std::vector<std::uint32_t> first(n + 1, 0);
        std::vector<std::uint32_t> dependent_count(n, 0);
        std::vector<std::uint32_t> edges;
        // What the ready loop reads of a dependent, side by side: one cache line per edge instead of three (its
        // transfer's compute_before, its ready time and its count of transfers waited for, from three arrays).
        struct Pending {
            Time ready_at;
            Time compute_before;
            std::size_t waiting = 0;
        };
        std::vector<Pending> pending(n);
        {
            const workload::TransferPositions positions(set_);
            auto position_of = [&](workload::TransferId d, const char* what) -> std::size_t {
                const std::size_t at = positions.find(d);
                LOOM_ASSERT(at != workload::TransferPositions::kAbsent, what);
                return at;
            };
            // Pass 0 counts, pass 1 fills: dependents in transfer order, then followers in transfer order.
            std::vector<std::uint32_t> next;
            for (int pass = 0; pass < 2; ++pass) {
                for (std::size_t i = 0; i < n; ++i) {
                    for (const auto* list : {&set_.transfers[i].deps, &set_.transfers[i].paced_by}) {
                        for (workload::TransferId d : *list) {
                            const std::size_t p = position_of(d, "validated dependencies exist");
                            if (pass == 0) {
                                ++dependent_count[p];
                                ++first[p + 1];
                                ++pending[i].waiting;
                            } else {
                                edges[next[p]++] = static_cast<std::uint32_t>(i);
                            }
                        }
                    }
                }
                if (pass == 1) {
                    for (std::size_t p = 0; p < n; ++p) next[p] = first[p] + dependent_count[p];
                }
                for (std::size_t i = 0; i < n; ++i) {
                    for (workload::TransferId d : set_.transfers[i].after) {
                        const std::size_t p = position_of(d, "validated orderings exist");
                        if (pass == 0) {
                            ++first[p + 1];
                            ++pending[i].waiting;
                        } else {
                            edges[next[p]++] = static_cast<std::uint32_t>(i);
                        }
                    }
                }
                if (pass == 0) {
                    for (std::size_t p = 0; p < n; ++p) first[p + 1] += first[p];
                    edges.resize(first[n]);
                    next.assign(first.begin(), first.end() - 1);
                }
            }
        }
        // Point-to-point transfers per pair of TSPs, so that a pair's search state goes after its last one.
        number_pairs();
        using Ready = std::pair<std::int64_t, std::size_t>;  // (ready ps, position)
        std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
        for (std::size_t i = 0; i < n; ++i) {
            Pending& pi = pending[i];
            pi.ready_at = set_.transfers[i].earliest;
            pi.compute_before = set_.transfers[i].compute_before;
            if (pi.waiting == 0) ready.emplace(pi.ready_at.count(), i);
        }
        while (!ready.empty()) {
            const std::size_t i = ready.top().second;
            ready.pop();
            plan_transfer(i, pending[i].ready_at);
            if (set_.transfers[i].dsts.size() == 1 && --pair_state_->remaining == 0) release_pair(*pair_state_);
            const std::uint32_t followers = first[i] + dependent_count[i];
            for (std::uint32_t e = first[i]; e < followers; ++e) {
                const std::size_t j = edges[e];
                Pending& pj = pending[j];
                pj.ready_at = std::max(pj.ready_at, done_[i] + pj.compute_before);
                if (--pj.waiting == 0) ready.emplace(pj.ready_at.count(), j);
            }
            for (std::uint32_t e = followers; e < first[i + 1]; ++e) {
                const std::size_t j = edges[e];
                consume_after_[j] = std::max(consume_after_[j], done_[i]);
                Pending& pj = pending[j];
                if (--pj.waiting == 0) ready.emplace(pj.ready_at.count(), j);
            }
        }
    }
    release_search_state();
    return build();
}


void Scheduler::number_pairs() {
    // An open-addressing table of (key, id) for the numbering alone, at least twice the transfers' count of slots.
    const std::size_t n = set_.transfers.size();
    pair_of_.assign(n, kNoPairId);
    std::size_t capacity = 64;
    while (capacity < 2 * n) capacity *= 2;
    const std::size_t mask = capacity - 1;
    constexpr std::uint32_t kEmpty = ~std::uint32_t{0};
    struct Slot {
        std::uint64_t key;
        std::uint32_t id;
    };
    std::vector<Slot> slots(capacity, Slot{0, kEmpty});
    for (std::size_t i = 0; i < n; ++i) {
        const workload::Transfer& x = set_.transfers[i];
        if (x.dsts.size() != 1) continue;
        const std::uint64_t key = pair_key(x);
        std::uint64_t h = key * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
        std::size_t at = static_cast<std::size_t>(h) & mask;
        while (slots[at].id != kEmpty && slots[at].key != key) at = (at + 1) & mask;
        if (slots[at].id == kEmpty) {
            slots[at] = Slot{key, static_cast<std::uint32_t>(pairs_.size())};
            pairs_.emplace_back();
            pairs_.back().key = key;
        }
        pair_of_[i] = slots[at].id;
        ++pairs_[slots[at].id].remaining;
    }
}

void Scheduler::release_pair(PairState& state) {
    if (net_.cache) {
        RouteCache& cache = *net_.cache;
        if (const auto it = cache.pairs.find(state.key); it != cache.pairs.end()) {
            // A shape's key names its channels, so the pair's candidates' shapes are the pair's own; a split half
            // that shares one just finds nothing known the next time (known ranges are derived data). Their ids
            // and hashes were kept on the pair's first transfer: the shape is erased by id, its key not made again
            // (only this erases keys, and no other pair's candidate has the key, so the id is still the key's).
            LOOM_ASSERT(state.shapes.size() == it->second.size() && state.shape_hashes.size() == state.shapes.size(),
                        "a pair's record has every candidate's shape");
            for (std::size_t c = 0; c < state.shapes.size(); ++c) {
                // false for a second candidate of the same shape: the first erased it.
                if (shapes_.erase_value(state.shape_hashes[c], state.shapes[c])) drop_known(state.shapes[c]);
            }
            // The routes' vectors go to the cache's spares (moved, not freed) for the next pairs' routes.
            for (Route& route : it->second) cache.spare.push_back(std::move(route));
            cache.pairs.erase(it);
        }
    }
    state.routes = nullptr;
    drop(state.shapes);
    drop(state.shape_hashes);
    drop(state.tails);
    drop(state.route_ids);
    pair_state_ = nullptr;
}

void Scheduler::drop_known(std::int32_t shape) {
    std::int32_t& head = known_head_[static_cast<std::size_t>(shape)];
    for (std::int32_t i = head; i >= 0;) {
        KnownRanges& k = known_node(static_cast<std::size_t>(i));
        offset_pool_.give(k.offsets.per_hop, 3 * std::size_t{k.hops});
        insert_pool_.give(k.start_inserts, k.hops);
        k.offsets.per_hop = nullptr;
        k.start_inserts = nullptr;
        k.shape = -1;
        const std::int32_t next = k.next;
        k.next = known_free_;
        known_free_ = i;
        i = next;
    }
    head = -1;
}

void Scheduler::release_search_state() {
    // build() reads the committed trains and routes, the transfer timings and duration bounds, the pace of each
    // link class and the hop arithmetic (net_, timing_); everything else served the search. At 10,440 TSPs the
    // table, the route cache (with its hop table) and the known ranges are over a gigabyte, which otherwise stays
    // mapped while build() makes the schedule beside it.
    table_ = ReservationTable({});
    net_.cache.reset();
    pair_candidates_ = nullptr;
    pair_routes_ = 0;
    drop(own_routes_);
    drop(splits_);
    overlay_ = Overlay{};
    drop(shapes_);
    drop(shape_of_);
    drop(pairs_);
    drop(pair_of_);
    drop(known_chunks_);
    known_count_ = 0;
    known_free_ = -1;
    drop(known_head_);
    offset_pool_ = SizePool<Time>{};
    insert_pool_ = SizePool<std::int64_t>{};
    drop(known_hint_);
    drop(template_hops_);
    drop(template_spans_);
    drop(template_index_);
    drop(template_key_);
    drop(shape_key_);
    drop(fit_memo_);
    drop(around_memo_);
    drop(channel_mark_);
    drop(place_memo_);
    drop(bound_memo_);
    drop(fresh_);
    drop(all_routes_);
    drop(minimal_routes_);
    drop(last_train_);
    greedy_best_ = Option{};
    drop(commit_order_);
    drop(commit_used_);
    drop(commit_routes_seen_);
    scratch_ = Option{};
    drop(staging_used_);
    drop(done_);
    drop(consume_after_);
#if defined(__GLIBC__)
    // The freed blocks go back to the system: glibc maps build()'s large arrays apart from its heap, so without
    // this they came on top of the search state's freed gigabyte (the compile's peak at 10,440 TSPs).
    malloc_trim(0);
#endif
}

}  // namespace detail

Schedule compile(const topo::FrozenTopology& topology, const topo::LinkClassTiming& links, const topo::ChipConfig& chip,
                 const workload::TransferSet& transfers, const SchedulerConfig& config) {
    detail::Scheduler scheduler(topology, links, chip, transfers, config);
    return scheduler.run();
}

}  // namespace loom::sched
