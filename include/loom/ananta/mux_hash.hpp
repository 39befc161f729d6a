// How a Mux maps a connection to one DIP of an endpoint's weighted DIP list: a pluggable lookup-table builder.
// Every Mux of a pool builds the same table from the same list and hashes with the same seed, so any Mux that
// receives a connection's packets picks the same DIP.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "loom/ananta/ip_packet.hpp"

namespace loom::ananta {

// One back end of an endpoint: the DIP, its port, the address of the host whose Host Agent serves it, and
// its weight (> 0).
struct WeightedDip {
    IpAddr dip = 0;
    std::uint16_t port = 0;
    IpAddr host = 0;
    std::uint32_t weight = 1;
    bool operator==(const WeightedDip&) const = default;
};

// Contract: build() is a pure function of the DIP list (order included) and returns a non-empty table whose
// entries are indices into `dips`; a connection with tuple hash h goes to dips[table[h mod table.size()]].
// Implementations may not keep state between calls or draw random numbers: two Muxes given the same list must
// build identical tables. The list is non-empty with positive weights (the caller checks).
class MuxHash {
public:
    virtual ~MuxHash() = default;
    virtual std::string_view name() const = 0;
    virtual std::vector<std::uint32_t> build(std::span<const WeightedDip> dips) const = 0;
};

// Ananta's scheme: the DIP list expanded by weight (DIP i repeated weight_i times, in list order), indexed
// by the hash modulo the total weight. A change of the list remaps most connections (the table is modulo-N).
class AnantaHash final : public MuxHash {
public:
    std::string_view name() const override { return "ananta"; }
    std::vector<std::uint32_t> build(std::span<const WeightedDip> dips) const override;
};

// Maglev hashing (Eisenbud et al., NSDI 2016): a table of M entries (M prime) that every back end fills by
// walking its own permutation of the slots (offset + j*skip mod M, both drawn from the DIP's identity), taking
// turns. Removing a back end moves its own entries and few others, unlike the modulo-N Ananta table.
// Weights: DIP i gets a quota of M*w_i/W entries (floor, the remainder one each to the largest fractional parts,
// ties to the lower index) and the turns skip a DIP whose quota is full, so counts are proportional to weight
// within one (with equal weights, within one of each other). Contract as MuxHash; M >= the number of DIPs.
class MaglevHash final : public MuxHash {
public:
    // Published default: 65,537 entries (a prime well above 100 times the back ends of a typical service).
    static constexpr std::uint32_t kDefaultTableSize = 65'537;
    explicit MaglevHash(std::uint32_t table_size = kDefaultTableSize);
    std::string_view name() const override { return "maglev"; }
    std::vector<std::uint32_t> build(std::span<const WeightedDip> dips) const override;
    std::uint32_t table_size() const { return table_size_; }

    // Each DIP's quota of a table of `table_size` entries, as described above.
    static std::vector<std::uint32_t> quotas(std::span<const std::uint32_t> weights, std::uint32_t table_size);
    // The population step on explicit permutations (offset_i, skip_i with 0 < skip_i < M) and quotas summing to
    // M; what build() runs after drawing the permutations. Exposed so small cases can be checked by hand.
    static std::vector<std::uint32_t> populate(std::span<const std::uint32_t> offsets,
                                               std::span<const std::uint32_t> skips,
                                               std::span<const std::uint32_t> quotas, std::uint32_t table_size);
    // The permutation of one DIP: offset = h1 mod M, skip = h2 mod (M-1) + 1, from its (DIP, port).
    static std::pair<std::uint32_t, std::uint32_t> permutation(const WeightedDip& dip, std::uint32_t table_size);

private:
    std::uint32_t table_size_;
};

bool is_prime(std::uint64_t n);

enum class MuxHashKind : std::uint8_t { Ananta, Maglev };
// `table_size` is used by Maglev only (a prime).
std::unique_ptr<MuxHash> make_mux_hash(MuxHashKind kind, std::uint32_t table_size = MaglevHash::kDefaultTableSize);

}  // namespace loom::ananta
