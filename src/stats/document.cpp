#include "loom/stats/document.hpp"

#ifndef LOOM_VERSION
#error "LOOM_VERSION must be defined by the build (loom_subsystem sets it)"
#endif

namespace loom::stats {

Json make_document(const DocumentHeader& header, Json stats) {
    Json doc = Json::object();
    doc["schema_version"] = kSchemaVersion;
    doc["loom_version"] = version();
    doc["config_hash"] = header.config_hash;
    doc["seed"] = header.seed;
    doc["sim_time_ps"] = header.sim_time.count();
    doc["stats"] = std::move(stats);
    return doc;
}

std::string dump(const Json& document) {
    // nlohmann::json prints doubles as the shortest round-trip text (locale-independent), and its objects
    // iterate in key order, so equal documents give equal bytes.
    std::string text = document.dump(2, ' ', false, Json::error_handler_t::replace);
    text += '\n';
    return text;
}

const char* version() { return LOOM_VERSION; }

}  // namespace loom::stats
