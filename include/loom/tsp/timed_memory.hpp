// A TSP's local memory as the executor sees it: a sparse map from vector slot to one int64 value per vector, each
// write carrying the logical instant it takes effect, so that reads see exactly the writes before them in
// whichever order the two execution modes (per vector, per train) happen to log them.
#pragma once

#include <cstdint>
#include <compare>
#include <map>
#include <utility>
#include <vector>

#include "loom/base/units.hpp"

namespace loom::tsp {

// The values of a run of consecutive vectors: (offset within the run, value), sorted by offset; vectors not
// listed hold 0. Memory starts at 0 everywhere, so runs of untouched data cost nothing.
using SparseValues = std::vector<std::pair<std::uint32_t, std::int64_t>>;

// The logical instant of a memory access: a time and, for accesses at the same time, the program index of the
// instruction making it (instructions of one TSP at one instant act in program order). Keys order
// lexicographically.
struct AccessKey {
    Time time;
    std::uint32_t order = 0;
    friend auto operator<=>(const AccessKey&, const AccessKey&) = default;
};

// Slots are byte address / vector size, rounded down (a vector at an unaligned address is kept in the slot it
// starts in). Contract: a read at key r returns the value of the latest write with key < r (initial contents
// count as written before everything). Writes may be logged before their key's time (a train's later vectors
// are known early) but every write with key < r must have been logged before the read is made; the executor
// guarantees that by reading only at the instant an instruction acts. `now` (the simulator's time) lets a slot
// forget versions no read can see any more: reads are never made at a time before `now`.
class TimedMemory {
public:
    // Initial contents of vector slot `slot` (address / vector size).
    void init(std::int64_t slot, std::int64_t value);
    // Logs a write of `value` to `slot` taking effect at `key`. A second write at the same key replaces it.
    void write(std::int64_t slot, AccessKey key, std::int64_t value, Time now);
    // The value of `slot` seen at `key`.
    std::int64_t read(std::int64_t slot, AccessKey key, Time now);
    // The non-zero values of slots [first, first + count) seen at `key`, as offsets from `first`.
    void read_range(std::int64_t first, std::int64_t count, AccessKey key, Time now, SparseValues& out);
    // True if no slot in [first, first + count) was ever initialised or written with a non-zero value (writing
    // zeros there can then be skipped: they change nothing).
    bool untouched(std::int64_t first, std::int64_t count) const;
    // The value after every logged write (the end of the run).
    std::int64_t final_value(std::int64_t slot) const;
    // Slots with a cell, in slot order, and their final values (zeros included where a cell was written 0).
    std::vector<std::pair<std::int64_t, std::int64_t>> final_contents() const;
    std::size_t cells() const { return cells_; }

private:
    // One version of one slot; versions order by (slot, key), so a slot's history is contiguous. One map node per
    // version (almost always one or two per slot).
    struct VersionKey {
        std::int64_t slot = 0;
        AccessKey key;
        friend auto operator<=>(const VersionKey&, const VersionKey&) = default;
    };
    using Versions = std::map<VersionKey, std::int64_t>;
    // The latest version of `slot` with key < `key` (end() if none).
    Versions::const_iterator before(std::int64_t slot, AccessKey key) const;
    void prune(std::int64_t slot, Time now);

    Versions versions_;
    std::size_t cells_ = 0;
};

}  // namespace loom::tsp
