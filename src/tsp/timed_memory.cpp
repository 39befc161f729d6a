#include "loom/tsp/timed_memory.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

namespace loom::tsp {
void TimedMemory::throw_outside(std::int64_t slot) {
    throw std::out_of_range("TimedMemory: slot " + std::to_string(slot) + " is outside [0, 2^31)");
}

TimedMemory::Page* TimedMemory::page_of(std::uint32_t slot) {
    const std::size_t n = slot >> kPageBits;
    return n < directory_.size() && directory_[n] != 0 ? pages_[directory_[n] - 1].get() : nullptr;
}

const TimedMemory::Page* TimedMemory::page_of(std::uint32_t slot) const {
    const std::size_t n = slot >> kPageBits;
    return n < directory_.size() && directory_[n] != 0 ? pages_[directory_[n] - 1].get() : nullptr;
}

TimedMemory::Page& TimedMemory::page_for(std::uint32_t slot) {
    const std::size_t n = slot >> kPageBits;
    if (n >= directory_.size()) directory_.resize(n + 1, 0);
    if (directory_[n] == 0) {
        pages_.push_back(std::make_unique<Page>());
        directory_[n] = static_cast<std::uint32_t>(pages_.size());
    }
    return *pages_[directory_[n] - 1];
}

std::uint32_t TimedMemory::new_version(AccessKey key, std::int64_t value) {
    ++live_versions_;
    std::uint32_t v = free_;
    if (v != kNone) {
        free_ = version(v).next;
    } else {
        if (pool_size_ == kNone) throw std::length_error("TimedMemory: too many unsettled versions");
        v = pool_size_++;
        if ((v >> kChunkBits) >= chunks_.size()) chunks_.push_back(std::make_unique<Version[]>(1u << kChunkBits));
    }
    version(v) = {key.time, value, key.order, kNone};
    return v;
}

void TimedMemory::free_version(std::uint32_t v) {
    --live_versions_;
    version(v).next = free_;
    free_ = v;
}

void TimedMemory::settle_slot(std::uint32_t slot) {
    Page* p = page_of(slot);
    const std::uint32_t i = slot & (kPageSlots - 1);
    if (!p || !bit(p->unsettled, i)) return;
    // The slot's versions are in key order: each one settled is the latest settled so far, which is what every
    // read at or after now sees unless a later unsettled version precedes its key.
    const auto head = first_.find(slot);
    std::uint32_t v = head->second;
    while (v != kNone && version(v).time < horizon_) {
        p->value[i] = version(v).value;
        const std::uint32_t next = version(v).next;
        free_version(v);
        v = next;
    }
    if (v == kNone) {
        first_.erase(head);
        set_bit(p->unsettled, i, false);
    } else {
        head->second = v;
    }
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
    Page& p = *page_of(slot);
    const std::uint32_t i = slot & (kPageSlots - 1);
    if (!bit(p.unsettled, i)) return;
    const auto head = first_.find(slot);
    for (std::uint32_t v = head->second; v != kNone;) {
        const std::uint32_t next = version(v).next;
        free_version(v);
        v = next;
    }
    first_.erase(head);
    set_bit(p.unsettled, i, false);
}

void TimedMemory::init(std::int64_t slot64, std::int64_t value) {
    const std::uint32_t slot = checked_slot(slot64);
    Page& p = page_for(slot);
    const std::uint32_t i = slot & (kPageSlots - 1);
    if (!bit(p.cell, i)) ++cells_;
    set_bit(p.cell, i, true);
    drop_versions(slot);
    p.value[i] = value;
    // Initial contents count as written before everything: the settled value, under every version.
}

void TimedMemory::init_range(std::int64_t first, const std::int64_t* values, std::int64_t count) {
    if (count <= 0) return;
    const std::uint32_t lo = checked_slot(first);
    checked_slot(first + count - 1);
    Page* p = nullptr;
    for (std::int64_t k = 0; k < count; ++k) {
        const std::uint32_t slot = lo + static_cast<std::uint32_t>(k);
        const std::uint32_t i = slot & (kPageSlots - 1);
        if (p == nullptr || i == 0) p = &page_for(slot);  // pages never move
        if (!bit(p->cell, i)) {
            ++cells_;
            set_bit(p->cell, i, true);
        }
        if (bit(p->unsettled, i)) drop_versions(slot);
        p->value[i] = values[k];
    }
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
    std::uint32_t at = bit(pp->unsettled, i) ? first_.at(slot) : kNone;
    while (at != kNone && version(at).key() < key) {
        prev = at;
        at = version(at).next;
    }
    if (at != kNone && version(at).key() == key) {
        version(at).value = value;
        return;
    }
    const std::uint32_t v = new_version(key, value);
    version(v).next = at;
    if (prev == kNone)
        first_[slot] = v;
    else
        version(prev).next = v;
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

void TimedMemory::apply(std::int64_t slot64, std::int64_t value) {
    const std::uint32_t slot = checked_slot(slot64);
    Page* pp = page_of(slot);
    const std::uint32_t i = slot & (kPageSlots - 1);
    if (!pp || !bit(pp->cell, i)) {
        if (value == 0) return;
        pp = &page_for(slot);
        set_bit(pp->cell, i, true);
        ++cells_;
    }
    if (bit(pp->unsettled, i)) throw std::logic_error("TimedMemory: apply() on a slot with unsettled versions");
    pp->value[i] = value;
}

void TimedMemory::apply_range(std::int64_t first, const std::int64_t* values, std::int64_t count) {
    if (count <= 0) return;
    const std::uint32_t lo = checked_slot(first);
    checked_slot(first + count - 1);
    Page* p = nullptr;
    for (std::int64_t k = 0; k < count; ++k) {
        const std::uint32_t slot = lo + static_cast<std::uint32_t>(k);
        const std::uint32_t i = slot & (kPageSlots - 1);
        if (p == nullptr || i == 0) p = page_of(slot);  // pages never move
        const std::int64_t value = values[k];
        if (!p || !bit(p->cell, i)) {
            if (value == 0) continue;
            p = &page_for(slot);
            set_bit(p->cell, i, true);
            ++cells_;
        }
        if (bit(p->unsettled, i)) throw std::logic_error("TimedMemory: apply() on a slot with unsettled versions");
        p->value[i] = value;
    }
}

void TimedMemory::touch(std::int64_t slot64) {
    const std::uint32_t slot = checked_slot(slot64);
    Page* pp = page_of(slot);
    const std::uint32_t i = slot & (kPageSlots - 1);
    if (pp && bit(pp->cell, i)) return;
    pp = &page_for(slot);
    set_bit(pp->cell, i, true);
    pp->value[i] = 0;
    ++cells_;
}

void TimedMemory::touch_nonzero(std::int64_t first, const std::vector<std::int64_t>& values) {
    const auto count = static_cast<std::int64_t>(values.size());
    if (count > 0 && first >= 0 && first + count - 1 <= std::int64_t{0x7fffffff}) {
        // Every slot inside [0, 2^31): a page at a time, looked up at its first non-zero value.
        const auto lo = static_cast<std::uint32_t>(first);
        for (std::int64_t k = 0; k < count;) {
            const std::uint32_t slot = lo + static_cast<std::uint32_t>(k);
            const std::int64_t n = std::min<std::int64_t>(count - k, kPageSlots - (slot & (kPageSlots - 1)));
            Page* pp = nullptr;
            for (std::int64_t j = 0; j < n; ++j) {
                if (values[static_cast<std::size_t>(k + j)] == 0) continue;
                if (pp == nullptr) pp = &page_for(slot);
                const std::uint32_t i = (slot + static_cast<std::uint32_t>(j)) & (kPageSlots - 1);
                if (bit(pp->cell, i)) continue;
                set_bit(pp->cell, i, true);
                pp->value[i] = 0;
                ++cells_;
            }
            k += n;
        }
        return;
    }
    Page* pp = nullptr;
    std::uint32_t page = 0;
    for (std::size_t k = 0; k < values.size(); ++k) {
        if (values[k] == 0) continue;
        const std::uint32_t slot = checked_slot(first + static_cast<std::int64_t>(k));
        // Pages never move (each is its own allocation): pp is looked up once per page.
        if (pp == nullptr || (slot >> kPageBits) != page) {
            page = slot >> kPageBits;
            pp = &page_for(slot);
        }
        const std::uint32_t i = slot & (kPageSlots - 1);
        if (bit(pp->cell, i)) continue;
        set_bit(pp->cell, i, true);
        pp->value[i] = 0;
        ++cells_;
    }
}

std::int64_t TimedMemory::value_at(const Page& p, std::uint32_t slot, AccessKey key) const {
    const std::uint32_t i = slot & (kPageSlots - 1);
    std::int64_t value = p.value[i];
    if (bit(p.unsettled, i))
        for (std::uint32_t v = first_.at(slot); v != kNone && version(v).key() < key; v = version(v).next)
            value = version(v).value;
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
    // At most one entry a cell in the range, with the data check about that many: one allocation of the size, not
    // a doubling per entry (none when the memory holds no cells).
    out.reserve(std::min(static_cast<std::size_t>(hi - lo) + 1, static_cast<std::size_t>(cells_)));
    for (std::uint32_t s = lo; s <= hi;) {
        const Page* p = page_of(s);
        const std::uint32_t page_end = std::min<std::uint32_t>(hi, (s | static_cast<std::uint32_t>(kPageSlots - 1)));
        if (p) {
            for (std::uint32_t t = s; t <= page_end; ++t) {
                const std::uint32_t i = t & (kPageSlots - 1);
                if (!bit(p->cell, i)) continue;
                const std::int64_t v = bit(p->unsettled, i) ? value_at(*p, t, key) : p->value[i];
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
        for (std::uint32_t v = first_.at(slot); v != kNone; v = version(v).next) value = version(v).value;
    return value;
}

void TimedMemory::final_range(std::int64_t first, std::int64_t count, std::int64_t* out) const {
    for (std::int64_t k = 0; k < count;) {
        const std::int64_t s = first + k;
        if (s < 0 || s > std::int64_t{0x7fffffff}) {
            out[k++] = 0;
            continue;
        }
        const auto slot = static_cast<std::uint32_t>(s);
        const std::int64_t n = std::min<std::int64_t>(count - k, kPageSlots - (slot & (kPageSlots - 1)));
        const Page* p = page_of(slot);
        if (p == nullptr) {
            std::fill(out + k, out + k + n, std::int64_t{0});
        } else {
            for (std::int64_t j = 0; j < n; ++j) {
                const std::uint32_t i = (slot + static_cast<std::uint32_t>(j)) & (kPageSlots - 1);
                out[k + j] = bit(p->unsettled, i) ? final_value(s + j) : p->value[i];
            }
        }
        k += n;
    }
}

std::vector<std::pair<std::int64_t, std::int64_t>> TimedMemory::final_contents() const {
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    out.reserve(cells_);
    for (std::size_t n = 0; n < directory_.size(); ++n) {
        if (directory_[n] == 0) continue;
        const Page& p = *pages_[directory_[n] - 1];
        for (std::uint32_t i = 0; i < kPageSlots; ++i) {
            if (!bit(p.cell, i)) continue;
            const auto slot = static_cast<std::int64_t>((n << kPageBits) | i);
            out.emplace_back(slot, final_value(slot));
        }
    }
    return out;
}

std::size_t TimedMemory::bytes() const {
    // The heads' map: a node (key, value, next pointer, cached hash) per entry and a pointer per bucket.
    constexpr std::size_t kHeadNode = 2 * sizeof(std::uint32_t) + 2 * sizeof(void*);
    return directory_.capacity() * sizeof(std::uint32_t) + pages_.capacity() * sizeof(std::unique_ptr<Page>) +
           pages_.size() * sizeof(Page) + chunks_.size() * (sizeof(Version) << kChunkBits) +
           due_.capacity() * sizeof(Due) + first_.size() * kHeadNode + first_.bucket_count() * sizeof(void*);
}

}  // namespace loom::tsp
