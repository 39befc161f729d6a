#include "root_config.hpp"

#include <fmt/format.h>

namespace loom::scenario {

const config::Schema<RootConfig>& root_schema() {
    static const config::Schema<RootConfig> schema = [] {
        config::Schema<RootConfig> s("keys every config has");
        s.field("model", &RootConfig::model, "which model to build (see `loom list`)").required();
        s.field("description", &RootConfig::description, "free text describing the config");
        s.field("seed", &RootConfig::seed, "run seed; every component's RNG stream is derived from it and its path")
            .at_least(0);
        s.field("end_time", &RootConfig::end_time,
                "simulated time at which the run stops (inclusive); absent: run until no event is pending");
        s.section("kernel", &RootConfig::kernel, sim::kernel_schema(), "event-queue choice and event budget");
        return s;
    }();
    return schema;
}

const sim::ModelEntry* parse_root(const config::Json& config, const sim::Registry& registry, RootConfig& root,
                                  config::Errors& errors) {
    if (!config.is_object()) {
        errors.add("/", fmt::format("expected a config object, got {}", config::quote_value(config)));
        return nullptr;
    }
    static const std::vector<std::string> root_keys{"model", "description", "seed", "end_time", "kernel"};
    config::Json own = config::Json::object();
    for (const auto& k : root_keys)
        if (config.contains(k)) own[k] = config.at(k);
    root_schema().parse(own, "", root, errors);

    const sim::ModelEntry* entry = nullptr;
    if (!root.model.empty()) {
        if (registry.contains(root.model)) {
            entry = &registry.find(root.model);
        } else {
            std::string known;
            for (const auto* e : registry.entries()) known += (known.empty() ? "" : ", ") + e->name;
            errors.add("/model", fmt::format("unknown model '{}' (expected one of: {})", root.model, known));
        }
    }
    if (entry) {
        std::vector<std::string> allowed = root_keys;
        allowed.push_back("stats");  // parsed by the scenario layer against the model's declared stats
        for (const auto& s : entry->sections) allowed.push_back(s.key);
        config::report_unknown_keys(config, "", allowed, errors);
    }
    return entry;
}

}  // namespace loom::scenario
