// The Mux flow table: which DIP each known connection went to, in two classes with their own quotas and idle
// timeouts. Untrusted entries have seen one packet (a SYN flood fills only them); an entry is promoted to
// trusted on its second packet. A full class stops creating state; the Mux then forwards by hash alone.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "loom/ananta/chunked_vector.hpp"
#include "loom/ananta/ip_packet.hpp"
#include "loom/ananta/tuple_index.hpp"
#include "loom/base/prefetch.hpp"
#include "loom/base/units.hpp"

namespace loom::ananta {

enum class FlowClass : std::uint8_t { Untrusted, Trusted };

// Where a connection goes: the DIP, its port and its host (the IP-in-IP destination is the DIP, which the
// network routes to that host).
struct FlowTarget {
    IpAddr dip = 0;
    std::uint16_t port = 0;
    IpAddr host = 0;
    bool operator==(const FlowTarget&) const = default;
};

struct FlowTableLimits {
    std::int64_t untrusted_quota = 0;  // entries
    std::int64_t trusted_quota = 0;    // entries
    Time untrusted_idle_timeout;
    Time trusted_idle_timeout;
};

// Timeouts: an entry last seen at t is live at t + timeout - 1ps and gone at t + timeout.
// Entries live in a pool (indexed by key) and are kept in per-class recency lists (idle timeouts are per class, so the front is always the next
// to expire): expiry is amortized O(1) per entry and never depends on hash-table order.
class FlowTable {
public:
    explicit FlowTable(const FlowTableLimits& limits) : limits_(limits) {}

    // The entry for `key` if live at `now` (an expired one is removed first). A hit refreshes it; an untrusted
    // entry is promoted to trusted if the trusted class has room (else it stays untrusted, refreshed).
    std::optional<FlowTarget> lookup(const FiveTuple& key, Time now);
    // Prefetches the entry lookup(key) is likely to read (the index's home cell's, if its tag matches).
    void prefetch(const FiveTuple& key) const {
        const std::uint32_t i = index_.guess(key);
        if (i < pool_.size()) prefetch_object(pool_[i]);
    }
    // Records a new connection as untrusted, replacing any entry for `key`. Expires idle entries first; returns
    // false (nothing stored) when the untrusted class is still at its quota.
    bool insert(const FiveTuple& key, const FlowTarget& target, Time now);
    // Removes every entry idle for at least its class's timeout at `now`.
    void expire(Time now);

    std::size_t size(FlowClass c) const { return lists_[index(c)].size; }
    std::size_t size() const { return index_.size(); }
    std::optional<FlowClass> class_of(const FiveTuple& key) const;
    std::uint64_t promotions() const { return promotions_; }
    std::uint64_t promotions_refused() const { return promotions_refused_; }
    std::uint64_t expired() const { return expired_; }
    // Bytes the entries take (pool, free list and index, as allocated).
    std::size_t bytes() const {
        return pool_.bytes() + free_.capacity() * sizeof(std::uint32_t) + index_.bytes();
    }

private:
    static constexpr std::uint32_t kNone = TupleIndex::kNone;
    struct Entry {
        FiveTuple key;
        FlowTarget target;
        std::uint32_t prev = kNone;  // recency list links (pool positions)
        Time last_seen;
        std::uint32_t next = kNone;
        FlowClass cls = FlowClass::Untrusted;
    };
    struct List {
        std::uint32_t head = kNone;  // least recently seen
        std::uint32_t tail = kNone;
        std::size_t size = 0;
    };
    static std::size_t index(FlowClass c) { return c == FlowClass::Trusted ? 1 : 0; }
    Time timeout(FlowClass c) const {
        return c == FlowClass::Trusted ? limits_.trusted_idle_timeout : limits_.untrusted_idle_timeout;
    }
    std::int64_t quota(FlowClass c) const {
        return c == FlowClass::Trusted ? limits_.trusted_quota : limits_.untrusted_quota;
    }
    auto key_of() const {
        return [this](std::uint32_t i) -> const FiveTuple& { return pool_[i].key; };
    }
    void link_back(FlowClass c, std::uint32_t i);
    void unlink(std::uint32_t i);
    void erase(std::uint32_t i);
    void expire_class(FlowClass c, Time now);

    FlowTableLimits limits_;
    // Not published: 64 entries (3 KB) per chunk; a Mux holds thousands of flows.
    ChunkedVector<Entry, 64> pool_;
    std::vector<std::uint32_t> free_;
    TupleIndex index_;
    List lists_[2];
    std::uint64_t promotions_ = 0;
    std::uint64_t promotions_refused_ = 0;
    std::uint64_t expired_ = 0;
};

}  // namespace loom::ananta
