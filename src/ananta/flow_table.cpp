#include "loom/ananta/flow_table.hpp"

namespace loom::ananta {

void FlowTable::link_back(FlowClass c, std::uint32_t i) {
    List& l = lists_[index(c)];
    Entry& e = pool_[i];
    e.cls = c;
    e.prev = l.tail;
    e.next = kNone;
    if (l.tail == kNone) {
        l.head = i;
    } else {
        pool_[l.tail].next = i;
    }
    l.tail = i;
    ++l.size;
}

void FlowTable::unlink(std::uint32_t i) {
    List& l = lists_[index(pool_[i].cls)];
    Entry& e = pool_[i];
    if (e.prev == kNone) {
        l.head = e.next;
    } else {
        pool_[e.prev].next = e.next;
    }
    if (e.next == kNone) {
        l.tail = e.prev;
    } else {
        pool_[e.next].prev = e.prev;
    }
    --l.size;
}

void FlowTable::erase(std::uint32_t i) {
    unlink(i);
    index_.erase(pool_[i].key, key_of());
    free_.push_back(i);
}

std::optional<FlowTarget> FlowTable::lookup(const FiveTuple& key, Time now) {
    const std::uint32_t i = index_.find(key, key_of());
    if (i == kNone) return std::nullopt;
    if (now - pool_[i].last_seen >= timeout(pool_[i].cls)) {
        erase(i);
        ++expired_;
        return std::nullopt;
    }
    pool_[i].last_seen = now;
    FlowClass to = pool_[i].cls;
    if (to == FlowClass::Untrusted) {
        expire_class(FlowClass::Trusted, now);
        if (static_cast<std::int64_t>(size(FlowClass::Trusted)) < quota(FlowClass::Trusted)) {
            to = FlowClass::Trusted;
            ++promotions_;
        } else {
            ++promotions_refused_;
        }
    }
    // Move to the back of its (possibly new) class list: most recently seen.
    unlink(i);
    link_back(to, i);
    return pool_[i].target;
}

bool FlowTable::insert(const FiveTuple& key, const FlowTarget& target, Time now) {
    if (const std::uint32_t i = index_.find(key, key_of()); i != kNone) erase(i);
    expire_class(FlowClass::Untrusted, now);
    if (static_cast<std::int64_t>(size(FlowClass::Untrusted)) >= quota(FlowClass::Untrusted)) return false;
    std::uint32_t i;
    if (free_.empty()) {
        pool_.emplace_back();
        i = static_cast<std::uint32_t>(pool_.size() - 1);
    } else {
        i = free_.back();
        free_.pop_back();
    }
    Entry& e = pool_[i];
    e.key = key;
    e.target = target;
    e.last_seen = now;
    link_back(FlowClass::Untrusted, i);
    index_.insert(key, i, key_of());
    return true;
}

void FlowTable::expire_class(FlowClass c, Time now) {
    List& l = lists_[index(c)];
    const Time t = timeout(c);
    while (l.head != kNone && now - pool_[l.head].last_seen >= t) {
        erase(l.head);
        ++expired_;
    }
}

void FlowTable::expire(Time now) {
    expire_class(FlowClass::Untrusted, now);
    expire_class(FlowClass::Trusted, now);
}

std::optional<FlowClass> FlowTable::class_of(const FiveTuple& key) const {
    const std::uint32_t i = index_.find(key, key_of());
    if (i == kNone) return std::nullopt;
    return pool_[i].cls;
}

}  // namespace loom::ananta
