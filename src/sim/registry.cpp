#include "loom/sim/registry.hpp"

#include "loom/base/error.hpp"

namespace loom::sim {

void Registry::add(ModelEntry entry) {
    if (entry.name.empty()) throw InternalError("a model entry needs a name");
    if (!entry.build) throw InternalError("model '" + entry.name + "' has no build function");
    const std::string name = entry.name;
    if (!entries_.emplace(name, std::move(entry)).second) {
        throw InternalError("model '" + name + "' is registered twice");
    }
}

const ModelEntry& Registry::find(std::string_view name) const {
    const auto it = entries_.find(name);
    if (it == entries_.end()) {
        std::string known;
        for (const auto& [key, entry] : entries_) known += (known.empty() ? "" : ", ") + key;
        throw InputError("unknown model '" + std::string(name) + "' (known models: " +
                         (known.empty() ? std::string("none") : known) + ")");
    }
    return it->second;
}

bool Registry::contains(std::string_view name) const { return entries_.find(name) != entries_.end(); }

std::vector<const ModelEntry*> Registry::entries() const {
    std::vector<const ModelEntry*> out;
    out.reserve(entries_.size());
    for (const auto& [name, entry] : entries_) out.push_back(&entry);
    return out;
}

}  // namespace loom::sim
