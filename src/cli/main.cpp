// `loom`: the command-line front end. Parses flags, calls the scenario layer, maps errors to exit codes
// (0 ok, 1 internal error, 2 bad input, 3 a model check failed) with one line per problem on stderr.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <new>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "loom/base/error.hpp"
#include "loom/scenario/scenario.hpp"

namespace {

using loom::scenario::Format;

struct CommonFlags {
    std::string config;
    std::vector<std::string> sets;
    std::string out;
    std::string format = "table";
    bool json = false;
    bool quiet = false;
    bool brief = false;  // schedule: the table format prints only the summary (and comparison)
    std::string trace;  // run, schedule: write the model's Chrome/Perfetto trace here

    void add_config(CLI::App* cmd, const char* what = "config file (JSON)") {
        cmd->add_option("config", config, what)->required();
        cmd->add_option("--set", sets, "override a config value: dotted.path=value (JSON, else a string)")
            ->allow_extra_args(false);
    }
    void add_output(CLI::App* cmd) {
        cmd->add_option("--format", format, "table | json | csv")->capture_default_str();
        cmd->add_flag("--json", json, "short for --format json");
        cmd->add_option("--out", out, "write stats.json, report.txt and report.csv into this directory");
        cmd->add_flag("-q,--quiet", quiet, "no progress output");
    }
    Format resolved_format() const { return json ? Format::Json : loom::scenario::parse_format(format); }
};

// Writes the report to stdout and, with --out, to files.
void emit(const loom::scenario::Report& report, const CommonFlags& flags) {
    if (!flags.out.empty()) loom::scenario::write_report(flags.out, report);
    const Format format = flags.resolved_format();
    const std::string text = flags.brief && format == Format::Table && !report.summary.empty()
                                 ? report.summary
                                 : loom::scenario::render(report, format);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
}

// A progress line on stderr, redrawn in place, only when stderr is a terminal.
loom::scenario::ProgressFn progress_line(bool quiet) {
    if (quiet || !isatty(STDERR_FILENO)) return {};
    return [](std::int64_t sim_ps, std::uint64_t events, double rate, double eta) {
        std::string eta_text = eta >= 0 ? fmt::format(" eta {:.0f}s", eta) : std::string();
        std::fprintf(stderr, "\r  sim %.3f us  events %llu  %.2f M/s%s   ", static_cast<double>(sim_ps) / 1e6,
                     static_cast<unsigned long long>(events), rate / 1e6, eta_text.c_str());
        std::fflush(stderr);
    };
}

// `loom run` and `loom schedule`: the same flags, the same output; schedule adds its summary.
int run_command(const CommonFlags& flags, bool perf, bool schedule,
                const loom::scenario::CompareOptions& compare = {}) {
    if (!flags.out.empty()) loom::scenario::prepare_out_dir(flags.out);
    flags.resolved_format();  // reject a bad --format before the run
    const auto config = loom::scenario::load_config(flags.config, flags.sets);
    loom::scenario::RunOptions options;
    options.progress = progress_line(flags.quiet);
    options.trace = !flags.trace.empty();
    auto result =
        schedule ? loom::scenario::schedule(config, options, compare) : loom::scenario::run(config, options);
    if (options.progress) std::fprintf(stderr, "\r%80s\r", "");
    if (perf) std::fprintf(stderr, "perf: %s\n", result.perf.c_str());
    if (options.trace) loom::scenario::write_file_atomic(flags.trace, result.trace);
    emit(result.report, flags);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Loom: cycle-accurate discrete-event simulator for scheduled TSP networks, dynamically routed "
                 "Dragonflies and the Ananta load balancer"};
    app.set_version_flag("--version", std::string("loom ") + LOOM_VERSION);
    app.require_subcommand(1);

    CommonFlags run_flags;
    bool perf = false;
    auto* run = app.add_subcommand("run", "run a config and report its statistics");
    run_flags.add_config(run);
    run_flags.add_output(run);
    run->add_flag("--perf", perf, "print 'perf: events=.. wall_s=.. events_per_s=..' on stderr");
    run->add_option("--trace", run_flags.trace, "write a Chrome/Perfetto trace (JSON) of the run to this file");

    CommonFlags schedule_flags;
    auto* schedule = app.add_subcommand(
        "schedule", "compile a TSP workload, verify it, run it and report makespan, efficiency and prediction error");
    schedule_flags.add_config(schedule);
    schedule_flags.add_output(schedule);
    schedule->add_flag("--perf", perf, "print 'perf: events=.. wall_s=.. events_per_s=..' on stderr");
    schedule->add_option("--trace", schedule_flags.trace,
                         "write a Chrome/Perfetto trace (JSON) of link occupancy and TSP activity to this file");
    schedule->add_flag("--brief", schedule_flags.brief,
                       "table format: print only the summary (and the comparison), not every statistic; --out "
                       "still writes them all");
    loom::scenario::CompareOptions compare;
    schedule->add_option("--compare", compare.network,
                         "also run the transfers on the dynamically routed network ('dynamic') and print the "
                         "comparison table");
    schedule->add_option("--seeds", compare.seeds, "with --compare: dynamic runs per routing function (default: "
                                                   "/fabric/seeds, 5)");
    schedule->add_option("--routing", compare.routing,
                         "with --compare: routing functions, e.g. min,valiant,ugal_l (default: /routing/functions)");

    CommonFlags validate_flags;
    auto* validate = app.add_subcommand("validate", "check a config (parse and build, no run)");
    validate_flags.add_config(validate);

    CommonFlags list_flags;
    auto* list = app.add_subcommand("list", "list every model, component type and parameter");
    list->add_option("--format", list_flags.format, "table | json (the JSON form is the config schema)");
    list->add_flag("--json", list_flags.json, "short for --format json");

    CommonFlags topo_flags;
    std::string dot_file;
    auto* topo = app.add_subcommand("topo", "describe a topology: counts, hops, cut bandwidth, memory, latency");
    topo_flags.add_config(topo);
    topo_flags.add_output(topo);
    topo->add_option("--dot", dot_file, "also write the graph in Graphviz DOT form to this file");

    CommonFlags sweep_flags;
    int jobs = 1;
    auto* sweep = app.add_subcommand("sweep", "run every point of a *.sweep.json file");
    sweep->add_option("sweep", sweep_flags.config, "sweep file")->required();
    sweep->add_option("-j,--jobs", jobs, "points run in parallel")->check(CLI::Range(1, 256));
    sweep_flags.add_output(sweep);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version arrive here too, with exit code 0: CLI11 prints them.
        if (e.get_exit_code() == 0) return app.exit(e);
        std::fprintf(stderr, "loom: %s (see loom --help)\n", e.what());
        return 2;
    }

    try {
        if (*run) return run_command(run_flags, perf, false);
        if (*schedule) return run_command(schedule_flags, perf, true, compare);
        if (*validate) {
            loom::scenario::validate(loom::scenario::load_config(validate_flags.config, validate_flags.sets));
            std::printf("%s: ok\n", validate_flags.config.c_str());
            return 0;
        }
        if (*list) {
            const Format f = list_flags.json ? Format::Json : loom::scenario::parse_format(list_flags.format);
            const std::string text = f == Format::Json ? loom::scenario::list_schema().dump(2) + "\n"
                                                       : loom::scenario::list_text();
            std::fwrite(text.data(), 1, text.size(), stdout);
            return 0;
        }
        if (*topo) {
            if (!topo_flags.out.empty()) loom::scenario::prepare_out_dir(topo_flags.out);
            topo_flags.resolved_format();
            std::string dot;
            const auto report = loom::scenario::topo(loom::scenario::load_config(topo_flags.config, topo_flags.sets),
                                                     dot_file.empty() ? nullptr : &dot);
            if (!dot_file.empty()) loom::scenario::write_file_atomic(dot_file, dot);
            emit(report, topo_flags);
            return 0;
        }
        if (*sweep) {
            if (sweep_flags.out.empty()) throw loom::InputError("--out: sweep needs an output directory");
            loom::scenario::prepare_out_dir(sweep_flags.out);
            sweep_flags.resolved_format();
            loom::scenario::SweepOptions options;
            options.jobs = jobs;
            options.out_dir = sweep_flags.out;
            options.quiet = sweep_flags.quiet;
            const auto report = loom::scenario::sweep(sweep_flags.config, options);
            const std::string text = loom::scenario::render(report, sweep_flags.resolved_format());
            std::fwrite(text.data(), 1, text.size(), stdout);
            return 0;
        }
    } catch (const loom::ConfigError& e) {
        for (const auto& m : e.messages()) std::fprintf(stderr, "loom: %s\n", m.c_str());
        return e.exit_code();
    } catch (const loom::Error& e) {
        std::fprintf(stderr, "loom: %s\n", e.what());
        return e.exit_code();
    } catch (const std::bad_alloc&) {
        // Work past the memory estimate's reach (or another process took the memory): say so, not "internal error".
        std::fprintf(stderr, "loom: out of memory: the run needs more memory than the process could get "
                             "(reduce the workload or the topology)\n");
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "loom: internal error: %s\n", e.what());
        return 1;
    }
    return 1;
}
