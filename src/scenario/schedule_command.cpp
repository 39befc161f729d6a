// `loom schedule`: compile a "tsp" config's workload, verify the schedule statically, run it on the TSP model
// (which checks every arrival against the prediction) and report the schedule's figures.
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "loom/base/error.hpp"
#include "loom/config/schema.hpp"
#include "loom/scenario/scenario.hpp"
#include "scenario_internal.hpp"

namespace loom::scenario {

namespace {


// "12.5 GB/s" style rate with SI prefixes (decimal, as link rates are quoted).
std::string rate_text(double bytes_per_s) {
    static const char* kUnit[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s"};
    int u = 0;
    while (bytes_per_s >= 1000.0 && u < 5) {
        bytes_per_s /= 1000.0;
        ++u;
    }
    return fmt::format("{:.3g} {}", bytes_per_s, kUnit[u]);
}

std::string ns_text(double ps) { return fmt::format("{:.3f} ns", ps / 1000.0); }

// The summary a person reads first; the full stats document follows it in the table output.
std::string summary(const Json& tsp) {
    std::string out;
    const Json& s = member(tsp, "schedule");
    out += fmt::format("schedule: {} transfers, {} vectors, {} of {} TSPs active\n",
                       static_cast<std::int64_t>(number(tsp, "transfers")),
                       static_cast<std::int64_t>(number(tsp, "vectors_sent")),
                       static_cast<std::int64_t>(number(tsp, "active_tsps")), static_cast<std::int64_t>(number(tsp, "tsps")));
    out += fmt::format("  makespan            {} ({} cycles)\n", ns_text(number(tsp, "makespan_ps")),
                       static_cast<std::int64_t>(number(tsp, "makespan_cycles")));
    const Json& binding = member(s, "bound_binding");
    const std::string bound_name = binding.is_string() ? binding.get<std::string>() : std::string("?");
    const Json& where = member(member(member(s, "bound_terms"), bound_name.c_str()), "where");
    out += fmt::format("  lower bound         {} ({}{})   efficiency {:.4f}\n", ns_text(number(s, "lower_bound_ps")),
                       bound_name, where.is_string() && !where.get<std::string>().empty() ? " at " + where.get<std::string>() : "",
                       number(s, "efficiency"));
    if (member(s, "algorithm_bound_ps").is_number())
        out += fmt::format("  algorithm bound     {}   algorithm efficiency {:.4f}\n",
                           ns_text(number(s, "algorithm_bound_ps")), number(s, "algorithm_efficiency"));
    out += fmt::format("  busiest link        utilization {:.4f} (link_utilization_max, not an efficiency)\n",
                       number(s, "link_utilization_max"));
    out += fmt::format("  prediction error    {} ps (jitter allowance {} ps, {} vector hops checked)\n",
                       static_cast<std::int64_t>(number(s, "prediction_error_ps")),
                       static_cast<std::int64_t>(number(s, "jitter_allowance_ps")),
                       static_cast<std::int64_t>(number(s, "vectors_checked")));
    const Json& verified = member(s, "verified");
    out += verified.is_boolean() && !verified.get<bool>() ? "  verifier: off (--no-verify): the schedule was not checked statically\n"
                                                          : "  verifier: passed\n";
    const Json& dc = member(tsp, "data_check");
    const Json& on = member(dc, "on");
    if (on.is_boolean() && !on.get<bool>()) {
        out += "  data check: off\n";
    } else {
        out += fmt::format("  data checked: {} slots\n", static_cast<std::int64_t>(number(dc, "slots")));
        if (number(dc, "ambiguous_slots") > 0)
            out += fmt::format("  ({} destination slots not checked: the workload leaves their final value to the "
                               "order of unordered transfers)\n",
                               static_cast<std::int64_t>(number(dc, "ambiguous_slots")));
    }
    const Json& lat = member(tsp, "transfer_latency");
    out += fmt::format("  transfer latency    min {}  mean {}  p99 {}  max {}\n", ns_text(number(lat, "min_ps")),
                       ns_text(number(lat, "mean_ps")), ns_text(number(lat, "p99_ps")), ns_text(number(lat, "max_ps")));
    const Json& bw = member(tsp, "bandwidth");
    out += fmt::format("  bandwidth per TSP   sent mean {}  max {};  received mean {}  max {}\n",
                       rate_text(number(bw, "sent_mean_bytes_per_s")), rate_text(number(bw, "sent_max_bytes_per_s")),
                       rate_text(number(bw, "received_mean_bytes_per_s")),
                       rate_text(number(bw, "received_max_bytes_per_s")));
    const Json& links = member(tsp, "links");
    if (links.is_object() && !links.empty()) {
        out += fmt::format("  {:<14} {:>9} {:>7} {:>12} {:>14} {:>11} {:>9}\n", "link class", "channels", "used",
                           "vectors", "bandwidth", "util mean", "util max");
        for (const auto& [name, c] : links.items()) {
            out += fmt::format("  {:<14} {:>9} {:>7} {:>12} {:>14} {:>11.4f} {:>9.4f}\n", name,
                               static_cast<std::int64_t>(number(c, "channels")),
                               static_cast<std::int64_t>(number(c, "channels_used")),
                               static_cast<std::int64_t>(number(c, "vectors")), rate_text(number(c, "bytes_per_s")),
                               number(c, "utilization"), number(c, "max_utilization"));
        }
    }
    const Json& fec = member(tsp, "fec");
    out += fmt::format("  FEC                 {} corrected, {} uncorrectable{}\n",
                       static_cast<std::int64_t>(number(fec, "corrected")),
                       static_cast<std::int64_t>(number(fec, "uncorrectable")),
                       member(fec, "replay_required").is_boolean() && member(fec, "replay_required").get<bool>()
                           ? " (the runtime replays the inference)"
                           : "");
    return out;
}

}  // namespace

RunResult schedule(const Json& config, const RunOptions& options, const CompareOptions& compare) {
    if (!compare.network.empty() && compare.network != "dynamic")
        throw InputError(fmt::format("--compare: expected 'dynamic', got '{}'", compare.network));
    if (std::string e; !compare.routing.empty() && !fabric::parse_routing_list(compare.routing, &e))
        throw InputError("--routing: " + e);
    const bool seeds_given = compare.seeds != CompareOptions::kSeedsUnset;
    if (compare.network.empty() && (seeds_given || !compare.routing.empty()))
        throw InputError(fmt::format("{}: only with --compare dynamic", seeds_given ? "--seeds" : "--routing"));
    if (seeds_given && compare.seeds < 1) throw InputError(fmt::format("--seeds: expected an integer >= 1, got {}", compare.seeds));
    config::Errors errors;
    if (!config.is_object() || !config.contains("model") || config.at("model") != "tsp")
        errors.add("/model", "loom schedule runs a \"tsp\" config (with a \"workload\" section to compile)");
    else if (!config.contains("workload"))
        errors.add("/workload", "loom schedule compiles a \"workload\" of transfers: this config has none");
    errors.throw_if_any();

    RunResult result = run(config, options);
    Json& doc = result.report.document;
    doc["command"] = "schedule";
    const Json& tsp = member(member(doc, "stats"), "tsp");
    std::string head = summary(tsp);
    if (!compare.network.empty() && !result.interrupted) {
        std::string table, csv, perf;
        CompareOptions with_stop = compare;
        with_stop.stop = options.stop;
        with_stop.phase = options.phase;
        Json comparison;
        try {
            comparison = compare_dynamic(config, tsp, with_stop, table, csv, perf);
        } catch (const ModelError&) {
            // A dynamic run cut short fails its completion checks: that is the interruption, not the model.
            if (options.stop && options.stop->load()) throw Interrupted();
            throw;
        }
        doc["comparison"] = std::move(comparison);
        head += "\n" + table;
        result.report.csv = csv;
        result.report.csv_from_stats = false;
        result.perf += perf;
    }
    result.report.summary = head;
    result.report.table = head + "\n" + result.report.table;
    return result;
}

}  // namespace loom::scenario
