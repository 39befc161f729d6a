#include "loom/workload/transfer.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <unordered_map>
#include <string_view>

#include <fmt/format.h>

#include "loom/base/assert.hpp"
#include "loom/base/error.hpp"
#include "loom/base/memory.hpp"
#include "loom/base/rng.hpp"
#include "loom/workload/collective.hpp"

namespace loom::workload {

std::int64_t Transfer::vectors(Bytes unit_payload) const {
    const std::int64_t u = unit_payload.count();
    return (bytes.count() + u - 1) / u;
}

std::int64_t TransferSet::total_vectors(Bytes unit_payload) const {
    std::int64_t n = 0;
    for (const Transfer& t : transfers) n += t.vectors(unit_payload);
    return n;
}

std::int64_t TransferSet::total_bytes() const {
    std::int64_t n = 0;
    for (const Transfer& t : transfers) n += t.bytes.count();
    return n;
}

std::int64_t TransferSet::index_of(TransferId id) const {
    for (std::size_t i = 0; i < transfers.size(); ++i) {
        if (transfers[i].id == id) return static_cast<std::int64_t>(i);
    }
    return -1;
}

TransferPositions::TransferPositions(const TransferSet& set) : n_(set.transfers.size()) {
    for (std::size_t i = 0; i < n_ && dense_; ++i) dense_ = set.transfers[i].id == i;
    if (dense_) return;
    sorted_.reserve(n_);
    for (std::size_t i = 0; i < n_; ++i) sorted_.emplace_back(set.transfers[i].id, i);
    std::sort(sorted_.begin(), sorted_.end());
}

std::size_t TransferPositions::find_sorted(TransferId id) const {
    const auto it = std::lower_bound(sorted_.begin(), sorted_.end(), std::make_pair(id, std::size_t{0}));
    return it != sorted_.end() && it->first == id ? it->second : kAbsent;
}

config::Schema<TransferSetConfig> transfer_set_schema() {
    using S = TransferSpec;
    config::Schema<S> spec("one tensor transfer");
    spec.field("id", &S::id, "transfer id, unique (default: position in the list)")
        .range(0, std::numeric_limits<std::uint32_t>::max());
    spec.field("src", &S::src, "source TSP (vertex id)").range(0, std::numeric_limits<std::int32_t>::max()).required();
    spec.field("dsts", &S::dsts, "destination TSPs (vertex ids); more than one is a fan-out")
        .range(0, std::numeric_limits<std::int32_t>::max())
        .required();
    spec.field("bytes", &S::bytes, "tensor size (sent as 320-byte vectors)")
        .range(Bytes(1), Bytes(std::int64_t{1} << 40))
        .required();
    spec.field("earliest", &S::earliest, "the transfer may not start before this time")
        .range(Time::zero(), kMaxInputTime);
    spec.field("deps", &S::deps, "ids of transfers that must complete first")
        .range(0, std::numeric_limits<std::uint32_t>::max());
    spec.field("compute_before", &S::compute_before,
               "compute time after the last dependency completes, before this transfer may start")
        .range(Time::zero(), kMaxInputTime);
    spec.field("src_address", &S::src_address, "byte offset of the tensor in the source's memory")
        .range(0, std::int64_t{1} << 40);
    spec.field("dst_address", &S::dst_address, "byte offset written in every destination's memory")
        .range(0, std::int64_t{1} << 40);
    spec.choice("combine", &S::combine, {{"store", Combine::Store}, {"sum", Combine::Sum}},
                "store the tensor at dst_address, or sum: add it to what is there (one destination only)");

    using R = RandomTransfers;
    config::Schema<R> random("random point-to-point transfers between compute TSPs");
    random.field("count", &R::count, "number of random transfers (0: none)").range(0, std::int64_t{1} << 32);
    random.field("bytes", &R::bytes, "size of every random transfer").range(Bytes(1), Bytes(std::int64_t{1} << 40));
    random.field("seed", &R::seed, "seed of the generator").range(0, std::numeric_limits<std::int64_t>::max());
    random.field("fanout", &R::fanout, "destinations per transfer").range(1, 1 << 20);
    random.field("dependency_probability", &R::dependency_probability,
                 "probability that a transfer depends on one earlier random transfer")
        .range(0.0, 1.0);

    using C = TransferSetConfig;
    config::Schema<C> s("tensor transfers for the compile-time scheduler: an explicit list and/or random ones");
    s.list("transfers", &C::transfers, spec, "explicit transfers");
    s.section("random", &C::random, random, "random transfers, appended after the explicit ones");
    s.section("collective", &C::collective, collective_schema(),
              "a collective expanded into transfers (instead of explicit and random ones)");
    return s;
}

namespace {

std::string at(const std::string& pointer, std::size_t i, const std::string& key) {
    return config::child_pointer(config::child_pointer(config::child_pointer(pointer, "transfers"), i), key);
}

// Problems with one endpoint, or nullopt.
std::optional<std::string> endpoint_problem(const topo::FrozenTopology& t, topo::VertexId v) {
    if (v < 0 || v >= t.num_vertices())
        return fmt::format("TSP {} is not in the topology (0..{})", v, t.num_vertices() - 1);
    const topo::VertexInfo& info = t.vertex(v);
    if (info.spare || info.terminals <= 0)
        return fmt::format("TSP {} ({}) is a spare: it may forward but is never an endpoint", v, t.vertex_name(v));
    return std::nullopt;
}

}  // namespace

void validate(const TransferSet& s, const topo::FrozenTopology& t, const topo::ChipConfig& chip,
              const std::string& pointer, config::Errors& errors, Bytes unit_payload) {
    const std::size_t n = s.transfers.size();
    // Each id's first position (a hash map: at 10,440 TSPs an all-reduce has millions of transfers).
    std::unordered_map<TransferId, std::size_t> position;
    position.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Transfer& x = s.transfers[i];
        auto [it, inserted] = position.emplace(x.id, i);
        if (!inserted)
            errors.add(at(pointer, i, "id"), fmt::format("duplicate id {} (also transfer {})", x.id, it->second));
    }
    for (std::size_t i = 0; i < n; ++i) {
        const Transfer& x = s.transfers[i];
        if (auto p = endpoint_problem(t, x.src)) errors.add(at(pointer, i, "src"), *p);
        if (x.dsts.empty()) errors.add(at(pointer, i, "dsts"), "expected at least one destination");
        if (x.combine == Combine::Sum && x.dsts.size() > 1)
            errors.add(at(pointer, i, "combine"),
                       fmt::format("a summing transfer has one destination, got {} (a relay would forward the sum)",
                                   x.dsts.size()));
        for (std::size_t j = 0; j < x.dsts.size(); ++j) {
            // The pointer is built only for a problem: most transfers have none.
            const auto where = [&] { return config::child_pointer(at(pointer, i, "dsts"), j); };
            const topo::VertexId d = x.dsts[j];
            if (d == x.src) {
                errors.add(where(), fmt::format("self-transfer: destination {} is the source", d));
                continue;
            }
            if (auto p = endpoint_problem(t, d)) errors.add(where(), *p);
            for (std::size_t k = 0; k < j; ++k) {
                if (x.dsts[k] == d) {
                    errors.add(where(), fmt::format("destination {} repeated (also at position {})", d, k));
                    break;
                }
            }
        }
        if (x.bytes.count() < 1) errors.add(at(pointer, i, "bytes"), "expected at least 1 byte");
        if (x.earliest < Time::zero()) errors.add(at(pointer, i, "earliest"), "must not be negative");
        if (x.compute_before < Time::zero()) errors.add(at(pointer, i, "compute_before"), "must not be negative");
        const std::int64_t padded = x.bytes.count() > 0 ? x.vectors(unit_payload) * unit_payload.count() : 0;
        auto check_address = [&](const char* key, std::int64_t address) {
            if (address < 0) {
                errors.add(at(pointer, i, key), fmt::format("expected a non-negative offset, got {}", address));
            } else if (address > chip.memory.count() - padded) {
                errors.add(at(pointer, i, key),
                           fmt::format("{} ({} vectors) at offset {} does not fit in the TSP's {} of memory",
                                       to_string(x.bytes), padded / unit_payload.count(), address,
                                       to_string(chip.memory)));
            }
        };
        check_address("src_address", x.src_address);
        check_address("dst_address", x.dst_address);
        for (std::size_t j = 0; j < x.deps.size(); ++j) {
            if (!position.count(x.deps[j]))
                errors.add(config::child_pointer(at(pointer, i, "deps"), j),
                           fmt::format("no transfer with id {}", x.deps[j]));
        }
        for (std::size_t j = 0; j < x.after.size(); ++j) {
            if (!position.count(x.after[j]))
                errors.add(config::child_pointer(at(pointer, i, "after"), j),
                           fmt::format("no transfer with id {}", x.after[j]));
        }
    }

    // Dependency cycles: depth-first search over known dependencies (deps, then after, then paced_by); each
    // cycle is reported once, at the transfer where the search closed it, listing the ids around it. The search
    // keeps its own stack (a chain of a million dependencies must not overflow the thread's).
    enum class Mark : std::uint8_t { New, Open, Done };
    struct Frame {
        std::size_t transfer;
        std::size_t next;  // index into the transfer's deps, after and paced_by, read as one list
    };
    const auto before = [&](std::size_t i, std::size_t k) -> std::optional<TransferId> {
        const Transfer& x = s.transfers[i];
        if (k < x.deps.size()) return x.deps[k];
        k -= x.deps.size();
        if (k < x.after.size()) return x.after[k];
        k -= x.after.size();
        if (k < x.paced_by.size()) return x.paced_by[k];
        return std::nullopt;
    };
    std::vector<Mark> mark(n, Mark::New);
    std::vector<Frame> stack;
    for (std::size_t root = 0; root < n; ++root) {
        if (mark[root] != Mark::New) continue;
        mark[root] = Mark::Open;
        stack.push_back({root, 0});
        while (!stack.empty()) {
            Frame& f = stack.back();
            const std::optional<TransferId> d = before(f.transfer, f.next++);
            if (!d) {
                mark[f.transfer] = Mark::Done;
                stack.pop_back();
                continue;
            }
            const auto it = position.find(*d);
            if (it == position.end()) continue;
            const std::size_t j = it->second;
            if (mark[j] == Mark::Open) {
                std::string ring;
                auto from = std::find_if(stack.begin(), stack.end(), [j](const Frame& g) { return g.transfer == j; });
                for (auto k = from; k != stack.end(); ++k) ring += fmt::format("{} -> ", s.transfers[k->transfer].id);
                ring += fmt::format("{}", s.transfers[j].id);
                errors.add(at(pointer, f.transfer, "deps"),
                           fmt::format("dependency cycle: {} (each waits for the next)", ring));
            } else if (mark[j] == Mark::New) {
                mark[j] = Mark::Open;
                stack.push_back({j, 0});  // `f` is not used after this
            }
        }
    }
}

TransferSet random_transfers(const RandomTransfers& r, const topo::FrozenTopology& t, const topo::ChipConfig& chip,
                             TransferId first_id, const std::string& pointer, config::Errors& errors,
                             Bytes unit_payload) {
    TransferSet out;
    if (r.count <= 0) return out;
    std::vector<topo::VertexId> compute;
    for (topo::VertexId v = 0; v < t.num_vertices(); ++v) {
        if (!t.vertex(v).spare && t.vertex(v).terminals > 0) compute.push_back(v);
    }
    const auto needed = static_cast<std::size_t>(r.fanout) + 1;
    if (compute.size() < needed) {
        errors.add(config::child_pointer(pointer, "fanout"),
                   fmt::format("{} destinations per transfer need {} compute TSPs, the topology has {}", r.fanout,
                               needed, compute.size()));
        return out;
    }
    const std::int64_t unit = unit_payload.count();
    const std::int64_t size = ((r.bytes.count() + unit - 1) / unit) * unit;  // whole vectors
    // Sources live in the lower half of each TSP's memory and destinations in the upper half, each destination
    // region written once: no transfer writes where another reads or writes, so every slot's final value follows
    // from the workload alone (the data check leaves nothing ambiguous). Reads may share a region.
    const std::int64_t half = chip.memory.count() / 2 / unit * unit;
    if (size > half) {
        errors.add(config::child_pointer(pointer, "bytes"),
                   fmt::format("{} does not fit in half the TSP's {} of memory (sources and destinations are kept "
                               "apart)",
                               to_string(r.bytes), to_string(chip.memory)));
        return out;
    }
    // Next offset of each TSP's memory for reads (laid out one after another, wrapping) and for writes.
    std::vector<std::int64_t> next_read(static_cast<std::size_t>(t.num_vertices()), 0);
    std::vector<std::int64_t> next_write(static_cast<std::size_t>(t.num_vertices()), half);
    auto take = [&](std::int64_t& next) {
        if (next + size > half) next = 0;
        const std::int64_t a = next;
        next += size;
        return a;
    };
    Rng rng(derive(static_cast<std::uint64_t>(r.seed), std::string_view("workload.random")));
    out.transfers.reserve(static_cast<std::size_t>(r.count));
    std::vector<topo::VertexId> dsts;
    for (std::int64_t i = 0; i < r.count; ++i) {
        Transfer x;
        x.id = first_id + static_cast<TransferId>(i);
        x.src = compute[rng.uniform(compute.size())];
        dsts.clear();
        while (dsts.size() < static_cast<std::size_t>(r.fanout)) {
            const topo::VertexId d = compute[rng.uniform(compute.size())];
            if (d != x.src && std::find(dsts.begin(), dsts.end(), d) == dsts.end()) dsts.push_back(d);
        }
        x.dsts = dsts;
        x.bytes = r.bytes;
        x.src_address = take(next_read[static_cast<std::size_t>(x.src)]);
        // One address for every destination: the furthest of their next free offsets.
        std::int64_t w = half;
        for (topo::VertexId d : x.dsts) w = std::max(w, next_write[static_cast<std::size_t>(d)]);
        if (w + size > chip.memory.count()) {
            errors.add(config::child_pointer(pointer, "count"),
                       fmt::format("transfer {} of {} would write past the end of a destination's memory: {} random "
                                   "transfers of {} need more than the upper half of a TSP's {} (each destination "
                                   "region is written once)",
                                   i, r.count, r.count, to_string(r.bytes), to_string(chip.memory)));
            return TransferSet{};
        }
        for (topo::VertexId d : x.dsts) next_write[static_cast<std::size_t>(d)] = w + size;
        x.dst_address = w;
        if (i > 0 && r.dependency_probability > 0.0 && rng.bernoulli(r.dependency_probability))
            x.deps.push_back(first_id + static_cast<TransferId>(rng.uniform(static_cast<std::uint64_t>(i))));
        out.transfers.push_back(std::move(x));
    }
    return out;
}

namespace {

// Each value is at most kMaxInputTime, but a chain of dependencies adds them up: refuse a set in which a transfer
// could not start before kMaxInputTime even if every transfer took no time (the scheduler and the models add
// durations to these starts, which must not overflow). Checked arithmetic: a long chain could exceed 2^63 ps.
void check_start_bounds(const TransferSet& s, const std::string& pointer) {
    std::map<TransferId, std::size_t> position;
    for (std::size_t i = 0; i < s.transfers.size(); ++i) position.emplace(s.transfers[i].id, i);
    std::vector<Time> start(s.transfers.size());
    for (std::size_t i : topological_order(s)) {
        const Transfer& x = s.transfers[i];
        std::optional<Time> t = x.earliest;
        for (TransferId d : x.deps) {
            const auto after_dep = checked_add(start[position.at(d)], x.compute_before);
            if (!after_dep) t.reset();
            if (t && *after_dep > *t) t = after_dep;
            if (!t) break;
        }
        if (!t || *t > kMaxInputTime)
            throw ConfigError({fmt::format("{}: transfer {} could start only after {} (earliest plus the "
                                           "compute_before of its dependency chain); the largest is {}",
                                           config::child_pointer(config::child_pointer(pointer, "transfers"), i),
                                           x.id, t ? to_string(*t) : std::string("2^63 ps"),
                                           to_string(kMaxInputTime))});
        start[i] = *t;
    }
}

}  // namespace

namespace {

// Calibration (peak RSS by /usr/bin/time -v, `loom validate` and `loom run` of configs/tsp/schedule-node.json
// with workload.random.count = 20k..200k): about 950 bytes per single-vector transfer (the transfer, its trains,
// reservations, instructions and predicted runs) over an 8 MiB base; with 32 KiB transfers (103 vectors),
// 4.4 KiB per transfer, i.e. about 33 bytes per further vector and destination (trains split as the links fill).
constexpr std::int64_t kBase = std::int64_t{8} << 20;
constexpr std::int64_t kPerTransfer = 1000;
constexpr std::int64_t kPerVector = 33;

}  // namespace

std::int64_t transfer_memory_bytes(std::int64_t vectors, std::int64_t destinations) {
    return kPerTransfer + kPerVector * vectors * destinations;
}

std::int64_t estimate_memory_bytes(const TransferSetConfig& c, const topo::FrozenTopology& t, Bytes unit_payload) {
    const auto vectors = [&](Bytes b) { return (b.count() + unit_payload.count() - 1) / unit_payload.count(); };
    __extension__ using I128 = __int128;
    I128 total = kBase;
    if (c.collective.kind == CollectiveKind::AllToAll) {
        // Every member sends a block to every other: members x (members - 1) transfers of tensor / members bytes.
        I128 members = static_cast<I128>(c.collective.tsps.size());
        if (members == 0)
            for (topo::VertexId v = 0; v < t.num_vertices(); ++v)
                if (!t.vertex(v).spare && t.vertex(v).terminals > 0) ++members;
        const I128 n = members * (members - 1);
        const I128 block = members > 0 ? c.collective.bytes.count() / static_cast<std::int64_t>(members) + 1 : 0;
        total += n * (kPerTransfer + kPerVector * (block / unit_payload.count() + 1));
    } else if (c.collective.kind == CollectiveKind::None) {
        for (const TransferSpec& x : c.transfers)
            total += kPerTransfer + kPerVector * vectors(x.bytes) * static_cast<std::int64_t>(x.dsts.size());
        total += static_cast<I128>(c.random.count) * (kPerTransfer + kPerVector * vectors(c.random.bytes) * c.random.fanout);
    }
    const I128 cap = std::numeric_limits<std::int64_t>::max();
    return static_cast<std::int64_t>(std::min(total, cap));
}

namespace {

// Work that cannot fit is refused before it is built (bad input, exit 2), with the estimate.
void refuse_if_too_large(const TransferSetConfig& c, const topo::FrozenTopology& t, const std::string& pointer,
                         Bytes unit_payload) {
    const auto available = available_memory_bytes();
    if (!available) return;
    const std::int64_t need = estimate_memory_bytes(c, t, unit_payload);
    if (need <= *available) return;
    const std::string where = c.collective.kind != CollectiveKind::None ? config::child_pointer(pointer, "collective")
                              : c.random.count > 0 ? config::child_pointer(config::child_pointer(pointer, "random"), "count")
                                                   : config::child_pointer(pointer, "transfers");
    throw InputError(fmt::format("{}: this workload needs about {} of memory to schedule and run, more than the {} "
                                 "available",
                                 where, format_bytes(need), format_bytes(*available)));
}

}  // namespace

TransferSet make_transfer_set(const TransferSetConfig& c, const topo::FrozenTopology& t, const topo::ChipConfig& chip,
                              const std::string& pointer, Bytes unit_payload) {
    refuse_if_too_large(c, t, pointer, unit_payload);
    if (c.collective.kind != CollectiveKind::None) {
        if (!c.transfers.empty() || c.random.count > 0) {
            config::Errors errors;
            errors.add(config::child_pointer(pointer, "collective"),
                       "a collective is the whole workload: leave out \"transfers\" and \"random\"");
            errors.throw_if_any();
        }
        return make_collective(c.collective, t, chip, config::child_pointer(pointer, "collective"), unit_payload);
    }
    TransferSet s;
    s.transfers.reserve(c.transfers.size());
    std::int64_t next_id = 0;
    for (std::size_t i = 0; i < c.transfers.size(); ++i) {
        const TransferSpec& e = c.transfers[i];
        Transfer x;
        const std::int64_t id = e.id.value_or(static_cast<std::int64_t>(i));
        x.id = static_cast<TransferId>(id);
        next_id = std::max(next_id, id + 1);
        x.src = static_cast<topo::VertexId>(e.src);
        for (std::int64_t d : e.dsts) x.dsts.push_back(static_cast<topo::VertexId>(d));
        x.bytes = e.bytes;
        x.earliest = e.earliest;
        for (std::int64_t d : e.deps) x.deps.push_back(static_cast<TransferId>(d));
        x.compute_before = e.compute_before;
        x.src_address = e.src_address;
        x.dst_address = e.dst_address;
        x.combine = e.combine;
        s.transfers.push_back(std::move(x));
    }
    config::Errors errors;
    validate(s, t, chip, pointer, errors, unit_payload);
    if (c.random.count > 0 && next_id + c.random.count > std::int64_t{std::numeric_limits<TransferId>::max()} + 1) {
        errors.add(config::child_pointer(config::child_pointer(pointer, "random"), "count"),
                   "random transfer ids would not fit in 32 bits");
    } else {
        TransferSet random = random_transfers(c.random, t, chip, static_cast<TransferId>(next_id),
                                              config::child_pointer(pointer, "random"), errors, unit_payload);
        for (Transfer& x : random.transfers) s.transfers.push_back(std::move(x));
    }
    errors.throw_if_any();
    check_start_bounds(s, pointer);
    return s;
}

std::vector<std::size_t> topological_order(const TransferSet& s) {
    const std::size_t n = s.transfers.size();
    // Positions by id in one sorted array, and each transfer's dependents as a range of one array (counted first):
    // at 1.2M transfers a map node and a vector per transfer were a few hundred megabytes.
    std::vector<std::pair<TransferId, std::size_t>> position;
    position.reserve(n);
    for (std::size_t i = 0; i < n; ++i) position.emplace_back(s.transfers[i].id, i);
    std::sort(position.begin(), position.end());
    auto position_of = [&](TransferId d) {
        const auto it = std::lower_bound(position.begin(), position.end(), std::make_pair(d, std::size_t{0}));
        LOOM_ASSERT(it != position.end() && it->first == d, "topological_order: unknown dependency");
        return it->second;
    };
    std::vector<std::size_t> waiting(n, 0);
    std::vector<std::size_t> first(n + 1, 0);  // dependents of transfer p: edges[first[p] .. first[p + 1])
    for (std::size_t i = 0; i < n; ++i) {
        for (const auto* list : {&s.transfers[i].deps, &s.transfers[i].after, &s.transfers[i].paced_by}) {
            for (TransferId d : *list) ++first[position_of(d) + 1];
        }
    }
    for (std::size_t p = 0; p < n; ++p) first[p + 1] += first[p];
    std::vector<std::size_t> edges(first[n]);
    {
        std::vector<std::size_t> next(first.begin(), first.end() - 1);
        for (std::size_t i = 0; i < n; ++i) {
            for (const auto* list : {&s.transfers[i].deps, &s.transfers[i].after, &s.transfers[i].paced_by}) {
                for (TransferId d : *list) {
                    edges[next[position_of(d)]++] = i;
                    ++waiting[i];
                }
            }
        }
    }
    std::vector<std::pair<TransferId, std::size_t>>().swap(position);
    std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
    for (std::size_t i = 0; i < n; ++i) {
        if (waiting[i] == 0) ready.push(i);
    }
    std::vector<std::size_t> order;
    order.reserve(n);
    while (!ready.empty()) {
        const std::size_t i = ready.top();
        ready.pop();
        order.push_back(i);
        for (std::size_t e = first[i]; e < first[i + 1]; ++e) {
            if (--waiting[edges[e]] == 0) ready.push(edges[e]);
        }
    }
    LOOM_ASSERT(order.size() == n, "topological_order: dependency cycle");
    return order;
}

}  // namespace loom::workload
