// Hierarchical all-reduce at scale: generating the transfers, compiling them (sched::compile) and executing the
// schedule on the TSP model, each timed apart, with the process's peak resident memory. The default is the
// largest system (145 racks x 72 = 10,440 TSPs, 1 MiB per TSP), as configs/tsp/collectives/allreduce-10440.json.
//
//     bench/collective_bench [--topology node|system264|rack|multirack] [--racks R] [--bytes B] [--pieces P]
//                            [--minimal] [--values] [--no-verify]
//
// Each phase is reported in wall and CPU seconds (CPU is the figure to compare on a shared machine); the static
// verifier (sched::verify) runs between compiling and executing unless --no-verify.
// --minimal: minimal paths only (scheduler.allow_nonminimal false).
// --values also seeds and checks every vector's value (tsp/data_check.hpp), which costs memory.
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "loom/base/error.hpp"
#include "loom/sched/verifier.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/tsp/tsp_model.hpp"
#include "loom/workload/collective.hpp"

namespace {

using namespace loom;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// CPU time of this process (user + system), steadier than wall time on a shared machine.
double cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double peak_mib() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// Wall and CPU time of one phase.
struct Phase {
    Clock::time_point wall0 = Clock::now();
    double cpu0 = cpu_seconds();
    double wall = 0.0;
    double cpu = 0.0;
    void stop() {
        wall = seconds_since(wall0);
        cpu = cpu_seconds() - cpu0;
    }
};

}  // namespace

int main(int argc, char** argv) {
    std::int32_t racks = 145;
    std::string kind;  // node | system264 | rack | multirack; empty: rack for --racks 1, else multirack
    std::int64_t bytes = std::int64_t{1} << 20;
    bool values = false;
    bool verify = true;
    std::int64_t pieces = 1;  // as configs/tsp/collectives/allreduce-10440.json
    sched::SchedulerConfig scheduler;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--racks") == 0 && i + 1 < argc) {
            racks = static_cast<std::int32_t>(std::atoi(argv[++i]));
        } else if (std::strcmp(argv[i], "--topology") == 0 && i + 1 < argc) {
            kind = argv[++i];
        } else if (std::strcmp(argv[i], "--bytes") == 0 && i + 1 < argc) {
            bytes = std::atoll(argv[++i]);
        } else if (std::strcmp(argv[i], "--pieces") == 0 && i + 1 < argc) {
            pieces = std::atoll(argv[++i]);
        } else if (std::strcmp(argv[i], "--minimal") == 0) {
            scheduler.allow_nonminimal = false;
        } else if (std::strcmp(argv[i], "--values") == 0) {
            values = true;
        } else if (std::strcmp(argv[i], "--no-verify") == 0) {
            verify = false;
        } else {
            std::fprintf(stderr,
                         "usage: collective_bench [--topology node|system264|rack|multirack] [--racks R] [--bytes B] "
                         "[--pieces P] [--minimal] [--values] [--no-verify]\n");
            return 2;
        }
    }
    try {
        tsp::MachineConfig m;
        if (kind.empty()) kind = racks > 1 ? "multirack" : "rack";
        if (kind == "node") {
            m.topology.kind = topo::TspKind::Node;
        } else if (kind == "system264") {
            m.topology.kind = topo::TspKind::System264;
        } else if (kind == "rack") {
            m.topology.kind = topo::TspKind::Rack;
        } else if (kind == "multirack") {
            m.topology.kind = topo::TspKind::Multirack;
        } else {
            std::fprintf(stderr, "collective_bench: --topology must be node, system264, rack or multirack\n");
            return 2;
        }
        m.topology.racks = racks;
        // As the configs in configs/tsp/collectives: racks without a spare node, node and 264 as the defaults.
        if (m.topology.kind == topo::TspKind::Rack || m.topology.kind == topo::TspKind::Multirack)
            m.topology.spare_nodes_per_rack = 0;
        m.links.rack_to_rack.cable_length_mm = 20000;
        Phase topo_phase;
        auto system = std::make_unique<tsp::TspSystem>(m, 1);
        topo_phase.stop();

        workload::CollectiveConfig c;
        c.kind = workload::CollectiveKind::AllReduce;
        c.algorithm = workload::CollectiveAlgorithm::Hierarchical;
        c.bytes = Bytes(bytes);
        c.pieces = pieces;
        Phase generate;
        const workload::TransferSet set = workload::make_collective(c, system->topology(), system->chip());
        generate.stop();

        Phase compile;
        // The verifier is timed as its own phase below.
        sched::SchedulerConfig compile_only = scheduler;
        compile_only.verify = false;
        tsp::Program program = tsp::workload_program(set, *system, compile_only, values);
        compile.stop();
        const sched::Schedule& s = program.schedule;
        const double lower_bound_ns = static_cast<double>(s.lower_bound.count()) / 1000.0;
        const double predicted_ns = static_cast<double>(s.makespan.count()) / 1000.0;
        const double compile_peak = peak_mib();

        Phase check;
        std::size_t problems = 0;
        if (verify) problems = sched::verify(s, system->topology(), system->links(), system->chip(), &set).size();
        check.stop();
        const double verify_peak = peak_mib();

        sim::SimulatorOptions options;
        sim::Simulator sim(options);
        tsp::ExecutorConfig exec;
        Phase build;
        auto model = tsp::build(std::move(system), exec, std::move(program), sim);
        sim.init();
        build.stop();
        Phase run;
        sim.run({Time::max()});
        sim.finish();
        model->finish();
        run.stop();
        std::printf(
            "collective_bench: tsps=%zu bytes_per_tsp=%lld transfers=%zu levels=\"%s\" padding_bytes=%lld\n"
            "  wall_s: topology=%.2f generate=%.2f compile=%.2f verify=%.2f build=%.2f run=%.2f\n"
            "  cpu_s:  topology=%.2f generate=%.2f compile=%.2f verify=%.2f build=%.2f run=%.2f total=%.2f\n"
            "  peak_mib: after_compile=%.0f after_verify=%.0f end=%.0f\n"
            "  events=%llu vector_hops=%lld verify_problems=%zu%s\n"
            "  lower_bound_ns=%.0f predicted_makespan_ns=%.0f efficiency=%.4f\n",
            set.collective->members.size(), static_cast<long long>(bytes), set.transfers.size(),
            set.collective->levels.c_str(), static_cast<long long>(set.collective->padding_bytes.count()),
            topo_phase.wall, generate.wall, compile.wall, check.wall, build.wall, run.wall, topo_phase.cpu,
            generate.cpu, compile.cpu, check.cpu, build.cpu, run.cpu, cpu_seconds(), compile_peak, verify_peak,
            peak_mib(), static_cast<unsigned long long>(sim.events_handled()),
            static_cast<long long>(model->vector_hops()), problems, verify ? "" : " (not verified)", lower_bound_ns,
            predicted_ns, predicted_ns > 0 ? lower_bound_ns / predicted_ns : 0.0);
    } catch (const Error& e) {
        std::fprintf(stderr, "collective_bench: %s\n", e.what());
        return e.exit_code();
    }
    return 0;
}
