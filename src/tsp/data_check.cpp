#include "loom/tsp/data_check.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "loom/workload/collective.hpp"
#include "wrapping.hpp"

namespace loom::tsp {
namespace {

// splitmix64's finaliser: a bijection of 64-bit words whose outputs pass as independent uniform draws.
std::uint64_t mix(std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// Transfers by position, with the orders between them the workload states and, for the others, the order the
// compiled schedule gives them when one completes before the other's first Send.
class Orders {
public:
    Orders(const workload::TransferSet& s, const sched::Schedule* schedule) : s_(s) {
        for (std::size_t i = 0; i < s.transfers.size(); ++i) ids_.emplace_back(s.transfers[i].id, i);
        std::sort(ids_.begin(), ids_.end());
        if (schedule) {
            timing_.assign(s.transfers.size(), nullptr);
            for (const sched::TransferTiming& t : schedule->transfers) {
                const auto it = std::lower_bound(ids_.begin(), ids_.end(), std::make_pair(t.transfer, std::size_t{0}));
                if (it != ids_.end() && it->first == t.transfer) timing_[it->second] = &t;
            }
        }
    }
    std::size_t position(workload::TransferId id) const {
        return std::lower_bound(ids_.begin(), ids_.end(), std::make_pair(id, std::size_t{0}))->second;
    }
    // True if `a` has written every destination before `b` reads its source (`data`: a chain of deps) or before
    // `b` writes any destination (a chain of deps and after). A search visits at most kLimit transfers; beyond that
    // the order counts as unknown, which only leaves slots unchecked.
    bool stated(std::size_t a, std::size_t b, bool data) const {
        if (a == b) return false;
        static constexpr std::size_t kLimit = 4096;
        std::vector<std::size_t> stack{b};
        std::set<std::size_t> seen{b};
        while (!stack.empty() && seen.size() <= kLimit) {
            const std::size_t at = stack.back();
            const workload::Transfer& x = s_.transfers[at];
            stack.pop_back();
            auto visit = [&](const std::vector<workload::TransferId>& list) {
                for (workload::TransferId id : list) {
                    const std::size_t p = position(id);
                    if (p == a) return true;
                    if (seen.insert(p).second) stack.push_back(p);
                }
                return false;
            };
            if (visit(x.deps)) return true;
            // `b` itself may read before an `after` predecessor writes; further up a chain, a transfer ordered
            // `after` another completes after it, and whatever depends on it starts later still.
            if ((!data || at != b) && visit(x.after)) return true;
        }
        return false;
    }
    // `a` completes (every vector in memory everywhere) before `b` issues its first Send, so before b reads or
    // writes anything.
    bool timed(std::size_t a, std::size_t b) const {
        return !timing_.empty() && timing_[a] && timing_[b] && timing_[a]->completion < timing_[b]->first_issue;
    }

private:
    const workload::TransferSet& s_;
    std::vector<std::pair<workload::TransferId, std::size_t>> ids_;
    std::vector<const sched::TransferTiming*> timing_;  // by position; empty without a schedule
};

using SlotKey = std::pair<std::uint32_t, std::int64_t>;  // (tsp, slot)

// Positions in an order that follows deps, after and `extra` (Kahn's algorithm, lowest position first). The
// schedule's times agree with deps and after, so no cycle can form; if one did, the rest follow by position.
std::vector<std::size_t> replay_order(const workload::TransferSet& s, const Orders& orders,
                                      const std::vector<std::pair<std::size_t, std::size_t>>& extra) {
    const std::size_t n = s.transfers.size();
    std::vector<std::vector<std::size_t>> next(n);
    std::vector<std::size_t> preds(n, 0);
    auto edge = [&](std::size_t a, std::size_t b) {
        next[a].push_back(b);
        ++preds[b];
    };
    for (std::size_t i = 0; i < n; ++i) {
        for (workload::TransferId d : s.transfers[i].deps) edge(orders.position(d), i);
        for (workload::TransferId d : s.transfers[i].after) edge(orders.position(d), i);
    }
    for (const auto& [a, b] : extra) edge(a, b);
    std::set<std::size_t> ready;
    for (std::size_t i = 0; i < n; ++i)
        if (preds[i] == 0) ready.insert(i);
    std::vector<std::size_t> order;
    std::vector<bool> placed(n, false);
    while (order.size() < n) {
        if (ready.empty()) {
            for (std::size_t i = 0; i < n; ++i)
                if (!placed[i]) {
                    ready.insert(i);
                    break;
                }
        }
        const std::size_t i = *ready.begin();
        ready.erase(ready.begin());
        if (placed[i]) continue;
        placed[i] = true;
        order.push_back(i);
        for (std::size_t j : next[i])
            if (--preds[j] == 0 && !placed[j]) ready.insert(j);
    }
    return order;
}

void from_collective(const workload::CollectiveLayout& L, std::int64_t vb, DataCheck& c) {
    using workload::CollectiveKind;
    const auto N = static_cast<std::int64_t>(L.members.size());
    auto member = [&](std::int64_t r) { return static_cast<std::uint32_t>(L.members[static_cast<std::size_t>(r)]); };
    const std::int64_t base = L.address / vb;
    auto sums = [&] {
        c.pool.assign(static_cast<std::size_t>(L.vectors), 0);
        std::vector<std::int64_t> values(static_cast<std::size_t>(L.vectors));
        for (std::int64_t r = 0; r < N; ++r) {
            c.initial_values(member(r), base, L.vectors, values.data());
            for (std::int64_t k = 0; k < L.vectors; ++k)
                c.pool[static_cast<std::size_t>(k)] =
                    add_wrapping(c.pool[static_cast<std::size_t>(k)], values[static_cast<std::size_t>(k)]);
        }
    };
    auto copy = [&](std::uint32_t tsp, std::int64_t first, std::int64_t count, std::uint32_t src, std::int64_t from) {
        DataCheck::Expect e;
        e.region = {tsp, first, count};
        e.source = DataCheck::Source::Copy;
        e.src_tsp = src;
        e.src_first = from;
        c.expected.push_back(e);
    };
    for (std::int64_t r = 0; r < N; ++r) c.members.push_back(member(r));
    switch (L.kind) {
        case CollectiveKind::None:
            break;
        case CollectiveKind::AllReduce:
            sums();
            for (std::int64_t r = 0; r < N; ++r) {
                c.initial.push_back({member(r), base, L.vectors});
                c.expected.push_back({{member(r), base, L.vectors}, DataCheck::Source::Pool, 0, 0, 0, 1, -1});
            }
            break;
        case CollectiveKind::ReduceScatter:
            sums();
            for (std::int64_t r = 0; r < N; ++r) {
                c.initial.push_back({member(r), base, L.vectors});
                c.expected.push_back(
                    {{member(r), base + r * L.block, L.block}, DataCheck::Source::Pool, r * L.block, 0, 0, 1, -1});
            }
            break;
        case CollectiveKind::AllGather:
            for (std::int64_t r = 0; r < N; ++r) {
                c.initial.push_back({member(r), base + r * L.block, L.block});
                c.expected.push_back(
                    {{member(r), base, N * L.block}, DataCheck::Source::Blocks, 0, 0, base, L.block, -1});
            }
            break;
        case CollectiveKind::AllToAll:
            for (std::int64_t r = 0; r < N; ++r) c.initial.push_back({member(r), base, N * L.block});
            for (std::int64_t d = 0; d < N; ++d)
                c.expected.push_back({{member(d), L.out_address / vb, N * L.block},
                                      DataCheck::Source::Columns,
                                      0,
                                      0,
                                      base + d * L.block,
                                      L.block,
                                      d});
            break;
        case CollectiveKind::Broadcast:
            c.initial.push_back({member(L.root), base, L.block});
            for (std::int64_t r = 0; r < N; ++r)
                if (r != L.root) copy(member(r), base, L.block, member(L.root), base);
            break;
        case CollectiveKind::Gather:
            for (std::int64_t r = 0; r < N; ++r) {
                c.initial.push_back({member(r), base + r * L.block, L.block});
                if (r != L.root) copy(member(L.root), base + r * L.block, L.block, member(r), base + r * L.block);
            }
            break;
        case CollectiveKind::Scatter:
            c.initial.push_back({member(L.root), base, N * L.block});
            for (std::int64_t r = 0; r < N; ++r)
                if (r != L.root) copy(member(r), base + r * L.block, L.block, member(L.root), base + r * L.block);
            break;
    }
}

void from_replay(const workload::TransferSet& s, std::int64_t vb, Bytes unit, const sched::Schedule* schedule,
                 DataCheck& c) {
    const Orders orders(s, schedule);
    // Orders the replay must follow beyond deps and after: pairs the schedule's times order (a before b).
    std::vector<std::pair<std::size_t, std::size_t>> timed_edges;
    // 0: unordered; 1: ordered by the workload or the schedule (an edge added when only the schedule orders them).
    auto resolve = [&](std::size_t a, std::size_t b, bool a_data, bool b_data) {
        if (orders.stated(a, b, b_data) || orders.stated(b, a, a_data)) return true;
        if (orders.timed(a, b)) {
            timed_edges.emplace_back(a, b);
            return true;
        }
        if (orders.timed(b, a)) {
            timed_edges.emplace_back(b, a);
            return true;
        }
        return false;
    };
    const std::size_t n = s.transfers.size();
    auto slots_of = [&](std::int64_t address, std::int64_t count, auto&& f) {
        for (std::int64_t k = 0; k < count; ++k) f(address / vb + k);
    };
    // Pass 1: every slot's writers, then which transfers read a source that an unordered write races with.
    std::map<SlotKey, std::vector<std::size_t>> writers;
    for (std::size_t i = 0; i < n; ++i) {
        const workload::Transfer& x = s.transfers[i];
        for (topo::VertexId d : x.dsts)
            slots_of(x.dst_address, x.vectors(unit),
                     [&](std::int64_t slot) { writers[{static_cast<std::uint32_t>(d), slot}].push_back(i); });
    }
    std::vector<bool> racy_read(n, false);
    for (std::size_t i = 0; i < n; ++i) {
        const workload::Transfer& x = s.transfers[i];
        for (std::int64_t k = 0; k < x.vectors(unit) && !racy_read[i]; ++k) {
            const auto it = writers.find({static_cast<std::uint32_t>(x.src), x.src_address / vb + k});
            if (it == writers.end()) continue;
            for (std::size_t w : it->second)
                if (!resolve(w, i, false, true)) racy_read[i] = true;
        }
    }
    // A store racing any other write to its slot leaves the final value to the order; sums commute.
    std::map<SlotKey, bool> racy_slot;
    for (const auto& [key, ws] : writers) {
        bool racy = false;
        for (std::size_t a = 0; a < ws.size() && !racy; ++a)
            for (std::size_t b = a + 1; b < ws.size() && !racy; ++b)
                if (ws[a] != ws[b] &&
                    (s.transfers[ws[a]].combine == workload::Combine::Store ||
                     s.transfers[ws[b]].combine == workload::Combine::Store) &&
                    !resolve(ws[a], ws[b], false, false))
                    racy = true;
        racy_slot[key] = racy;
    }
    writers.clear();

    // Pass 2: replay in an order that respects deps and after.
    struct Cell {
        std::int64_t value = 0;
        bool ambiguous = false;
        bool destination = false;
    };
    std::map<SlotKey, Cell> cells;
    auto seeded = [&](std::uint32_t tsp, std::int64_t slot) -> Cell& {
        auto [it, fresh] = cells.try_emplace({tsp, slot});
        if (fresh) {
            it->second.value = c.initial_value(tsp, slot);
            c.initial.push_back({tsp, slot, 1});
        }
        return it->second;
    };
    std::vector<std::pair<std::int64_t, bool>> operand;
    for (std::size_t i : replay_order(s, orders, timed_edges)) {
        const workload::Transfer& x = s.transfers[i];
        const std::int64_t count = x.vectors(unit);
        operand.clear();
        slots_of(x.src_address, count, [&](std::int64_t slot) {
            const Cell& cell = seeded(static_cast<std::uint32_t>(x.src), slot);
            operand.emplace_back(cell.value, cell.ambiguous || racy_read[i]);
        });
        for (topo::VertexId d : x.dsts) {
            const auto tsp = static_cast<std::uint32_t>(d);
            for (std::int64_t k = 0; k < count; ++k) {
                const std::int64_t slot = x.dst_address / vb + k;
                const auto& [v, amb] = operand[static_cast<std::size_t>(k)];
                if (x.combine == workload::Combine::Sum) {
                    // A sum lands on what the destination held before: a slot nothing wrote holds its own value.
                    Cell& cell = seeded(tsp, slot);
                    cell.value = add_wrapping(cell.value, v);
                    cell.ambiguous = cell.ambiguous || amb;
                    cell.destination = true;
                } else {
                    Cell& cell = cells[{tsp, slot}];
                    cell.value = v;
                    cell.ambiguous = amb;
                    cell.destination = true;
                }
            }
        }
    }
    // Initial slots, merged into runs.
    std::sort(c.initial.begin(), c.initial.end(), [](const DataCheck::Region& a, const DataCheck::Region& b) {
        return std::tie(a.tsp, a.first) < std::tie(b.tsp, b.first);
    });
    std::vector<DataCheck::Region> merged;
    for (const DataCheck::Region& r : c.initial) {
        if (!merged.empty() && merged.back().tsp == r.tsp && merged.back().first + merged.back().count == r.first)
            ++merged.back().count;
        else
            merged.push_back(r);
    }
    c.initial = std::move(merged);
    // Expected slots (cells iterate in (tsp, slot) order), merged into runs of the pool.
    for (const auto& [key, cell] : cells) {
        if (!cell.destination) continue;
        if (cell.ambiguous || racy_slot[key]) {
            ++c.ambiguous_slots;
            continue;
        }
        const auto pool = static_cast<std::int64_t>(c.pool.size());
        c.pool.push_back(cell.value);
        if (!c.expected.empty()) {
            DataCheck::Expect& e = c.expected.back();
            if (e.region.tsp == key.first && e.region.first + e.region.count == key.second &&
                e.pool + e.region.count == pool) {
                ++e.region.count;
                continue;
            }
        }
        c.expected.push_back({{key.first, key.second, 1}, DataCheck::Source::Pool, pool, 0, 0, 1, -1});
    }
}

}  // namespace

std::int64_t DataCheck::initial_value(std::uint32_t tsp, std::int64_t slot) const {
    std::int64_t value = 0;
    initial_values(tsp, slot, 1, &value);
    return value;
}

void DataCheck::initial_values(std::uint32_t tsp, std::int64_t first, std::int64_t count, std::int64_t* out) const {
    // Distinct (tsp, slot) pairs give distinct words (slots stay far below 2^40), and mix() is a bijection.
    const std::uint64_t s = mix(seed);
    const std::uint64_t high = static_cast<std::uint64_t>(tsp) << 40;
    for (std::int64_t k = 0; k < count; ++k)
        out[k] = static_cast<std::int64_t>(mix(s ^ (high ^ static_cast<std::uint64_t>(first + k))));
}

bool DataCheck::expected_value(const Expect& e, std::int64_t k, std::int64_t& value) const {
    switch (e.source) {
        case Source::Pool:
            value = pool[static_cast<std::size_t>(e.pool + k)];
            return true;
        case Source::Copy:
            value = initial_value(e.src_tsp, e.src_first + k);
            return true;
        case Source::Blocks:
            value = initial_value(members[static_cast<std::size_t>(k / e.block)], e.src_first + k);
            return true;
        case Source::Columns:
            if (k / e.block == e.skip) return false;
            value = initial_value(members[static_cast<std::size_t>(k / e.block)], e.src_first + k % e.block);
            return true;
    }
    return false;
}

std::int64_t DataCheck::slots() const {
    std::int64_t n = 0;
    for (const Expect& e : expected) n += e.region.count - (e.source == Source::Columns ? e.block : 0);
    return n;
}

DataCheck make_data_check(const workload::TransferSet& transfers, std::int64_t vector_bytes, Bytes unit_payload,
                          std::uint64_t seed, const sched::Schedule* schedule) {
    DataCheck c;
    c.seed = seed;
    if (transfers.collective)
        from_collective(*transfers.collective, vector_bytes, c);
    else
        from_replay(transfers, vector_bytes, unit_payload, schedule, c);
    return c;
}

}  // namespace loom::tsp
