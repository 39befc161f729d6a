// The static verifier: replays a Schedule's instruction lists against the timing contract (schedule.hpp) without
// simulating, and reports every broken rule with the link, TSP and time: double-booked channels, vectors consumed
// before they are available, clock-crossing FIFO overflows, and instruction lists that disagree with the
// schedule's reservations and predictions.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "loom/sched/schedule.hpp"
#include "loom/topo/chip_config.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/topo/link_class_timing.hpp"
#include "loom/workload/transfer.hpp"

namespace loom::sched {

// Problems found, in a stable order (empty: the schedule keeps the contract). At most `max_problems` messages;
// if more were found, the last message says how many were left out.
//
// What is checked, from the instruction lists alone (trains start where rules 2, 5 and 7 say; vectors are
// claimed as rule 4 says; arrivals are allowed the schedule's jitter_allowance):
//  - programs sorted by TSP, instructions by cycle, ports wired, counts >= 1;
//  - no directed channel carries two trains at once (double-booking), and the reservations neither overlap nor
//    differ from the trains the instructions send (channel, start, end, transfer, vectors);
//  - every train's arrivals are predicted exactly (PredictedRun runs tile every train) and makespan is the last
//    predicted arrival at a final destination;
//  - causality at every hop: each vector is available (rule 3, latest jitter) by the time its Forward slot
//    starts (rule 5) or its Receive needs it (rule 6), and claims match the instruction's transfer and vectors;
//  - no clock-crossing FIFO ever holds more than fifo_depth vectors (arrivals counted at their earliest);
//  - nothing arrives where no instruction claims it, and no instruction waits for vectors that never come.
// With `transfers`, also: every destination receives every vector of its transfer exactly once, no transfer's
// first Send issues before its earliest time or before its dependencies are in memory plus compute_before, and
// no destination of a transfer consumes (Receive or Reduce) before every transfer it is ordered `after` has
// written its last vector (the order of sums chained into one region).
//
// `closed_form` (the default) checks a run of evenly spaced vectors (a link whose per-vector serialization is a
// whole number of ps) that is provably on time and within the FIFO's depth by its ends, walking only its last few
// vectors one by one; false walks every vector (the reference; the messages are the same either way).
std::vector<std::string> verify(const Schedule& schedule, const topo::FrozenTopology& topology,
                                const topo::LinkClassTiming& links, const topo::ChipConfig& chip,
                                const workload::TransferSet* transfers = nullptr, std::size_t max_problems = 100,
                                bool closed_form = true);

}  // namespace loom::sched
