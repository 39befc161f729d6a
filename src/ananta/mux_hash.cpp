#include "loom/ananta/mux_hash.hpp"

#include "loom/base/assert.hpp"

namespace loom::ananta {

std::vector<std::uint32_t> AnantaHash::build(std::span<const WeightedDip> dips) const {
    LOOM_ASSERT(!dips.empty(), "a DIP list must not be empty");
    std::vector<std::uint32_t> table;
    for (std::size_t i = 0; i < dips.size(); ++i) {
        LOOM_ASSERT(dips[i].weight > 0, "DIP weights must be positive");
        table.insert(table.end(), dips[i].weight, static_cast<std::uint32_t>(i));
    }
    return table;
}

std::unique_ptr<MuxHash> make_mux_hash(MuxHashKind kind) {
    switch (kind) {
        case MuxHashKind::Ananta: return std::make_unique<AnantaHash>();
    }
    return std::make_unique<AnantaHash>();
}

}  // namespace loom::ananta
