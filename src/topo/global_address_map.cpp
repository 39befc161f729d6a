#include "loom/topo/global_address_map.hpp"

#include <fmt/format.h>

#include "loom/base/error.hpp"

namespace loom::topo {

GlobalAddressMap::GlobalAddressMap(const FrozenTopology& t, Bytes per_tsp) : per_tsp_(per_tsp) {
    if (per_tsp.count() <= 0) throw InputError("global address map: memory per TSP must be positive");
    block_.assign(static_cast<std::size_t>(t.num_vertices()), -1);
    for (VertexId v = 0; v < t.num_vertices(); ++v) {
        if (t.vertex(v).terminals <= 0) continue;
        block_[static_cast<std::size_t>(v)] = static_cast<std::int32_t>(owners_.size());
        owners_.push_back(v);
    }
}

GlobalAddressMap::Location GlobalAddressMap::locate(std::int64_t address) const {
    if (address < 0 || address >= capacity().count())
        throw InputError(fmt::format("global address {} is outside the global memory [0, {})", address,
                                     capacity().count()));
    const std::int64_t block = address / per_tsp_.count();
    return {owners_[static_cast<std::size_t>(block)], address % per_tsp_.count()};
}

std::int64_t GlobalAddressMap::address(VertexId tsp, std::int64_t offset) const {
    if (tsp < 0 || static_cast<std::size_t>(tsp) >= block_.size() || block_[static_cast<std::size_t>(tsp)] < 0)
        throw InputError(fmt::format("TSP {} holds no global memory (not a compute TSP)", tsp));
    if (offset < 0 || offset >= per_tsp_.count())
        throw InputError(fmt::format("offset {} is outside a TSP's memory [0, {})", offset, per_tsp_.count()));
    return block_[static_cast<std::size_t>(tsp)] * per_tsp_.count() + offset;
}

}  // namespace loom::topo
