// The global address map: the memories of all compute TSPs form one logically shared, physically
// distributed address space. Address -> (TSP, offset) and back.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/base/units.hpp"
#include "loom/topo/frozen_topology.hpp"

namespace loom::topo {

// Compute TSPs (terminals > 0) in vertex order each own one contiguous block of `per_tsp` bytes: the k-th
// compute TSP holds addresses [k * per_tsp, (k + 1) * per_tsp). Spares hold no addresses (they take over a
// failed TSP's block when a workload is re-mapped).
class GlobalAddressMap {
public:
    GlobalAddressMap(const FrozenTopology& t, Bytes per_tsp);

    struct Location {
        VertexId tsp = 0;
        std::int64_t offset = 0;  // bytes into that TSP's memory
        friend bool operator==(const Location&, const Location&) = default;
    };

    Bytes capacity() const { return Bytes(per_tsp_.count() * static_cast<std::int64_t>(owners_.size())); }
    Bytes per_tsp() const { return per_tsp_; }
    std::int32_t tsps() const { return static_cast<std::int32_t>(owners_.size()); }
    // Throws InputError when address is outside [0, capacity).
    Location locate(std::int64_t address) const;
    // Throws InputError when tsp is not a compute TSP or offset is outside [0, per_tsp).
    std::int64_t address(VertexId tsp, std::int64_t offset) const;

private:
    Bytes per_tsp_;
    std::vector<VertexId> owners_;      // block -> TSP
    std::vector<std::int32_t> block_;   // TSP -> block, -1 for spares
};

}  // namespace loom::topo
