#include "loom/scenario/scenario.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "loom/ananta/ananta_model.hpp"
#include "loom/base/error.hpp"
#include "loom/config/document.hpp"
#include "loom/fabric/fabric.hpp"
#include "loom/fabric/tsp_fabric.hpp"
#include "loom/phold/phold.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/stats/stats.hpp"
#include "loom/tsp/tsp_model.hpp"
#include "root_config.hpp"
#include "scenario_internal.hpp"
#include "series_config.hpp"

namespace loom::scenario {

const sim::Registry& registry() {
    static const sim::Registry reg = [] {
        sim::Registry r;
        ananta::register_components(r);
        fabric::register_components(r);
        phold::register_components(r);
        // The tsp model, plus the "fabric" and "routing" sections its comparison with the dynamic network reads
        // (scenario composes the two models; tsp itself never sees them).
        sim::Registry tsp_only;
        tsp::register_components(tsp_only);
        sim::ModelEntry tsp_entry = tsp_only.find("tsp");
        tsp_entry.sections.push_back(config::section_info("fabric", fabric::tsp_fabric_schema()));
        tsp_entry.sections.push_back(config::section_info("routing", fabric::tsp_routing_schema()));
        tsp_entry.stats.append(compare_stat_declarations());
        tsp_entry.build = [inner = tsp_entry.build](const config::Json& root, sim::Simulator& sim,
                                                    config::Errors& errors) -> std::unique_ptr<sim::ModelInstance> {
            fabric::TspFabricConfig f;
            fabric::TspRoutingConfig rc;
            const std::size_t before = errors.size();
            parse_compare_sections(root, f, rc, errors);
            auto built = inner(root, sim, errors);
            if (errors.size() != before) return nullptr;
            return built;
        };
        r.add(std::move(tsp_entry));
        return r;
    }();
    return reg;
}

namespace {

// Every field declared as a file path, as JSON Pointers with "[]" standing for any element of a list.
void collect_paths(const std::vector<config::FieldInfo>& fields, const std::string& prefix,
                   std::vector<std::string>& out) {
    for (const auto& f : fields) {
        const std::string at = prefix + "/" + f.key;
        if (f.file_path) out.push_back(at);
        if (f.kind == config::Kind::Section) collect_paths(f.children, at, out);
        if (f.kind == config::Kind::List) collect_paths(f.children, at + "/[]", out);
    }
}

// Rewrites the relative path strings found at `pointer` (with "[]" wildcards) under `node`.
void resolve_at(Json& node, std::string_view pointer, const std::filesystem::path& dir) {
    if (pointer.empty()) {
        if (node.is_string()) {
            const std::filesystem::path p(node.get<std::string>());
            if (!p.empty() && p.is_relative()) node = (dir / p).lexically_normal().string();
        }
        return;
    }
    const std::size_t end = pointer.find('/', 1);
    const std::string key(pointer.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1));
    const std::string_view rest = end == std::string_view::npos ? std::string_view() : pointer.substr(end);
    if (key == "[]") {
        if (node.is_array())
            for (Json& e : node) resolve_at(e, rest, dir);
    } else if (node.is_object()) {
        if (auto it = node.find(key); it != node.end()) resolve_at(*it, rest, dir);
    }
}

}  // namespace

std::optional<std::string> config_path_problem(const Json& config, const std::string& path) {
    const std::string pointer = config::dotted_to_pointer(path);
    if (config.contains(Json::json_pointer(pointer))) return std::nullopt;
    if (!config.is_object() || !config.contains("model") || !config.at("model").is_string()) return std::nullopt;
    const std::string model = config.at("model").get<std::string>();
    if (!registry().contains(model)) return std::nullopt;  // the point reports the unknown model itself
    std::vector<config::FieldInfo> fields = root_schema().describe();
    fields.push_back(stats_config_info());
    for (const auto& s : registry().find(model).sections) fields.push_back(s);
    // Walk the declared fields; stop (accepting) where the schema says nothing more (hand-parsed parts).
    std::vector<std::string> parts;
    for (std::size_t b = 0;;) {
        const std::size_t dot = path.find('.', b);
        parts.push_back(path.substr(b, dot == std::string::npos ? std::string::npos : dot - b));
        if (dot == std::string::npos) break;
        b = dot + 1;
    }
    const std::vector<config::FieldInfo>* level = &fields;
    std::string walked;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (level->empty()) return std::nullopt;
        const auto it = std::find_if(level->begin(), level->end(), [&](const auto& f) { return f.key == parts[i]; });
        if (it == level->end()) {
            // A key the config already has but the schema does not describe is read by hand (a collective, a
            // program): the model itself judges the value.
            std::string prefix = walked.empty() ? parts[i] : walked + "." + parts[i];
            if (config.contains(Json::json_pointer(config::dotted_to_pointer(prefix)))) return std::nullopt;
            return fmt::format("'{}' is not a parameter of model '{}'{} (see loom list)", path, model,
                               walked.empty() ? std::string() : fmt::format(": '{}' has no key '{}'", walked, parts[i]));
        }
        walked += (walked.empty() ? "" : ".") + parts[i];
        if (it->kind == config::Kind::Section) {
            level = &it->children;
        } else if (it->kind == config::Kind::List) {
            if (i + 1 < parts.size()) ++i;  // the element's index: try_set_dotted checks it against the config
            level = &it->children;
        } else {
            return std::nullopt;  // a leaf (or an integer list's element)
        }
    }
    return std::nullopt;
}

void resolve_paths(Json& config, const std::string& origin) {
    if (!config.is_object() || !config.contains("model") || !config.at("model").is_string()) return;
    const std::string model = config.at("model").get<std::string>();
    if (!registry().contains(model)) return;
    std::vector<std::string> pointers;
    collect_paths(registry().find(model).sections, "", pointers);
    const std::filesystem::path dir = std::filesystem::path(origin).parent_path();
    if (dir.empty()) return;  // the working directory already
    for (const auto& p : pointers) resolve_at(config, p, dir);
}

Json load_config(const std::string& path, const std::vector<std::string>& overrides) {
    Json doc = config::load_json_file(path);
    resolve_paths(doc, path);
    for (const auto& o : overrides) config::apply_override(doc, o);
    return doc;
}

namespace {

// A model built into a simulator, ready to run.
struct Built {
    RootConfig root;
    StatsConfig stats;
    std::unique_ptr<sim::Simulator> sim;
    std::unique_ptr<sim::ModelInstance> instance;
};

// --no-verify: the config a run builds says so itself, in "/scheduler/verify", for a tsp workload.
Json with_options(const Json& config, const RunOptions& options) {
    if (options.verify || !config.is_object() || !config.contains("workload") || config.value("model", "") != "tsp")
        return config;
    Json c = config;
    c["scheduler"]["verify"] = false;
    return c;
}

Built build(const Json& config, const RunOptions& options) {
    config::Errors errors;
    Built b;
    const sim::ModelEntry* entry = parse_root(config, registry(), b.root, errors);
    // A bad root key does not hide the model's own errors: with the model known, its sections are parsed too,
    // so that one pass reports every error (a config that fails at the root builds nothing).
    if (!entry) errors.throw_if_any();
    if (entry) parse_stats_config(config, entry->name, stat_declarations(entry->name), b.stats, errors);
    sim::SimulatorOptions so = sim::simulator_options(b.root.kernel, static_cast<std::uint64_t>(b.root.seed));
    so.stop_flag = options.stop;
    so.log_level = options.log_level;
    b.sim = std::make_unique<sim::Simulator>(so);
    if (options.phase) b.sim->set_phase_listener(options.phase);
    b.instance = entry->build(config, *b.sim, errors);
    errors.throw_if_any();
    if (!b.instance) throw InternalError(fmt::format("model '{}' built nothing and reported no error", b.root.model));
    return b;
}

}  // namespace

void validate(const Json& config, const RunOptions& options) {
    Built b = build(with_options(config, options), options);
    b.sim->init();
    // A series key the model cannot read mid-run is a config error a run would report: report it here too.
    if (b.stats.series) {
        const SeriesRecorder probes(*b.stats.series, b.root.model, stat_declarations(b.root.model), *b.instance, *b.sim);
        b.sim->set_sampler(Time::ps(1), nullptr);  // the recorder goes; nothing runs
    }
}

RunResult run(const Json& config, const RunOptions& options) {
    Built b = build(with_options(config, options), options);
    sim::Simulator& sim = *b.sim;
    // Before init(): a model may announce its first phase of the run (the fabric's warm-up) from there.
    if (options.phase) options.phase("run");
    sim.init();
    std::optional<SeriesRecorder> series;
    if (b.stats.series) series.emplace(*b.stats.series, b.root.model, stat_declarations(b.root.model), *b.instance, sim);
    const Time end = b.root.end_time.value_or(Time::max());
    if (options.progress) {
        sim.set_progress([&options, end](const sim::Progress& p) {
            const double rate = p.wall_s > 0 ? static_cast<double>(p.events) / p.wall_s : 0.0;
            double eta = -1;
            if (end != Time::max() && p.now > Time::zero() && p.wall_s > 0)
                eta = p.wall_s * static_cast<double>((end - p.now).count()) / static_cast<double>(p.now.count());
            options.progress(p.now.count(), p.events, rate, eta);
        });
    }
    const auto t0 = std::chrono::steady_clock::now();
    const sim::RunResult rr = sim.run(sim::run_limits(b.root.kernel, end));
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const bool interrupted = rr.reason == sim::StopReason::Interrupted;
    sim.finish();
    try {
        b.instance->finish();
    } catch (const ModelError&) {
        // An interrupted run is incomplete by design: its end-of-run checks (every vector arrived, every
        // transfer completed) do not apply. What the statistics hold so far is still reported.
        if (!interrupted) throw;
    }
    std::optional<std::string> trace;
    if (options.trace && !interrupted) {
        trace = b.instance->trace();
        if (!trace) throw InputError(fmt::format("--trace: model '{}' draws no trace", b.root.model));
    }

    RunResult result;
    result.interrupted = interrupted;
    stats::DocumentHeader header;
    header.config_hash = config::canonical_hash(config);
    header.seed = static_cast<std::uint64_t>(b.root.seed);
    header.sim_time = sim.now();
    std::optional<Json> series_json;
    std::string series_note;
    if (series) {
        series_json = series->series().to_json();
        result.report.extra_files.emplace_back("series.csv", series->series().to_csv());
        series_note = fmt::format("\nseries: {} samples of {} statistics every {} (stats.json /series; "
                                  "series.csv with --out)\n",
                                  series->series().rows(), series->series().columns().size(),
                                  to_string(b.stats.series->interval));
    }
    const std::string heading =
        fmt::format("model {}  sim_time {}  stop {}  events {}  config {}\n\n", b.root.model, to_string(sim.now()),
                    sim::to_string(rr.reason), sim.events_handled(), header.config_hash);
    std::optional<std::string> head = b.instance->text_summary();
    result.perf = fmt::format("events={} wall_s={:.3f} events_per_s={:.0f}{}{}", rr.events, wall_s,
                              wall_s > 0 ? static_cast<double>(rr.events) / wall_s : 0.0, sim.perf_fields(),
                              b.instance->perf_fields());
    // Everything the report needs from the model is taken and its statistics are complete: the model and the
    // components go before the statistics document is built and rendered, so that neither comes on top of
    // their memory (at 10,440 TSPs the model still holds about 1.1 GB after the run, and the document and the
    // table about 0.4 GB: the end of the run was the command's peak).
    series.reset();
    b.instance.reset();
    sim.release_components();
    // The stats object moves into the document (at 10,440 TSPs it has over a million leaves: no copy).
    result.report.document = stats::make_document(header, sim.stats().to_json(header.sim_time));
    result.report.document["model"] = b.root.model;
    result.report.document["stop_reason"] = sim::to_string(rr.reason);
    if (series_json) result.report.document["series"] = std::move(*series_json);
    b.sim.reset();
    // The stats' table (at 10,440 TSPs over a million rows) is rendered only if printed or written (output.cpp).
    result.report.table = heading;
    result.report.table_tail = series_note;
    result.report.table_from_stats = true;
    if (head) {
        if (!head->empty() && head->back() != '\n') *head += '\n';
        result.report.summary = *head;
        result.report.table = *head + "\n" + result.report.table;
    }
    result.report.csv_from_stats = true;  // rendered only if printed or written (output.cpp)
    if (trace) {
        result.trace = std::move(*trace);
        result.report.extra_files.emplace_back("trace.json", result.trace);
    }
    return result;
}

RunResult execute(const std::string& command, const Json& config, const RunOptions& options) {
    if (command == "run") return run(config, options);
    if (command == "schedule") return schedule(config, options);
    if (command == "compare") return schedule(config, options, CompareOptions{"dynamic", CompareOptions::kSeedsUnset, {}});
    throw InputError(fmt::format("command '{}' is not available for sweeps", command));
}

Json list_schema() {
    Json models = Json::object();
    for (const auto* e : registry().entries()) {
        Json components = Json::array();
        for (const auto& c : e->components) components.push_back({{"name", c.name}, {"doc", c.doc}});
        models[e->name] = {{"doc", e->doc}, {"sections", config::describe_json(e->sections)},
                           {"components", components}, {"stats", e->stats.to_json()}};
    }
    std::vector<config::FieldInfo> root = root_schema().describe();
    root.push_back(stats_config_info());
    return Json{{"schema_version", stats::kSchemaVersion},
                {"loom_version", stats::version()},
                {"root", config::describe_json(root)},
                {"document_stats", document_stat_declarations().to_json()},
                {"models", models}};
}

namespace {
void list_fields(std::string& out, const std::vector<config::FieldInfo>& fields, const std::string& prefix) {
    for (const auto& f : fields) {
        const std::string key = prefix.empty() ? f.key : prefix + "." + f.key;
        if (f.kind == config::Kind::Section) {
            list_fields(out, f.children, key);
            continue;
        }
        std::string def = f.required ? "(required)" : f.default_value.is_null() ? "-" : f.default_value.dump();
        std::string extra;
        if (!f.range.empty()) extra += " [" + f.range + "]";
        if (!f.choices.empty()) {
            std::string c;
            for (const auto& ch : f.choices) c += (c.empty() ? "" : "|") + ch;
            extra += " {" + c + "}";
        }
        out += fmt::format("  {:<34} {:<10} {:<14} {}{}\n", key, config::kind_name(f.kind), def, f.doc, extra);
        if (f.kind == config::Kind::List) list_fields(out, f.children, key + "[]");
    }
}

// One line per declared statistic: pointer, unit, shape (when not a scalar) and description.
void list_stats(std::string& out, const stats::StatDecls& decls) {
    for (const stats::StatDecl& d : decls.all()) {
        const std::string shape = d.shape == stats::StatShape::Scalar ? std::string() : fmt::format("[{}] ", stats::shape_name(d.shape));
        out += fmt::format("  {:<50} {:<12} {}{}\n", d.pointer, d.unit, shape, d.doc);
    }
}
}  // namespace

std::string list_text() {
    std::string out = "Every config: {\"model\": ..., sections...}; durations and rates are unit strings.\n\n";
    out += "root keys\n";
    std::vector<config::FieldInfo> root = root_schema().describe();
    root.push_back(stats_config_info());
    list_fields(out, root, "");
    out += "\nstats every document has (JSON Pointers into stats.json; '*' stands for any name)\n";
    list_stats(out, document_stat_declarations());
    for (const auto* e : registry().entries()) {
        out += fmt::format("\nmodel {}: {}\n", e->name, e->doc);
        for (const auto& c : e->components) out += fmt::format("  component {}: {}\n", c.name, c.doc);
        list_fields(out, e->sections, "");
        out += fmt::format("  stats of model {}: pointer, unit, description\n", e->name);
        list_stats(out, e->stats);
    }
    return out;
}

}  // namespace loom::scenario
