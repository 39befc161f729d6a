// `loom`: the command-line front end. Parses flags, calls the scenario layer, maps errors to exit codes
// (0 ok, 1 internal error, 2 bad input, 3 a model check failed, 130 interrupted) with one line per problem on
// stderr.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "loom/base/error.hpp"
#include "loom/base/memory.hpp"
#include "loom/config/units.hpp"
#include "loom/scenario/scenario.hpp"

namespace loom::cli {
const char* build_id();  // build_id.cpp: "<git commit>[-dirty.<diff hash>]" or "unknown"
}  // namespace loom::cli

namespace {

using loom::scenario::Format;

// Set by SIGINT/SIGTERM, polled by the simulator and the sweep. A signal handler can reach nothing else, so this
// one flag is the program's only global; everything else gets a pointer to it.
std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the stop flag is written from a signal handler");

void on_stop_signal(int) { g_stop.store(true); }

// SA_RESETHAND: a second Ctrl-C ends the process at once (the default action) if the clean stop takes too long.
void install_stop_handlers() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

// An empty value for a flag that names a file, folder or list is a mistake, never a request for the default.
const CLI::Validator kNonEmpty(
    [](std::string& value) { return value.empty() ? std::string("expected a value, got ''") : std::string(); },
    "NONEMPTY", "non-empty");

constexpr const char* kNoVerify =
    "do not run the static verifier on a compiled TSP schedule (the report says it was not checked)";

struct CommonFlags {
    std::string config;
    std::vector<std::string> sets;
    std::string out;
    std::string format = "table";
    bool json = false;
    bool quiet = false;
    bool progress = false;  // progress on stderr even when it is not a terminal
    bool brief = false;  // schedule: the table format prints only the summary (and comparison)
    std::string trace;  // run, schedule: write the model's Chrome/Perfetto trace here
    bool no_verify = false;  // run, schedule, validate: skip the static schedule verifier (stated in the output)
    std::string perf_json;  // run, schedule: write the --perf figures as JSON here

    void add_config(CLI::App* cmd, const char* what = "config file (JSON)") {
        cmd->add_option("config", config, what)->required()->check(kNonEmpty);
        cmd->add_option("--set", sets, "override a config value: dotted.path=value (JSON, else a string)")
            ->allow_extra_args(false);
    }
    void add_output(CLI::App* cmd) {
        cmd->add_option("--format", format, "table | json | csv")->capture_default_str();
        cmd->add_flag("--json", json, "short for --format json");
        cmd->add_option("--out", out, "write stats.json, report.txt, report.csv and config.json into this directory")
            ->check(kNonEmpty);
        cmd->add_flag("-q,--quiet", quiet, "no progress output");
        cmd->add_flag("--progress", progress, "progress on stderr even when it is not a terminal");
    }
    Format resolved_format() const { return json ? Format::Json : loom::scenario::parse_format(format); }
};

// Writes `text` to stdout and checks that it got there: a full disk or a closed pipe is an error, not a
// silently cut-off report.
void write_stdout(const std::string& text) {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
        const int err = errno;
        throw loom::InputError(fmt::format("standard output: write failed: {}", std::strerror(err)));
    }
}

// Writes the report to stdout and, with --out, to files.
void emit(const loom::scenario::Report& report, const CommonFlags& flags, const loom::scenario::Json& config) {
    if (!flags.out.empty()) {
        spdlog::debug("writing {}/stats.json", flags.out);
        loom::scenario::write_report(flags.out, report, config);
    }
    const Format format = flags.resolved_format();
    const std::string text = flags.brief && format == Format::Table && !report.summary.empty()
                                 ? report.summary
                                 : loom::scenario::render(report, format);
    write_stdout(text);
}

// Progress goes to stderr when it is a terminal or --progress asks for it, never with --quiet.
bool show_progress(const CommonFlags& flags) { return !flags.quiet && (flags.progress || isatty(STDERR_FILENO)); }

// A progress line on stderr, redrawn in place.
loom::scenario::ProgressFn progress_line(const CommonFlags& flags) {
    if (!show_progress(flags)) return {};
    return [](std::int64_t sim_ps, std::uint64_t events, double rate, double eta) {
        std::string eta_text = eta >= 0 ? fmt::format(" eta {:.0f}s", eta) : std::string();
        std::fprintf(stderr, "\r  sim %.3f us  events %llu  %.2f M/s%s   ", static_cast<double>(sim_ps) / 1e6,
                     static_cast<unsigned long long>(events), rate / 1e6, eta_text.c_str());
        std::fflush(stderr);
    };
}

// Each phase of a long command on a line of its own ("phase: verify"), above the progress line.
std::function<void(std::string_view)> phase_line(const CommonFlags& flags) {
    if (!show_progress(flags)) return {};
    return [](std::string_view phase) {
        std::fprintf(stderr, "\r%80s\rphase: %.*s\n", "", static_cast<int>(phase.size()), phase.data());
        std::fflush(stderr);
    };
}

// Loads the config named on the command line; its errors name the file.
loom::scenario::Json load(const CommonFlags& flags) {
    spdlog::debug("loading {}", flags.config);
    return loom::scenario::load_config(flags.config, flags.sets);
}

// Prefixes each config error with the file it is about ("configs/x.json: /phold/lps: ...").
[[noreturn]] void rethrow_naming(const loom::ConfigError& e, const std::string& file) {
    std::vector<std::string> named;
    for (const auto& m : e.messages()) named.push_back(m.rfind(file + ":", 0) == 0 ? m : file + ": " + m);
    throw loom::ConfigError(std::move(named));
}

std::string version_text() {
    return fmt::format("loom {} (git {})", LOOM_VERSION, loom::cli::build_id());
}

// --perf-json: the --perf figures with what produced them and the process's peak resident set so far.
void write_perf_json(const CommonFlags& flags, bool schedule, const loom::scenario::RunResult& result) {
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    const loom::scenario::Json extra = {{"command", schedule ? "schedule" : "run"},
                                        {"config", flags.config},
                                        {"build", version_text()},
                                        {"interrupted", result.interrupted},
                                        {"peak_rss_bytes", static_cast<std::int64_t>(usage.ru_maxrss) * 1024}};
    loom::scenario::write_file_atomic(flags.perf_json,
                                      loom::scenario::perf_document(result.perf, extra).dump(1) + "\n");
}

// `loom run` and `loom schedule`: the same flags, the same output; schedule adds its summary.
int run_command(const CommonFlags& flags, bool perf, bool schedule, spdlog::level::level_enum log_level,
                const loom::scenario::CompareOptions& compare = {}) {
    if (!flags.perf_json.empty()) loom::scenario::check_output_file(flags.perf_json, "--perf-json");
    if (!flags.out.empty()) {
        loom::scenario::prepare_out_dir(flags.out);
        // A run that fails or is interrupted before its report is written leaves no earlier report behind.
        loom::scenario::remove_previous_report(flags.out);
    }
    flags.resolved_format();  // reject a bad --format before the run
    const auto config = load(flags);
    loom::scenario::RunOptions options;
    options.progress = progress_line(flags);
    options.phase = phase_line(flags);
    options.trace = !flags.trace.empty();
    options.stop = &g_stop;
    options.log_level = log_level;
    options.verify = !flags.no_verify;
    loom::scenario::RunResult result;
    try {
        result = schedule ? loom::scenario::schedule(config, options, compare) : loom::scenario::run(config, options);
    } catch (const loom::ConfigError& e) {
        rethrow_naming(e, flags.config);
    }
    if (options.progress) std::fprintf(stderr, "\r%80s\r", "");
    if (perf) std::fprintf(stderr, "perf: %s\n", result.perf.c_str());
    if (result.interrupted || g_stop.load()) {
        // What the run has goes to --out (marked "stop_reason": "interrupted"); stdout gets nothing partial.
        if (!flags.out.empty()) {
            loom::scenario::write_report(flags.out, result.report, config);
            std::fprintf(stderr, "loom: interrupted; the statistics so far are in %s/stats.json (stop_reason "
                                 "\"interrupted\")\n", flags.out.c_str());
        } else {
            std::fprintf(stderr, "loom: interrupted\n");
        }
        if (!flags.perf_json.empty()) write_perf_json(flags, schedule, result);
        return 130;
    }
    if (options.trace) loom::scenario::write_file_atomic(flags.trace, result.trace);
    emit(result.report, flags, config);
    if (!flags.perf_json.empty()) write_perf_json(flags, schedule, result);
    return 0;
}

// --log-level / LOOM_LOG: one of spdlog's level names.
spdlog::level::level_enum parse_log_level(const std::string& text, const char* source) {
    for (const char* name : {"trace", "debug", "info", "warn", "error", "off"}) {
        if (text == name) return spdlog::level::from_str(text);
    }
    throw loom::InputError(
        fmt::format("{}: expected one of trace, debug, info, warn, error, off, got '{}'", source, text));
}

}  // namespace

int main(int argc, char** argv) {
    install_stop_handlers();
    CLI::App app{"Loom: cycle-accurate discrete-event simulator for software-scheduled TSP networks, dynamically "
                 "routed Dragonflies and the Ananta layer-4 load balancer (models: tsp, fabric, ananta, phold)"};
    app.set_version_flag("--version", version_text());
    app.require_subcommand(1);
    app.fallthrough();  // --log-level may come after the command
    std::string log_level_text;
    app.add_option("--log-level", log_level_text,
                   "trace | debug | info | warn | error | off (default: $LOOM_LOG, else info)");
    std::string max_memory_text;
    app.add_option("--max-memory", max_memory_text,
                   "cap the process's memory (e.g. 4GiB): larger work is refused before it is built (exit 2)");

    CommonFlags run_flags;
    bool perf = false;
    auto* run = app.add_subcommand("run", "run a config and report its statistics");
    run_flags.add_config(run);
    run_flags.add_output(run);
    run->add_flag("--perf", perf, "print 'perf: events=.. wall_s=.. events_per_s=..' on stderr");
    run->add_option("--perf-json", run_flags.perf_json, "write the --perf figures as JSON to this file")
        ->check(kNonEmpty);
    run->add_option("--trace", run_flags.trace, "write a Chrome/Perfetto trace (JSON) of the run to this file")
        ->check(kNonEmpty);
    run->add_flag("--no-verify", run_flags.no_verify, kNoVerify);

    CommonFlags schedule_flags;
    auto* schedule = app.add_subcommand(
        "schedule", "compile a TSP workload, verify it, run it and report makespan, efficiency and prediction error");
    schedule_flags.add_config(schedule);
    schedule_flags.add_output(schedule);
    schedule->add_flag("--perf", perf, "print 'perf: events=.. wall_s=.. events_per_s=..' on stderr");
    schedule->add_option("--perf-json", schedule_flags.perf_json, "write the --perf figures as JSON to this file")
        ->check(kNonEmpty);
    schedule->add_option("--trace", schedule_flags.trace,
                         "write a Chrome/Perfetto trace (JSON) of link occupancy and TSP activity to this file")
        ->check(kNonEmpty);
    schedule->add_flag("--no-verify", schedule_flags.no_verify, kNoVerify);
    schedule->add_flag("--brief", schedule_flags.brief,
                       "table format: print only the summary (and the comparison), not every statistic; --out "
                       "still writes them all");
    loom::scenario::CompareOptions compare;
    schedule->add_option("--compare", compare.network,
                         "also run the transfers on the dynamically routed network ('dynamic') and print the "
                         "comparison table")
        ->check(kNonEmpty);
    auto* seeds_option =
        schedule->add_option("--seeds", compare.seeds, "with --compare: dynamic runs per routing function (default: "
                                                       "/fabric/seeds, 5)");
    schedule->add_option("--routing", compare.routing,
                         "with --compare: routing functions, e.g. min,valiant,ugal_l (default: /routing/functions)")
        ->check(kNonEmpty);

    CommonFlags validate_flags;
    auto* validate = app.add_subcommand("validate", "check a config (parse and build, no run): every error at once");
    validate_flags.add_config(validate);
    validate->add_flag("--no-verify", validate_flags.no_verify, kNoVerify);

    CommonFlags list_flags;
    auto* list = app.add_subcommand("list", "list every model, component type and parameter");
    list->add_option("--format", list_flags.format, "table | json (the JSON form is the config schema)");
    list->add_flag("--json", list_flags.json, "short for --format json");

    CommonFlags topo_flags;
    std::string dot_file;
    auto* topo = app.add_subcommand("topo", "describe a topology: counts, hops, cut bandwidth, memory, latency");
    topo_flags.add_config(topo);
    topo_flags.add_output(topo);
    topo->add_option("--dot", dot_file, "also write the graph in Graphviz DOT form to this file")->check(kNonEmpty);

    CommonFlags sweep_flags;
    int jobs = 1;
    auto* sweep = app.add_subcommand("sweep", "run every point of a *.sweep.json file");
    sweep->add_option("sweep", sweep_flags.config, "sweep file")->required()->check(kNonEmpty);
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
        spdlog::level::level_enum log_level = spdlog::level::info;
        if (!log_level_text.empty() || app.count("--log-level")) {
            log_level = parse_log_level(log_level_text, "--log-level");
        } else if (const char* env = std::getenv("LOOM_LOG"); env && *env) {
            log_level = parse_log_level(env, "LOOM_LOG");
        }
        if (app.count("--max-memory")) {
            const auto bytes = loom::config::parse_bytes(max_memory_text);
            if (!bytes || bytes->count() <= 0)
                throw loom::InputError(
                    fmt::format("--max-memory: expected a positive size such as 4GiB or 512MiB, got '{}'",
                                max_memory_text));
            loom::limit_memory(bytes->count(), "--max-memory");
        }
        // Log lines go to stderr, as the models' do: stdout carries only the report.
        spdlog::set_default_logger(spdlog::stderr_color_st("loom"));
        spdlog::set_level(log_level);
        spdlog::debug("{}", version_text());

        if (*schedule && seeds_option->count() && compare.seeds < 1)
            throw loom::InputError(fmt::format("--seeds: expected an integer >= 1, got {}", compare.seeds));

        int code = 0;
        if (*run) code = run_command(run_flags, perf, false, log_level);
        if (*schedule) code = run_command(schedule_flags, perf, true, log_level, compare);
        if (*validate) {
            const auto config = load(validate_flags);
            try {
                loom::scenario::RunOptions options;
                options.log_level = log_level;
                options.verify = !validate_flags.no_verify;
                loom::scenario::validate(config, options);
            } catch (const loom::ConfigError& e) {
                rethrow_naming(e, validate_flags.config);
            }
            write_stdout(validate_flags.config + ": ok\n");
        }
        if (*list) {
            const Format f = list_flags.json ? Format::Json : loom::scenario::parse_format(list_flags.format);
            if (f == Format::Csv) throw loom::InputError("--format: loom list prints table or json, got 'csv'");
            write_stdout(f == Format::Json ? loom::scenario::list_schema().dump(2) + "\n"
                                           : loom::scenario::list_text());
        }
        if (*topo) {
            if (!topo_flags.out.empty()) {
                loom::scenario::prepare_out_dir(topo_flags.out);
                loom::scenario::remove_previous_report(topo_flags.out);
            }
            topo_flags.resolved_format();
            std::string dot;
            const auto config = load(topo_flags);
            loom::scenario::Report report;
            try {
                report = loom::scenario::topo(config, dot_file.empty() ? nullptr : &dot);
            } catch (const loom::ConfigError& e) {
                rethrow_naming(e, topo_flags.config);
            }
            if (!dot_file.empty()) loom::scenario::write_file_atomic(dot_file, dot);
            emit(report, topo_flags, config);
        }
        if (*sweep) {
            if (sweep_flags.out.empty()) throw loom::InputError("--out: sweep needs an output directory");
            loom::scenario::prepare_out_dir(sweep_flags.out);
            const Format format = sweep_flags.resolved_format();
            loom::scenario::SweepOptions options;
            options.jobs = jobs;
            options.out_dir = sweep_flags.out;
            options.quiet = !show_progress(sweep_flags);
            options.build_identity = version_text();
            options.stop = &g_stop;
            options.log_level = log_level;
            const auto result = loom::scenario::sweep(sweep_flags.config, options);
            if (!result.primary) return result.exit_code;  // an mpirun rank other than 0: rank 0 reports
            write_stdout(loom::scenario::render(result.report, format));
            for (const auto& line : result.failures) std::fprintf(stderr, "loom: %s\n", line.c_str());
            code = result.exit_code;
            if (code == 130) std::fprintf(stderr, "loom: interrupted; rerun the same command to resume the sweep\n");
        }
        // Output a buffered stream still holds is written at exit, unchecked: flush and check it here.
        if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
            throw loom::InputError(fmt::format("standard output: write failed: {}", std::strerror(errno)));
        }
        if (code == 0 && g_stop.load()) {
            std::fprintf(stderr, "loom: interrupted\n");
            return 130;
        }
        return code;
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
}
