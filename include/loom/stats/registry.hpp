// All statistics groups of one run, keyed by component path, written once at the end as one JSON object.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "loom/base/units.hpp"
#include "loom/stats/group.hpp"
#include "loom/stats/json.hpp"

namespace loom::stats {

// One per simulation (not a singleton: two simulations in one process have two registries). Group references
// stay valid for the Registry's lifetime.
class Registry {
public:
    Registry() = default;
    Registry(const Registry&) = delete;
    Registry& operator=(const Registry&) = delete;

    // The group at `path` ("sys.rack3.node2.tsp5"), created empty on first use.
    Group& group(const std::string& path);
    const Group* find(const std::string& path) const;  // nullptr if never created
    std::size_t size() const { return groups_.size(); }
    // {path: group.to_json(end)}, sorted by path. Paths are flat keys (not nested by '.').
    Json to_json(Time end) const;

private:
    std::map<std::string, std::unique_ptr<Group>> groups_;
};

}  // namespace loom::stats
