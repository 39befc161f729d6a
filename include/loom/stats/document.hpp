// The stats document of a run, the one JSON file every command writes: a header identifying the run, then
// the registry's stats. Same config and seed give a byte-identical document.
#pragma once

#include <cstdint>
#include <string>

#include "loom/base/units.hpp"
#include "loom/stats/json.hpp"

namespace loom::stats {

// Bumped whenever a key of the document changes meaning or disappears.
inline constexpr int kSchemaVersion = 2;  // 2: tsp efficiency against a schedule-independent bound (README)

struct DocumentHeader {
    std::string config_hash;  // hex digest of the canonical config (see config::canonical_hash)
    std::uint64_t seed = 1;
    Time sim_time;
};

// {schema_version, loom_version, config_hash, seed, sim_time_ps, stats}. Callers may add keys to the result
// (e.g. "comparison"). No wall-clock figure goes in.
Json make_document(const DocumentHeader& header, Json stats);

// The document as text: keys sorted, 2-space indent, trailing newline. Doubles are printed as the shortest
// text that reads back to the same value (so equal values give equal text; 2.0 prints "2.0"); NaN and
// infinities print as null; invalid UTF-8 in strings is replaced by U+FFFD.
std::string dump(const Json& document);

// Loom's version ("x.y.z"), the project version of the build.
const char* version();

}  // namespace loom::stats
