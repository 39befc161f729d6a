// A TSP's local memory as the executor sees it: one int64 value per vector slot, each write carrying the logical
// instant it takes effect, so that reads see exactly the writes before them in whichever order the two execution
// modes (per vector, per train) happen to log them.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <limits>
#include <memory>
#include <unordered_map>
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
// starts in), from 0 to 2^31 - 1. Contract: a read at key r returns the value of the latest write with key < r
// (initial contents count as written before everything). Writes may be logged before their key's time (a train's
// later vectors are known early) but every write with key < r must have been logged before the read is made; the
// executor guarantees that by reading only at the instant an instruction acts. `now` (the simulator's time) lets
// the memory settle versions no read can see any more: reads are never made at a time before `now`, and writes
// are never logged with a key time before `now - max_lag` (a write that is throws std::logic_error).
//
// Layout (sized for tens of millions of slots): slots live in pages of 256, each a flat array of settled values
// and two bit masks (slot has a cell; slot has unsettled versions), allocated one at a time (no growth slack); a
// directory indexed by page number finds a page. Versions not yet settled (key time at or after now - max_lag)
// sit in a pool of 24-byte entries allocated in chunks, linked per slot in key order from a head kept in a hash
// map by slot (only slots with writes in flight have one: the executor applies its writes as they land and never
// makes versions); a heap by key settles them into the page as time passes, so memory holds 8 bytes per slot plus
// the writes in flight.
class TimedMemory {
public:
    // max_lag: how far before `now` a write's key may lie; Time::max() keeps every version unsettled (exact for
    // any order of calls, memory grows with every write).
    explicit TimedMemory(Time max_lag = Time::max()) : max_lag_(max_lag) {}

    // Initial contents of vector slot `slot` (address / vector size).
    void init(std::int64_t slot, std::int64_t value);
    // init(first + k, values[k]) for k in [0, count), finding each page once (the data check seeds millions of
    // slots in runs).
    void init_range(std::int64_t first, const std::int64_t* values, std::int64_t count);
    // Logs a write of `value` to `slot` taking effect at `key`. A second write at the same key replaces it.
    void write(std::int64_t slot, AccessKey key, std::int64_t value, Time now);
    // For a caller that keeps its writes until they land and applies them in key order, after every read with a
    // smaller key and before every read with a larger one: sets the value every later read sees, with no version
    // (the slot must have none). A zero on a slot without a cell changes nothing, as with write().
    void apply(std::int64_t slot, std::int64_t value);
    // apply(first + k, values[k]) for k in [0, count), finding each page once.
    void apply_range(std::int64_t first, const std::int64_t* values, std::int64_t count);
    // Gives `slot` a cell now (holding its current value) for a non-zero write that such a caller applies later,
    // so that untouched() and cells() count it from the instant it is logged, as write() would.
    void touch(std::int64_t slot);
    // touch(first + k) for every k with values[k] != 0, finding each page once (a part's values, in slot order).
    void touch_nonzero(std::int64_t first, const std::vector<std::int64_t>& values);
    // The value of `slot` seen at `key`.
    std::int64_t read(std::int64_t slot, AccessKey key, Time now);
    // The non-zero values of slots [first, first + count) seen at `key`, as offsets from `first`.
    void read_range(std::int64_t first, std::int64_t count, AccessKey key, Time now, SparseValues& out);
    // True if no slot in [first, first + count) was ever initialised or written with a non-zero value (writing
    // zeros there can then be skipped: they change nothing).
    bool untouched(std::int64_t first, std::int64_t count) const;
    // The value after every logged write (the end of the run).
    std::int64_t final_value(std::int64_t slot) const;
    // out[k] = final_value(first + k) for k in [0, count), finding each page once.
    void final_range(std::int64_t first, std::int64_t count, std::int64_t* out) const;
    // Slots with a cell, in slot order, and their final values (zeros included where a cell was written 0).
    std::vector<std::pair<std::int64_t, std::int64_t>> final_contents() const;
    // Where a read of `slot` looks first, for prefetching: its settled value and its page's cell bits (nullptr
    // for a slot without a page, or outside [0, 2^31)). Reads the page directory only.
    struct SlotLines {
        const void* value = nullptr;
        const void* cells = nullptr;
    };
    SlotLines lines_of(std::int64_t slot) const {
        if (slot < 0 || slot > std::int64_t{0x7fffffff}) return {};
        const Page* p = page_of(static_cast<std::uint32_t>(slot));
        if (p == nullptr) return {};
        return {&p->value[static_cast<std::size_t>(slot & (kPageSlots - 1))], &p->cell};
    }
    std::size_t cells() const { return cells_; }
    // Versions not yet settled (for tests: they are bounded by the writes in flight, not by the run's length).
    std::size_t unsettled() const { return live_versions_; }
    // Bytes held (pages, directory, version pool, tables).
    std::size_t bytes() const;

private:
    static constexpr int kPageBits = 8;
    static constexpr std::int64_t kPageSlots = std::int64_t{1} << kPageBits;
    static constexpr std::uint32_t kNone = 0xffffffffu;
    struct Page {
        std::array<std::int64_t, kPageSlots> value{};  // the settled value (0 for a slot without a cell)
        std::array<std::uint64_t, kPageSlots / 64> cell{};
        std::array<std::uint64_t, kPageSlots / 64> unsettled{};
    };
    struct Version {  // an AccessKey's fields laid out flat: 24 bytes, not 32
        Time time;
        std::int64_t value = 0;
        std::uint32_t order = 0;
        std::uint32_t next = kNone;  // the slot's next version by key, or the free list
        AccessKey key() const { return {time, order}; }
    };
    static constexpr std::uint32_t kChunkBits = 10;  // versions per pool chunk: 2^10 (24 KiB)
    // Heap entry: slots [first, last] hold versions to settle once `time` (their latest key time) falls below
    // now - max_lag. A train's writes to consecutive slots share one entry; settling later than possible is
    // always allowed, so an entry may outlive the versions it was made for.
    struct Due {
        Time time;
        std::uint32_t first = 0;
        std::uint32_t last = 0;
        friend auto operator<=>(const Due&, const Due&) = default;
    };

    static std::uint32_t checked_slot(std::int64_t slot) {
        if (slot < 0 || slot > std::int64_t{0x7fffffff}) [[unlikely]]
            throw_outside(slot);
        return static_cast<std::uint32_t>(slot);
    }
    [[noreturn, gnu::cold, gnu::noinline]] static void throw_outside(std::int64_t slot);
    static bool bit(const std::array<std::uint64_t, kPageSlots / 64>& m, std::uint32_t i) {
        return (m[i >> 6] >> (i & 63)) & 1u;
    }
    static void set_bit(std::array<std::uint64_t, kPageSlots / 64>& m, std::uint32_t i, bool on) {
        const std::uint64_t b = std::uint64_t{1} << (i & 63);
        m[i >> 6] = on ? (m[i >> 6] | b) : (m[i >> 6] & ~b);
    }
    Page* page_of(std::uint32_t slot);
    const Page* page_of(std::uint32_t slot) const;
    Page& page_for(std::uint32_t slot);
    Version& version(std::uint32_t v) { return chunks_[v >> kChunkBits][v & ((1u << kChunkBits) - 1)]; }
    const Version& version(std::uint32_t v) const {
        return chunks_[v >> kChunkBits][v & ((1u << kChunkBits) - 1)];
    }
    std::uint32_t new_version(AccessKey key, std::int64_t value);
    void free_version(std::uint32_t v);
    // Moves versions with key time < now - max_lag into their pages.
    void settle(Time now);
    // Settles the versions of `slot` with key time < horizon_.
    void settle_slot(std::uint32_t slot);
    void flush_batch();
    // Drops every unsettled version of `slot`.
    void drop_versions(std::uint32_t slot);
    // Value of a slot that has a cell, seen at `key`.
    std::int64_t value_at(const Page& p, std::uint32_t slot, AccessKey key) const;

    Time max_lag_;
    Time horizon_ = Time::ps(std::numeric_limits<std::int64_t>::min());  // every version with key time < horizon_ is settled
    std::vector<std::uint32_t> directory_;  // page number -> 1 + index into pages_ (0: no page)
    std::vector<std::unique_ptr<Page>> pages_;
    std::unordered_map<std::uint32_t, std::uint32_t> first_;  // slot -> its first unsettled version, where `unsettled`
    std::vector<std::unique_ptr<Version[]>> chunks_;  // the version pool
    std::uint32_t pool_size_ = 0;                       // versions ever allocated (free ones are listed in free_)
    std::uint32_t free_ = kNone;
    std::vector<Due> due_;  // min-heap
    Due batch_;             // the entry being extended by consecutive writes, not yet in due_
    bool batching_ = false;
    std::size_t cells_ = 0;
    std::size_t live_versions_ = 0;
};

}  // namespace loom::tsp
