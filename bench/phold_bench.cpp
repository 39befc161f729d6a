// PHOLD macro benchmark: builds the model named by a config (default configs/bench/phold.json) through the
// model registry, times the run phase only, and prints events/s and the queue's memory per pending event.
//   phold_bench [CONFIG] [--queue calendar|heap] [--repeat N] [--set path=value]...
#include <chrono>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "loom/base/error.hpp"
#include "loom/config/document.hpp"
#include "loom/config/units.hpp"
#include "loom/phold/phold.hpp"
#include "loom/sim/kernel_config.hpp"
#include "loom/sim/registry.hpp"
#include "loom/sim/simulator.hpp"

namespace {

// CPU time of this thread: unlike wall time, not inflated when other processes share the cores.
double thread_cpu_s() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Args {
    std::string config = std::string(LOOM_SOURCE_DIR) + "/configs/bench/phold.json";
    std::string queue;  // empty: the config's (or the default)
    int repeat = 1;
    std::vector<std::string> overrides;
};

Args parse_args(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw loom::InputError(arg + ": missing value");
            return argv[++i];
        };
        if (arg == "--queue") {
            a.queue = value();
        } else if (arg == "--repeat") {
            a.repeat = std::atoi(value().c_str());
        } else if (arg == "--set") {
            a.overrides.push_back(value());
        } else {
            a.config = arg;
        }
    }
    return a;
}

void run_once(const loom::config::Json& root, const loom::sim::Registry& registry) {
    using namespace loom;
    config::Errors errors;
    sim::KernelConfig kernel;
    if (root.contains("kernel")) sim::kernel_schema().parse(root.at("kernel"), "/kernel", kernel, errors);
    const auto seed = root.value("seed", std::uint64_t{1});
    const auto end = config::parse_duration(root.value("end_time", std::string("200us")));
    if (!end) errors.add("/end_time", "expected a duration like \"722ns\"");
    errors.throw_if_any();

    sim::Simulator sim(sim::simulator_options(kernel, seed));
    const sim::ModelEntry& entry = registry.find(root.at("model").get<std::string>());
    auto model = entry.build(root, sim, errors);
    errors.throw_if_any();
    sim.init();
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = thread_cpu_s();
    const sim::RunResult r = sim.run(sim::run_limits(kernel, *end));
    const double cpu = thread_cpu_s() - c0;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    sim.finish();
    model->finish();
    std::printf("perf: events=%llu wall_s=%.3f events_per_s=%.0f cpu_s=%.3f cpu_events_per_s=%.0f%s%s stop=%s\n",
                static_cast<unsigned long long>(r.events), wall, static_cast<double>(r.events) / wall, cpu,
                static_cast<double>(r.events) / cpu,
                sim.perf_fields().c_str(), model->perf_fields().c_str(), sim::to_string(r.reason));
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const Args args = parse_args(argc, argv);
        loom::config::Json root = loom::config::load_json_file(args.config);
        for (const auto& o : args.overrides) loom::config::apply_override(root, o);
        if (!args.queue.empty()) root["kernel"]["queue"] = args.queue;
        loom::sim::Registry registry;
        loom::phold::register_components(registry);
        for (int i = 0; i < args.repeat; ++i) run_once(root, registry);
        return 0;
    } catch (const loom::Error& e) {
        std::fprintf(stderr, "phold_bench: %s\n", e.what());
        return e.exit_code();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "phold_bench: %s\n", e.what());
        return 1;
    }
}
