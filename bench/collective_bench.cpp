// Hierarchical all-reduce at scale: generating the transfers, compiling them (sched::compile) and executing the
// schedule on the TSP model, each timed apart, with the process's peak resident memory. The default is the
// largest system (145 racks x 72 = 10,440 TSPs, 1 MiB per TSP), as configs/tsp/collectives/allreduce-10440.json.
//
//     bench/collective_bench [--racks R] [--bytes B] [--pieces P] [--minimal] [--values]
//
// --minimal: minimal paths only (scheduler.allow_nonminimal false).
// --values also seeds and checks every vector's value (executor.value_limit large enough), which costs memory.
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "loom/base/error.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/tsp/tsp_model.hpp"
#include "loom/workload/collective.hpp"

namespace {

using namespace loom;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

double peak_mib() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

}  // namespace

int main(int argc, char** argv) {
    std::int32_t racks = 145;
    std::int64_t bytes = std::int64_t{1} << 20;
    bool values = false;
    std::int64_t pieces = 1;  // as configs/tsp/collectives/allreduce-10440.json
    sched::SchedulerConfig scheduler;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--racks") == 0 && i + 1 < argc) {
            racks = static_cast<std::int32_t>(std::atoi(argv[++i]));
        } else if (std::strcmp(argv[i], "--bytes") == 0 && i + 1 < argc) {
            bytes = std::atoll(argv[++i]);
        } else if (std::strcmp(argv[i], "--pieces") == 0 && i + 1 < argc) {
            pieces = std::atoll(argv[++i]);
        } else if (std::strcmp(argv[i], "--minimal") == 0) {
            scheduler.allow_nonminimal = false;
        } else if (std::strcmp(argv[i], "--values") == 0) {
            values = true;
        } else {
            std::fprintf(stderr, "usage: collective_bench [--racks R] [--bytes B] [--pieces P] [--minimal] [--values]\n");
            return 2;
        }
    }
    try {
        tsp::MachineConfig m;
        m.topology.kind = racks > 1 ? topo::TspKind::Multirack : topo::TspKind::Rack;
        m.topology.racks = racks;
        m.topology.spare_nodes_per_rack = 0;
        m.links.rack_to_rack.cable_length_mm = 20000;
        auto t0 = Clock::now();
        auto system = std::make_unique<tsp::TspSystem>(m, 1);
        const double topo_s = seconds_since(t0);

        workload::CollectiveConfig c;
        c.kind = workload::CollectiveKind::AllReduce;
        c.algorithm = workload::CollectiveAlgorithm::Hierarchical;
        c.bytes = Bytes(bytes);
        c.pieces = pieces;
        t0 = Clock::now();
        const workload::TransferSet set = workload::make_collective(c, system->topology(), system->chip());
        const double generate_s = seconds_since(t0);

        t0 = Clock::now();
        tsp::Program program =
            tsp::workload_program(set, *system, scheduler, values ? std::int64_t{1} << 40 : 0);
        const double compile_s = seconds_since(t0);
        const sched::Schedule& s = program.schedule;
        const double lower_bound_ns = static_cast<double>(s.lower_bound.count()) / 1000.0;
        const double predicted_ns = static_cast<double>(s.makespan.count()) / 1000.0;

        sim::SimulatorOptions options;
        sim::Simulator sim(options);
        tsp::ExecutorConfig exec;
        t0 = Clock::now();
        auto model = tsp::build(std::move(system), exec, std::move(program), sim);
        sim.init();
        const double build_s = seconds_since(t0);
        t0 = Clock::now();
        sim.run({Time::max()});
        sim.finish();
        model->finish();
        const double run_s = seconds_since(t0);
        std::printf(
            "collective_bench: tsps=%zu bytes_per_tsp=%lld transfers=%zu levels=\"%s\" padding_bytes=%lld\n"
            "  topology_s=%.2f generate_s=%.2f compile_s=%.2f build_s=%.2f run_s=%.2f events=%llu peak_mib=%.0f\n"
            "  lower_bound_ns=%.0f predicted_makespan_ns=%.0f efficiency=%.4f vector_hops=%lld\n",
            set.collective->members.size(), static_cast<long long>(bytes), set.transfers.size(),
            set.collective->levels.c_str(), static_cast<long long>(set.collective->padding_bytes.count()), topo_s,
            generate_s, compile_s, build_s, run_s, static_cast<unsigned long long>(sim.events_handled()), peak_mib(),
            lower_bound_ns, predicted_ns, predicted_ns > 0 ? lower_bound_ns / predicted_ns : 0.0,
            static_cast<long long>(model->vector_hops()));
    } catch (const Error& e) {
        std::fprintf(stderr, "collective_bench: %s\n", e.what());
        return e.exit_code();
    }
    return 0;
}
