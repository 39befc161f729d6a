#include "loom/ananta/hash_study.hpp"

#include <algorithm>

#include "loom/base/assert.hpp"
#include "loom/base/rng.hpp"

namespace loom::ananta {

namespace {

bool same(const WeightedDip& a, const WeightedDip& b) { return a.dip == b.dip && a.port == b.port; }

}  // namespace

BalanceResult load_balance(const MuxHash& hash, std::span<const WeightedDip> dips, std::uint64_t flows,
                           std::uint64_t seed) {
    const std::vector<std::uint32_t> table = hash.build(dips);
    BalanceResult r;
    r.connections.assign(dips.size(), 0);
    r.entries.assign(dips.size(), 0);
    for (std::uint32_t e : table) ++r.entries[e];
    for (std::uint64_t i = 0; i < flows; ++i) ++r.connections[table[derive(seed, i) % table.size()]];
    std::uint64_t total_weight = 0;
    for (const WeightedDip& d : dips) total_weight += d.weight;
    double worst = 0;
    for (std::size_t i = 0; i < dips.size(); ++i) {
        const double fair = static_cast<double>(flows) * dips[i].weight / static_cast<double>(total_weight);
        if (fair > 0) worst = std::max(worst, static_cast<double>(r.connections[i]) / fair);
    }
    r.max_over_mean = worst;
    return r;
}

DisruptionResult disruption(const MuxHash& hash, std::span<const WeightedDip> before,
                            std::span<const WeightedDip> after, std::span<const std::uint64_t> hashes) {
    const std::vector<std::uint32_t> tb = hash.build(before);
    const std::vector<std::uint32_t> ta = hash.build(after);
    DisruptionResult r;
    r.flows = hashes.size();
    for (std::uint64_t h : hashes) {
        const WeightedDip& b = before[tb[h % tb.size()]];
        const WeightedDip& a = after[ta[h % ta.size()]];
        if (same(a, b)) continue;
        ++r.moved;
        if (std::none_of(after.begin(), after.end(), [&](const WeightedDip& d) { return same(d, b); })) ++r.forced;
    }
    return r;
}

DisruptionResult disruption(const MuxHash& hash, std::span<const WeightedDip> before,
                            std::span<const WeightedDip> after, std::uint64_t flows, std::uint64_t seed) {
    std::vector<std::uint64_t> hashes(flows);
    for (std::uint64_t i = 0; i < flows; ++i) hashes[i] = derive(seed, i);
    return disruption(hash, before, after, hashes);
}

std::uint64_t entries_changed(std::span<const std::uint32_t> table_before, std::span<const WeightedDip> before,
                              std::span<const std::uint32_t> table_after, std::span<const WeightedDip> after) {
    LOOM_ASSERT(table_before.size() == table_after.size(), "entries_changed compares tables of equal size");
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < table_before.size(); ++i)
        if (!same(before[table_before[i]], after[table_after[i]])) ++n;
    return n;
}

std::vector<WeightedDip> study_dips(std::uint32_t count) {
    std::vector<WeightedDip> v;
    for (std::uint32_t i = 0; i < count; ++i) v.push_back(WeightedDip{ip(10, i >> 8, i & 0xff, 10), 8080, ip(10, i >> 8, i & 0xff, 1), 1});
    return v;
}

std::vector<HashStudyRow> hashing_study(const HashStudySpec& spec) {
    LOOM_ASSERT(spec.dips > 0, "the study needs DIPs");
    LOOM_ASSERT(spec.change > -static_cast<std::int32_t>(spec.dips), "a change must leave a DIP");
    const std::uint32_t after_count = static_cast<std::uint32_t>(static_cast<std::int32_t>(spec.dips) + spec.change);
    const std::vector<WeightedDip> all = study_dips(std::max(spec.dips, after_count));
    const std::span<const WeightedDip> before(all.data(), spec.dips);
    const std::span<const WeightedDip> after(all.data(), after_count);
    std::vector<HashStudyRow> rows;
    auto row = [&](const MuxHash& h, MuxHashKind kind, std::uint32_t size) {
        HashStudyRow r;
        r.kind = kind;
        r.table_size = size;
        r.dips = spec.dips;
        r.change = spec.change;
        r.max_over_mean = load_balance(h, before, spec.flows, spec.seed).max_over_mean;
        const DisruptionResult d = disruption(h, before, after, spec.flows, spec.seed);
        r.disrupted_share = d.share();
        r.forced_share = d.forced_share();
        rows.push_back(r);
    };
    row(AnantaHash{}, MuxHashKind::Ananta, spec.dips);
    for (std::uint32_t m : spec.maglev_table_sizes) row(MaglevHash{m}, MuxHashKind::Maglev, m);
    return rows;
}

}  // namespace loom::ananta
