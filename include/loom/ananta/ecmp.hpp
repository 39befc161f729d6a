// ECMP next-hop selection for the data-center routers: a flow's hash picks one of a set of equal-cost next
// hops, by modulo-N or by resilient (bucketed) hashing, behind one small interface; and the share of flows
// that move when the next-hop set changes, the measure by which the two are compared.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "loom/config/schema.hpp"

namespace loom::ananta {

// Next hops are named by the caller (a port number, a Mux index); the selector only stores them.
using NextHop = std::uint32_t;

enum class EcmpMode : std::uint8_t { ModuloN, Resilient };

// Contract: select() is a pure function of (the current next-hop set, the flow hash); it never changes state,
// so every packet of a flow takes the same next hop until set_next_hops() is called. set_next_hops() takes
// the new set in the order the router lists it (modulo-N depends on that order; resilient does not).
// An empty set is allowed: select() must then not be called (asserted in debug builds).
class EcmpSelector {
public:
    virtual ~EcmpSelector() = default;
    virtual void set_next_hops(std::span<const NextHop> hops) = 0;
    virtual NextHop select(std::uint64_t flow_hash) const = 0;
    virtual std::size_t size() const = 0;
    virtual std::unique_ptr<EcmpSelector> clone() const = 0;
};

// hops[hash mod n]: a change of n remaps almost every flow (removing one of n moves about 1 - 1/n of them).
class ModuloEcmp final : public EcmpSelector {
public:
    void set_next_hops(std::span<const NextHop> hops) override { hops_.assign(hops.begin(), hops.end()); }
    NextHop select(std::uint64_t flow_hash) const override;
    std::size_t size() const override { return hops_.size(); }
    std::unique_ptr<EcmpSelector> clone() const override { return std::make_unique<ModuloEcmp>(*this); }

private:
    std::vector<NextHop> hops_;
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
    NextHop select(std::uint64_t flow_hash) const override;
    std::size_t size() const override { return hops_.size(); }
    std::unique_ptr<EcmpSelector> clone() const override { return std::make_unique<ResilientEcmp>(*this); }
    const std::vector<NextHop>& buckets() const { return buckets_; }

private:
    std::uint32_t bucket_count_;
    bool pow2_ = false;  // bucket_count_ is a power of two: a mask, not a division
    std::vector<NextHop> hops_;     // sorted, unique
    std::vector<NextHop> buckets_;  // empty until the first non-empty set
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
