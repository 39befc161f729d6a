#include "loom/ananta/flow_table.hpp"

namespace loom::ananta {

void FlowTable::erase(std::unordered_map<FiveTuple, Entry, FiveTupleHasher>::iterator it) {
    lists_[index(it->second.cls)].erase(it->second.pos);
    map_.erase(it);
}

std::optional<FlowTarget> FlowTable::lookup(const FiveTuple& key, Time now) {
    auto it = map_.find(key);
    if (it == map_.end()) return std::nullopt;
    Entry& e = it->second;
    if (now - e.last_seen >= timeout(e.cls)) {
        erase(it);
        ++expired_;
        return std::nullopt;
    }
    e.last_seen = now;
    FlowClass to = e.cls;
    if (e.cls == FlowClass::Untrusted) {
        expire_class(FlowClass::Trusted, now);
        if (static_cast<std::int64_t>(size(FlowClass::Trusted)) < quota(FlowClass::Trusted)) {
            to = FlowClass::Trusted;
            ++promotions_;
        } else {
            ++promotions_refused_;
        }
    }
    // Move to the back of its (possibly new) class list: most recently seen.
    auto& from_list = lists_[index(e.cls)];
    auto& to_list = lists_[index(to)];
    to_list.splice(to_list.end(), from_list, e.pos);
    e.cls = to;
    return e.target;
}

bool FlowTable::insert(const FiveTuple& key, const FlowTarget& target, Time now) {
    if (auto it = map_.find(key); it != map_.end()) erase(it);
    expire_class(FlowClass::Untrusted, now);
    if (static_cast<std::int64_t>(size(FlowClass::Untrusted)) >= quota(FlowClass::Untrusted)) return false;
    auto& list = lists_[index(FlowClass::Untrusted)];
    list.push_back(key);
    map_.emplace(key, Entry{target, FlowClass::Untrusted, now, std::prev(list.end())});
    return true;
}

void FlowTable::expire_class(FlowClass c, Time now) {
    auto& list = lists_[index(c)];
    const Time t = timeout(c);
    while (!list.empty()) {
        auto it = map_.find(list.front());
        if (now - it->second.last_seen < t) break;
        erase(it);
        ++expired_;
    }
}

void FlowTable::expire(Time now) {
    expire_class(FlowClass::Untrusted, now);
    expire_class(FlowClass::Trusted, now);
}

std::optional<FlowClass> FlowTable::class_of(const FiveTuple& key) const {
    auto it = map_.find(key);
    if (it == map_.end()) return std::nullopt;
    return it->second.cls;
}

}  // namespace loom::ananta
