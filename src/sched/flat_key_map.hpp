// A hash map keyed by short vectors of int64 (route shapes, timing keys), open addressing with linear probing: the
// keys live end to end in one pool and the table holds (hash, key position, length, value position), so a lookup
// is one probe run over a flat array and one compare of the key in the pool, where a node-based map took a bucket,
// a node and a key vector (three dependent loads) per lookup. Values sit in a deque: a reference stays valid
// across insertions, as unordered_map's do. Erasing shifts the run back (no tombstones); the keys and values it
// leaves behind are reclaimed when dead keys are most of the pool.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <span>
#include <utility>
#include <vector>

namespace loom::sched::detail {

template <class V, class Hash>
class FlatKeyMap {
public:
    std::size_t size() const { return live_; }

    V* find(std::span<const std::int64_t> key) { return find(key, Hash{}(key)); }

    // The hash the map files `key` under: with it, find() and insert_new() do not hash the key again, and
    // erase_value() finds the entry without the key.
    static std::uint64_t hash_of(std::span<const std::int64_t> key) { return Hash{}(key); }

    // find() given h == hash_of(key).
    V* find(std::span<const std::int64_t> key, std::uint64_t h) {
        if (live_ == 0) return nullptr;
        for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (s.len == kEmpty) return nullptr;
            if (s.hash == h && same(s, key)) return &values_[s.value];
        }
    }

    // The value of `key`, default-made if it was not there.
    V& operator[](std::span<const std::int64_t> key) {
        if (V* v = find(key)) return *v;
        return insert_new(key, V{});
    }

    // Inserts (key, value) if key is not there; the value of key either way.
    V& emplace(std::span<const std::int64_t> key, V value) {
        if (V* v = find(key)) return *v;
        return insert_new(key, std::move(value));
    }

    // Inserts (key, value) given h == hash_of(key), when find(key, h) found nothing.
    V& insert_new(std::span<const std::int64_t> key, std::uint64_t h, V value) {
        if (2 * (live_ + 1) > slots_.size()) rebuild(slots_.empty() ? 64 : 2 * slots_.size());
        Slot s;
        s.hash = h;
        s.at = pool_.size();
        s.len = static_cast<std::uint32_t>(key.size());
        s.value = static_cast<std::uint32_t>(values_.size());
        pool_.insert(pool_.end(), key.begin(), key.end());
        values_.push_back(std::move(value));
        place(s);
        ++live_;
        return values_.back();
    }

    bool erase(std::span<const std::int64_t> key) {
        if (live_ == 0) return false;
        const std::uint64_t h = Hash{}(key);
        for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (s.len == kEmpty) return false;
            if (s.hash == h && same(s, key)) {
                erase_at(i);
                return true;
            }
        }
    }

    // Erases the entry filed under hash h whose value equals `value`, without its key: for maps whose values are
    // unique (ids), the same entry erase(key) erases, for h == hash_of(key) and `value` the key's value.
    bool erase_value(std::uint64_t h, const V& value) {
        if (live_ == 0) return false;
        for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (s.len == kEmpty) return false;
            if (s.hash == h && values_[s.value] == value) {
                erase_at(i);
                return true;
            }
        }
    }

    void swap(FlatKeyMap& o) noexcept {
        slots_.swap(o.slots_);
        pool_.swap(o.pool_);
        values_.swap(o.values_);
        std::swap(mask_, o.mask_);
        std::swap(live_, o.live_);
        std::swap(dead_, o.dead_);
    }

private:
    static constexpr std::uint32_t kEmpty = 0xffffffffu;
    struct Slot {
        std::uint64_t hash = 0;
        std::uint64_t at = 0;  // key's position in pool_
        std::uint32_t len = kEmpty;
        std::uint32_t value = 0;  // position in values_
    };

    void erase_at(std::size_t i) {
        dead_ += slots_[i].len;
        --live_;
        // Backward shift: move later entries of the run into the hole when their home is not between the hole and
        // them (cyclically).
        std::size_t hole = i;
        for (std::size_t j = (i + 1) & mask_; slots_[j].len != kEmpty; j = (j + 1) & mask_) {
            const std::size_t home = slots_[j].hash & mask_;
            const bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
            if (stays) continue;
            slots_[hole] = slots_[j];
            hole = j;
        }
        slots_[hole].len = kEmpty;
        if (dead_ > 4096 && 2 * dead_ > pool_.size()) compact();
    }

    bool same(const Slot& s, std::span<const std::int64_t> key) const {
        return s.len == key.size() &&
               (key.empty() || std::memcmp(pool_.data() + s.at, key.data(), key.size() * sizeof(std::int64_t)) == 0);
    }

    V& insert_new(std::span<const std::int64_t> key, V value) { return insert_new(key, Hash{}(key), std::move(value)); }

    void place(const Slot& s) {
        std::size_t i = s.hash & mask_;
        while (slots_[i].len != kEmpty) i = (i + 1) & mask_;
        slots_[i] = s;
    }

    // A table of `capacity` slots (a power of two) holding the live entries; the pool keeps only their keys
    // (values stay where they are: references to them remain valid).
    void rebuild(std::size_t capacity) {
        std::vector<Slot> old(capacity);
        old.swap(slots_);
        mask_ = capacity - 1;
        std::vector<std::int64_t> pool;
        pool.reserve(pool_.size() - dead_);
        for (Slot s : old) {
            if (s.len == kEmpty) continue;
            const std::uint64_t at = pool.size();
            pool.insert(pool.end(), pool_.begin() + static_cast<std::ptrdiff_t>(s.at),
                        pool_.begin() + static_cast<std::ptrdiff_t>(s.at + s.len));
            s.at = at;
            place(s);
        }
        pool_.swap(pool);
        dead_ = 0;
    }

    // Drops the erased keys from the pool in place: the live keys moved down in pool order, the slots (which do
    // not move) told their new positions. No allocation once `order_` has grown: a fresh table and pool per
    // compaction were tens of MiB of new pages each time at 10,440 TSPs, where the scheduler erases a pair's
    // shapes as it finishes with the pair.
    void compact() {
        order_.clear();
        for (std::uint32_t i = 0; i < slots_.size(); ++i)
            if (slots_[i].len != kEmpty) order_.push_back(i);
        std::sort(order_.begin(), order_.end(),
                  [&](std::uint32_t a, std::uint32_t b) { return slots_[a].at < slots_[b].at; });
        std::uint64_t to = 0;
        for (const std::uint32_t i : order_) {
            Slot& s = slots_[i];
            if (s.at != to)
                std::memmove(pool_.data() + to, pool_.data() + s.at, std::size_t{s.len} * sizeof(std::int64_t));
            s.at = to;
            to += s.len;
        }
        pool_.resize(static_cast<std::size_t>(to));
        dead_ = 0;
    }

    std::vector<Slot> slots_;
    std::vector<std::uint32_t> order_;  // compact()'s scratch: live slots in pool order
    std::vector<std::int64_t> pool_;
    std::deque<V> values_;
    std::size_t mask_ = 0;
    std::size_t live_ = 0;
    std::size_t dead_ = 0;  // key entries in pool_ of erased keys
};

}  // namespace loom::sched::detail
