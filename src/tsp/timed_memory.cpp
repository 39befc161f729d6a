#include "loom/tsp/timed_memory.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

namespace loom::tsp {
namespace {
std::size_t hash_slot(std::uint32_t slot) {
    // Fibonacci hashing: consecutive slots (a train's) spread over the table.
    return static_cast<std::size_t>((static_cast<std::uint64_t>(slot) * 0x9e3779b97f4a7c15ULL) >> 20);
}
}  // namespace

std::uint32_t TimedMemory::checked_slot(std::int64_t slot) {
    if (slot < 0 || slot > std::int64_t{0x7fffffff})
        throw std::out_of_range("TimedMemory: slot " + std::to_string(slot) + " is outside [0, 2^31)");
    return static_cast<std::uint32_t>(slot);
}

TimedMemory::Page* TimedMemory::page_of(std::uint32_t slot) {
    const std::size_t n = slot >> kPageBits;
    return n < directory_.size() && directory_[n] != 0 ? &pages_[directory_[n] - 1] : nullptr;
}

const TimedMemory::Page* TimedMemory::page_of(std::uint32_t slot) const {
    const std::size_t n = slot >> kPageBits;
    return n < directory_.size() && directory_[n] != 0 ? &pages_[directory_[n] - 1] : nullptr;
}

TimedMemory::Page& TimedMemory::page_for(std::uint32_t slot) {
    const std::size_t n = slot >> kPageBits;
    if (n >= directory_.size()) directory_.resize(n + 1, 0);
    if (directory_[n] == 0) {
        pages_.emplace_back();
        directory_[n] = static_cast<std::uint32_t>(pages_.size());
    }
    return pages_[directory_[n] - 1];
}

std::size_t TimedMemory::head_pos(std::uint32_t slot) const {
    const std::size_t mask = heads_.size() - 1;
    std::size_t i = hash_slot(slot) & mask;
    while (heads_[i].slot != kNone && heads_[i].slot != slot) i = (i + 1) & mask;
    return i;
}

std::uint32_t TimedMemory::first_version(std::uint32_t slot) const {
    if (heads_.empty()) return kNone;
    const Head& h = heads_[head_pos(slot)];
    return h.slot == slot ? h.first : kNone;
}

void TimedMemory::grow_heads() {
    std::vector<Head> old = std::move(heads_);
    heads_.assign(old.empty() ? 64 : old.size() * 2, Head{});
    for (const Head& h : old)
        if (h.slot != kNone) heads_[head_pos(h.slot)] = h;
}

void TimedMemory::set_first_version(std::uint32_t slot, std::uint32_t first) {
    if (first == kNone) {
        if (heads_.empty()) return;
        const std::size_t pos = head_pos(slot);
        if (heads_[pos].slot == slot) erase_head(pos);
        return;
    }
    if (2 * (head_count_ + 1) > heads_.size()) grow_heads();
    Head& h = heads_[head_pos(slot)];
    if (h.slot == kNone) ++head_count_;
    h = {slot, first};
}

void TimedMemory::erase_head(std::size_t pos) {
    // Backward-shift deletion keeps every probe sequence unbroken without tombstones.
    const std::size_t mask = heads_.size() - 1;
    std::size_t hole = pos;
    for (std::size_t i = (pos + 1) & mask; heads_[i].slot != kNone; i = (i + 1) & mask) {
        const std::size_t home = hash_slot(heads_[i].slot) & mask;
        // Move entry i into the hole unless its home lies cyclically in (hole, i].
        const bool stays = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i);
        if (stays) continue;
        heads_[hole] = heads_[i];
        hole = i;
    }
    heads_[hole] = Head{};
    --head_count_;
}

std::uint32_t TimedMemory::new_version(AccessKey key, std::int64_t value) {
    ++live_versions_;
    if (free_ != kNone) {
        const std::uint32_t v = free_;
        free_ = pool_[v].next;
        pool_[v] = {key, value, kNone};
        return v;
    }
    if (pool_.size() >= kNone) throw std::length_error("TimedMemory: too many unsettled versions");
    pool_.push_back({key, value, kNone});
    return static_cast<std::uint32_t>(pool_.size() - 1);
}

void TimedMemory::free_version(std::uint32_t v) {
    --live_versions_;
    pool_[v].next = free_;
    free_ = v;
}

void TimedMemory::settle_slot(std::uint32_t slot) {
    Page* p = page_of(slot);
    const std::uint32_t i = slot & (kPageSlots - 1);
    if (!p || !bit(p->unsettled, i)) return;
    // The slot's versions are in key order: each one settled is the latest settled so far, which is what every
    // read at or after now sees unless a later unsettled version precedes its key.
    std::uint32_t v = first_version(slot);
    const std::uint32_t first = v;
    while (v != kNone && pool_[v].key.time < horizon_) {
        p->value[i] = pool_[v].value;
        const std::uint32_t next = pool_[v].next;
        free_version(v);
        v = next;
    }
    if (v == first) return;
    set_first_version(slot, v);
    if (v == kNone) set_bit(p->unsettled, i, false);
}

void TimedMemory::flush_batch() {
    if (!batching_) return;
    due_.push_back(batch_);
    std::push_heap(due_.begin(), due_.end(), std::greater<>());
    batching_ = false;
}

void TimedMemory::settle(Time now) {
    if (max_lag_ == Time::max()) return;
    if (now - max_lag_ <= horizon_) return;
    horizon_ = now - max_lag_;
    flush_batch();
    while (!due_.empty() && due_.front().time < horizon_) {
        const Due d = due_.front();
        std::pop_heap(due_.begin(), due_.end(), std::greater<>());
        due_.pop_back();
        for (std::uint32_t s = d.first;; ++s) {
            settle_slot(s);
            if (s == d.last) break;
        }
    }
}

void TimedMemory::drop_versions(std::uint32_t slot) {
    std::uint32_t v = first_version(slot);
    if (v == kNone) return;
    set_first_version(slot, kNone);
    while (v != kNone) {
        const std::uint32_t next = pool_[v].next;
        free_version(v);
        v = next;
    }
}

void TimedMemory::init(std::int64_t slot64, std::int64_t value) {
    const std::uint32_t slot = checked_slot(slot64);
    Page& p = page_for(slot);
    const std::uint32_t i = slot & (kPageSlots - 1);
    if (!bit(p.cell, i)) ++cells_;
    set_bit(p.cell, i, true);
    if (bit(p.unsettled, i)) drop_versions(slot);
    set_bit(p.unsettled, i, false);
    p.value[i] = value;
    // Initial contents count as written before everything: the settled value, under every version.
}

void TimedMemory::write(std::int64_t slot64, AccessKey key, std::int64_t value, Time now) {
    const std::uint32_t slot = checked_slot(slot64);
    settle(now);
    if (key.time < horizon_)
        throw std::logic_error("TimedMemory: a write at " + std::to_string(key.time.count()) +
                               " ps is logged after versions up to " + std::to_string(horizon_.count()) +
                               " ps were settled (max_lag too small)");
    Page* pp = page_of(slot);
    const std::uint32_t i = slot & (kPageSlots - 1);
    if (!pp || !bit(pp->cell, i)) {
        if (value == 0) return;  // a never-touched slot already reads 0 at every key
        pp = &page_for(slot);
        set_bit(pp->cell, i, true);
        pp->value[i] = 0;
        ++cells_;
    }
    // Insert into the slot's list, kept in key order; the same key replaces.
    std::uint32_t prev = kNone;
    std::uint32_t at = bit(pp->unsettled, i) ? first_version(slot) : kNone;
    while (at != kNone && pool_[at].key < key) {
        prev = at;
        at = pool_[at].next;
    }
    if (at != kNone && pool_[at].key == key) {
        pool_[at].value = value;
        return;
    }
    const std::uint32_t v = new_version(key, value);
    pool_[v].next = at;
    if (prev == kNone)
        set_first_version(slot, v);
    else
        pool_[prev].next = v;
    set_bit(pp->unsettled, i, true);
    if (max_lag_ != Time::max()) {
        if (batching_ && slot == batch_.last + 1) {
            batch_.last = slot;
            batch_.time = std::max(batch_.time, key.time);
        } else {
            flush_batch();
            batch_ = {key.time, slot, slot};
            batching_ = true;
        }
    }
}

std::int64_t TimedMemory::value_at(const Page& p, std::uint32_t slot, AccessKey key) const {
    const std::uint32_t i = slot & (kPageSlots - 1);
    std::int64_t value = p.value[i];
    if (bit(p.unsettled, i))
        for (std::uint32_t v = first_version(slot); v != kNone && pool_[v].key < key; v = pool_[v].next)
            value = pool_[v].value;
    return value;
}

std::int64_t TimedMemory::read(std::int64_t slot64, AccessKey key, Time now) {
    const std::uint32_t slot = checked_slot(slot64);
    settle(now);
    const Page* p = page_of(slot);
    return p && bit(p->cell, slot & (kPageSlots - 1)) ? value_at(*p, slot, key) : 0;
}

void TimedMemory::read_range(std::int64_t first, std::int64_t count, AccessKey key, Time now, SparseValues& out) {
    out.clear();
    settle(now);
    if (count <= 0) return;
    const std::uint32_t lo = checked_slot(first);
    const std::uint32_t hi = checked_slot(first + count - 1);
    for (std::uint32_t s = lo; s <= hi;) {
        const Page* p = page_of(s);
        const std::uint32_t page_end = std::min<std::uint32_t>(hi, (s | static_cast<std::uint32_t>(kPageSlots - 1)));
        if (p) {
            for (std::uint32_t t = s; t <= page_end; ++t) {
                const std::uint32_t i = t & (kPageSlots - 1);
                if (!bit(p->cell, i)) continue;
                const std::int64_t v = value_at(*p, t, key);
                if (v != 0) out.emplace_back(t - lo, v);
            }
        }
        if (page_end == hi) break;
        s = page_end + 1;
    }
}

bool TimedMemory::untouched(std::int64_t first, std::int64_t count) const {
    if (count <= 0) return true;
    if (first < 0) first = 0;
    const std::int64_t last = std::min<std::int64_t>(first + count - 1, 0x7fffffff);
    for (std::int64_t s = first; s <= last;) {
        const Page* p = page_of(static_cast<std::uint32_t>(s));
        const std::int64_t page_end = std::min(last, s | (kPageSlots - 1));
        if (p)
            for (std::int64_t t = s; t <= page_end; ++t)
                if (bit(p->cell, static_cast<std::uint32_t>(t) & (kPageSlots - 1))) return false;
        s = page_end + 1;
    }
    return true;
}

std::int64_t TimedMemory::final_value(std::int64_t slot64) const {
    if (slot64 < 0 || slot64 > std::int64_t{0x7fffffff}) return 0;
    const auto slot = static_cast<std::uint32_t>(slot64);
    const Page* p = page_of(slot);
    if (!p) return 0;
    const std::uint32_t i = slot & (kPageSlots - 1);
    std::int64_t value = p->value[i];
    if (bit(p->unsettled, i))
        for (std::uint32_t v = first_version(slot); v != kNone; v = pool_[v].next) value = pool_[v].value;
    return value;
}

std::vector<std::pair<std::int64_t, std::int64_t>> TimedMemory::final_contents() const {
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    out.reserve(cells_);
    for (std::size_t n = 0; n < directory_.size(); ++n) {
        if (directory_[n] == 0) continue;
        const Page& p = pages_[directory_[n] - 1];
        for (std::uint32_t i = 0; i < kPageSlots; ++i) {
            if (!bit(p.cell, i)) continue;
            const auto slot = static_cast<std::int64_t>((n << kPageBits) | i);
            out.emplace_back(slot, final_value(slot));
        }
    }
    return out;
}

std::size_t TimedMemory::bytes() const {
    return directory_.capacity() * sizeof(std::uint32_t) + pages_.capacity() * sizeof(Page) +
           pool_.capacity() * sizeof(Version) + heads_.capacity() * sizeof(Head) + due_.capacity() * sizeof(Due);
}

}  // namespace loom::tsp
