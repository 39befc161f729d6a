#include "loom/ananta/mux_hash.hpp"

#include <algorithm>

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

bool is_prime(std::uint64_t n) {
    if (n < 2) return false;
    for (std::uint64_t d = 2; d * d <= n; ++d)
        if (n % d == 0) return false;
    return true;
}

MaglevHash::MaglevHash(std::uint32_t table_size) : table_size_(table_size) {
    LOOM_ASSERT(is_prime(table_size), "the Maglev table size must be prime");
}

std::vector<std::uint32_t> MaglevHash::quotas(std::span<const std::uint32_t> weights, std::uint32_t table_size) {
    std::uint64_t total = 0;
    for (std::uint32_t w : weights) total += w;
    LOOM_ASSERT(total > 0, "weights must be positive");
    std::vector<std::uint32_t> q(weights.size());
    std::vector<std::uint64_t> rem(weights.size());
    std::uint64_t given = 0;
    for (std::size_t i = 0; i < weights.size(); ++i) {
        const std::uint64_t num = std::uint64_t{table_size} * weights[i];
        q[i] = static_cast<std::uint32_t>(num / total);
        rem[i] = num % total;
        given += q[i];
    }
    // The remainder, one entry each, to the largest fractional parts (ties to the lower index).
    std::vector<std::size_t> order(weights.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rem[a] > rem[b]; });
    for (std::size_t k = 0; given < table_size; ++k, ++given) ++q[order[k]];
    return q;
}

std::vector<std::uint32_t> MaglevHash::populate(std::span<const std::uint32_t> offsets,
                                                std::span<const std::uint32_t> skips,
                                                std::span<const std::uint32_t> quotas, std::uint32_t table_size) {
    const std::size_t n = offsets.size();
    LOOM_ASSERT(skips.size() == n && quotas.size() == n, "one offset, skip and quota per back end");
    constexpr std::uint32_t kEmpty = 0xffffffffU;
    std::vector<std::uint32_t> table(table_size, kEmpty);
    std::vector<std::uint64_t> next(n, 0);  // how far along its permutation each back end is
    std::vector<std::uint32_t> placed(n, 0);
    std::uint32_t filled = 0;
    while (filled < table_size) {
        bool progress = false;
        for (std::size_t i = 0; i < n && filled < table_size; ++i) {
            if (placed[i] >= quotas[i]) continue;
            std::uint32_t slot = 0;
            do {
                slot = static_cast<std::uint32_t>((offsets[i] + next[i] * skips[i]) % table_size);
                ++next[i];
            } while (table[slot] != kEmpty);
            table[slot] = static_cast<std::uint32_t>(i);
            ++placed[i];
            ++filled;
            progress = true;
        }
        LOOM_ASSERT(progress, "Maglev quotas must sum to the table size");
    }
    return table;
}

std::pair<std::uint32_t, std::uint32_t> MaglevHash::permutation(const WeightedDip& dip, std::uint32_t table_size) {
    const std::uint64_t id = (std::uint64_t{dip.dip} << 16) | dip.port;
    const std::uint64_t h1 = mix64(id ^ 0x9e3779b97f4a7c15ULL);
    const std::uint64_t h2 = mix64(id ^ 0xc2b2ae3d27d4eb4fULL);
    return {static_cast<std::uint32_t>(h1 % table_size), static_cast<std::uint32_t>(h2 % (table_size - 1) + 1)};
}

std::vector<std::uint32_t> MaglevHash::build(std::span<const WeightedDip> dips) const {
    LOOM_ASSERT(!dips.empty(), "a DIP list must not be empty");
    LOOM_ASSERT(dips.size() <= table_size_, "the Maglev table must have at least one entry per DIP");
    std::vector<std::uint32_t> offsets, skips, weights;
    for (const WeightedDip& d : dips) {
        LOOM_ASSERT(d.weight > 0, "DIP weights must be positive");
        const auto [o, k] = permutation(d, table_size_);
        offsets.push_back(o);
        skips.push_back(k);
        weights.push_back(d.weight);
    }
    return populate(offsets, skips, quotas(weights, table_size_), table_size_);
}

std::unique_ptr<MuxHash> make_mux_hash(MuxHashKind kind, std::uint32_t table_size) {
    switch (kind) {
        case MuxHashKind::Ananta: return std::make_unique<AnantaHash>();
        case MuxHashKind::Maglev: return std::make_unique<MaglevHash>(table_size);
    }
    return std::make_unique<AnantaHash>();
}

}  // namespace loom::ananta
