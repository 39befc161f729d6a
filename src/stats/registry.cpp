#include "loom/stats/registry.hpp"

namespace loom::stats {

Group& Registry::group(const std::string& path) {
    auto it = groups_.find(path);
    if (it == groups_.end()) it = groups_.emplace(path, std::make_unique<Group>(path)).first;
    return *it->second;
}

const Group* Registry::find(const std::string& path) const {
    const auto it = groups_.find(path);
    return it == groups_.end() ? nullptr : it->second.get();
}

Json Registry::to_json(Time end) const {
    Json j = Json::object();
    for (const auto& [path, g] : groups_) j[path] = g->to_json(end);
    return j;
}

}  // namespace loom::stats
