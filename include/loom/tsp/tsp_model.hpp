// The "tsp" model: a TSP system executing a Schedule — hand-written ("program"), compiled from tensor transfers
// ("workload") or given through the API — checked as it runs, and its report: arrivals, latency, link use by
// class, FEC outcomes, makespan, prediction error, efficiency, global memory.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loom/config/schema.hpp"
#include "loom/sched/scheduler_config.hpp"
#include "loom/sim/registry.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/tsp/executor_config.hpp"
#include "loom/tsp/program.hpp"
#include "loom/tsp/tsp_chip.hpp"
#include "loom/tsp/tsp_system.hpp"
#include "loom/tsp/vector_wire.hpp"
#include "loom/workload/transfer.hpp"

namespace loom::tsp {

// A built run. The chips are "sys.<vertex name>"; finish() writes the "tsp" stats group (and each active
// chip's group) and throws ModelError with the earliest schedule error (one line naming TSP, port, time,
// transfer and vector), or when a complete run left vectors missing or memory different from expect_memory.
// Both execution modes write identical groups; only the kernel's event counts and the run's end time differ
// (train mode's last event is the first vector of the last train, or the last instruction).
class TspModel : public sim::ModelInstance {
public:
    // `recording`: the chips record arrivals (the program's vector hops fit executor.record_limit).
    TspModel(sim::Simulator& sim, std::unique_ptr<TspSystem> system,
             ExecutorConfig executor, Program program, std::vector<TspChip*> chips, bool recording);
    void finish() override;
    std::string perf_fields() const override;
    // Time series: instructions, vectors sent, vector hops, vectors delivered, active TSPs, the last arrival
    // and the last delivery so far, over every chip when sampled.
    std::vector<sim::Probe> probes(const std::string& key) const override;
    // The schedule as a Chrome/Perfetto trace: link occupancy by the trains the instructions send, TSP activity by
    // instruction (sched::trace_json); slices named by transfer.
    std::optional<std::string> trace() const override;

    const TspSystem& system() const { return *system_; }
    const std::vector<TspChip*>& chips() const { return chips_; }
    // Runs (vectors in vector mode, train segments in train mode) put on links: the executor's arrival events.
    std::uint64_t runs_sent() const;
    // Vector hops so far (arrivals processed over all chips).
    std::int64_t vector_hops() const;

private:
    sim::Probes probes_;
    void add_probes();
    void write_stats(bool complete);

    sim::Simulator& sim_;
    std::unique_ptr<TspSystem> system_;
    ExecutorConfig executor_;
    Program program_;
    std::vector<TspChip*> chips_;  // by vertex id
    bool recording_;
};

// Creates one chip per TSP of `system` with its part of `program`, wires every channel as a link (minimum
// latency = the channel's LinkTiming latency), in `sim` before sim.init(). Throws InputError when the program
// names a port that is not wired or memory outside a TSP (resolve() reports those with JSON Pointers).
std::unique_ptr<TspModel> build(std::unique_ptr<TspSystem> system, const ExecutorConfig& executor, Program program,
                                sim::Simulator& sim);
// The registry's build function: parses "/topology", "/links", "/chip", "/executor" and either "/program" or
// "/workload" (+ "/scheduler", compiled by sched::compile) — each absent section takes its defaults; neither
// program nor workload runs nothing and reports the machine — and builds if they parsed.
std::unique_ptr<sim::ModelInstance> build(const config::Json& root, sim::Simulator& sim, config::Errors& errors);

// The Program a workload compiles to: sched::compile's Schedule, checked by the static verifier (unless
// scheduler.verify is off; a broken schedule throws ModelError naming the first problem), plus, with
// `data_check`, random source values and the destination contents they must produce (make_data_check, seeded
// with `seed`). `sim`, when given, hears the phases ("compile", "verify") for progress lines. The Schedule's
// per-transfer timings (`transfers`) are left empty: only the data check reads them.
Program workload_program(const workload::TransferSet& transfers, const TspSystem& system,
                         const sched::SchedulerConfig& scheduler, bool data_check = true, std::uint64_t seed = 1,
                         const sim::Simulator* sim = nullptr);

void register_components(sim::Registry& registry);

}  // namespace loom::tsp
