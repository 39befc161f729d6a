#include "loom/ananta/hash_study.hpp"

#include <algorithm>
#include <string>

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

std::vector<HashStudyCase> run_hash_study(std::span<const WeightedDip> dips, const HashStudyConfig& config,
                                          std::span<const std::uint32_t> maglev_sizes, std::uint64_t seed) {
    LOOM_ASSERT(!dips.empty(), "the study needs DIPs");
    LOOM_ASSERT(config.remove >= 0 && config.remove < static_cast<std::int64_t>(dips.size()),
                "a removal must leave a DIP");
    const std::vector<WeightedDip> removed(dips.begin(), dips.end() - config.remove);
    std::vector<WeightedDip> added(dips.begin(), dips.end());
    // New DIPs on addresses no run uses (first octet 19), so they never collide with the VIP's own.
    for (std::int64_t i = 0; i < config.add; ++i) {
        const auto k = static_cast<std::uint32_t>(i);
        added.push_back(WeightedDip{ip(19, k >> 16, (k >> 8) & 255, k & 255), dips.front().port,
                                    ip(19, k >> 16, (k >> 8) & 255, k & 255), 1});
    }
    const auto flows = static_cast<std::uint64_t>(config.flows);
    std::vector<std::uint64_t> hashes(flows);
    for (std::uint64_t i = 0; i < flows; ++i) hashes[i] = derive(seed, i);
    std::vector<HashStudyCase> out;
    auto one = [&](const MuxHash& h, MuxHashKind kind, std::uint32_t size) {
        HashStudyCase c;
        c.kind = kind;
        c.table_size = size;
        c.balance = load_balance(h, dips, flows, seed);
        c.removed = disruption(h, dips, removed, hashes);
        c.added = disruption(h, dips, added, hashes);
        out.push_back(std::move(c));
    };
    std::uint32_t total = 0;
    for (const WeightedDip& d : dips) total += d.weight;
    one(AnantaHash{}, MuxHashKind::Ananta, total);
    for (std::uint32_t m : maglev_sizes) one(MaglevHash{m}, MuxHashKind::Maglev, m);
    return out;
}

config::Schema<HashStudyConfig> hash_study_schema() {
    using C = HashStudyConfig;
    config::Schema<C> s("The hashing study at the end of a run: Ananta's table vs Maglev's over one VIP's DIPs.");
    s.field("enabled", &C::enabled, "Run the study and report it (off by default).");
    s.field("vip", &C::vip, "The VIP (its position in vips) whose DIP list is studied.").range(0, 1 << 20);
    s.field("flows", &C::flows, "Connections sampled (pseudo-random tuple hashes of the mux hash seed).")
        .range(1, 100'000'000);
    s.field("remove", &C::remove, "DIPs removed from the end of the list for the disruption figure.")
        .range(0, 1 << 20);
    s.field("add", &C::add, "New DIPs added at the end of the list for the disruption figure.").range(0, 1 << 20);
    s.field("maglev_table_sizes", &C::maglev_table_sizes,
            "Maglev table sizes to study besides the pool's own mux.maglev_table_size, each a prime.")
        .range(2, 1 << 24);
    s.check("maglev_table_sizes", [](const C& c) -> std::optional<std::string> {
        for (std::int64_t m : c.maglev_table_sizes)
            if (!is_prime(static_cast<std::uint64_t>(m))) return "expected prime table sizes, got " + std::to_string(m);
        return std::nullopt;
    });
    return s;
}

}  // namespace loom::ananta
