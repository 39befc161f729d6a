// The compile-time scheduler: turns a set of tensor transfers into a Schedule — routes, link reservations at vector
// granularity (stored as runs), per-TSP instruction lists and every vector's predicted arrival — following the
// timing contract in schedule.hpp exactly.
#pragma once

#include "loom/sched/schedule.hpp"
#include "loom/sched/scheduler_config.hpp"
#include "loom/topo/chip_config.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/topo/link_class_timing.hpp"
#include "loom/workload/transfer.hpp"

namespace loom::sched {

// Compiles `transfers` for the machine (topology, link timing, chip). Deterministic: the same inputs give the same
// Schedule, byte for byte.
//
// How it plans:
//  - Transfers are placed in list-scheduling order: a transfer becomes ready when its dependencies are complete
//    (every vector in memory at every destination) plus its compute_before, and never before its earliest time;
//    the ready transfer with the earliest ready time (then the lowest position) is placed next, and keeps its
//    reservations (no later transfer moves it).
//  - A transfer ordered `after` others is placed after them and may start before they complete, but every
//    destination consumes its first vector only after their last write there (a whole train moves later, so that
//    no vector waits in a FIFO for that).
//  - A point-to-point tensor is placed piece by piece (pieces of remaining / candidate paths vectors, at
//    least min_chunk_vectors): each piece goes where it completes first, either appended to the train already
//    placed on a path (when the links allow, so that a path normally carries one long train) or as a new train
//    at the earliest cycle at which every link of the path is free, the far ends' ports stay in order and their
//    FIFOs hold. Candidates are the minimal paths and, when allowed, non-minimal detours; a plan that uses
//    detours is kept only if it completes strictly earlier than the plan on minimal paths alone. With staging on,
//    a piece may instead be received into an intermediate TSP's memory and sent on later, when that completes it
//    strictly earlier.
//  - A fan-out transfer follows one tree of minimal paths (a branching TSP forwards on several ports at once);
//    a destination that others are reached through receives the tensor and then relays it from its memory, since
//    one instruction cannot both receive and forward a vector.
//  - Each train is timed as the contract says: the Send's train starts at edge(cycle + issue_cycles); every
//    Forward issues at the earliest cycle at which each vector is available (jitter allowance included) by its
//    slot; every Receive at the earliest cycle its vectors allow.
//  - Cost: reservations are never moved or removed, so a Send cycle at which the reservations alone leave no room
//    for a train of some route and length stays ruled out. The scheduler remembers, per route and train length,
//    the range of Send cycles found so, and the next search for such a train starts past it: the cost per transfer
//    stays nearly flat as thousands of earlier transfers fragment the links (bench/README.md).
//
// Throws ConfigError (pointers under "/workload") for an invalid transfer set, InputError for parameters that
// cannot work (staging area overlapping transfers, ports beyond 16), ModelError when a transfer has no path.
Schedule compile(const topo::FrozenTopology& topology, const topo::LinkClassTiming& links, const topo::ChipConfig& chip,
                 const workload::TransferSet& transfers, const SchedulerConfig& config = {});

}  // namespace loom::sched
