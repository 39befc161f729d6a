// The data check of a workload run: every source vector holds a random 64-bit value and every destination slot
// must end with the sum (mod 2^64) of exactly the contributions the workload defines, so that a missing, extra or
// misplaced contribution shows with probability 1 - 2^-64 while memory stays one value per slot.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/sched/schedule.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/workload/transfer.hpp"

namespace loom::tsp {

class DataCheck {
public:
    // The value vector slot `slot` of TSP `tsp` starts with: a 64-bit mix of (seed, tsp, slot), so that the values
    // behave as independent uniform draws and cost no memory.
    std::int64_t initial_value(std::uint32_t tsp, std::int64_t slot) const;
    // out[k] = initial_value(tsp, first + k) for k in [0, count), mixing the seed once (tens of millions of slots
    // are seeded and summed in the largest runs).
    void initial_values(std::uint32_t tsp, std::int64_t first, std::int64_t count, std::int64_t* out) const;

    // Slots [first, first + count) of `tsp` start with initial_value(); every other slot starts at 0.
    struct Region {
        std::uint32_t tsp = 0;
        std::int64_t first = 0;
        std::int64_t count = 0;
    };
    // Where the expected values of a region come from.
    enum class Source : std::uint8_t {
        Pool,     // pool_[pool + k]
        Copy,     // initial_value(src_tsp, src_first + k)
        Blocks,   // initial_value(members[k / block], src_first + k): one block from each member (all-gather)
        Columns,  // initial_value(members[k / block], src_first + k % block), skipping the block of `skip` (all-to-all)
    };
    struct Expect {
        Region region;
        Source source = Source::Pool;
        std::int64_t pool = 0;
        std::uint32_t src_tsp = 0;
        std::int64_t src_first = 0;
        std::int64_t block = 1;
        std::int64_t skip = -1;  // Columns: the member index whose block is not expected
    };

    std::uint64_t seed = 1;
    std::vector<Region> initial;
    std::vector<Expect> expected;
    std::vector<std::int64_t> pool;
    std::vector<std::uint32_t> members;  // Blocks, Columns: member index -> TSP
    std::int64_t ambiguous_slots = 0;    // destination slots whose final value the workload leaves open: not checked

    // The expected value of slot `first + k` of an expectation, or nothing for a skipped slot (Columns).
    bool expected_value(const Expect& e, std::int64_t k, std::int64_t& value) const;
    // Destination slots checked at the end of a run.
    std::int64_t slots() const;
};

// The data check of `transfers` (slots are byte address / vector_bytes, rounded down; tensors are whole vectors
// of unit_payload). A collective's expected contents follow from its definition (sums over members, copies
// from owners), not from its transfers. Other workloads are replayed in an order that respects deps and after:
// a transfer reads its source, then stores into or adds to each destination. Two transfers touching one slot
// (a read and a write, or a store and another write) that the workload leaves unordered take the order of
// `schedule` when one completes before the other's first Send; otherwise the slot's final value is open, so it
// is counted in ambiguous_slots and not checked, and so is every slot computed from it.
DataCheck make_data_check(const workload::TransferSet& transfers, std::int64_t vector_bytes, Bytes unit_payload,
                          std::uint64_t seed, const sched::Schedule* schedule = nullptr);

}  // namespace loom::tsp
