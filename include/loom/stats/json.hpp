// The JSON value type statistics are written as. nlohmann::json keeps object keys in a std::map, so every
// object the stats subsystem produces is already sorted by key.
#pragma once

#include <nlohmann/json.hpp>

namespace loom::stats {

using Json = nlohmann::json;

}  // namespace loom::stats
