// Statistics registered once at setup and updated through plain references on the hot path: counters,
// log-linear (HDR-style) histograms, time averages, and values set at the end of a run. A Registry holds
// one Group per component path and writes them all as one JSON object with sorted keys.
#pragma once

#include "loom/stats/counter.hpp"
#include "loom/stats/declaration.hpp"
#include "loom/stats/document.hpp"
#include "loom/stats/group.hpp"
#include "loom/stats/histogram.hpp"
#include "loom/stats/json.hpp"
#include "loom/stats/registry.hpp"
#include "loom/stats/series.hpp"
#include "loom/stats/table.hpp"
#include "loom/stats/time_average.hpp"
