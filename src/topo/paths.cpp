#include "loom/topo/paths.hpp"

#include <algorithm>
#include <span>
#include <tuple>

#include "loom/base/error.hpp"
#include "loom/topo/hop_counts.hpp"
#include "loom/topo/hop_table.hpp"

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
    auto extend = [&](auto&& self, VertexId v) -> void {
        if (v == dst) {
            out.push_back(current);
            return;
        }
        for (ChannelId c : t.out_channels(v)) {
            const VertexId u = t.channel(c).dst;
            if (at(to_dst, u) != at(to_dst, v) - 1) continue;
            current.channels.push_back(c);
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
    std::vector<std::uint32_t> seen;     // by vertex: == stamp when met by this call's search
    std::vector<std::uint32_t> on_path;  // by vertex: == path_stamp when on the path being checked
    std::uint32_t stamp = 0;
    std::uint32_t path_stamp = 0;
    std::vector<std::vector<VertexId>> waiting;
    std::vector<VertexId> stack;
    std::vector<std::int32_t> resolved;
    std::vector<std::pair<std::int32_t, VertexId>> level_candidates;
    std::vector<ChannelId> channels;

    // A new stamp for `marks` (sized to n vertices), clearing them when the stamps wrap.
    static std::uint32_t next(std::vector<std::uint32_t>& marks, std::uint32_t& stamp, std::size_t n) {
        if (marks.size() < n) marks.resize(n, 0);
        if (++stamp == 0) {
            std::fill(marks.begin(), marks.end(), 0);
            stamp = 1;
        }
        return stamp;
    }
    // simple() without sorting: no vertex twice on src then the channels' far ends.
    bool simple_path(const FrozenTopology& t, VertexId src) {
        const std::uint32_t mark = next(on_path, path_stamp, static_cast<std::size_t>(t.num_vertices()));
        on_path[static_cast<std::size_t>(src)] = mark;
        for (ChannelId c : channels) {
            auto& m = on_path[static_cast<std::size_t>(t.channel(c).dst)];
            if (m == mark) return false;
            m = mark;
        }
        return true;
    }
};

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

// The same paths as the search above, without looking at every vertex. The old order is (hops, unit): every unit's
// path is its first simple candidate in (total, vertex) order. Taking candidates in (total, unit, vertex) order
// and keeping each unit's first simple one yields the units in exactly that order, so the first max_paths units
// found are the answer. The candidates of total at most L are found by a search from src that enters only vertices
// of total at most L: every vertex on a shortest path from src to such a vertex has a total at most L too (the
// triangle inequality), so that search reaches all of them; vertices it meets with a larger total wait in a
// bucket for the level that admits them.
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
    auto total_of = [&](VertexId v) { return at(from_src, v) + at(to_dst, v); };
    const std::int32_t skip_a = unit_of(src);
    const std::int32_t skip_b = unit_of(dst);
    const Adjacency& graph = t.adjacency();  // parallel to out_channels(): the far ends, without the channels
    thread_local NonminimalScratch scratch;
    NonminimalScratch& s = scratch;
    const std::uint32_t mark = NonminimalScratch::next(s.seen, s.stamp, static_cast<std::size_t>(t.num_vertices()));
    std::vector<std::uint32_t>& seen = s.seen;
    std::vector<std::vector<VertexId>>& waiting = s.waiting;  // by total: met, not yet admitted
    for (std::vector<VertexId>& w : waiting) w.clear();       // a previous call may have returned with some
    std::int64_t waiting_count = 0;
    std::vector<VertexId>& stack = s.stack;
    stack.assign(1, src);
    seen[static_cast<std::size_t>(src)] = mark;
    std::vector<std::int32_t>& resolved = s.resolved;  // units that have their path
    resolved.clear();
    // (unit, vertex) of total == level
    std::vector<std::pair<std::int32_t, VertexId>>& level_candidates = s.level_candidates;
    for (std::int32_t level = minimal + 1;; ++level) {
        if (static_cast<std::size_t>(level) < waiting.size()) {
            for (VertexId v : waiting[static_cast<std::size_t>(level)]) stack.push_back(v);
            waiting_count -= static_cast<std::int64_t>(waiting[static_cast<std::size_t>(level)].size());
            waiting[static_cast<std::size_t>(level)].clear();
        }
        level_candidates.clear();
        while (!stack.empty()) {
            const VertexId x = stack.back();
            stack.pop_back();
            const std::int32_t total = total_of(x);
            if (total == level) {
                const std::int32_t u = unit_of(x);
                if (u != skip_a && u != skip_b) level_candidates.emplace_back(u, x);
            }
            for (const VertexId y : graph.neighbors(x)) {
                if (seen[static_cast<std::size_t>(y)] == mark) continue;
                seen[static_cast<std::size_t>(y)] = mark;
                const std::int32_t ty = total_of(y);
                if (ty <= level) {
                    stack.push_back(y);
                } else {
                    if (waiting.size() <= static_cast<std::size_t>(ty)) waiting.resize(static_cast<std::size_t>(ty) + 1);
                    waiting[static_cast<std::size_t>(ty)].push_back(y);
                    ++waiting_count;
                }
            }
        }
        std::sort(level_candidates.begin(), level_candidates.end());
        for (std::size_t i = 0; i < level_candidates.size(); ++i) {
            const auto [unit, x] = level_candidates[i];
            if (std::find(resolved.begin(), resolved.end(), unit) != resolved.end()) continue;
            s.channels.clear();
            walk_back(t, from_src, x, s.channels);
            walk_forward(t, to_dst, x, s.channels);
            if (!s.simple_path(t, src)) continue;
            resolved.push_back(unit);
            out.push_back(Path{src, dst, s.channels});
            if (out.size() >= max_paths) return out;
        }
        if (waiting_count == 0) return out;
    }
}

}  // namespace loom::topo
