// The Schedule: what the compile-time scheduler hands to the TSPs — per-TSP instruction lists with issue cycles —
// plus what it predicts (every vector's arrival) and what it reserved (link intervals), for the verifiers.
// Only the instruction lists cross to the executor; arrivals in a run come from the link model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loom/base/clock_domain.hpp"
#include "loom/base/link_timing.hpp"
#include "loom/base/units.hpp"
#include "loom/sched/clock_edges.hpp"
#include "loom/topo/chip_config.hpp"

namespace loom::sched {

// ---------------------------------------------------------------------------------------------------------------
// Timing contract shared by the scheduler (which predicts) and the executor in tsp/ (which runs). Every quantity
// comes from topo's machine description: each TSP's core ClockDomain (edge n at floor(n·period)), each directed
// channel's LinkTiming, and the chip parameters issue_cycles, forward_cycles, reduce_cycles, crossing_cycles,
// fifo_depth.
//  1. An instruction issues at edge `cycle` of its TSP's core clock: t_issue = clock.edge(cycle).
//  2. Send: a train of `count` vectors starts on every port in `out_ports` at t_issue + issue_cycles core
//     cycles, i.e. at clock.edge(cycle + issue_cycles). Each instruction is its own train: vector i (1-based)
//     has left at start + LinkTiming::serialization(i) and arrives at start + serialization(i) + latency()
//     (+ jitter in [0, jitter], never reordering). The port's link must be idle at `start` (the previous train's
//     last bit out at or before it): otherwise the link is double-booked, a schedule error.
//  3. A vector that has fully arrived on port p at time t is available to the core at the first core edge at or
//     after t, plus crossing_cycles edges. Until consumed it sits in port p's clock-crossing FIFO, which holds at
//     most fifo_depth vectors (more is an overflow: schedule error naming TSP, port, time).
//  4. Vectors arriving on a port are claimed, in arrival order, by that port's Forward/Receive/Reduce
//     instructions in issue order, `count` vectors each.
//  5. Forward (virtual cut-through, per vector): vector i enters the forwarding pipeline at its slot relative to
//     the issue, t_issue + serialization(i-1) on the out port; it must be available by then (by the earliest
//     such slot over `out_ports`), else it is late: a schedule error naming TSP, port, time, transfer and
//     vector. It leaves its FIFO once its slot has come on every out port. The train of `count` starts on
//     `out_ports` forward_cycles later, at clock.edge(cycle + forward_cycles): forwarding latency is added to
//     every hop, never hidden by issuing a Forward before its vector is there.
//  6. Receive: vector i is written to memory at address + (i-1)·320 when it is available, but not before
//     t_issue; it must be available by t_issue + serialization time of (i-1) vectors on the in-port's link.
//  7. Reduce: like Receive, but vector i is combined (sum) with memory at address + (i-1)·320; the result is
//     stored there (`out_ports` == 0) or forwarded as a train starting at clock.edge(cycle + reduce_cycles)
//     on `out_ports` (operand i must then be available by t_issue + serialization(i-1) on the out port, as in 5).
//  8. A vector still in a FIFO at the end of the run arrived where none was expected: a schedule error.
// The functions after Instruction state rules 1, 2, 3, 5-7 and the instruction validity checks as code; the
// executor (tsp/), the verifier and the trace call them. The scheduler's planner (placement, hop timing) plans
// with the same base/ arithmetic but its own derivation, so that the verifier checks it against these rules.
// ---------------------------------------------------------------------------------------------------------------

enum class Op : std::uint8_t { Send, Forward, Receive, Reduce };
const char* op_name(Op op);  // "send", "forward", "receive", "reduce"

// Bit i set = C2C port i of the TSP (ports are numbered per TSP by topo's frozen topology, at most 16).
using PortMask = std::uint16_t;

struct Instruction {
    std::int64_t cycle = 0;          // issue edge of this TSP's core clock
    Op op = Op::Send;
    std::uint8_t in_port = 0;        // Forward, Receive, Reduce: the port the vectors arrive on
    PortMask out_ports = 0;          // Send, Forward, Reduce-and-forward: where the train goes (fan-out)
    std::uint32_t transfer = 0;      // transfer id (names slices in traces and stats)
    std::uint32_t first_vector = 0;  // index of the first vector within the transfer
    std::uint32_t count = 1;         // consecutive vectors in this train (>= 1)
    std::int64_t address = 0;        // local memory byte offset read (Send, Reduce) or written (Receive, Reduce)
};

// Rule 1: the issue time of `ins`, t_issue = clock.edge(cycle).
inline Time issue_time(const ClockDomain& clock, const Instruction& ins) { return clock.edge(ins.cycle); }
inline Time issue_time(const ClockEdges& clock, const Instruction& ins) { return clock.edge(ins.cycle); }

// Rules 2, 5 and 7: the core cycles from the issue of `ins` to the first bit of the train it sends (issue_cycles,
// forward_cycles or reduce_cycles), or nullopt when it sends none (Receive, a Reduce that stores).
inline std::optional<Cycles> train_lead(const Instruction& ins, const topo::ChipConfig& chip) {
    switch (ins.op) {
        case Op::Send: return Cycles(chip.issue_cycles);
        case Op::Forward: return Cycles(chip.forward_cycles);
        case Op::Reduce:
            if (ins.out_ports != 0) return Cycles(chip.reduce_cycles);
            return std::nullopt;
        case Op::Receive: return std::nullopt;
    }
    return std::nullopt;
}

// Rules 2, 5 and 7: when the train `ins` sends starts on each of its out ports, clock.edge(cycle + lead).
inline std::optional<Time> train_start(const ClockDomain& clock, const Instruction& ins,
                                       const topo::ChipConfig& chip) {
    const std::optional<Cycles> lead = train_lead(ins, chip);
    if (!lead) return std::nullopt;
    return clock.edge(ins.cycle + lead->count());
}

// Rule 3: when a vector that has fully arrived at `arrival` is available to the core: the first core edge at or
// after it, plus crossing_cycles edges. (A planner or verifier that allows jitter passes arrival + allowance.)
inline Time available_at(const ClockDomain& clock, Time arrival, const topo::ChipConfig& chip) {
    return clock.next_edge(arrival, Cycles(chip.crossing_cycles));
}
// The same for the per-vector checks (the verifier's and the executor's), without a division.
inline Time available_at(const ClockEdges& clock, Time arrival, const topo::ChipConfig& chip) {
    return clock.next_edge(arrival, Cycles(chip.crossing_cycles));
}

// Rules 5, 6 and 7: the slot of vector i (1-based) of an instruction issued at t_issue, on the link timed by
// `link` (an out port's for a forwarding instruction, the in-port's for Receive and a storing Reduce):
// t_issue + serialization(i - 1). The vector must be available by its slot (by the earliest over the out ports
// when it forwards), and leaves a forwarding instruction's FIFO at its latest slot over the out ports.
inline Time forward_slot(Time t_issue, const LinkTiming& link, std::int64_t i) {
    return t_issue + link.serialization(i - 1);
}

// Instruction validity, each a schedule error: what is wrong with one instruction, in the order checked.
enum class InstructionFault : std::uint8_t {
    NegativeCycle,    // cycle < 0
    NoVectors,        // count < 1
    InPortNotWired,   // a consuming instruction's in_port has no channel
    OutPortNotWired,  // an out port (of an instruction that sends) has no channel
    SendsNowhere,     // a Send or Forward with no out port
    ReceiveSends,     // a Receive with out ports
};
struct InstructionProblem {
    InstructionFault fault;
    std::int32_t port = -1;  // In/OutPortNotWired: the port
};
// Checks `ins` on a TSP whose wired ports are `wired` (bit i: port i has a channel in both directions), and
// appends every problem to `out`, in the order of InstructionFault. Whether instructions are sorted by cycle is
// a property of the program, checked by its owner.
void validate_instruction(const Instruction& ins, PortMask wired, std::vector<InstructionProblem>& out);
// The problem in words ("in_port 3 is not wired").
std::string describe(const InstructionProblem& p);

// One TSP's program, sorted by cycle (ties keep list order).
struct TspProgram {
    std::uint32_t tsp = 0;
    std::vector<Instruction> instructions;
};

// The scheduler's prediction for a run of consecutive vectors of one transfer arriving at one TSP port: vector
// first_vector + j (j = 0..count-1) arrives at train_start + serialization(j + 1 + offset) + latency of `channel`,
// where `offset` is the vector's position within its train (trains are the Send/Forward instructions).
struct PredictedRun {
    std::uint32_t transfer = 0;
    std::uint32_t tsp = 0;         // receiving TSP
    std::uint32_t channel = 0;     // directed channel id in topo's frozen topology
    std::uint32_t first_vector = 0;
    std::uint32_t count = 1;
    std::uint32_t offset = 0;      // position of first_vector within its train (0-based)
    Time train_start;              // first bit of the train on the channel
    bool final_destination = false;  // arrives where the transfer ends (vs an intermediate hop)
};

// Predicted arrival of vector j (0-based within the run) of run `r` on a channel timed by `t`: the last bit in,
// without jitter, at train_start + serialization(offset + j + 1) + latency.
Time predicted_arrival(const PredictedRun& r, std::uint32_t j, const LinkTiming& t);

// A reserved, half-open interval [start, end) of one directed channel, for `count` vectors of one transfer.
struct Reservation {
    std::uint32_t channel = 0;
    Time start;
    Time end;
    std::uint32_t transfer = 0;
    std::uint32_t first_vector = 0;
    std::uint32_t count = 1;
};

// How one transfer was placed (figures for reports; the executor does not need them).
struct TransferTiming {
    std::uint32_t transfer = 0;   // transfer id
    Time ready;                   // earliest start: max(earliest, dependencies' completion + compute_before)
    Time first_issue;             // issue time of its first Send
    Time last_arrival;            // last predicted arrival at a destination (no jitter)
    Time completion;              // every vector in memory at every destination, jitter allowance included;
                                  // what dependent transfers wait for
    std::uint32_t vectors = 0;
    std::uint32_t trains = 0;     // Send instructions at the source
    std::uint32_t paths = 0;      // distinct routes (paths or fan-out trees) used
    std::uint32_t nonminimal_vectors = 0;  // vectors sent on non-minimal paths
    std::uint32_t staged_vectors = 0;      // vectors staged through an intermediate TSP's memory
};

// The lower bound and what it is made of (DESIGN "Scheduler figures"): terms that depend only on the workload and
// the machine, never on routes or times a schedule chose, so no schedule can raise them.
struct BoundTerm {
    std::string name;  // "tsp_send", "tsp_receive", "node_out", "node_in", "rack_out", "rack_in", "cut_out",
                       // "cut_in", "dependency_chain"
    Time value;
    std::string where;  // the TSP, node, rack or side of the cut that gives the value ("" for the chain)
};
struct LowerBoundParts {
    std::vector<BoundTerm> terms;  // every term, in the order above (a cut term only where the machine has one)
    std::string binding;           // name of the largest term (the first of equals)
    Time dependency_chain;         // the longest chain of transfers, each taking at least its zero-load time
    Time tsp_bandwidth;            // the largest (vectors a TSP sends or receives) / (its ports' total rate)
    std::int32_t busiest_tsp = -1;
    // Not a bound (a schedule chooses it): the largest total reserved time of one directed channel, reported as
    // link_utilization_max = busiest_link / makespan.
    Time busiest_link;
    std::int32_t busiest_channel = -1;
    // A collective's bound whatever the algorithm: the data each member must receive (or the root send) at its
    // ports' total rate (all-reduce 2(N-1)/N of the tensor, as for reduce-scatter then all-gather), plus the
    // shortest link latency. Zero when the transfers are not a collective.
    Time algorithm;
};

struct Schedule {
    std::vector<TspProgram> programs;        // one per TSP that does anything, sorted by tsp
    std::vector<PredictedRun> predicted;     // every hop of every vector, as runs
    std::vector<Reservation> reservations;   // sorted by (channel, start)
    Time jitter_allowance;                   // slack the schedule leaves for link jitter (DESIGN "Conventions")
    Time makespan;                           // last predicted arrival at a final destination
    Time lower_bound;                        // the largest of bound.terms (DESIGN "Scheduler figures")
    double efficiency() const {
        return makespan > Time::zero() ? static_cast<double>(lower_bound.count()) / static_cast<double>(makespan.count())
                                       : 1.0;
    }
    std::vector<TransferTiming> transfers;   // one per transfer, sorted by transfer id
    LowerBoundParts bound;                   // lower_bound = the largest of these
};

}  // namespace loom::sched
