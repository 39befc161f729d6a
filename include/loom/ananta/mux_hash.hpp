// How a Mux maps a connection to one DIP of an endpoint's weighted DIP list: a pluggable lookup-table builder.
// Every Mux of a pool builds the same table from the same list and hashes with the same seed, so any Mux that
// receives a connection's packets picks the same DIP.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
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

enum class MuxHashKind : std::uint8_t { Ananta };
std::unique_ptr<MuxHash> make_mux_hash(MuxHashKind kind);

}  // namespace loom::ananta
