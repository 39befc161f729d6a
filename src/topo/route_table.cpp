#include "loom/topo/route_table.hpp"

#include <algorithm>

#include "loom/base/assert.hpp"
#include "loom/base/error.hpp"

namespace loom::topo {
namespace {
constexpr std::uint8_t kUnreachable = 255;
}

RouteTable::RouteTable(const FrozenTopology& t, std::int32_t max_columns)
    : topo_(t), max_columns_(std::max(1, std::min(max_columns, std::max(1, t.num_vertices())))) {
    dest_slot_.assign(static_cast<std::size_t>(t.num_vertices()), -1);
}

const std::vector<std::uint8_t>& RouteTable::column(VertexId dest) {
    if (dest < 0 || dest >= topo_.num_vertices())
        throw InputError("route table: vertex " + std::to_string(dest) + " is not in the topology");
    ++clock_;
    std::int32_t slot = dest_slot_[static_cast<std::size_t>(dest)];
    if (slot >= 0) {
        slot_used_[static_cast<std::size_t>(slot)] = clock_;
        return columns_[static_cast<std::size_t>(slot)];
    }
    if (static_cast<std::int32_t>(columns_.size()) < max_columns_) {
        slot = static_cast<std::int32_t>(columns_.size());
        columns_.emplace_back(static_cast<std::size_t>(topo_.num_vertices()));
        slot_dest_.push_back(dest);
        slot_used_.push_back(clock_);
    } else {
        // Least recently used (use stamps are distinct, so the choice is unique).
        slot = static_cast<std::int32_t>(std::min_element(slot_used_.begin(), slot_used_.end()) - slot_used_.begin());
        dest_slot_[static_cast<std::size_t>(slot_dest_[static_cast<std::size_t>(slot)])] = -1;
        slot_dest_[static_cast<std::size_t>(slot)] = dest;
        slot_used_[static_cast<std::size_t>(slot)] = clock_;
    }
    dest_slot_[static_cast<std::size_t>(dest)] = slot;
    ++computed_;

    // BFS from dest (undirected graph: hops to dest = hops from dest).
    std::vector<std::uint8_t>& col = columns_[static_cast<std::size_t>(slot)];
    std::fill(col.begin(), col.end(), kUnreachable);
    const Adjacency& g = topo_.adjacency();
    queue_.clear();
    col[static_cast<std::size_t>(dest)] = 0;
    queue_.push_back(dest);
    for (std::size_t head = 0; head < queue_.size(); ++head) {
        const VertexId u = queue_[head];
        const std::uint8_t du = col[static_cast<std::size_t>(u)];
        LOOM_ASSERT(du + 1 < kUnreachable, "route table: hop counts above 254 are not supported");
        for (VertexId v : g.neighbors(u))
            if (col[static_cast<std::size_t>(v)] == kUnreachable) {
                col[static_cast<std::size_t>(v)] = static_cast<std::uint8_t>(du + 1);
                queue_.push_back(v);
            }
    }
    return col;
}

std::int32_t RouteTable::hops(VertexId from, VertexId to) {
    const std::uint8_t d = column(to)[static_cast<std::size_t>(from)];
    return d == kUnreachable ? -1 : d;
}

void RouteTable::minimal_next(VertexId at, VertexId dest, std::vector<ChannelId>& out) {
    const std::vector<std::uint8_t>& col = column(dest);
    const std::uint8_t d = col[static_cast<std::size_t>(at)];
    if (d == 0 || d == kUnreachable) return;
    for (ChannelId c : topo_.out_channels(at))
        if (col[static_cast<std::size_t>(topo_.channel(c).dst)] + 1 == d) out.push_back(c);
}

std::uint64_t RouteTable::minimal_port_mask(VertexId at, VertexId dest) {
    LOOM_ASSERT(topo_.num_ports(at) <= 64, "route table: port masks need at most 64 ports");
    const std::vector<std::uint8_t>& col = column(dest);
    const std::uint8_t d = col[static_cast<std::size_t>(at)];
    std::uint64_t mask = 0;
    if (d == 0 || d == kUnreachable) return mask;
    for (ChannelId c : topo_.out_channels(at)) {
        const Channel& ch = topo_.channel(c);
        if (col[static_cast<std::size_t>(ch.dst)] + 1 == d) mask |= std::uint64_t{1} << ch.src_port;
    }
    return mask;
}

std::int64_t RouteTable::stored_bytes() const {
    std::int64_t bytes = 0;
    for (const auto& c : columns_) bytes += static_cast<std::int64_t>(c.capacity());
    bytes += static_cast<std::int64_t>(dest_slot_.capacity() * sizeof(std::int32_t));
    return bytes;
}

}  // namespace loom::topo
