// Path enumeration: all minimal paths between two vertices (bounded), and non-minimal paths through one
// intermediate node or group (rack), as the scheduler's candidates for deterministic load balancing.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "loom/topo/frozen_topology.hpp"
#include "loom/topo/hop_table.hpp"

namespace loom::topo {

struct Path {
    VertexId src = 0;
    VertexId dst = 0;
    std::vector<ChannelId> channels;  // in travel order; channels[i].dst == channels[i + 1].src
    std::int32_t hops() const { return static_cast<std::int32_t>(channels.size()); }
};

// Links of each class along `p`, indexed by index_of(LinkClass).
std::array<std::int32_t, kLinkClassCount> class_counts(const FrozenTopology& t, const Path& p);

// Minimal (fewest-hop) paths from src to dst, at most `max_paths`, in lexicographic order of the ports
// taken. Parallel links count as different paths. src == dst gives one empty path.
std::vector<Path> minimal_paths(const FrozenTopology& t, VertexId src, VertexId dst, std::size_t max_paths);
// The same paths from hop counts kept in `hops` (no search per call): for callers that ask about many pairs.
std::vector<Path> minimal_paths(const FrozenTopology& t, HopTable& hops, VertexId src, VertexId dst,
                                std::size_t max_paths);

enum class Via {
    Node,   // through one intermediate node (not src's or dst's)
    Group,  // through one intermediate group: a rack (rack, multirack), a node (system264), a Dragonfly group
};

// Non-minimal paths from src to dst through one intermediate node or group, at most `max_paths`, each
// strictly longer than minimal and visiting no vertex twice. For every candidate intermediate N, the path is
// a shortest src -> x -> dst with x in N (x chosen by total hops, then lowest vertex id; both halves follow
// the lowest ports on minimal paths); at most one path per intermediate. Sorted by hops, then intermediate.
std::vector<Path> nonminimal_paths(const FrozenTopology& t, VertexId src, VertexId dst, Via via,
                                   std::size_t max_paths);
// The same paths from hop counts kept in `hops`, visiting only the vertices near enough to src and dst to be
// candidates (the work follows the answer, not the system's size).
std::vector<Path> nonminimal_paths(const FrozenTopology& t, HopTable& hops, VertexId src, VertexId dst, Via via,
                                   std::size_t max_paths);

}  // namespace loom::topo
