#include "loom/sim/probes.hpp"

#include "loom/stats/declaration.hpp"

namespace loom::sim {

void Probes::add(std::string pointer, std::function<stats::Json(Time at)> read) {
    probes_.push_back(Probe{std::move(pointer), std::move(read)});
}

std::vector<Probe> Probes::select(const std::string& key) const {
    std::vector<Probe> out;
    for (const Probe& p : probes_)
        if (p.pointer == key || stats::pointer_matches(key, p.pointer)) out.push_back(p);
    return out;
}

}  // namespace loom::sim
