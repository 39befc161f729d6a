// Readers of a model's statistics in the middle of a run, for time series: each Probe names the document
// pointer of one declared scalar and reads its current value between events without changing anything.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "loom/base/units.hpp"
#include "loom/stats/json.hpp"

namespace loom::sim {

struct Probe {
    std::string pointer;                // concrete: "/stats/ananta/muxes/mux0/forwarded"
    // The value at sample time `at` (every event at or before `at` handled, none after): a number.
    std::function<stats::Json(Time at)> read;
};

// The probes a model can offer, registered at build time; `select` answers ModelInstance::probes.
class Probes {
public:
    // Registers a reader for concrete `pointer`; it must stay valid for the model's lifetime.
    void add(std::string pointer, std::function<stats::Json(Time at)> read);
    // Every probe whose pointer equals `key` or matches it as a pattern ('*' within a token, as in
    // stats::pointer_matches), in registration order.
    std::vector<Probe> select(const std::string& key) const;
    std::size_t size() const { return probes_.size(); }

private:
    std::vector<Probe> probes_;
};

}  // namespace loom::sim
