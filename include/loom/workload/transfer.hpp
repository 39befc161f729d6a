// Tensor transfers, the workload of the compile-time scheduler: who sends how many bytes to whom, when each may
// start and what it waits for; the "workload" config section that lists them or generates random ones, and their
// validation against a topology (errors name JSON Pointers).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"
#include "loom/topo/chip_config.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/workload/collective_config.hpp"

namespace loom::workload {

using TransferId = std::uint32_t;

// The paper's unit of data everywhere: a vector of 320 bytes (links.unit_payload). A transfer of b bytes travels
// as ceil(b / 320) vectors, the last one padded.
inline constexpr Bytes kDefaultVectorBytes{320};

// What a destination does with an arriving tensor: store it (a Receive) or add it to the vectors already at
// dst_address (a storing Reduce, timed as a Receive). Sums into one region must not overlap in time: whoever
// generates them orders them with `deps` or, without waiting for the data to be in memory first, with `after`.
enum class Combine { Store, Sum };

// One tensor moved from the memory of one TSP to the memories of one or more others (fan-out: every destination
// receives the whole tensor at the same address).
struct Transfer {
    TransferId id = 0;
    topo::VertexId src = 0;
    std::vector<topo::VertexId> dsts;  // one or more distinct compute TSPs, none equal to src
    Bytes bytes{0};                    // tensor size, >= 1 byte
    Time earliest{};                   // may not start before this time
    std::vector<TransferId> deps;      // transfers whose data must be in memory everywhere before this starts
    // Transfers that must have written every destination before any destination consumes this one's first vector
    // (its Receive or Reduce issues strictly later), while this one may start, and travel, earlier. Orders sums
    // into one region without a network latency between them: a Reduce reads its operands at issue.
    std::vector<TransferId> after;
    // Pacing: transfers that must have completed before this one starts, for no reason of data. A collective
    // uses them to make a compile-time schedule book links in a better order (list scheduling places whatever is
    // ready first); the schedule honours them as it honours deps, a dynamically routed network, having no schedule
    // to shape, ignores them, and the lower bound's dependency chain leaves them out.
    std::vector<TransferId> paced_by;
    Time compute_before{};             // compute time after the last dependency completes, before this may start
    std::int64_t src_address = 0;      // byte offset of the tensor in the source TSP's memory
    std::int64_t dst_address = 0;      // byte offset written in every destination's memory
    Combine combine = Combine::Store;  // Sum: exactly one destination (a relay would forward the sum)

    // Vectors on the wire: ceil(bytes / unit_payload).
    std::int64_t vectors(Bytes unit_payload = kDefaultVectorBytes) const;
};

struct TransferSet {
    std::vector<Transfer> transfers;
    // Set when the transfers were generated from a collective: its layout, for reports and the data-flow check.
    std::optional<CollectiveLayout> collective;

    std::int64_t total_vectors(Bytes unit_payload = kDefaultVectorBytes) const;
    std::int64_t total_bytes() const;
    // Position in `transfers` of the transfer with id `id`, or -1.
    std::int64_t index_of(TransferId id) const;
};

// Transfer id -> position in one set, built once for many lookups. A set whose ids are 0..n-1 in order (every
// generated set) needs no search: an id is its position. Any other is searched in its sorted ids.
class TransferPositions {
public:
    static constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);

    explicit TransferPositions(const TransferSet& set);
    // The position of the first transfer with id `id`, or kAbsent.
    std::size_t find(TransferId id) const {
        if (dense_) return id < n_ ? id : kAbsent;
        return find_sorted(id);
    }
    // Whether ids are positions (0..n-1 in order).
    bool dense() const { return dense_; }

private:
    std::size_t find_sorted(TransferId id) const;

    std::size_t n_ = 0;
    bool dense_ = true;
    std::vector<std::pair<TransferId, std::size_t>> sorted_;  // (id, position) when not dense
};

// --- The "workload" config section --------------------------------------------------------------------------

// One element of "transfers". Vertex ids are TSP numbers as topo numbers them (node-major: node * 8 + index).
struct TransferSpec {
    std::optional<std::int64_t> id;  // default: the element's position in the list
    std::int64_t src = 0;
    std::vector<std::int64_t> dsts;
    Bytes bytes{0};
    Time earliest{};
    std::vector<std::int64_t> deps;
    Time compute_before{};
    std::int64_t src_address = 0;
    std::int64_t dst_address = 0;
    Combine combine = Combine::Store;
};

// Random point-to-point (or fan-out) traffic between compute TSPs: `count` transfers of `bytes` each, sources and
// destinations uniform over distinct compute TSPs, all ready at time 0. Each transfer after the first depends on
// one uniformly chosen earlier random transfer with probability `dependency_probability`. Sources are laid out
// one after another in the lower half of each TSP's memory (wrapping), destinations one after another in the
// upper half, never reused: no transfer writes bytes another reads or writes, so a run's final memory follows
// from the workload alone (a workload needing more than the upper half is an error at `count`).
struct RandomTransfers {
    std::int64_t count = 0;  // 0: no random transfers
    // 32 KiB = 103 vectors (102.4, the last one padded): a mid-sized tensor; any size may be set.
    Bytes bytes = Bytes(32 * 1024);
    std::int64_t seed = 1;
    std::int32_t fanout = 1;                // destinations per transfer
    double dependency_probability = 0.0;    // chance that a transfer depends on an earlier random one
};

struct TransferSetConfig {
    std::vector<TransferSpec> transfers;
    RandomTransfers random;
    CollectiveConfig collective;  // kind None: no collective; otherwise the only source of transfers
};

config::Schema<TransferSetConfig> transfer_set_schema();

// Peak memory, in bytes, that scheduling and running this workload takes (calibrated on the TSP model, within a
// factor of 2 for random transfers and all_to_all; other collectives count 0 beyond the base here). make_transfer_set
// refuses (InputError naming the workload's pointer) a workload whose estimate exceeds available_memory_bytes();
// the other collectives are refused while they are generated, as soon as their transfers so far exceed it.
std::int64_t estimate_memory_bytes(const TransferSetConfig& c, const topo::FrozenTopology& t,
                                   Bytes unit_payload = kDefaultVectorBytes);

// What one transfer of `vectors` vectors to `destinations` TSPs adds to that estimate.
std::int64_t transfer_memory_bytes(std::int64_t vectors, std::int64_t destinations);

// Builds the transfer set: a collective (make_collective) when one is given, else the explicit transfers (ids as
// given, else their position), then `random.count` random ones with ids following the largest explicit id. Validates it (see validate()) and throws ConfigError with every
// problem, each under `pointer` ("/workload/transfers/3/dsts/0: ...", "/workload/random/fanout: ...").
TransferSet make_transfer_set(const TransferSetConfig& c, const topo::FrozenTopology& t, const topo::ChipConfig& chip,
                              const std::string& pointer = "/workload", Bytes unit_payload = kDefaultVectorBytes);

// Random transfers as RandomTransfers describes, ids first_id, first_id + 1, ... Problems with the request (fewer
// compute TSPs than the fan-out needs) go to `errors` under `pointer` (the "random" object) and give an empty set.
TransferSet random_transfers(const RandomTransfers& r, const topo::FrozenTopology& t, const topo::ChipConfig& chip,
                             TransferId first_id, const std::string& pointer, config::Errors& errors,
                             Bytes unit_payload = kDefaultVectorBytes);

// Checks a transfer set against a topology: unique ids; every TSP in the topology and a compute TSP (spares forward
// but are never endpoints); at least one destination, none repeated, none equal to the source (self-transfer);
// bytes >= 1; a summing transfer has exactly one destination; dependencies name existing transfers and form no
// cycle; addresses non-negative and the tensor, padded to whole vectors, inside the chip's memory. Messages go to `errors` as
// "<pointer>/transfers/<position>/<field>: ...".
void validate(const TransferSet& s, const topo::FrozenTopology& t, const topo::ChipConfig& chip,
              const std::string& pointer, config::Errors& errors, Bytes unit_payload = kDefaultVectorBytes);

// Positions of the transfers in an order where every transfer comes after its `deps` and `after` (Kahn's algorithm,
// lowest position first among the ready ones). Requires a validated set (no cycles, known ids).
std::vector<std::size_t> topological_order(const TransferSet& s);

}  // namespace loom::workload
