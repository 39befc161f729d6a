#include "loom/topo/paths.hpp"

#include <algorithm>
#include <bit>
#include <span>
#include <tuple>

#include "loom/base/error.hpp"
#include "loom/topo/hop_counts.hpp"
#include "loom/topo/hop_table.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace loom::topo {
namespace {

void check_vertex(const FrozenTopology& t, VertexId v) {
    if (v < 0 || v >= t.num_vertices())
        throw InputError("vertex " + std::to_string(v) + " is not in the topology (0.." +
                         std::to_string(t.num_vertices() - 1) + ")");
}

std::int32_t at(const std::vector<std::int32_t>& d, VertexId v) { return d[static_cast<std::size_t>(v)]; }
std::int32_t at(std::span<const std::uint8_t> d, VertexId v) {
    const std::uint8_t h = d[static_cast<std::size_t>(v)];
    return h == HopTable::kUnreachable ? -1 : h;
}

// A minimal path from `from` to `x` built backwards on distances from `from`: at every step, the
// lowest-port in-channel that comes from one hop closer to `from`.
template <class Dist>
void walk_back(const FrozenTopology& t, const Dist& from_dist, VertexId x, std::vector<ChannelId>& out) {
    const std::size_t start = out.size();
    VertexId v = x;
    while (at(from_dist, v) > 0) {
        for (ChannelId c : t.out_channels(v)) {
            const VertexId u = t.channel(c).dst;
            if (at(from_dist, u) == at(from_dist, v) - 1) {
                out.push_back(FrozenTopology::reverse(c));
                v = u;
                break;
            }
        }
    }
    std::reverse(out.begin() + static_cast<std::ptrdiff_t>(start), out.end());
}

// A minimal path from `x` to the vertex `to_dist` measures from: lowest-port out-channel one hop closer.
template <class Dist>
void walk_forward(const FrozenTopology& t, const Dist& to_dist, VertexId x, std::vector<ChannelId>& out) {
    VertexId v = x;
    while (at(to_dist, v) > 0) {
        for (ChannelId c : t.out_channels(v)) {
            const VertexId u = t.channel(c).dst;
            if (at(to_dist, u) == at(to_dist, v) - 1) {
                out.push_back(c);
                v = u;
                break;
            }
        }
    }
}

// Depth-first over the channels that step one hop closer to dst, lowest port first.
template <class Dist>
std::vector<Path> minimal_paths_on(const FrozenTopology& t, const Dist& to_dst, VertexId src, VertexId dst,
                                   std::size_t max_paths) {
    std::vector<Path> out;
    if (at(to_dst, src) < 0) return out;
    Path current{src, dst, {}};
    // The far ends from the adjacency's neighbour lists (parallel to out_channels), not the channel records.
    const Adjacency& graph = t.adjacency();
    auto extend = [&](auto&& self, VertexId v) -> void {
        if (v == dst) {
            out.push_back(current);
            return;
        }
        const std::span<const ChannelId> outs = t.out_channels(v);
        const std::span<const VertexId> near = graph.neighbors(v);
        const std::int32_t want = at(to_dst, v) - 1;
        for (std::size_t k = 0; k < outs.size(); ++k) {
            const VertexId u = near[k];
            if (at(to_dst, u) != want) continue;
            current.channels.push_back(outs[k]);
            self(self, u);
            current.channels.pop_back();
            if (out.size() >= max_paths) return;
        }
    };
    extend(extend, src);
    return out;
}

bool simple(const FrozenTopology& t, VertexId src, const std::vector<ChannelId>& path) {
    std::vector<VertexId> seen{src};
    for (ChannelId c : path) seen.push_back(t.channel(c).dst);
    std::sort(seen.begin(), seen.end());
    return std::adjacent_find(seen.begin(), seen.end()) == seen.end();
}

// What the table-based non-minimal search keeps between calls (a large compile asks it for every point-to-point
// pair): marks by stamp instead of a cleared array per call, and the buffers with their capacity.
struct NonminimalScratch {
    std::vector<std::uint32_t> on_path;  // by vertex: == path_stamp when on the back half being checked
    std::uint32_t path_stamp = 0;
    std::vector<std::uint8_t> total;     // by vertex: hops src -> v -> dst (kUnreachable: none or over 254)
    std::vector<std::int32_t> resolved;
    std::vector<std::pair<std::int32_t, VertexId>> level_candidates;
    std::vector<ChannelId> channels;  // the path through a candidate
    std::vector<ChannelId> forward;   // its part after the candidate, while it is checked
    // By vertex, for this call (valid where stamp == call): the channel of walk_back's and walk_forward's step
    // from it (towards src: the reverse of the lowest-port out-channel to a vertex one hop closer to src; towards
    // dst: the lowest-port out-channel one hop closer to dst) and that step's far end (kNoVertex: not known yet).
    struct Steps {
        std::uint32_t stamp = 0;
        VertexId back_to = -1;
        VertexId forward_to = -1;
        ChannelId back = 0;
        ChannelId forward = 0;
    };
    std::vector<Steps> steps;
    std::uint32_t call = 0;

    // A new stamp for `marks` (sized to n vertices), clearing them when the stamps wrap.
    static std::uint32_t next(std::vector<std::uint32_t>& marks, std::uint32_t& stamp, std::size_t n) {
        if (marks.size() < n) marks.resize(n, 0);
        if (++stamp == 0) {
            std::fill(marks.begin(), marks.end(), 0);
            stamp = 1;
        }
        return stamp;
    }
    // Starts a call: every vertex's steps unknown.
    void new_call(std::size_t n) {
        if (steps.size() < n) steps.resize(n);
        if (++call == 0) {
            for (Steps& st : steps) st.stamp = 0;
            call = 1;
        }
    }
    Steps& steps_of(VertexId v) {
        Steps& st = steps[static_cast<std::size_t>(v)];
        if (st.stamp != call) {
            st.stamp = call;
            st.back_to = -1;
            st.forward_to = -1;
        }
        return st;
    }
    // The lowest-port out-channel of v to a vertex one hop closer by `dist` (its index in out_channels(v)).
    static std::size_t closer(const Adjacency& graph, std::span<const std::uint8_t> dist, VertexId v) {
        const std::span<const VertexId> near = graph.neighbors(v);
        const std::uint8_t want = static_cast<std::uint8_t>(dist[static_cast<std::size_t>(v)] - 1);
        std::size_t k = 0;
        while (dist[static_cast<std::size_t>(near[k])] != want) ++k;
        return k;
    }
    // walk_back() then walk_forward() through x into `channels`, each step found once per call; false (and
    // `channels` not the path) when the path visits a vertex twice, as simple() finds. The back half's vertices
    // are distinct (hops from src fall along it), and so are the forward half's after x (hops to dst fall), so the
    // path is simple exactly when no vertex of the forward half is on the back half: the back half is marked, and
    // the forward walk stops at the first marked vertex (most candidates that fail, fail within a hop or two).
    bool walk_through(const FrozenTopology& t, std::span<const std::uint8_t> from_src,
                      std::span<const std::uint8_t> to_dst, VertexId x) {
        const Adjacency& graph = t.adjacency();
        const std::uint32_t mark = next(on_path, path_stamp, static_cast<std::size_t>(t.num_vertices()));
        channels.clear();
        VertexId v = x;
        on_path[static_cast<std::size_t>(v)] = mark;
        while (from_src[static_cast<std::size_t>(v)] > 0) {
            Steps& st = steps_of(v);
            if (st.back_to < 0) {
                const std::size_t k = closer(graph, from_src, v);
                st.back = FrozenTopology::reverse(t.out_channels(v)[k]);
                st.back_to = graph.neighbors(v)[k];
            }
            channels.push_back(st.back);
            v = st.back_to;
            on_path[static_cast<std::size_t>(v)] = mark;
        }
        forward.clear();
        v = x;
        while (to_dst[static_cast<std::size_t>(v)] > 0) {
            Steps& st = steps_of(v);
            if (st.forward_to < 0) {
                const std::size_t k = closer(graph, to_dst, v);
                st.forward = t.out_channels(v)[k];
                st.forward_to = graph.neighbors(v)[k];
            }
            v = st.forward_to;
            if (on_path[static_cast<std::size_t>(v)] == mark) return false;
            forward.push_back(st.forward);
        }
        std::reverse(channels.begin(), channels.end());
        channels.insert(channels.end(), forward.begin(), forward.end());
        return true;
    }
};

// total[v] = a[v] + b[v] where that is below 255, else 255; returns the largest total below 255 (0 if none), or
// 255 when some vertex reachable both ways (neither count kUnreachable) or one way only has a total of 255 or more
// (then its total does not fit a byte).
unsigned add_rows(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b, std::uint8_t* total) {
    const std::size_t n = a.size();
    std::size_t i = 0;
    unsigned top = 0;
    bool cut = false;
#if defined(__SSE2__)
    // 16 vertices a step: saturating adds, and the largest unsaturated total by lane.
    const __m128i ff = _mm_set1_epi8(static_cast<char>(0xff));
    __m128i lane_top = _mm_setzero_si128();
    __m128i lane_cut = _mm_setzero_si128();
    for (; i + 16 <= n; i += 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.data() + i));
        const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.data() + i));
        const __m128i sum = _mm_adds_epu8(x, y);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(total + i), sum);
        const __m128i saturated = _mm_cmpeq_epi8(sum, ff);
        const __m128i neither = _mm_and_si128(_mm_cmpeq_epi8(x, ff), _mm_cmpeq_epi8(y, ff));
        lane_cut = _mm_or_si128(lane_cut, _mm_andnot_si128(neither, saturated));
        lane_top = _mm_max_epu8(lane_top, _mm_andnot_si128(saturated, sum));
    }
    alignas(16) std::uint8_t lanes[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes), lane_top);
    for (const std::uint8_t l : lanes) top = l > top ? l : top;
    cut = _mm_movemask_epi8(lane_cut) != 0;
#endif
    for (; i < n; ++i) {
        const unsigned sum = static_cast<unsigned>(a[i]) + b[i];
        total[i] = static_cast<std::uint8_t>(sum > 255 ? 255 : sum);
        if (sum < 255) {
            top = sum > top ? sum : top;
        } else if (sum != 2 * HopTable::kUnreachable) {
            cut = true;
        }
    }
    return cut ? 255u : top;
}

}  // namespace

std::array<std::int32_t, kLinkClassCount> class_counts(const FrozenTopology& t, const Path& p) {
    std::array<std::int32_t, kLinkClassCount> n{};
    for (ChannelId c : p.channels) ++n[index_of(t.channel(c).link_class)];
    return n;
}

std::vector<Path> minimal_paths(const FrozenTopology& t, VertexId src, VertexId dst, std::size_t max_paths) {
    check_vertex(t, src);
    check_vertex(t, dst);
    if (max_paths == 0) return {};
    return minimal_paths_on(t, hops_from(t.adjacency(), dst), src, dst, max_paths);
}

std::vector<Path> minimal_paths(const FrozenTopology& t, HopTable& hops, VertexId src, VertexId dst,
                                std::size_t max_paths) {
    check_vertex(t, src);
    check_vertex(t, dst);
    if (max_paths == 0) return {};
    return minimal_paths_on(t, hops.row(dst), src, dst, max_paths);
}

std::vector<Path> nonminimal_paths(const FrozenTopology& t, VertexId src, VertexId dst, Via via,
                                   std::size_t max_paths) {
    check_vertex(t, src);
    check_vertex(t, dst);
    std::vector<Path> out;
    if (max_paths == 0) return out;
    const std::vector<std::int32_t> from_src = hops_from(t.adjacency(), src);
    const std::vector<std::int32_t> to_dst = hops_from(t.adjacency(), dst);
    const std::int32_t minimal = at(to_dst, src);
    if (minimal < 0) return out;

    auto unit_of = [&](VertexId v) { return via == Via::Node ? t.vertex(v).node : t.vertex(v).group; };
    const std::int32_t skip_a = unit_of(src);
    const std::int32_t skip_b = unit_of(dst);
    // Candidate intermediate vertices, best first within each unit: (unit, total hops, vertex).
    std::vector<std::tuple<std::int32_t, std::int32_t, VertexId>> candidates;
    for (VertexId x = 0; x < t.num_vertices(); ++x) {
        const std::int32_t u = unit_of(x);
        if (u == skip_a || u == skip_b || at(from_src, x) < 0 || at(to_dst, x) < 0) continue;
        const std::int32_t total = at(from_src, x) + at(to_dst, x);
        if (total > minimal) candidates.emplace_back(u, total, x);
    }
    std::sort(candidates.begin(), candidates.end());

    std::vector<std::tuple<std::int32_t, std::int32_t, Path>> found;  // (hops, unit, path)
    for (std::size_t i = 0; i < candidates.size();) {
        const std::int32_t unit = std::get<0>(candidates[i]);
        // The first candidate of this unit whose concatenated path is simple.
        for (; i < candidates.size() && std::get<0>(candidates[i]) == unit; ++i) {
            const VertexId x = std::get<2>(candidates[i]);
            Path p{src, dst, {}};
            walk_back(t, from_src, x, p.channels);
            walk_forward(t, to_dst, x, p.channels);
            if (!simple(t, src, p.channels)) continue;
            found.emplace_back(p.hops(), unit, std::move(p));
            while (i < candidates.size() && std::get<0>(candidates[i]) == unit) ++i;
            break;
        }
    }
    std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
        return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
    });
    for (auto& f : found) {
        if (out.size() >= max_paths) break;
        out.push_back(std::move(std::get<2>(f)));
    }
    return out;
}

// The same paths as the search above, without a sort of every vertex. The old order is (hops, unit): every unit's
// path is its first simple candidate in (total, vertex) order. Taking candidates in (total, unit, vertex) order
// and keeping each unit's first simple one yields the units in exactly that order, so the first max_paths units
// found are the answer. Every vertex's total (hops src -> x -> dst) comes from the two hop rows in one byte-wise
// pass; the candidates of each level L > minimal are the vertices whose total is L (at most the system's diameter
// twice: a few levels), taken level by level until max_paths units are found or no vertex is that far.
std::vector<Path> nonminimal_paths(const FrozenTopology& t, HopTable& hops, VertexId src, VertexId dst, Via via,
                                   std::size_t max_paths) {
    check_vertex(t, src);
    check_vertex(t, dst);
    std::vector<Path> out;
    if (max_paths == 0) return out;
    const std::span<const std::uint8_t> from_src = hops.row(src);
    const std::span<const std::uint8_t> to_dst = hops.row(dst);
    const std::int32_t minimal = at(to_dst, src);
    if (minimal < 0) return out;

    auto unit_of = [&](VertexId v) { return via == Via::Node ? t.vertex(v).node : t.vertex(v).group; };
    const std::int32_t skip_a = unit_of(src);
    const std::int32_t skip_b = unit_of(dst);
    thread_local NonminimalScratch scratch;
    NonminimalScratch& s = scratch;
    const auto n = static_cast<std::size_t>(t.num_vertices());
    if (s.total.size() < n) s.total.resize(n);
    const std::uint8_t* total = s.total.data();
    const auto top = static_cast<std::int32_t>(add_rows(from_src, to_dst, s.total.data()));
    // Totals of 255 and more (a graph of diameter over 127, or a vertex reachable one way only) do not fit a byte.
    if (top >= HopTable::kUnreachable) return nonminimal_paths(t, src, dst, via, max_paths);
    s.new_call(n);
    std::vector<std::int32_t>& resolved = s.resolved;  // units that have their path
    resolved.clear();
    // (unit, vertex) of total == level
    std::vector<std::pair<std::int32_t, VertexId>>& level_candidates = s.level_candidates;
    // Tries candidate x of `unit`: true once max_paths units have their path.
    auto consider = [&](std::int32_t unit, VertexId x) {
        if (std::find(resolved.begin(), resolved.end(), unit) != resolved.end()) return false;
        if (!s.walk_through(t, from_src, to_dst, x)) return false;
        resolved.push_back(unit);
        out.push_back(Path{src, dst, s.channels});
        return out.size() >= max_paths;
    };
    // Nodes number vertices in blocks, in order (FrozenTopology checks it): by node, vertex order is (unit, vertex)
    // order, so a level's candidates are tried as the scan meets them and the scan stops at max_paths. Groups carry
    // no such promise: their candidates are gathered and sorted first.
    const bool in_order = via == Via::Node;
    for (std::int32_t level = minimal + 1; level <= top; ++level) {
        level_candidates.clear();
        const auto want = static_cast<std::uint8_t>(level);
        // Vertex i has this level's total: true to stop (max_paths reached).
        auto take = [&](std::size_t i) {
            const auto x = static_cast<VertexId>(i);
            const std::int32_t u = unit_of(x);
            if (u == skip_a || u == skip_b) return false;
            if (in_order) return consider(u, x);
            level_candidates.emplace_back(u, x);
            return false;
        };
        std::size_t v = 0;
#if defined(__SSE2__)
        // 16 totals per compare; the few vertices of this level are taken in vertex order.
        const __m128i w = _mm_set1_epi8(static_cast<char>(want));
        for (; v + 16 <= n; v += 16) {
            const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(total + v));
            auto hits = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(block, w)));
            while (hits != 0) {
                if (take(v + static_cast<std::size_t>(std::countr_zero(hits)))) return out;
                hits &= hits - 1;
            }
        }
#endif
        for (; v < n; ++v)
            if (total[v] == want && take(v)) return out;
        if (in_order) continue;
        // Taken in vertex order: often already in (unit, vertex) order (TSP systems' racks, Dragonfly groups).
        if (!std::is_sorted(level_candidates.begin(), level_candidates.end()))
            std::sort(level_candidates.begin(), level_candidates.end());
        for (const auto& [unit, x] : level_candidates)
            if (consider(unit, x)) return out;
    }
    return out;
}

}  // namespace loom::topo
