// The hashing study as library functions: how evenly a MuxHash spreads connections over DIPs, and what share
// of connections change DIP when DIPs are added or removed, for Ananta's table and Maglev's over table sizes.
// Connections are sampled as deterministic pseudo-random tuple hashes (sub-streams of a seed).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/ananta/mux_hash.hpp"
#include "loom/config/schema.hpp"

namespace loom::ananta {

struct BalanceResult {
    std::vector<std::uint64_t> connections;  // per DIP, in list order
    std::vector<std::uint64_t> entries;      // table entries per DIP
    double max_over_mean = 0;                // busiest DIP's connections over the weight-fair count (1 = ideal)
};
// Spreads `flows` sampled connections over `dips` through `hash`'s table.
BalanceResult load_balance(const MuxHash& hash, std::span<const WeightedDip> dips, std::uint64_t flows,
                           std::uint64_t seed);

struct DisruptionResult {
    std::uint64_t flows = 0;
    std::uint64_t moved = 0;   // connections whose DIP (address and port) differs after the change
    std::uint64_t forced = 0;  // of those, connections whose DIP was removed (no scheme can keep them)
    double share() const { return flows == 0 ? 0.0 : static_cast<double>(moved) / static_cast<double>(flows); }
    double forced_share() const {
        return flows == 0 ? 0.0 : static_cast<double>(forced) / static_cast<double>(flows);
    }
};
// Connections disrupted when the DIP list changes from `before` to `after` (a DIP is its address and port).
DisruptionResult disruption(const MuxHash& hash, std::span<const WeightedDip> before,
                            std::span<const WeightedDip> after, std::uint64_t flows, std::uint64_t seed);
// The same over explicit tuple hashes (small cases checked by hand).
DisruptionResult disruption(const MuxHash& hash, std::span<const WeightedDip> before,
                            std::span<const WeightedDip> after, std::span<const std::uint64_t> hashes);
// Table entries whose DIP differs between two tables of equal size (exact, no sampling).
std::uint64_t entries_changed(std::span<const std::uint32_t> table_before, std::span<const WeightedDip> before,
                              std::span<const std::uint32_t> table_after, std::span<const WeightedDip> after);

// One study row: a scheme at one table size, balance over `dips` and disruption by the change.
struct HashStudyRow {
    MuxHashKind kind = MuxHashKind::Ananta;
    std::uint32_t table_size = 0;  // Ananta: the total weight
    std::uint32_t dips = 0;
    std::int32_t change = 0;  // DIPs added (> 0) or removed (< 0)
    double max_over_mean = 0;
    double disrupted_share = 0;
    double forced_share = 0;  // the least any scheme must disrupt
};
struct HashStudySpec {
    std::uint32_t dips = 10;
    std::int32_t change = -1;                      // removes the last DIPs, or adds new ones at the end
    std::vector<std::uint32_t> maglev_table_sizes;  // primes
    std::uint64_t flows = 100'000;
    std::uint64_t seed = 1;
};
// Equal-weight DIPs 10.0.i.10:8080 on hosts 10.0.i.1 (i from 0); row 0 is Ananta, then Maglev per size.
std::vector<WeightedDip> study_dips(std::uint32_t count);
std::vector<HashStudyRow> hashing_study(const HashStudySpec& spec);

// The "hash_study" config section of the data-center run: at the end of the run, the study over one VIP's DIP
// list (weights included), for Ananta's table and Maglev's at each table size.
struct HashStudyConfig {
    bool enabled = false;
    std::int64_t vip = 0;        // position in vips
    std::int64_t flows = 100'000;  // sampled connections
    std::int64_t remove = 1;     // DIPs removed from the end of the list
    std::int64_t add = 1;        // new DIPs added at the end (weight 1)
    std::vector<std::int64_t> maglev_table_sizes;  // primes, studied besides the pool's mux.maglev_table_size
};
config::Schema<HashStudyConfig> hash_study_schema();

// One scheme at one table size over the study's DIP list.
struct HashStudyCase {
    MuxHashKind kind = MuxHashKind::Ananta;
    std::uint32_t table_size = 0;  // Ananta: the total weight
    BalanceResult balance;
    DisruptionResult removed;  // the last `remove` DIPs removed
    DisruptionResult added;    // `add` DIPs added
};
// Ananta first, then Maglev at each size; connections are derive(seed, i) for i < flows.
std::vector<HashStudyCase> run_hash_study(std::span<const WeightedDip> dips, const HashStudyConfig& config,
                                          std::span<const std::uint32_t> maglev_sizes, std::uint64_t seed);

}  // namespace loom::ananta
