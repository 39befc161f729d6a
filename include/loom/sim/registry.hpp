// Explicit model registration: each model subsystem adds one ModelEntry through its
// register_components(sim::Registry&); the scenario layer looks models up by the config's "model" name.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loom/config/schema.hpp"
#include "loom/sim/probes.hpp"
#include "loom/stats/declaration.hpp"

namespace loom::sim {

class Simulator;

// A built model, alive for one run. The scenario layer drives it:
//   sim.init(); sim.run(limits); sim.finish(); instance->finish(); then writes sim.stats().
class ModelInstance {
public:
    virtual ~ModelInstance() = default;
    // End-of-run checks and model-level stats (the components' own finish() has run). Throws loom::ModelError
    // on a violated invariant (conservation, verifier mismatch), naming where.
    virtual void finish() = 0;
    // Extra " key=value" fields for the --perf line (leading space per field; empty for none).
    virtual std::string perf_fields() const { return {}; }
    // A Chrome/Perfetto trace (JSON) of the run, for models that can draw one (called after finish(), only when
    // the user asks for it: it can be large). nullopt: this model has none.
    virtual std::optional<std::string> trace() const { return std::nullopt; }
    // A few lines for a person to read first (called after finish()): `loom run` prints them before the
    // generic stats table. nullopt: this model has none, and the table opens the report.
    virtual std::optional<std::string> text_summary() const { return std::nullopt; }
    // Readers of the current value of the declared scalar statistic `key` (a document pointer such as
    // "/stats/ananta/muxes/mux0/forwarded", or a declared pattern such as ".../muxes/*/forwarded" for every
    // instance), for time series: one Probe per concrete pointer, in the document's order. Called after
    // Simulator::init(); each probe is read between events and must not change anything. Empty: the model
    // cannot read this statistic mid-run (its value exists only at the end). Models usually keep a
    // sim::Probes filled at build time and return probes_.select(key).
    virtual std::vector<Probe> probes(const std::string& key) const {
        (void)key;
        return {};
    }
};

// A component type a model builds, for `loom list`.
struct ComponentType {
    std::string name;
    std::string doc;
};

struct ModelEntry {
    std::string name;  // the config's "model" value
    std::string doc;
    // The top-level config sections the model reads, each a Kind::Section FieldInfo with its fields as
    // children (from the section's Schema::describe()).
    std::vector<config::FieldInfo> sections;
    std::vector<ComponentType> components;
    // Every statistic a run of this model writes into the stats document (pointers from the document root,
    // "/stats/<group>/<name>..."), each with its unit and a one-line description: `loom list` shows them and a
    // test fails on a document key none of them covers. The keys every document has (header, kernel) are the
    // scenario layer's and not repeated here.
    stats::StatDecls stats;
    // Parses the model's own sections of `root` through their schemas (every problem goes to `errors`, with
    // its JSON Pointer) and, if they parsed, creates and wires the components in `sim`. Returns nullptr when
    // `errors` is not empty. Root keys other than its sections (model, seed, end_time, kernel, ...) are the
    // scenario layer's; a model never reports them.
    std::function<std::unique_ptr<ModelInstance>(const config::Json& root, Simulator& sim, config::Errors& errors)>
        build;
};

// The models of one program, by name. An ordinary object: the scenario layer makes one and passes it to
// every model subsystem's register_components.
class Registry {
public:
    // Adds a model; a second entry with the same name is a bug (InternalError).
    void add(ModelEntry entry);
    // The entry named `name`; InputError listing the known models if there is none.
    const ModelEntry& find(std::string_view name) const;
    bool contains(std::string_view name) const;
    // Every entry, sorted by name.
    std::vector<const ModelEntry*> entries() const;

private:
    std::map<std::string, ModelEntry, std::less<>> entries_;
};

}  // namespace loom::sim
