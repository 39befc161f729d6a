#include "loom/workload/collective.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "loom/base/error.hpp"

namespace loom::workload {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

using Deps = std::vector<TransferId>;

void merge_into(Deps& into, const Deps& more) {
    into.insert(into.end(), more.begin(), more.end());
    std::sort(into.begin(), into.end());
    into.erase(std::unique(into.begin(), into.end()), into.end());
}

// Appends transfers with consecutive ids; regions are vector slots counted from the collective's buffer.
class Builder {
public:
    Builder(const CollectiveLayout& layout, std::int64_t vector_bytes) : layout_(layout), vb_(vector_bytes) {}

    TransferId add(std::int64_t src_rank, std::vector<std::int64_t> dst_ranks, std::int64_t src_slot,
                   std::int64_t dst_slot, std::int64_t vectors, Combine combine, Deps deps,
                   std::int64_t dst_base = -1, Deps after = {}) {
        Transfer x;
        x.id = static_cast<TransferId>(out_.size());
        x.src = member(src_rank);
        for (std::int64_t d : dst_ranks) x.dsts.push_back(member(d));
        x.bytes = Bytes(vectors * vb_);
        std::sort(deps.begin(), deps.end());
        deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
        x.deps = std::move(deps);
        std::sort(after.begin(), after.end());
        after.erase(std::unique(after.begin(), after.end()), after.end());
        std::erase_if(after, [&](TransferId a) { return std::binary_search(x.deps.begin(), x.deps.end(), a); });
        x.after = std::move(after);
        x.src_address = layout_.address + src_slot * vb_;
        x.dst_address = (dst_base >= 0 ? dst_base : layout_.address) + dst_slot * vb_;
        x.combine = combine;
        out_.push_back(std::move(x));
        return out_.back().id;
    }
    std::vector<Transfer> take() { return std::move(out_); }
    TransferId next_id() const { return static_cast<TransferId>(out_.size()); }
    topo::VertexId src_of(TransferId id) const { return out_[static_cast<std::size_t>(id)].src; }
    // Makes an emitted transfer also wait, for pacing only (Transfer::paced_by), for `more` (which may be
    // emitted later).
    void add_pacing(TransferId id, const Deps& more) {
        Transfer& x = out_[static_cast<std::size_t>(id)];
        merge_into(x.paced_by, more);
    }

private:
    topo::VertexId member(std::int64_t rank) const { return layout_.members[static_cast<std::size_t>(rank)]; }

    const CollectiveLayout& layout_;
    std::int64_t vb_;
    std::vector<Transfer> out_;
};

// Reduce-scatter inside one group (ranks g[0..G-1], all holding region [first, first + G x chunk)): member i ends
// with the sum of chunk i. Each chunk is cut into q = min(pieces (G-1), chunk) sub-chunks, each reduced into the
// owner by the G-1 other members one after another (a storing Reduce reads its operands at issue, so sums into
// one slot must not overlap); the order is rotated so that in round k source s sends sub-chunk (s' - k) of every
// chunk it contributes to, and each link carries one sub-chunk at a time. `ready` (by rank) lists what must
// precede any access to a member's region and becomes, for each owner, the last reduction of each sub-chunk.
// (Each sum waits for the previous one into its slot to complete: chaining them with `after` instead, as the
// direct all-reduce does, measured worse here on 72 and 264 TSPs, 0.36 and 0.31 against 0.41 and 0.51, because
// all rounds become ready at once and list scheduling then places one owner's chains before the next.)
void reduce_scatter_group(Builder& b, const std::vector<std::int64_t>& g, std::int64_t first, std::int64_t chunk,
                          std::int64_t pieces, std::vector<Deps>& ready) {
    const auto G = static_cast<std::int64_t>(g.size());
    if (G < 2) return;
    const std::int64_t q = std::min((G - 1) * pieces, chunk);
    std::vector<std::vector<TransferId>> last(static_cast<std::size_t>(G), std::vector<TransferId>());
    for (std::int64_t k = 0; k < G - 1; ++k) {
        for (std::int64_t o = 0; o < G; ++o) {
            auto& chain = last[static_cast<std::size_t>(o)];
            chain.resize(static_cast<std::size_t>(q));
            const std::int64_t owner = g[static_cast<std::size_t>(o)];
            for (std::int64_t j = 0; j < q; ++j) {
                const std::int64_t s = g[static_cast<std::size_t>((o + 1 + (j + k) % (G - 1)) % G)];
                const std::int64_t lo = j * chunk / q;
                const std::int64_t hi = (j + 1) * chunk / q;
                const std::int64_t slot = first + o * chunk + lo;
                Deps deps = ready[static_cast<std::size_t>(s)];
                if (k == 0) {
                    merge_into(deps, ready[static_cast<std::size_t>(owner)]);
                } else {
                    deps.push_back(chain[static_cast<std::size_t>(j)]);
                }
                chain[static_cast<std::size_t>(j)] = b.add(s, {owner}, slot, slot, hi - lo, Combine::Sum, deps);
            }
        }
    }
    for (std::int64_t o = 0; o < G; ++o) {
        auto& r = ready[static_cast<std::size_t>(g[static_cast<std::size_t>(o)])];
        merge_into(r, last[static_cast<std::size_t>(o)]);
    }
}

// All-gather inside one group after reduce_scatter_group: member i sends chunk i to every other member (one fan-out
// transfer). Each member's `ready` gains the fan-outs into it.
void all_gather_group(Builder& b, const std::vector<std::int64_t>& g, std::int64_t first, std::int64_t chunk,
                      std::vector<Deps>& ready) {
    const auto G = static_cast<std::int64_t>(g.size());
    if (G < 2) return;
    std::vector<TransferId> ids;
    for (std::int64_t o = 0; o < G; ++o) {
        std::vector<std::int64_t> dsts;
        for (std::int64_t x : g)
            if (x != g[static_cast<std::size_t>(o)]) dsts.push_back(x);
        const std::int64_t slot = first + o * chunk;
        ids.push_back(b.add(g[static_cast<std::size_t>(o)], dsts, slot, slot, chunk, Combine::Store,
                            ready[static_cast<std::size_t>(g[static_cast<std::size_t>(o)])]));
    }
    for (std::int64_t o = 0; o < G; ++o) {
        for (std::int64_t p = 0; p < G; ++p)
            if (p != o) ready[static_cast<std::size_t>(g[static_cast<std::size_t>(o)])].push_back(ids[static_cast<std::size_t>(p)]);
    }
}

// All-reduce of region [first, first + vectors) inside one group by a binomial tree into g[root] (relative rank x
// sends to x - 2^k in round k = x's lowest set bit; the sums into one member follow one another) and a fan-out
// of the result from the root.
void tree_all_reduce_group(Builder& b, const std::vector<std::int64_t>& g, std::int64_t root, std::int64_t first,
                           std::int64_t vectors, std::vector<Deps>& ready) {
    const auto G = static_cast<std::int64_t>(g.size());
    if (G < 2) return;
    auto at = [&](std::int64_t x) { return g[static_cast<std::size_t>((root + x) % G)]; };
    std::vector<Deps> written(static_cast<std::size_t>(G));  // the last sum into relative rank x
    for (std::int64_t k = 0; (std::int64_t{1} << k) < G; ++k) {
        const std::int64_t step = std::int64_t{1} << k;
        for (std::int64_t x = step; x < G; x += 2 * step) {
            const std::int64_t y = x - step;
            Deps deps = ready[static_cast<std::size_t>(at(x))];
            merge_into(deps, ready[static_cast<std::size_t>(at(y))]);
            merge_into(deps, written[static_cast<std::size_t>(x)]);
            merge_into(deps, written[static_cast<std::size_t>(y)]);
            const TransferId id = b.add(at(x), {at(y)}, first, first, vectors, Combine::Sum, deps);
            written[static_cast<std::size_t>(y)] = {id};
        }
    }
    Deps deps = ready[static_cast<std::size_t>(at(0))];
    merge_into(deps, written[0]);
    std::vector<std::int64_t> dsts;
    for (std::int64_t x = 1; x < G; ++x) dsts.push_back(at(x));
    std::sort(dsts.begin(), dsts.end());
    const TransferId bcast = b.add(at(0), dsts, first, first, vectors, Combine::Store, deps);
    ready[static_cast<std::size_t>(at(0))] = deps;
    for (std::int64_t x = 1; x < G; ++x) ready[static_cast<std::size_t>(at(x))] = {bcast};
}

// One owner's region summed from several sources (see emit_sums).
struct SumJob {
    std::vector<std::int64_t> sources;  // ranks, in the order their sums land
    std::vector<Deps> src_ready;        // by source: must complete before it sends
    std::int64_t owner = 0;
    Deps owner_ready;                   // must be written before the first sum lands
    std::vector<std::int64_t> src_first;  // by source: where its copy of the region starts (empty: at `first`)
    std::int64_t first = 0;             // region: vector slots
    std::int64_t vectors = 0;
    std::int64_t cuts = 1;              // sub-chunks
    bool store_first = false;           // the first source stores (the owner's region holds nothing yet)
    Deps last;                          // out: the last sum of each sub-chunk
};

// Sums each job's region of every source into the same region of its owner. The region is cut into
// min(cuts, vectors) sub-chunks, each summed by the sources one after another, ordered `after` the previous sum (a
// Reduce reads its operands at issue, so sums into one slot must not overlap; ordering them without waiting lets
// the next one travel while the last lands). Sub-chunk i takes the sources in the given order rotated by i, so that
// different sources feed different sub-chunks at once. Transfers are emitted round by round across all jobs, so
// that list scheduling advances every owner's chains together instead of finishing one owner before the next.
void emit_sums(Builder& b, std::vector<SumJob>& jobs) {
    std::vector<std::vector<Deps>> chains(jobs.size());
    std::int64_t rounds = 0;
    for (std::size_t x = 0; x < jobs.size(); ++x) {
        const SumJob& j = jobs[x];
        chains[x].assign(static_cast<std::size_t>(std::min(j.cuts, j.vectors)), j.owner_ready);
        rounds = std::max(rounds, static_cast<std::int64_t>(j.sources.size()));
    }
    for (std::int64_t k = 0; k < rounds; ++k) {
        for (std::size_t x = 0; x < jobs.size(); ++x) {
            const SumJob& j = jobs[x];
            const auto S = static_cast<std::int64_t>(j.sources.size());
            if (k >= S) continue;
            const auto q = static_cast<std::int64_t>(chains[x].size());
            for (std::int64_t i = 0; i < q; ++i) {
                const auto src = static_cast<std::size_t>((i + k) % S);
                const std::int64_t lo = i * j.vectors / q;
                const std::int64_t hi = (i + 1) * j.vectors / q;
                auto& last = chains[x][static_cast<std::size_t>(i)];
                const std::int64_t from = (j.src_first.empty() ? j.first : j.src_first[src]) + lo;
                const Combine how = j.store_first && k == 0 ? Combine::Store : Combine::Sum;
                last = {b.add(j.sources[src], {j.owner}, from, j.first + lo, hi - lo, how, j.src_ready[src], -1,
                              last)};
            }
        }
    }
    for (std::size_t x = 0; x < jobs.size(); ++x)
        for (const Deps& d : chains[x]) merge_into(jobs[x].last, d);
}

// Members grouped by node, and the links joining every two member nodes (both ends members): what the direct
// collectives route over. Errors (nodes with different numbers of members, a node pair without a link) go to
// `errors` under `pointer`, naming `what`.
struct NodeLinks {
    std::int64_t M = 0;  // member nodes
    std::int64_t T = 0;  // members per node
    std::int64_t K = 1;  // links used per node pair: the fewest any pair has, lowered until it divides T
    std::vector<std::vector<std::int64_t>> nodes;  // node index -> ranks, ascending
    std::vector<std::int64_t> node_of, index_in_node;  // by rank
    std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> links;  // (a < b) -> (end in a, end in b)

    // Rank in node a at its end of link l (0..K-1) to node b.
    std::int64_t holder(std::int64_t a, std::int64_t b, std::int64_t l) const {
        const auto& e = links[static_cast<std::size_t>(std::min(a, b) * M + std::max(a, b))][static_cast<std::size_t>(l)];
        return a < b ? e.first : e.second;
    }
};

std::optional<NodeLinks> node_links(const std::vector<topo::VertexId>& m, const topo::FrozenTopology& t,
                                    const char* what, const std::string& pointer, config::Errors& errors) {
    NodeLinks nl;
    const auto n = static_cast<std::int64_t>(m.size());
    auto node_name = [&](std::int64_t r) { return t.vertex(m[static_cast<std::size_t>(r)]).node; };
    std::map<topo::VertexId, std::int64_t> rank_of;
    for (std::int64_t r = 0; r < n; ++r) rank_of[m[static_cast<std::size_t>(r)]] = r;
    std::map<std::int32_t, std::vector<std::int64_t>> by_node;
    for (std::int64_t r = 0; r < n; ++r) by_node[node_name(r)].push_back(r);
    for (const auto& [node, ranks] : by_node) nl.nodes.push_back(ranks);
    nl.M = static_cast<std::int64_t>(nl.nodes.size());
    nl.T = static_cast<std::int64_t>(nl.nodes.front().size());
    for (const auto& g : nl.nodes)
        if (static_cast<std::int64_t>(g.size()) != nl.T) {
            errors.add(config::child_pointer(pointer, "tsps"),
                       fmt::format("{} needs the same number of members in every node: node {} has {}, node {} has {}",
                                   what, node_name(nl.nodes.front()[0]), nl.T, node_name(g[0]), g.size()));
            return std::nullopt;
        }
    nl.node_of.resize(static_cast<std::size_t>(n));
    nl.index_in_node.resize(static_cast<std::size_t>(n));
    for (std::int64_t a = 0; a < nl.M; ++a)
        for (std::int64_t j = 0; j < nl.T; ++j) {
            const auto r = static_cast<std::size_t>(nl.nodes[static_cast<std::size_t>(a)][static_cast<std::size_t>(j)]);
            nl.node_of[r] = a;
            nl.index_in_node[r] = j;
        }
    nl.links.resize(static_cast<std::size_t>(nl.M * nl.M));
    for (std::int64_t r = 0; r < n; ++r) {
        for (topo::ChannelId c : t.out_channels(m[static_cast<std::size_t>(r)])) {
            const auto it = rank_of.find(t.channel(c).dst);
            if (it == rank_of.end()) continue;
            const std::int64_t a = nl.node_of[static_cast<std::size_t>(r)];
            const std::int64_t b = nl.node_of[static_cast<std::size_t>(it->second)];
            if (a < b) nl.links[static_cast<std::size_t>(a * nl.M + b)].emplace_back(r, it->second);
        }
    }
    nl.K = nl.T;
    for (std::int64_t a = 0; a < nl.M; ++a)
        for (std::int64_t b = a + 1; b < nl.M; ++b) {
            const auto k = static_cast<std::int64_t>(nl.links[static_cast<std::size_t>(a * nl.M + b)].size());
            if (k == 0) {
                errors.add(config::child_pointer(pointer, "algorithm"),
                           fmt::format("{} needs a link between every two member nodes: nodes {} and {} have none",
                                       what, node_name(nl.nodes[static_cast<std::size_t>(a)][0]),
                                       node_name(nl.nodes[static_cast<std::size_t>(b)][0])));
                return std::nullopt;
            }
            nl.K = std::min(nl.K, k);
        }
    if (nl.M == 1) nl.K = 1;
    while (nl.T % nl.K != 0) --nl.K;  // each link carries whole pieces
    return nl;
}

// All-to-all over whole nodes joined pairwise by links ("direct"): a block between TSPs of one node goes straight
// there; a block from (a, i) to (b, j) is relayed (i) to the TSP of node a holding link j mod K to node b, (ii) across
// that link, (iii) to j, each a one-link transfer stored in the relays' working space (blocks of a relay's own or for
// itself skip a step). Every transfer crosses one link, so no block takes a path through a third node and the
// in-node links carry each block at most twice. `scratch` is set to the slots used after the output.
void direct_all_to_all(Builder& b, const std::vector<topo::VertexId>& m, const topo::FrozenTopology& t,
                       std::int64_t B, std::int64_t out_address, std::int64_t& scratch, std::string& levels,
                       const std::string& pointer, config::Errors& errors) {
    const std::optional<NodeLinks> nl = node_links(m, t, "direct all-to-all", pointer, errors);
    if (!nl) return;
    const auto N = static_cast<std::int64_t>(m.size());
    const std::int64_t M = nl->M;
    const std::int64_t T = nl->T;
    const std::int64_t SA = 2 * N * B;          // relay (i): slot of block (dst rank d, source index i)
    const std::int64_t SB = SA + N * T * B;     // relay (iii): slot of block (src rank r, dst index j)
    scratch = M > 1 ? 2 * N * T * B : 0;
    auto rank = [&](std::int64_t a, std::int64_t i) { return nl->nodes[static_cast<std::size_t>(a)][static_cast<std::size_t>(i)]; };
    for (std::int64_t a = 0; a < M; ++a)  // inside nodes: small, first
        for (std::int64_t i = 0; i < T; ++i)
            for (std::int64_t s = 1; s < T; ++s) {
                const std::int64_t r = rank(a, i);
                const std::int64_t d = rank(a, (i + s) % T);
                b.add(r, {d}, d * B, r * B, B, Combine::Store, {}, out_address);
            }
    // Across nodes in T x T rounds; round (p, w) moves block (i, j) = ((p + w) mod T, w) between every two nodes, so
    // that consecutive rounds change both the source and the destination index: the relays' in-node links (source
    // to holder, far holder to destination) get work evenly over the run instead of one destination at the end.
    for (std::int64_t p = 0; p < T; ++p)
        for (std::int64_t w = 0; w < T; ++w)
            for (std::int64_t s = 1; s < M; ++s)
                for (std::int64_t a = 0; a < M; ++a) {
                    const std::int64_t i = (p + w) % T;
                    const std::int64_t j = w;
                    const std::int64_t bn = (a + s) % M;
                    const std::int64_t l = j % nl->K;
                    const std::int64_t r = rank(a, i);
                    const std::int64_t d = rank(bn, j);
                    const std::int64_t u = nl->holder(a, bn, l);
                    const std::int64_t q = nl->holder(bn, a, l);
                    std::int64_t from = d * B;
                    Deps deps;
                    if (u != r) {
                        from = SA + (d * T + i) * B;
                        deps = {b.add(r, {u}, d * B, from, B, Combine::Store, {})};
                    }
                    if (q == d) {
                        b.add(u, {q}, from, r * B, B, Combine::Store, deps, out_address);
                    } else {
                        const std::int64_t at = SB + (r * T + j) * B;
                        const TransferId across = b.add(u, {q}, from, at, B, Combine::Store, deps);
                        b.add(q, {d}, at, r * B, B, Combine::Store, {across}, out_address);
                    }
                }
    levels = fmt::format("direct: {} x {} node{} ({} link{} per pair)", T, M, M > 1 ? "s" : "", nl->K,
                         nl->K > 1 ? "s" : "");
}

// All-reduce over whole nodes joined pairwise by links ("direct"). The buffer holds one share of S = T x P vectors
// per member node (T members per node, P a piece); share b is what node b reduces, piece j of it what member j of
// node b owns. Link l between nodes a and b (K links used per pair, K dividing T) carries pieces
// [l T/K, (l+1) T/K) of both nodes' shares; its end in a is the holder of those pieces of share b.
//  1. Inside every node, stage by stage (own pieces first, then the holders' shares one at a time, so that shares
//     finish early and the next steps overlap the rest): each owner's region is summed from its T-1 node mates.
//  2. Every holder sends its node's sum of the pieces it holds over its link to the holder at the far end, which
//     adds up what its links bring in a scratch copy of its own node's share (S vectors after the buffer), and its
//     own piece straight in place; then each holder sends each scratch piece to the piece's owner in its node.
//     Sums into one place are chained in `pieces` rotated sub-chunks, in the order the sources finish step 1.
//  3. Every owner fans its piece out to its node mates, every holder sends the pieces it holds of its own node's
//     share back over its links, and the holder at the far end fans them out to its node mates.
// Every transfer crosses one link, so nodes exchange shares on their global links while their in-node links are
// still busy with step 1; sums are chained by `after`, so no step waits for a network latency per contribution.
// `scratch` is set to the slots used after the buffer.
void direct_all_reduce(Builder& b, const std::vector<topo::VertexId>& m, const topo::FrozenTopology& t,
                       std::int64_t V, std::int64_t pieces, std::int64_t& region, std::int64_t& scratch,
                       std::string& levels,
                       const std::string& pointer, config::Errors& errors) {
    const std::optional<NodeLinks> nl = node_links(m, t, "direct all-reduce", pointer, errors);
    if (!nl) return;
    const auto n = static_cast<std::int64_t>(m.size());
    const std::int64_t M = nl->M;
    const std::int64_t T = nl->T;
    const std::int64_t K = nl->K;
    const auto& nodes = nl->nodes;
    const auto& node_of = nl->node_of;
    const auto& index_in_node = nl->index_in_node;
    auto holder = [&](std::int64_t a, std::int64_t bn, std::int64_t l) { return nl->holder(a, bn, l); };
    const std::int64_t P = ceil_div(V, M * T);
    const std::int64_t S = T * P;
    region = M * S;
    scratch = M > 1 ? S : 0;
    auto piece_slot = [&](std::int64_t bn, std::int64_t j) { return bn * S + j * P; };
    const std::int64_t per_link = T / K;  // pieces per link

    // 1. In-node reduction, stage by stage. Regions owned: (owner rank, share node, link or -1 for own piece).
    struct Owned {
        std::int64_t share = 0;
        std::int64_t link = -1;
    };
    std::vector<std::vector<Owned>> owned(static_cast<std::size_t>(n));
    for (std::int64_t r = 0; r < n; ++r) owned[static_cast<std::size_t>(r)].push_back({node_of[static_cast<std::size_t>(r)], -1});
    for (std::int64_t a = 0; a < M; ++a)
        for (std::int64_t bn = 0; bn < M; ++bn)
            if (bn != a)
                for (std::int64_t l = 0; l < K; ++l) owned[static_cast<std::size_t>(holder(a, bn, l))].push_back({bn, l});
    std::size_t stages = 0;
    for (const auto& o : owned) stages = std::max(stages, o.size());
    // done[r][share * K + l] (own piece: share * K + K... kept apart): last sums of each owned region.
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, Deps> done;  // (rank, share, link) -> last sums
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::size_t> stage_of;
    const std::vector<Deps> none(static_cast<std::size_t>(T));
    std::vector<std::pair<TransferId, TransferId>> stage_ids(stages);  // stage -> [first, end) of its transfers
    for (std::size_t st = 0; st < stages; ++st) {
        stage_ids[st].first = b.next_id();
        std::vector<SumJob> jobs;
        std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>> keys;
        for (std::int64_t a = 0; a < M; ++a) {
            const auto& g = nodes[static_cast<std::size_t>(a)];
            for (std::int64_t o = 0; o < T; ++o) {
                const std::int64_t owner = g[static_cast<std::size_t>(o)];
                const auto& list = owned[static_cast<std::size_t>(owner)];
                if (st >= list.size()) continue;
                const Owned& w = list[st];
                std::vector<std::int64_t> sources;
                for (std::int64_t x = 1; x < T; ++x) sources.push_back(g[static_cast<std::size_t>((o + x) % T)]);
                const std::int64_t first = w.link < 0 ? piece_slot(w.share, o) : piece_slot(w.share, w.link * per_link);
                const std::int64_t count = w.link < 0 ? P : per_link * P;
                SumJob job;
                job.src_ready.resize(sources.size());
                job.sources = std::move(sources);
                job.owner = owner;
                job.first = first;
                job.vectors = count;
                job.cuts = T - 1;
                jobs.push_back(std::move(job));
                keys.emplace_back(owner, w.share, w.link);
                stage_of[{owner, w.share, w.link}] = st;
            }
        }
        emit_sums(b, jobs);
        stage_ids[st].second = b.next_id();
        for (std::size_t x = 0; x < jobs.size(); ++x) done[keys[x]] = std::move(jobs[x].last);
    }
    // 2. Across nodes. (a) Into the far holder: piece slots of its own index in place, the others into scratch.
    std::vector<SumJob> jobs;
    std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> scratch_job;  // (holder, piece) -> job
    std::vector<std::size_t> direct_job(static_cast<std::size_t>(n), SIZE_MAX);  // owner -> job of its own piece
    auto far_sources = [&](std::int64_t q, std::int64_t j) {
        // Holders in other nodes whose link l(j) ends at q, in the order they finish step 1, rotated by j.
        const std::int64_t bn = node_of[static_cast<std::size_t>(q)];
        const std::int64_t l = j / per_link;
        std::vector<std::tuple<std::size_t, std::int64_t, std::int64_t>> order;  // (stage, node, holder)
        for (std::int64_t a = 0; a < M; ++a)
            if (a != bn && holder(bn, a, l) == q) {
                const std::int64_t u = holder(a, bn, l);
                order.emplace_back(stage_of[{u, bn, l}], a, u);
            }
        std::sort(order.begin(), order.end());
        if (!order.empty())
            std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(j) % order.size()),
                        order.end());
        return order;
    };
    for (std::int64_t bn = 0; bn < M && M > 1; ++bn) {
        for (std::int64_t q : nodes[static_cast<std::size_t>(bn)]) {
            const std::int64_t jq = index_in_node[static_cast<std::size_t>(q)];
            for (std::int64_t j = 0; j < T; ++j) {
                SumJob job;
                for (const auto& [st, a, u] : far_sources(q, j)) {
                    job.sources.push_back(u);
                    job.src_ready.push_back(done[{u, bn, j / per_link}]);
                    job.src_first.push_back(piece_slot(bn, j));
                }
                if (job.sources.empty()) continue;
                job.owner = q;
                job.vectors = P;
                job.cuts = pieces;
                if (j == jq) {
                    job.first = piece_slot(bn, j);
                    job.owner_ready = done[{q, bn, -1}];
                    direct_job[static_cast<std::size_t>(q)] = jobs.size();
                } else {
                    job.first = region + j * P;
                    job.store_first = true;
                    scratch_job[{q, j}] = jobs.size();
                }
                jobs.push_back(std::move(job));
            }
        }
    }
    emit_sums(b, jobs);
    // (b) Scratch pieces to their owners, after what the owner's own links brought.
    std::vector<SumJob> to_owner;
    for (std::int64_t bn = 0; bn < M; ++bn) {
        const auto& g = nodes[static_cast<std::size_t>(bn)];
        for (std::int64_t j = 0; j < T; ++j) {
            const std::int64_t owner = g[static_cast<std::size_t>(j)];
            SumJob job;
            job.owner = owner;
            job.first = piece_slot(bn, j);
            job.vectors = P;
            job.cuts = pieces;
            const std::size_t d = direct_job[static_cast<std::size_t>(owner)];
            job.owner_ready = d == SIZE_MAX ? done[{owner, bn, -1}] : jobs[d].last;
            job.last = job.owner_ready;  // nothing to add (one node): the in-node sum is final
            for (std::int64_t x = 1; x < T; ++x) {
                const std::int64_t q = g[static_cast<std::size_t>((j + x) % T)];
                const auto it = scratch_job.find({q, j});
                if (it == scratch_job.end()) continue;
                job.sources.push_back(q);
                job.src_ready.push_back(jobs[it->second].last);
                job.src_first.push_back(region + j * P);
            }
            to_owner.push_back(std::move(job));
        }
    }
    emit_sums(b, to_owner);
    std::vector<Deps> final_piece(static_cast<std::size_t>(n));
    for (const SumJob& job : to_owner) final_piece[static_cast<std::size_t>(job.owner)] = job.last;
    // 3. Back out, piece by piece (so that a piece that is ready moves on without waiting for its share): to the
    // owner's node mates, over the links from the holders, then to the far holders' node mates.
    std::vector<Deps> piece_in(static_cast<std::size_t>(n * T));  // (rank, piece of its node's share) -> writers
    std::vector<TransferId> fan_out(static_cast<std::size_t>(n));  // owner -> fan-out of its final piece
    for (std::int64_t bn = 0; bn < M; ++bn) {
        const auto& g = nodes[static_cast<std::size_t>(bn)];
        for (std::int64_t j = 0; j < T; ++j) {
            const std::int64_t owner = g[static_cast<std::size_t>(j)];
            std::vector<std::int64_t> dsts;
            for (std::int64_t x : g)
                if (x != owner) dsts.push_back(x);
            const Deps& dep = final_piece[static_cast<std::size_t>(owner)];
            const TransferId id = b.add(owner, dsts, piece_slot(bn, j), piece_slot(bn, j), P, Combine::Store, dep);
            fan_out[static_cast<std::size_t>(owner)] = id;
            for (std::int64_t x : dsts) piece_in[static_cast<std::size_t>(x * T + j)] = {id};
            piece_in[static_cast<std::size_t>(owner * T + j)] = dep;
        }
    }
    for (std::int64_t bn = 0; bn < M; ++bn) {
        for (std::int64_t q : nodes[static_cast<std::size_t>(bn)]) {
            for (std::int64_t l = 0; l < K; ++l) {
                std::vector<std::int64_t> far;  // far ends of q's links l
                for (std::int64_t a = 0; a < M; ++a)
                    if (a != bn && holder(bn, a, l) == q) far.push_back(holder(a, bn, l));
                if (far.empty()) continue;
                std::sort(far.begin(), far.end());
                for (std::int64_t j = l * per_link; j < (l + 1) * per_link; ++j) {
                    const std::int64_t first = piece_slot(bn, j);
                    // One transfer per link and per mate, not one multicast: a multicast train needs all its
                    // links free at once, and a holder's links to other nodes are still carrying step 2 of
                    // later shares when the first results are ready (0.867 instead of 0.887 on 264 TSPs).
                    for (std::int64_t u : far) {
                        const TransferId id = b.add(q, {u}, first, first, P, Combine::Store,
                                                    piece_in[static_cast<std::size_t>(q * T + j)]);
                        std::vector<std::int64_t> mates;
                        for (std::int64_t x : nodes[static_cast<std::size_t>(node_of[static_cast<std::size_t>(u)])])
                            if (x != u) mates.push_back(x);
                        for (std::int64_t x : mates) b.add(u, {x}, first, first, P, Combine::Store, {id});
                    }
                }
            }
        }
    }
    // List scheduling places transfers in order of readiness, so step 1 (all ready at once) would book every
    // in-node link until its last stage, and a node whose share is complete early could hand its result pieces
    // to their owners and back over its links only after that: every link then idles waiting for the first
    // results (efficiency 0.83 on 264 TSPs). So a node's stages from 3 after the stage that completes its share
    // everywhere (its contributions have crossed by then) wait for each source's fan-out of its final piece,
    // which lets the node's own steps 2 and 3 go first. Waiting from stage +2 stalls links before those steps
    // are ready (0.85); the stages waiting belong to stages later than those the share depends on, so nothing
    // waits in a cycle.
    if (M > 1) {
        // Stage after which node a's share is complete everywhere.
        std::vector<std::size_t> share_done(static_cast<std::size_t>(M), 0);
        for (std::int64_t a = 0; a < M; ++a)
            for (std::int64_t x = 0; x < M; ++x)
                if (x != a)
                    for (std::int64_t l = 0; l < K; ++l) {
                        auto& sd = share_done[static_cast<std::size_t>(a)];
                        sd = std::max(sd, stage_of[{holder(x, a, l), a, l}]);
                    }
        std::map<topo::VertexId, std::int64_t> rank_of;
        for (std::int64_t r = 0; r < n; ++r) rank_of[m[static_cast<std::size_t>(r)]] = r;
        for (std::size_t st = 0; st < stages; ++st)
            for (TransferId id = stage_ids[st].first; id < stage_ids[st].second; ++id) {
                const std::int64_t src = rank_of[b.src_of(id)];
                if (st >= share_done[static_cast<std::size_t>(node_of[static_cast<std::size_t>(src)])] + 3)
                    b.add_pacing(id, {fan_out[static_cast<std::size_t>(src)]});
            }
    }
    levels = fmt::format("direct: {} x {} node{} ({} link{} per pair)", T, M, M > 1 ? "s" : "", K, K > 1 ? "s" : "");
    if (M == 1) levels = fmt::format("direct: node {}", T);
}

std::vector<topo::VertexId> members_of(const CollectiveConfig& c, const topo::FrozenTopology& t,
                                       const std::string& pointer, config::Errors& errors) {
    std::vector<topo::VertexId> m;
    if (c.tsps.empty()) {
        for (topo::VertexId v = 0; v < t.num_vertices(); ++v)
            if (!t.vertex(v).spare && t.vertex(v).terminals > 0) m.push_back(v);
    } else {
        const std::string at = config::child_pointer(pointer, "tsps");
        for (std::size_t i = 0; i < c.tsps.size(); ++i) {
            const std::int64_t v = c.tsps[i];
            if (v < 0 || v >= t.num_vertices()) {
                errors.add(config::child_pointer(at, i),
                           fmt::format("TSP {} is not in the topology (0..{})", v, t.num_vertices() - 1));
                continue;
            }
            const topo::VertexInfo& info = t.vertex(static_cast<topo::VertexId>(v));
            if (info.spare || info.terminals <= 0) {
                errors.add(config::child_pointer(at, i),
                           fmt::format("TSP {} ({}) is a spare: collectives run over compute TSPs", v,
                                       t.vertex_name(static_cast<topo::VertexId>(v))));
                continue;
            }
            if (std::find(m.begin(), m.end(), static_cast<topo::VertexId>(v)) != m.end()) {
                errors.add(config::child_pointer(at, i), fmt::format("TSP {} repeated", v));
                continue;
            }
            m.push_back(static_cast<topo::VertexId>(v));
        }
        std::sort(m.begin(), m.end());
    }
    if (errors.empty() && m.size() < 2)
        errors.add(config::child_pointer(pointer, "tsps"),
                   fmt::format("a collective needs at least 2 TSPs, got {}", m.size()));
    return m;
}

// The levels of a hierarchical all-reduce: groups of ranks sharing a shard at each level (node, then the same
// position in the other nodes of the rack, then the same position in the other racks), levels of one member left
// out. Nodes must hold equally many members, and racks equally many such nodes, so that shards line up.
std::vector<std::pair<std::string, std::vector<std::vector<std::int64_t>>>> hierarchy(
    const std::vector<topo::VertexId>& m, const topo::FrozenTopology& t, const std::string& pointer,
    config::Errors& errors) {
    const auto n = static_cast<std::int64_t>(m.size());
    std::map<std::int32_t, std::vector<std::int64_t>> by_node;
    for (std::int64_t r = 0; r < n; ++r) by_node[t.vertex(m[static_cast<std::size_t>(r)]).node].push_back(r);
    std::vector<std::int64_t> index(static_cast<std::size_t>(n)), node_rank(static_cast<std::size_t>(n));
    std::map<std::int32_t, std::vector<std::int32_t>> nodes_of_rack;
    std::size_t per_node = by_node.begin()->second.size();
    for (const auto& [node, ranks] : by_node) {
        if (ranks.size() != per_node)
            errors.add(config::child_pointer(pointer, "tsps"),
                       fmt::format("hierarchical all-reduce needs the same number of members in every node: node {} "
                                   "has {}, node {} has {}",
                                   by_node.begin()->first, per_node, node, ranks.size()));
        for (std::size_t i = 0; i < ranks.size(); ++i) index[static_cast<std::size_t>(ranks[i])] = static_cast<std::int64_t>(i);
        nodes_of_rack[t.vertex(m[static_cast<std::size_t>(ranks[0])]).rack].push_back(node);
    }
    const std::size_t per_rack = nodes_of_rack.begin()->second.size();
    std::map<std::int32_t, std::int64_t> rack_rank;
    for (const auto& [rack, nodes] : nodes_of_rack) {
        if (nodes.size() != per_rack)
            errors.add(config::child_pointer(pointer, "tsps"),
                       fmt::format("hierarchical all-reduce needs the same number of member nodes in every rack: "
                                   "rack {} has {}, rack {} has {}",
                                   nodes_of_rack.begin()->first, per_rack, rack, nodes.size()));
        for (std::size_t i = 0; i < nodes.size(); ++i)
            for (std::int64_t r : by_node[nodes[i]]) node_rank[static_cast<std::size_t>(r)] = static_cast<std::int64_t>(i);
        rack_rank.emplace(rack, static_cast<std::int64_t>(rack_rank.size()));
    }
    std::map<std::int64_t, std::vector<std::int64_t>> l1, l2, l3;
    for (std::int64_t r = 0; r < n; ++r) {
        const topo::VertexInfo& info = t.vertex(m[static_cast<std::size_t>(r)]);
        const auto ri = static_cast<std::size_t>(r);
        l1[info.node].push_back(r);
        l2[rack_rank[info.rack] * n + index[ri]].push_back(r);
        l3[index[ri] * n + node_rank[ri]].push_back(r);
    }
    std::vector<std::pair<std::string, std::vector<std::vector<std::int64_t>>>> levels;
    auto push = [&](const char* name, const std::map<std::int64_t, std::vector<std::int64_t>>& groups) {
        if (groups.begin()->second.size() < 2) return;
        std::vector<std::vector<std::int64_t>> gs;
        for (const auto& [key, ranks] : groups) gs.push_back(ranks);
        levels.emplace_back(name, std::move(gs));
    };
    const bool racked = nodes_of_rack.size() > 1 || nodes_of_rack.begin()->first >= 0;
    push("node", l1);
    push(racked ? "rack" : "system", l2);
    if (nodes_of_rack.size() > 1) push("system", l3);
    return levels;
}

}  // namespace

TransferSet make_collective(const CollectiveConfig& c, const topo::FrozenTopology& t, const topo::ChipConfig& chip,
                            const std::string& pointer, Bytes unit_payload) {
    config::Errors errors;
    CollectiveLayout L;
    L.kind = c.kind;
    L.algorithm = c.algorithm;
    L.members = members_of(c, t, pointer, errors);
    errors.throw_if_any();
    const auto N = static_cast<std::int64_t>(L.members.size());
    const std::int64_t vb = unit_payload.count();
    const std::int64_t V = ceil_div(c.bytes.count(), vb);  // the tensor or block, in whole vectors
    L.address = c.address;
    L.bytes_per_tsp = c.bytes;
    const bool rooted =
        c.kind == CollectiveKind::Broadcast || c.kind == CollectiveKind::Gather || c.kind == CollectiveKind::Scatter;
    if (rooted) {
        const auto it = std::find(L.members.begin(), L.members.end(), static_cast<topo::VertexId>(c.root));
        if (it == L.members.end())
            errors.add(config::child_pointer(pointer, "root"), fmt::format("TSP {} is not a member", c.root));
        else
            L.root = it - L.members.begin();
    }
    errors.throw_if_any();

    Builder b(L, vb);
    std::int64_t region = 0;  // vectors of the buffer in every member (the root's for gather, scatter)
    std::int64_t scratch = 0;  // vectors of working space after it
    switch (c.kind) {
        case CollectiveKind::None:
            break;
        case CollectiveKind::Broadcast: {
            L.block = V;
            region = V;
            std::vector<std::int64_t> dsts;
            for (std::int64_t r = 0; r < N; ++r)
                if (r != L.root) dsts.push_back(r);
            b.add(L.root, dsts, 0, 0, V, Combine::Store, {});
            break;
        }
        case CollectiveKind::Gather:
        case CollectiveKind::Scatter: {
            L.block = V;
            region = N * V;
            const bool gather = c.kind == CollectiveKind::Gather;
            for (std::int64_t r = 0; r < N; ++r) {
                if (r == L.root) continue;
                if (gather)
                    b.add(r, {L.root}, r * V, r * V, V, Combine::Store, {});
                else
                    b.add(L.root, {r}, r * V, r * V, V, Combine::Store, {});
            }
            break;
        }
        case CollectiveKind::AllGather: {
            L.block = V;
            region = N * V;
            for (std::int64_t r = 0; r < N; ++r) {
                std::vector<std::int64_t> dsts;
                for (std::int64_t d = 0; d < N; ++d)
                    if (d != r) dsts.push_back(d);
                b.add(r, dsts, r * V, r * V, V, Combine::Store, {});
            }
            break;
        }
        case CollectiveKind::AllToAll: {
            // Phased by shift: in phase s every member sends to the member s ranks on, so that each phase is a
            // permutation and no TSP is the target of everyone at once.
            L.block = ceil_div(V, N);
            region = N * L.block;
            L.out_address = c.address + region * vb;
            if (c.algorithm == CollectiveAlgorithm::Direct) {
                direct_all_to_all(b, L.members, t, L.block, L.out_address, scratch, L.levels, pointer, errors);
                errors.throw_if_any();
                break;
            }
            for (std::int64_t s = 1; s < N; ++s)
                for (std::int64_t r = 0; r < N; ++r) {
                    const std::int64_t d = (r + s) % N;
                    b.add(r, {d}, d * L.block, r * L.block, L.block, Combine::Store, {}, L.out_address);
                }
            break;
        }
        case CollectiveKind::ReduceScatter: {
            L.block = ceil_div(V, N);
            region = N * L.block;
            L.vectors = region;
            std::vector<std::int64_t> g(static_cast<std::size_t>(N));
            for (std::int64_t r = 0; r < N; ++r) g[static_cast<std::size_t>(r)] = r;
            std::vector<Deps> ready(static_cast<std::size_t>(N));
            reduce_scatter_group(b, g, 0, L.block, c.pieces, ready);
            break;
        }
        case CollectiveKind::AllReduce: {
            if (c.algorithm == CollectiveAlgorithm::Ring) {
                const std::int64_t chunk = ceil_div(V, N);
                region = N * chunk;
                L.vectors = region;
                L.block = chunk;
                auto mod = [N](std::int64_t x) { return ((x % N) + N) % N; };
                std::vector<TransferId> prev(static_cast<std::size_t>(N));
                std::vector<TransferId> cur(static_cast<std::size_t>(N));
                for (std::int64_t s = 0; s < N - 1; ++s) {  // reduce-scatter
                    for (std::int64_t r = 0; r < N; ++r) {
                        const std::int64_t slot = mod(r - s) * chunk;
                        Deps deps;
                        if (s > 0) deps.push_back(prev[static_cast<std::size_t>(mod(r - 1))]);
                        cur[static_cast<std::size_t>(r)] =
                            b.add(r, {mod(r + 1)}, slot, slot, chunk, Combine::Sum, deps);
                    }
                    std::swap(prev, cur);
                }
                for (std::int64_t s = 0; s < N - 1; ++s) {  // all-gather
                    for (std::int64_t r = 0; r < N; ++r) {
                        const std::int64_t slot = mod(r + 1 - s) * chunk;
                        cur[static_cast<std::size_t>(r)] = b.add(r, {mod(r + 1)}, slot, slot, chunk, Combine::Store,
                                                                 {prev[static_cast<std::size_t>(mod(r - 1))]});
                    }
                    std::swap(prev, cur);
                }
                L.levels = fmt::format("ring {}", N);
                break;
            }
            if (c.algorithm == CollectiveAlgorithm::Direct) {
                direct_all_reduce(b, L.members, t, V, c.pieces, region, scratch, L.levels, pointer, errors);
                errors.throw_if_any();
                L.vectors = region;
                L.block = ceil_div(V, N);
                break;
            }
            auto levels = hierarchy(L.members, t, pointer, errors);
            errors.throw_if_any();
            // Top-down: a level whose share is at least its group size is reduce-scattered; the first one that is
            // not (and every level under it) is all-reduced by a tree over every member holding that share.
            std::int64_t share = V;
            std::size_t scatter_levels = 0;
            for (const auto& level : levels) {
                const auto G = static_cast<std::int64_t>(level.second.front().size());
                if (share < G) break;
                share = ceil_div(share, G);
                ++scatter_levels;
            }
            // Bottom-up: whole chunks at every level (the padding).
            std::vector<std::int64_t> chunk(scatter_levels + 1);
            chunk[scatter_levels] = share;
            for (std::size_t l = scatter_levels; l-- > 0;)
                chunk[l] = static_cast<std::int64_t>(levels[l].second.front().size()) * chunk[l + 1];
            region = chunk[0];
            L.vectors = region;
            L.block = share;
            std::vector<std::int64_t> offset(static_cast<std::size_t>(N), 0);  // each member's region, by level
            std::vector<std::vector<std::int64_t>> offsets;                    // before each scatter level
            std::vector<Deps> ready(static_cast<std::size_t>(N));
            std::vector<std::int64_t> position(static_cast<std::size_t>(N), 0);  // tree key: ranks at levels
            for (std::size_t l = 0; l < scatter_levels; ++l) {
                offsets.push_back(offset);
                for (const auto& g : levels[l].second) {
                    reduce_scatter_group(b, g, offset[static_cast<std::size_t>(g[0])], chunk[l + 1], c.pieces, ready);
                    for (std::size_t i = 0; i < g.size(); ++i) {
                        offset[static_cast<std::size_t>(g[i])] += static_cast<std::int64_t>(i) * chunk[l + 1];
                        position[static_cast<std::size_t>(g[i])] =
                            position[static_cast<std::size_t>(g[i])] * N + static_cast<std::int64_t>(i);
                    }
                }
            }
            std::string tree;
            if (scatter_levels < levels.size()) {
                std::map<std::int64_t, std::vector<std::int64_t>> groups;
                for (std::int64_t r = 0; r < N; ++r) groups[position[static_cast<std::size_t>(r)]].push_back(r);
                std::int64_t k = 0;
                for (const auto& [key, g] : groups) {
                    const auto G = static_cast<std::int64_t>(g.size());
                    tree_all_reduce_group(b, g, k++ % G, offset[static_cast<std::size_t>(g[0])], share, ready);
                    tree = fmt::format(" x tree {}", G);
                }
            }
            for (std::size_t l = scatter_levels; l-- > 0;) {
                for (const auto& g : levels[l].second)
                    all_gather_group(b, g, offsets[l][static_cast<std::size_t>(g[0])], chunk[l + 1], ready);
            }
            for (std::size_t l = 0; l < scatter_levels; ++l)
                L.levels += fmt::format("{}{} {}", l > 0 ? " x " : "", levels[l].first, levels[l].second.front().size());
            L.levels += scatter_levels > 0 ? tree : tree.substr(3);
            break;
        }
    }
    L.padding_bytes = Bytes(std::max(region, V) * vb - c.bytes.count());
    if (c.kind == CollectiveKind::AllGather || c.kind == CollectiveKind::Gather || c.kind == CollectiveKind::Scatter ||
        c.kind == CollectiveKind::Broadcast)
        L.padding_bytes = Bytes(V * vb - c.bytes.count());
    const std::int64_t end = c.address + region * vb * (c.kind == CollectiveKind::AllToAll ? 2 : 1) + scratch * vb;
    if (end > chip.memory.count())
        errors.add(config::child_pointer(pointer, "bytes"),
                   fmt::format("{} per TSP over {} TSPs needs {} of memory from offset {}, beyond the TSP's {}",
                               to_string(c.bytes), N, to_string(Bytes(end - c.address)), c.address,
                               to_string(chip.memory)));
    errors.throw_if_any();

    TransferSet s;
    s.transfers = b.take();
    L.transfers = static_cast<std::int64_t>(s.transfers.size());
    s.collective = std::move(L);
    return s;
}

CollectiveMemory collective_memory(const CollectiveLayout& L, Bytes unit_payload) {
    CollectiveMemory m;
    const std::int64_t vb = unit_payload.count();
    const auto N = static_cast<std::int64_t>(L.members.size());
    auto member = [&](std::int64_t r) { return L.members[static_cast<std::size_t>(r)]; };
    auto values = [&](std::int64_t r, std::int64_t first, std::int64_t count) {
        std::vector<std::int64_t> v(static_cast<std::size_t>(count));
        for (std::int64_t k = 0; k < count; ++k) v[static_cast<std::size_t>(k)] = collective_value(member(r), first + k);
        return v;
    };
    auto sums = [&](std::int64_t first, std::int64_t count) {
        std::int64_t base = 0;
        for (std::int64_t r = 0; r < N; ++r) base += collective_value(member(r), 0);
        std::vector<std::int64_t> v(static_cast<std::size_t>(count));
        for (std::int64_t k = 0; k < count; ++k) v[static_cast<std::size_t>(k)] = base + N * (first + k);
        return v;
    };
    auto at = [&](std::int64_t slot) { return L.address + slot * vb; };
    switch (L.kind) {
        case CollectiveKind::None:
            break;
        case CollectiveKind::AllReduce:
            for (std::int64_t r = 0; r < N; ++r) {
                m.initial.push_back({member(r), at(0), values(r, 0, L.vectors)});
                m.expected.push_back({member(r), at(0), sums(0, L.vectors)});
            }
            break;
        case CollectiveKind::ReduceScatter:
            for (std::int64_t r = 0; r < N; ++r) {
                m.initial.push_back({member(r), at(0), values(r, 0, L.vectors)});
                m.expected.push_back({member(r), at(r * L.block), sums(r * L.block, L.block)});
            }
            break;
        case CollectiveKind::AllGather:
            for (std::int64_t r = 0; r < N; ++r) {
                m.initial.push_back({member(r), at(r * L.block), values(r, r * L.block, L.block)});
                for (std::int64_t o = 0; o < N; ++o)
                    m.expected.push_back({member(r), at(o * L.block), values(o, o * L.block, L.block)});
            }
            break;
        case CollectiveKind::AllToAll:
            for (std::int64_t r = 0; r < N; ++r) m.initial.push_back({member(r), at(0), values(r, 0, N * L.block)});
            for (std::int64_t d = 0; d < N; ++d)
                for (std::int64_t r = 0; r < N; ++r)
                    if (r != d)
                        m.expected.push_back(
                            {member(d), L.out_address + r * L.block * vb, values(r, d * L.block, L.block)});
            break;
        case CollectiveKind::Broadcast:
            m.initial.push_back({member(L.root), at(0), values(L.root, 0, L.block)});
            for (std::int64_t r = 0; r < N; ++r)
                if (r != L.root) m.expected.push_back({member(r), at(0), values(L.root, 0, L.block)});
            break;
        case CollectiveKind::Gather:
            for (std::int64_t r = 0; r < N; ++r) {
                m.initial.push_back({member(r), at(r * L.block), values(r, r * L.block, L.block)});
                m.expected.push_back({member(L.root), at(r * L.block), values(r, r * L.block, L.block)});
            }
            break;
        case CollectiveKind::Scatter:
            m.initial.push_back({member(L.root), at(0), values(L.root, 0, N * L.block)});
            for (std::int64_t r = 0; r < N; ++r)
                m.expected.push_back({member(r), at(r * L.block), values(L.root, r * L.block, L.block)});
            break;
    }
    return m;
}

}  // namespace loom::workload
