#include "loom/ananta/ecmp.hpp"

#include <algorithm>
#include <bit>

#include "loom/base/assert.hpp"
#include "loom/base/rng.hpp"

namespace loom::ananta {

void EcmpSelector::set_table(std::vector<NextHop> table, std::size_t hop_count) {
    table_ = std::move(table);
    hop_count_ = hop_count;
    pow2_ = !table_.empty() && std::has_single_bit(table_.size());
    mask_ = pow2_ ? table_.size() - 1 : 0;
    small_.clear();
    // The largest hop a byte holds.
    constexpr NextHop kByteMax = 255;
    if (std::all_of(table_.begin(), table_.end(), [](NextHop h) { return h <= kByteMax; }))
        small_.assign(table_.begin(), table_.end());
}

ResilientEcmp::ResilientEcmp(std::uint32_t buckets) : bucket_count_(buckets) {
    LOOM_ASSERT(buckets > 0, "resilient ECMP needs at least one bucket");
}

void ResilientEcmp::set_next_hops(std::span<const NextHop> hops) {
    std::vector<NextHop> sorted(hops.begin(), hops.end());
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    hops_ = sorted;
    if (hops_.empty()) {
        set_table({}, 0);
        return;
    }
    const std::size_t n = hops_.size();
    std::vector<NextHop> buckets = table();
    // Fair shares: the first B mod n hops (in sorted order) get one bucket more.
    std::vector<std::int64_t> target(n, bucket_count_ / n);
    for (std::size_t i = 0; i < bucket_count_ % n; ++i) ++target[i];
    auto index_of = [&](NextHop h) -> std::size_t {
        auto it = std::lower_bound(hops_.begin(), hops_.end(), h);
        return (it != hops_.end() && *it == h) ? static_cast<std::size_t>(it - hops_.begin()) : n;
    };
    if (buckets.empty()) {  // first set: deal buckets round robin
        buckets.resize(bucket_count_);
        for (std::size_t b = 0; b < bucket_count_; ++b) buckets[b] = hops_[b % n];
        set_table(std::move(buckets), n);
        return;
    }
    // Keep each bucket whose hop survives and still has room; free the rest (in bucket order, so a hop over
    // its share gives up its highest buckets).
    std::vector<std::int64_t> have(n, 0);
    std::vector<std::size_t> freed;
    for (std::size_t b = 0; b < bucket_count_; ++b) {
        const std::size_t i = index_of(buckets[b]);
        if (i < n && have[i] < target[i]) {
            ++have[i];
        } else {
            freed.push_back(b);
        }
    }
    // Give freed buckets to the hops below target, in sorted hop order.
    std::size_t next = 0;
    for (std::size_t i = 0; i < n; ++i) {
        while (have[i] < target[i]) {
            LOOM_ASSERT(next < freed.size(), "resilient ECMP bucket accounting");
            buckets[freed[next++]] = hops_[i];
            ++have[i];
        }
    }
    LOOM_ASSERT(next == freed.size(), "resilient ECMP left a bucket unassigned");
    set_table(std::move(buckets), n);
}

config::Schema<EcmpConfig> ecmp_schema() {
    using C = EcmpConfig;
    config::Schema<C> s("Equal-cost multipath next-hop selection of a router tier.");
    s.choice("mode", &C::mode, {{"modulo", EcmpMode::ModuloN}, {"resilient", EcmpMode::Resilient}},
             "modulo: hops[hash mod n], almost every flow moves when n changes; resilient: a bucket table, only "
             "the flows of changed hops move.");
    s.field("buckets", &C::buckets, "Resilient hashing table size (not published: 256, a common switch size).")
        .range(1, 1 << 20);
    s.field("hash_seed", &C::hash_seed, "Seed of the routers' flow hash (the same on every router of the tier).")
        .at_least(0);
    return s;
}

std::unique_ptr<EcmpSelector> make_ecmp(const EcmpConfig& config) {
    if (config.mode == EcmpMode::ModuloN) return std::make_unique<ModuloEcmp>();
    return std::make_unique<ResilientEcmp>(static_cast<std::uint32_t>(config.buckets));
}

double share_moved(const EcmpSelector& before, const EcmpSelector& after, std::span<const std::uint64_t> flow_hashes) {
    if (flow_hashes.empty()) return 0.0;
    std::uint64_t moved = 0;
    for (const std::uint64_t h : flow_hashes) moved += before.select(h) != after.select(h) ? 1 : 0;
    return static_cast<double>(moved) / static_cast<double>(flow_hashes.size());
}

double share_moved(const EcmpSelector& before, const EcmpSelector& after, std::uint64_t flows, std::uint64_t seed) {
    if (flows == 0) return 0.0;
    std::uint64_t moved = 0;
    // Two resilient tables of one power-of-two size (a router's change): a sample moved exactly when its bucket's
    // hop changed, so one read of a per-bucket table per sample instead of two selections.
    const auto* rb = dynamic_cast<const ResilientEcmp*>(&before);
    const auto* ra = dynamic_cast<const ResilientEcmp*>(&after);
    if (rb != nullptr && ra != nullptr && rb->buckets().size() == ra->buckets().size() &&
        std::has_single_bit(rb->buckets().size())) {
        const std::size_t n = rb->buckets().size();
        std::vector<std::uint8_t> changed(n);
        bool any = false;
        for (std::size_t b = 0; b < n; ++b) {
            changed[b] = rb->buckets()[b] != ra->buckets()[b] ? 1 : 0;
            any = any || changed[b] != 0;
        }
        // No bucket changed hands (a router given its set again): no sample can have moved.
        if (!any) return 0.0;
        const std::uint64_t mask = n - 1;
        for (std::uint64_t i = 0; i < flows; ++i) moved += changed[static_cast<std::size_t>(derive(seed, i) & mask)];
        return static_cast<double>(moved) / static_cast<double>(flows);
    }
    for (std::uint64_t i = 0; i < flows; ++i) {
        const std::uint64_t h = derive(seed, i);
        moved += before.select(h) != after.select(h) ? 1 : 0;
    }
    return static_cast<double>(moved) / static_cast<double>(flows);
}

double change_next_hops(EcmpSelector& selector, std::span<const NextHop> hops, std::uint64_t flows, std::uint64_t seed) {
    const std::unique_ptr<EcmpSelector> before = selector.clone();
    selector.set_next_hops(hops);
    if (before->size() == 0 || selector.size() == 0) return before->size() == selector.size() ? 0.0 : 1.0;
    return share_moved(*before, selector, flows, seed);
}

}  // namespace loom::ananta
