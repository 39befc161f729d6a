// Collective generators: all-reduce (ring, hierarchical), all-gather, reduce-scatter, all-to-all, broadcast,
// gather and scatter expanded into tensor transfers with dependencies and addresses, and the memory contents that
// prove a run moved and summed every contribution exactly once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/topo/chip_config.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/workload/collective_config.hpp"
#include "loom/workload/transfer.hpp"

namespace loom::workload {

// Expands `c` (kind != None) into transfers with ids 0, 1, ... and the set's layout. Tensors split into whole
// vectors at every level; a share smaller than the group it is split over is padded (see CollectiveLayout).
// Dependencies follow the data: a transfer that reads a region depends on every transfer that wrote it, and sums
// into one region follow one another. Problems (fewer than 2 members, a member that is not a compute TSP, a root
// outside the members, buffers beyond the chip's memory, a hierarchical all-reduce over nodes with different
// numbers of members) throw ConfigError under `pointer` ("/workload/collective/tsps/3: ...").
TransferSet make_collective(const CollectiveConfig& c, const topo::FrozenTopology& t, const topo::ChipConfig& chip,
                            const std::string& pointer = "/workload/collective",
                            Bytes unit_payload = kDefaultVectorBytes);

// Values of consecutive vector slots of one TSP from byte `address`.
struct MemoryImage {
    topo::VertexId tsp = 0;
    std::int64_t address = 0;
    std::vector<std::int64_t> values;
};

// Initial contents every contribution can be told apart by — vector c of member t's input holds
// (t + 1) x 1000003 + c — and the contents the collective must leave, computed from its definition (sums over
// members, copies from owners), not from the transfers.
struct CollectiveMemory {
    std::vector<MemoryImage> initial;
    std::vector<MemoryImage> expected;
};
CollectiveMemory collective_memory(const CollectiveLayout& layout, Bytes unit_payload = kDefaultVectorBytes);

// The value vector `slot` (counted from the buffer's start) of member `tsp` starts with.
inline std::int64_t collective_value(topo::VertexId tsp, std::int64_t slot) {
    return (static_cast<std::int64_t>(tsp) + 1) * 1'000'003 + slot;
}

}  // namespace loom::workload
