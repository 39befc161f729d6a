// The "program" config section: hand-written instruction lists per TSP (by vertex id or name), initial and
// expected final memory contents, and optional predicted arrivals; resolved against the machine into the
// Schedule and memory a run executes, with every problem reported at its JSON Pointer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"
#include "loom/sched/schedule.hpp"
#include "loom/tsp/data_check.hpp"
#include "loom/tsp/tsp_system.hpp"
#include "loom/workload/collective_config.hpp"

namespace loom::tsp {

// One instruction as written: {cycle, op, in_port, out_ports, transfer, first_vector, count, address}.
struct InstructionSpec {
    std::int64_t cycle = 0;
    sched::Op op = sched::Op::Send;
    std::int64_t in_port = 0;
    std::vector<std::int64_t> out_ports;
    std::int64_t transfer = 0;
    std::int64_t first_vector = 0;
    std::int64_t count = 1;
    std::int64_t address = 0;
};

// Consecutive vectors of one TSP's memory from byte `address`.
struct MemorySpec {
    std::int64_t address = 0;
    std::vector<std::int64_t> values;
};

// One TSP's program: exactly one of `tsp` (vertex id) and `name` ("rack0.node1.tsp2") says which TSP.
struct TspProgramSpec {
    std::optional<std::int64_t> tsp;
    std::optional<std::string> name;
    std::vector<InstructionSpec> instructions;
    std::vector<MemorySpec> memory;         // initial contents (everything else is 0)
    std::vector<MemorySpec> expect_memory;  // checked at the end of a complete run
};

// A predicted run of arrivals at a TSP's port (sched::PredictedRun with the channel named by its receiving
// port): vector first_vector + j arrives at train_start + serialization(j + 1 + offset) + link latency.
struct ExpectSpec {
    std::optional<std::int64_t> tsp;
    std::optional<std::string> name;
    std::int64_t port = 0;
    std::int64_t transfer = 0;
    std::int64_t first_vector = 0;
    std::int64_t count = 1;
    std::int64_t offset = 0;
    Time train_start;
    bool final = false;
};

struct ProgramConfig {
    std::vector<TspProgramSpec> tsps;
    // When not empty, every vector arriving anywhere must match one of these (and each must arrive).
    std::vector<ExpectSpec> expect;
    // Arrivals may be up to this much after their prediction (link jitter).
    Time jitter_allowance;
};

config::Schema<ProgramConfig> program_schema();

// Memory contents of one TSP: values of consecutive vectors from byte `address`.
struct MemoryBlock {
    std::uint32_t tsp = 0;
    std::int64_t address = 0;
    std::vector<std::int64_t> values;
};

// What a "tsp" run executes: a schedule (only its programs reach the chips; its predictions, jitter allowance,
// makespan and lower bound are what the run is checked and measured against) and memory contents.
struct Program {
    sched::Schedule schedule;
    std::vector<MemoryBlock> memory;
    std::vector<MemoryBlock> expect_memory;
    // A workload generated from a collective: its layout, reported under the "tsp" stats as "collective".
    std::optional<workload::CollectiveLayout> collective;
    // A compiled workload: its data check (none when executor.data_check is off), whether the static verifier
    // checked the schedule, and how long that took (wall seconds, for --perf only).
    bool from_workload = false;
    // When each transfer may start, for its latency: max(earliest, deps' completion + compute_before).
    // A transfer's dependencies are readiness_deps[first_dep, first_dep + dep_count): one array for all of them
    // (a vector each was an allocation per transfer, over a million at 10,440 TSPs, to make and to free).
    struct Readiness {
        std::uint32_t transfer = 0;
        std::uint32_t dep_count = 0;
        std::uint64_t first_dep = 0;
        Time earliest;
        Time compute_before;
    };
    std::vector<Readiness> readiness;
    std::vector<std::uint32_t> readiness_deps;
    std::optional<DataCheck> data_check;
    bool verified = false;
    double verify_wall_s = 0;
    // Set by build() once the schedule's predicted runs went to the chips and were released with its
    // reservations (neither is read after that; the largest compile outputs): whether there were any.
    bool had_predictions = false;
};

// Resolves TSP ids and names, ports and addresses against `system`. Every problem goes to `errors` at its JSON
// Pointer under `pointer` ("/program/tsps/0/instructions/2/address: ...").
Program resolve(const ProgramConfig& config, const TspSystem& system, const std::string& pointer,
                config::Errors& errors);

}  // namespace loom::tsp
