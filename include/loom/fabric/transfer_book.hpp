// Closed-loop transfers in the dynamically routed network: the workload::TransferSet the scheduler compiles, cut
// into per-destination packet streams for the terminals (a plan every terminal reads and none writes), and the
// outcome of a run, which the model settles in finish from what each terminal logged (TransferLog).
// A transfer waits for its deps only: `after` (the order of sums into one slot) and `paced_by` (orders that only
// shape a compile-time schedule) mean nothing to a network whose endpoints add contributions as they arrive.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "loom/base/units.hpp"
#include "loom/base/clock_domain.hpp"
#include "loom/stats/histogram.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/workload/transfer.hpp"

namespace loom::fabric {

// How a terminal with several transfers under way picks the packet it sends next.
enum class InjectionOrder : std::uint8_t {
    RoundRobin,  // the next stream after the one that sent last (deterministic)
    Random,      // a stream uniformly at random from the terminal's own RNG stream (the run's seed changes it)
};
std::string_view injection_order_name(InjectionOrder order);  // "round_robin" | "random"

struct TransferOptions {
    // One 320-byte TSP vector per flit: a flit carries what a vector carries.
    Bytes flit_bytes{320};
    std::int32_t packet_flits = 10;
    InjectionOrder order = InjectionOrder::RoundRobin;
};

// The rules, in router cycles:
//  - a transfer of b bytes is F = ceil(b / flit_bytes) flits to every destination: a dynamic network has no
//    multicast, so a fan-out transfer sends one copy per destination (each copy crosses the network on its own);
//  - each copy is cut into packets of at most packet_flits flits, numbered k = 0, 1, ...; packet k of transfer t
//    (its position) leaves from the source vertex's terminal (k + t) mod P_src and goes to the destination
//    vertex's terminal (k + t) mod P_dst (P: the vertex's terminals), so transfers spread over every injection
//    and ejection channel of their endpoints, short ones included;
//  - a transfer without dependencies starts at the first cycle at or after `earliest`; one with dependencies
//    starts when the last of them completes at cycle c, at the first cycle at or after both `earliest` and
//    c + compute_before, and no earlier than c + 1: the completion notice reaches the source's terminals over a
//    channel of one cycle, the shortest latency between two components (combine = sum adds nothing here: the
//    adder's time is the scheduled side's reduce_cycles, and the data are not modelled);
//  - a transfer completes in the cycle its last flit is ejected at its last destination; its latency is from
//    its start to then (queueing at the source included). The run's makespan is the last completion.
// Coordination is by messages only: a destination terminal knows how many flits of each transfer it receives
// (its share); when its share is complete it sends each source terminal of each dependent a notice over the
// "fabric.transfers" channel, timed at the start that share alone allows (the rule above with its completion
// cycle). A source terminal starts a transfer when the notices of every share of every dependency have arrived:
// at the latest of those times, which is the start the rule gives.
class TransferBook {
public:
    struct Item {
        workload::TransferId id = 0;
        topo::VertexId src = 0;
        std::vector<topo::VertexId> dsts;
        std::int64_t flits = 0;    // per destination
        std::int64_t packets = 0;  // per destination
        std::int32_t deps = 0;
        std::int32_t shares = 0;      // destination terminals receiving at least one packet (count_shares)
        std::int32_t dep_shares = 0;  // notices a source terminal waits for: the shares of every dependency
        std::vector<std::int32_t> dependents;  // positions of the transfers that wait for this one
        std::int64_t earliest_ps = 0;
        std::int64_t compute_ps = 0;
        // Outcome (settle): ready_ps = max(earliest, last dependency's completion + compute_before), exact;
        // start_cycle is known at construction for a transfer without dependencies.
        std::int64_t ready_ps = 0;
        std::int64_t start_cycle = -1;
        std::int64_t done_cycle = -1;
    };

    TransferBook(const workload::TransferSet& set, const TransferOptions& options, const ClockDomain& clock);

    const TransferOptions& options() const { return options_; }
    std::int32_t size() const { return static_cast<std::int32_t>(items_.size()); }
    const Item& item(std::int32_t t) const { return items_[static_cast<std::size_t>(t)]; }
    // Flits of packet k of a copy of transfer t.
    std::int32_t packet_flits(std::int32_t t, std::int64_t k) const;

    // Transfers whose source is vertex v, in position order; transfers with v among their destinations.
    std::span<const std::int32_t> from(topo::VertexId v) const;
    std::span<const std::int32_t> to(topo::VertexId v) const;
    // Flits of transfer t that terminal `local` of a destination vertex with `terminals` terminals receives.
    std::int64_t share_flits(std::int32_t t, topo::VertexId v, std::int32_t local, std::int32_t terminals) const;
    // Sets every item's shares and dep_shares from the terminals per vertex (the builder calls it once).
    void count_shares(const topo::FrozenTopology& topology);
    // The first cycle a transfer may start given one share of one dependency completed at `cycle` and its
    // notice sent no earlier than `now` (TransferBook's rule, with that completion).
    std::int64_t start_after(std::int32_t dependent, std::int64_t cycle, std::int64_t now) const;

    // What one terminal logged: the cycle each of its shares completed, the cycle each transfer it waited for
    // started.
    struct Log {
        std::vector<std::pair<std::int32_t, std::int64_t>> shares_done;
        std::vector<std::pair<std::int32_t, std::int64_t>> started;
    };
    // The outcome from every terminal's log (the model, in finish): done and start cycles, completions,
    // makespan and latency histograms. Replaces the last outcome.
    void settle(std::span<const Log* const> logs);

    std::int32_t completed() const { return completed_; }
    bool all_completed() const { return completed_ == size(); }
    std::int64_t makespan_cycle() const { return makespan_cycle_; }
    // Per-transfer latency (start to completion) of completed transfers, in ps.
    const stats::Histogram& latency_ps() const { return latency_ps_; }
    // Per-transfer latency from the instant it may start, max(earliest, dependencies done + compute_before), to
    // its completion, in ps: the instant the scheduled side measures from too (paced_by means nothing to either).
    const stats::Histogram& ready_latency_ps() const { return ready_latency_ps_; }
    std::int64_t flits_total() const { return flits_total_; }

private:
    TransferOptions options_;
    const ClockDomain& clock_;
    std::vector<Item> items_;
    std::vector<std::vector<std::int32_t>> by_src_, by_dst_;
    std::int32_t completed_ = 0;
    std::int64_t makespan_cycle_ = 0;
    std::int64_t flits_total_ = 0;
    stats::Histogram latency_ps_;
    stats::Histogram ready_latency_ps_;
};

}  // namespace loom::fabric
