// A Schedule as a Chrome/Perfetto trace (JSON "traceEvents"): one track per directed link that carries traffic,
// showing when each train its instructions put there occupies it, and one track per active TSP, showing its
// instructions from issue to the end of the train they send or receive. Slices are named by transfer. Opens in
// ui.perfetto.dev (or chrome://tracing).
#pragma once

#include <nlohmann/json.hpp>

#include "loom/sched/schedule.hpp"
#include "loom/topo/chip_config.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/topo/link_class_timing.hpp"

namespace loom::sched {

// The trace of `s` on `t`. Times are microseconds (the format's unit) with picosecond resolution; events are in
// a deterministic order (links by channel id, then TSPs by vertex id, each by time). Process 1 holds the links
// (thread id = channel id + 1), process 2 the TSPs (thread id = vertex id + 1); both are named by metadata
// events so Perfetto labels every track.
nlohmann::json trace_json(const Schedule& s, const topo::FrozenTopology& t, const topo::LinkClassTiming& links,
                          const topo::ChipConfig& chip);

}  // namespace loom::sched
