#include "loom/topo/paths.hpp"

#include <algorithm>
#include <tuple>

#include "loom/base/error.hpp"
#include "loom/topo/hop_counts.hpp"

namespace loom::topo {
namespace {

void check_vertex(const FrozenTopology& t, VertexId v) {
    if (v < 0 || v >= t.num_vertices())
        throw InputError("vertex " + std::to_string(v) + " is not in the topology (0.." +
                         std::to_string(t.num_vertices() - 1) + ")");
}

std::int32_t at(const std::vector<std::int32_t>& d, VertexId v) { return d[static_cast<std::size_t>(v)]; }

// A minimal path from `from` to `x` built backwards on distances from `from`: at every step, the
// lowest-port in-channel that comes from one hop closer to `from`.
void walk_back(const FrozenTopology& t, const std::vector<std::int32_t>& from_dist, VertexId x,
               std::vector<ChannelId>& out) {
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
void walk_forward(const FrozenTopology& t, const std::vector<std::int32_t>& to_dist, VertexId x,
                  std::vector<ChannelId>& out) {
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

bool simple(const FrozenTopology& t, VertexId src, const std::vector<ChannelId>& path) {
    std::vector<VertexId> seen{src};
    for (ChannelId c : path) seen.push_back(t.channel(c).dst);
    std::sort(seen.begin(), seen.end());
    return std::adjacent_find(seen.begin(), seen.end()) == seen.end();
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
    std::vector<Path> out;
    if (max_paths == 0) return out;
    const std::vector<std::int32_t> to_dst = hops_from(t.adjacency(), dst);
    if (at(to_dst, src) < 0) return out;
    Path current{src, dst, {}};
    // Depth-first over the channels that step one hop closer to dst, lowest port first.
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

}  // namespace loom::topo
