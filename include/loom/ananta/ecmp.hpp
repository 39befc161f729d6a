// ECMP next-hop selection for the data-center routers: a flow's hash picks one of a set of equal-cost next
// hops, by modulo-N or by resilient (bucketed) hashing, behind one small interface; and the share of flows
// that move when the next-hop set changes, the measure by which the two are compared.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "loom/base/assert.hpp"
#include "loom/config/schema.hpp"

namespace loom::ananta {

// Next hops are named by the caller (a port number, a Mux index); the selector only stores them.
using NextHop = std::uint32_t;

enum class EcmpMode : std::uint8_t { ModuloN, Resilient };

// Contract: select() is a pure function of (the current next-hop set, the flow hash); it never changes state,
// so every packet of a flow takes the same next hop until set_next_hops() is called. set_next_hops() takes
// the new set in the order the router lists it (modulo-N depends on that order; resilient does not).
// An empty set is allowed: select() must then not be called (asserted in debug builds).
// Both kinds select table[hash mod table size] (modulo-N: the hops; resilient: its buckets), so select() and
// size() are plain inline reads of the base (every ECMP choice of a router hop calls them); a power-of-two
// table takes a mask instead of a division (the same value).
// What EcmpSelector::select reads, copied out (EcmpSelector::view) for a caller that keeps it among its own
// per-packet fields: select() gives the selector's answer until the selector's next hops change (take a new view
// then). The selector's select() is this one. 24 bytes.
struct EcmpView {
    // The selection table: NextHop entries, or bytes (`bytes`) when every hop is below 256 (a 256-bucket table
    // is then 4 cache lines, not 16: a router's ECMP choice reads one of them).
    const void* table = nullptr;
    std::uint64_t mask = 0;       // table size - 1 when pow2, else the table size
    std::uint32_t hops = 0;       // EcmpSelector::size()
    bool pow2 = false;
    bool bytes = false;
    std::size_t size() const { return hops; }
    NextHop select(std::uint64_t flow_hash) const {
        LOOM_DEBUG_ASSERT(table != nullptr, "ECMP select with no next hop");
        const auto i = static_cast<std::size_t>(pow2 ? flow_hash & mask : flow_hash % mask);
        return bytes ? static_cast<const std::uint8_t*>(table)[i] : static_cast<const NextHop*>(table)[i];
    }
};

class EcmpSelector {
public:
    virtual ~EcmpSelector() = default;
    virtual void set_next_hops(std::span<const NextHop> hops) = 0;
    NextHop select(std::uint64_t flow_hash) const { return view().select(flow_hash); }
    // Next hops in the set (distinct ones for resilient hashing).
    std::size_t size() const { return hop_count_; }
    EcmpView view() const {
        if (table_.empty()) return EcmpView{};
        return EcmpView{small_.empty() ? static_cast<const void*>(table_.data()) : small_.data(),
                        pow2_ ? mask_ : static_cast<std::uint64_t>(table_.size()),
                        static_cast<std::uint32_t>(hop_count_), pow2_, !small_.empty()};
    }
    virtual std::unique_ptr<EcmpSelector> clone() const = 0;

protected:
    // Installs the selection table and the hop count (select() picks table[hash mod table.size()]).
    void set_table(std::vector<NextHop> table, std::size_t hop_count);
    const std::vector<NextHop>& table() const { return table_; }

private:
    std::vector<NextHop> table_;
    std::vector<std::uint8_t> small_;  // table_ in bytes when every entry is below 256, else empty
    std::uint64_t mask_ = 0;  // table_.size() - 1 when pow2_
    std::size_t hop_count_ = 0;
    bool pow2_ = false;  // table_.size() is a power of two
};

// hops[hash mod n]: a change of n remaps almost every flow (removing one of n moves about 1 - 1/n of them).
class ModuloEcmp final : public EcmpSelector {
public:
    void set_next_hops(std::span<const NextHop> hops) override {
        set_table(std::vector<NextHop>(hops.begin(), hops.end()), hops.size());
    }
    std::unique_ptr<EcmpSelector> clone() const override { return std::make_unique<ModuloEcmp>(*this); }
};

// A table of B buckets, bucket = hash mod B, each bucket holding a next hop. When the set changes, only the
// buckets that must move do: a removed hop's buckets go to the hops furthest below their fair share, and an
// added hop takes buckets from the hops furthest above theirs, so every hop ends with floor or ceil of B/n.
// Removing one of n moves 1/n of the flows (exactly, when n divides B). Deterministic: ties break by the
// hop's position in the sorted hop list and by bucket index.
class ResilientEcmp final : public EcmpSelector {
public:
    explicit ResilientEcmp(std::uint32_t buckets);
    void set_next_hops(std::span<const NextHop> hops) override;
    std::unique_ptr<EcmpSelector> clone() const override { return std::make_unique<ResilientEcmp>(*this); }
    // The bucket table (empty until the first non-empty set).
    const std::vector<NextHop>& buckets() const { return table(); }
    std::uint32_t bucket_count() const { return bucket_count_; }

private:
    std::uint32_t bucket_count_;
    std::vector<NextHop> hops_;  // sorted, unique
};

// The "ecmp" parameters of a router tier.
struct EcmpConfig {
    EcmpMode mode = EcmpMode::Resilient;
    // Not published for the routers Ananta ran behind: 256 buckets, a common size of resilient-hashing
    // tables in data-center switches (granularity 1/256 of the flows).
    std::int64_t buckets = 256;
    // Seed of the flow hash routers use; the same on every router of a tier unless configured otherwise.
    std::int64_t hash_seed = 7;
};
config::Schema<EcmpConfig> ecmp_schema();

std::unique_ptr<EcmpSelector> make_ecmp(const EcmpConfig& config);

// Share of `flow_hashes` whose next hop differs between `before` and `after` (0 when there are none).
double share_moved(const EcmpSelector& before, const EcmpSelector& after, std::span<const std::uint64_t> flow_hashes);
// The same over `flows` deterministic pseudo-random hashes (sub-streams of `seed`).
double share_moved(const EcmpSelector& before, const EcmpSelector& after, std::uint64_t flows, std::uint64_t seed);
// What a router reports when its next-hop set changes: applies `hops` to `selector` and returns the share of
// `flows` sampled hashes (sub-streams of `seed`) that now take another next hop.
double change_next_hops(EcmpSelector& selector, std::span<const NextHop> hops, std::uint64_t flows, std::uint64_t seed);

}  // namespace loom::ananta
