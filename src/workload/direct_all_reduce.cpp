// all_reduce, "direct": over whole nodes joined pairwise by links, each node's share for another node summed at the
// TSP holding their link and sent across, every transfer crossing one link.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "collective_builder.hpp"
#include "node_links.hpp"

namespace loom::workload::detail {
namespace {

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
            const auto source_count = static_cast<std::int64_t>(j.sources.size());
            if (k >= source_count) continue;
            const auto sub_chunks = static_cast<std::int64_t>(chains[x].size());
            for (std::int64_t i = 0; i < sub_chunks; ++i) {
                const auto src = static_cast<std::size_t>((i + k) % source_count);
                const std::int64_t lo = i * j.vectors / sub_chunks;
                const std::int64_t hi = (i + 1) * j.vectors / sub_chunks;
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

}  // namespace

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
// In the code: S is share_vectors, T per_node, P piece_vectors, K links_per_pair. The scratch copy of a share
// follows the buffer.
void generate_direct_all_reduce(const CollectiveRequest& request, CollectiveLayout& layout, Builder& b,
                                CollectiveBuffers& buffers) {
    const auto& m = layout.members;
    const std::int64_t tensor_vectors = request.tensor_vectors;
    const std::int64_t pieces = request.config.pieces;
    std::int64_t& region = buffers.region;
    std::int64_t& scratch = buffers.scratch;
    std::string& levels = layout.levels;
    const std::optional<NodeLinks> nl =
        node_links(m, request.topology, "direct all-reduce", request.pointer, request.errors);
    if (!nl) return;  // request.errors says why
    const auto n = static_cast<std::int64_t>(m.size());
    const std::int64_t node_count = nl->node_count;
    const std::int64_t per_node = nl->per_node;
    const std::int64_t links_per_pair = nl->links_per_pair;
    const auto& nodes = nl->nodes;
    const auto& node_of = nl->node_of;
    const auto& index_in_node = nl->index_in_node;
    auto holder = [&](std::int64_t a, std::int64_t bn, std::int64_t l) { return nl->holder(a, bn, l); };
    const std::int64_t piece_vectors = ceil_div(tensor_vectors, node_count * per_node);
    const std::int64_t share_vectors = per_node * piece_vectors;
    region = node_count * share_vectors;
    scratch = node_count > 1 ? share_vectors : 0;
    auto piece_slot = [&](std::int64_t bn, std::int64_t j) { return bn * share_vectors + j * piece_vectors; };
    const std::int64_t per_link = per_node / links_per_pair;  // pieces per link

    // 1. In-node reduction, stage by stage. Regions owned: (owner rank, share node, link or -1 for own piece).
    struct Owned {
        std::int64_t share = 0;
        std::int64_t link = -1;
    };
    std::vector<std::vector<Owned>> owned(static_cast<std::size_t>(n));
    for (std::int64_t r = 0; r < n; ++r) owned[static_cast<std::size_t>(r)].push_back({node_of[static_cast<std::size_t>(r)], -1});
    for (std::int64_t a = 0; a < node_count; ++a)
        for (std::int64_t bn = 0; bn < node_count; ++bn)
            if (bn != a)
                for (std::int64_t l = 0; l < links_per_pair; ++l) owned[static_cast<std::size_t>(holder(a, bn, l))].push_back({bn, l});
    std::size_t stages = 0;
    for (const auto& o : owned) stages = std::max(stages, o.size());
    // done[r][share * K + l] (own piece: share * K + K... kept apart): last sums of each owned region.
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, Deps> done;  // (rank, share, link) -> last sums
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::size_t> stage_of;
    const std::vector<Deps> none(static_cast<std::size_t>(per_node));
    std::vector<std::pair<TransferId, TransferId>> stage_ids(stages);  // stage -> [first, end) of its transfers
    for (std::size_t st = 0; st < stages; ++st) {
        stage_ids[st].first = b.next_id();
        std::vector<SumJob> jobs;
        std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>> keys;
        for (std::int64_t a = 0; a < node_count; ++a) {
            const auto& g = nodes[static_cast<std::size_t>(a)];
            for (std::int64_t o = 0; o < per_node; ++o) {
                const std::int64_t owner = g[static_cast<std::size_t>(o)];
                const auto& list = owned[static_cast<std::size_t>(owner)];
                if (st >= list.size()) continue;
                const Owned& w = list[st];
                std::vector<std::int64_t> sources;
                for (std::int64_t x = 1; x < per_node; ++x) sources.push_back(g[static_cast<std::size_t>((o + x) % per_node)]);
                const std::int64_t first = w.link < 0 ? piece_slot(w.share, o) : piece_slot(w.share, w.link * per_link);
                const std::int64_t count = w.link < 0 ? piece_vectors : per_link * piece_vectors;
                SumJob job;
                job.src_ready.resize(sources.size());
                job.sources = std::move(sources);
                job.owner = owner;
                job.first = first;
                job.vectors = count;
                job.cuts = per_node - 1;
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
        for (std::int64_t a = 0; a < node_count; ++a)
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
    for (std::int64_t bn = 0; bn < node_count && node_count > 1; ++bn) {
        for (std::int64_t q : nodes[static_cast<std::size_t>(bn)]) {
            const std::int64_t jq = index_in_node[static_cast<std::size_t>(q)];
            for (std::int64_t j = 0; j < per_node; ++j) {
                SumJob job;
                for (const auto& [st, a, u] : far_sources(q, j)) {
                    job.sources.push_back(u);
                    job.src_ready.push_back(done[{u, bn, j / per_link}]);
                    job.src_first.push_back(piece_slot(bn, j));
                }
                if (job.sources.empty()) continue;
                job.owner = q;
                job.vectors = piece_vectors;
                job.cuts = pieces;
                if (j == jq) {
                    job.first = piece_slot(bn, j);
                    job.owner_ready = done[{q, bn, -1}];
                    direct_job[static_cast<std::size_t>(q)] = jobs.size();
                } else {
                    job.first = region + j * piece_vectors;
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
    for (std::int64_t bn = 0; bn < node_count; ++bn) {
        const auto& g = nodes[static_cast<std::size_t>(bn)];
        for (std::int64_t j = 0; j < per_node; ++j) {
            const std::int64_t owner = g[static_cast<std::size_t>(j)];
            SumJob job;
            job.owner = owner;
            job.first = piece_slot(bn, j);
            job.vectors = piece_vectors;
            job.cuts = pieces;
            const std::size_t d = direct_job[static_cast<std::size_t>(owner)];
            job.owner_ready = d == SIZE_MAX ? done[{owner, bn, -1}] : jobs[d].last;
            job.last = job.owner_ready;  // nothing to add (one node): the in-node sum is final
            for (std::int64_t x = 1; x < per_node; ++x) {
                const std::int64_t q = g[static_cast<std::size_t>((j + x) % per_node)];
                const auto it = scratch_job.find({q, j});
                if (it == scratch_job.end()) continue;
                job.sources.push_back(q);
                job.src_ready.push_back(jobs[it->second].last);
                job.src_first.push_back(region + j * piece_vectors);
            }
            to_owner.push_back(std::move(job));
        }
    }
    emit_sums(b, to_owner);
    std::vector<Deps> final_piece(static_cast<std::size_t>(n));
    for (const SumJob& job : to_owner) final_piece[static_cast<std::size_t>(job.owner)] = job.last;
    // 3. Back out, piece by piece (so that a piece that is ready moves on without waiting for its share): to the
    // owner's node mates, over the links from the holders, then to the far holders' node mates.
    std::vector<Deps> piece_in(static_cast<std::size_t>(n * per_node));  // (rank, piece of its node's share) -> writers
    std::vector<TransferId> fan_out(static_cast<std::size_t>(n));  // owner -> fan-out of its final piece
    for (std::int64_t bn = 0; bn < node_count; ++bn) {
        const auto& g = nodes[static_cast<std::size_t>(bn)];
        for (std::int64_t j = 0; j < per_node; ++j) {
            const std::int64_t owner = g[static_cast<std::size_t>(j)];
            std::vector<std::int64_t> dsts;
            for (std::int64_t x : g)
                if (x != owner) dsts.push_back(x);
            const Deps& dep = final_piece[static_cast<std::size_t>(owner)];
            const TransferId id =
                b.add(owner, dsts, piece_slot(bn, j), piece_slot(bn, j), piece_vectors, Combine::Store, dep);
            fan_out[static_cast<std::size_t>(owner)] = id;
            for (std::int64_t x : dsts) piece_in[static_cast<std::size_t>(x * per_node + j)] = {id};
            piece_in[static_cast<std::size_t>(owner * per_node + j)] = dep;
        }
    }
    for (std::int64_t bn = 0; bn < node_count; ++bn) {
        for (std::int64_t q : nodes[static_cast<std::size_t>(bn)]) {
            for (std::int64_t l = 0; l < links_per_pair; ++l) {
                std::vector<std::int64_t> far;  // far ends of q's links l
                for (std::int64_t a = 0; a < node_count; ++a)
                    if (a != bn && holder(bn, a, l) == q) far.push_back(holder(a, bn, l));
                if (far.empty()) continue;
                std::sort(far.begin(), far.end());
                for (std::int64_t j = l * per_link; j < (l + 1) * per_link; ++j) {
                    const std::int64_t first = piece_slot(bn, j);
                    // One transfer per link and per mate, not one multicast: a multicast train needs all its
                    // links free at once, and a holder's links to other nodes are still carrying step 2 of
                    // later shares when the first results are ready (0.867 instead of 0.887 on 264 TSPs).
                    for (std::int64_t u : far) {
                        const TransferId id = b.add(q, {u}, first, first, piece_vectors, Combine::Store,
                                                    piece_in[static_cast<std::size_t>(q * per_node + j)]);
                        std::vector<std::int64_t> mates;
                        for (std::int64_t x : nodes[static_cast<std::size_t>(node_of[static_cast<std::size_t>(u)])])
                            if (x != u) mates.push_back(x);
                        for (std::int64_t x : mates) b.add(u, {x}, first, first, piece_vectors, Combine::Store, {id});
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
    if (node_count > 1) {
        // Stage after which node a's share is complete everywhere.
        std::vector<std::size_t> share_done(static_cast<std::size_t>(node_count), 0);
        for (std::int64_t a = 0; a < node_count; ++a)
            for (std::int64_t x = 0; x < node_count; ++x)
                if (x != a)
                    for (std::int64_t l = 0; l < links_per_pair; ++l) {
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
    levels = fmt::format("direct: {} x {} node{} ({} link{} per pair)", per_node, node_count,
                         node_count > 1 ? "s" : "", links_per_pair, links_per_pair > 1 ? "s" : "");
    if (node_count == 1) levels = fmt::format("direct: node {}", per_node);
    layout.vectors = region;
    layout.block = ceil_div(tensor_vectors, n);
}

}  // namespace loom::workload::detail
