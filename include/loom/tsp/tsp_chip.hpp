// One TSP chip: its C2C ports, its own core clock, its memory, and the executor of its program (Send, Forward
// with fan-out, Receive, Reduce) following the timing contract of sched/schedule.hpp, with every schedule
// check (link double booking, FIFO overflow, unexpected and late vectors, predicted arrivals) made as it runs.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "loom/base/clock_domain.hpp"
#include "loom/base/link_timing.hpp"
#include "loom/base/serializer.hpp"
#include "loom/base/units.hpp"
#include "loom/net/error_model.hpp"
#include "loom/net/scheduled_port.hpp"
#include "loom/sched/leave_times.hpp"
#include "loom/sched/schedule.hpp"
#include "loom/sim/component.hpp"
#include "loom/sim/port.hpp"
#include "loom/sim/timer.hpp"
#include "loom/stats/group.hpp"
#include "loom/stats/histogram.hpp"
#include "loom/tsp/data_check.hpp"
#include "loom/tsp/executor_config.hpp"
#include "loom/tsp/prediction_index.hpp"
#include "loom/tsp/timed_memory.hpp"
#include "loom/tsp/tsp_system.hpp"
#include "loom/tsp/unit_arrivals.hpp"
#include "loom/tsp/vector_wire.hpp"

namespace loom::tsp {

// What a chip runs, besides the machine: its instructions, its initial memory and the predicted arrivals on
// its ports.
struct ChipProgram {
    std::vector<sched::Instruction> instructions;               // any order of cycles: sorted stably by cycle
    std::vector<std::pair<std::int64_t, std::int64_t>> memory;  // initial (vector slot, value)
    // Slots seeded by the data check, after `memory`: their values are data_check->initial_value(tsp, slot),
    // computed at construction rather than listed (tens of millions of slots in the largest runs).
    std::vector<DataCheck::Region> seeded;
    const DataCheck* data_check = nullptr;
    std::vector<sched::PredictedRun> predicted;                 // runs arriving at this TSP (checked when any)
    Time jitter_allowance;                                      // arrivals may be this much after the prediction
    bool check_predictions = false;                             // every arriving vector must have a prediction
};

enum class ErrorKind : std::uint8_t { DoubleBooked, Overflow, Unexpected, Late, Mispredicted, Missing };
const char* to_string(ErrorKind kind);  // "double_booked", "fifo_overflow", ...

// A schedule error: a one-line message naming the TSP, port, time (ps and core cycle), transfer and vector.
// Errors order by (time, tsp, port, transfer, vector, kind): the run reports the earliest.
struct ScheduleError {
    Time time;
    topo::VertexId tsp = 0;
    std::int32_t port = -1;
    std::uint32_t transfer = 0;
    std::uint32_t vector = 0;
    ErrorKind kind = ErrorKind::Unexpected;
    std::string message;
    bool operator<(const ScheduleError& o) const;
};

// One vector's arrival at one hop, for the listing of small runs.
struct ArrivalRecord {
    topo::VertexId tsp = 0;
    std::int32_t port = 0;
    std::uint32_t transfer = 0;
    std::uint32_t vector = 0;
    Time arrival;
    net::FecOutcome fec = net::FecOutcome::Clean;
    bool operator<(const ArrivalRecord& o) const;
};

// The chip's figures at the end of a run, summed by the model.
struct ChipTotals {
    std::int64_t instructions = 0;
    std::int64_t vectors_sent = 0;       // vectors leaving on links (a fan-out counts once per port)
    std::int64_t vector_hops = 0;        // vectors arriving on links
    std::int64_t vectors_delivered = 0;  // arrivals consumed by Receive or storing Reduce (final destination)
    Time last_arrival;                   // latest arrival on any port
    Time last_delivery;                  // latest arrival at a final destination
    Time max_prediction_error;           // largest |actual - predicted|
    std::int64_t predictions_checked = 0;
};

// Timing (sched/schedule.hpp contract), with clock = this chip's core ClockDomain and S = the train start:
//   Send            acts at S = clock.edge(cycle + issue_cycles): reads its vectors from memory at S and starts
//                   one train per out port at S.
//   Forward         acts at S = clock.edge(cycle + forward_cycles) (forward_train_start; ForwardDeadlines steps
//                   sched::forward_slot); vector i must be available by its first slot after the issue,
//                   clock.edge(cycle) + serialization(i-1), and leaves the FIFO at its last such slot (the latest
//                   over out ports): forwarding latency adds to the hop, it is never hidden.
//   Reduce          with out ports: as Forward with reduce_cycles, reading its memory operands at S; without: acts
//                   at its issue, reading its operands then, and stores each sum when the vector is consumed.
//   Receive         acts at its issue; vector i is consumed (written) at max(available, issue) and must be
//                   available by issue + serialization(i-1) on the in-port's link.
// A vector arriving (fully) at t is available at clock.edge(first edge >= t + crossing_cycles) and sits in its
// port's FIFO from t until consumed; it is claimed by the port's receiving instructions in program order.
// Memory: a read at an instruction's act sees every write consumed before that instant (ties: program order).
//
// Events: one timer event per instant at which instructions act, one arrival event per run (a vector in vector
// mode, a train segment in train mode), and in vector mode one timer event per vector a Send puts on a link.
// Idle chips have none. Every check is computed from exact per-vector times, so both modes agree.
class TspChip : public sim::Component {
public:
    static constexpr std::string_view kSubsystem = "tsp";

    // `system` and `config` must outlive the chip. Throws InputError if the program uses a port that is
    // not wired or an address outside memory (the "program" section reports those with JSON Pointers first).
    TspChip(sim::Context& ctx, const TspSystem& system, topo::VertexId vertex,
            const ExecutorConfig& config, ChipProgram program);

    void init() override;

    topo::VertexId vertex() const { return vertex_; }
    const ClockDomain& clock() const { return clock_; }
    // The port's ends for the builder (nullptr if the port is not wired).
    sim::OutPort* out_port(std::int32_t port);
    sim::InPort* in_port(std::int32_t port);
    // The storage of the runs leaving on `port` (owned here, with the port), and where the runs arriving on
    // `port` are read from (the sender's store; the builder binds both ends).
    WireStore* out_store(std::int32_t port);
    void attach_in_store(std::int32_t port, WireStore& store);
    // Runs put on this chip's links so far.
    std::uint64_t runs_sent() const;

    // Schedule errors found while running, in the order found.
    const std::vector<ScheduleError>& errors() const { return errors_; }
    // After a run that ended with nothing pending: every instruction got all its vectors and every predicted
    // vector arrived (errors of kind Missing otherwise, appended to `out`).
    void check_complete(std::vector<ScheduleError>& out) const;

    // After the run's checks (check_complete, the final memory read by the data check): frees what only the run
    // and those checks read (instructions, memory, predictions, FIFOs, buffers), keeping the figures write_stats,
    // link_use, totals, latency and deliveries report (and a small memory, which write_stats lists).
    void release_run_state();
    // The chip's program in issue order (its instructions sorted stably by cycle), for the model to keep once the
    // run's state goes: the schedule hands each chip its instructions rather than keeping a second copy through
    // the run. Call before release_run_state().
    std::vector<sched::Instruction> program() const;
    // After the model has merged latency() and deliveries(): frees them too.
    void release_merged();

    const ChipTotals& totals() const { return totals_; }
    const stats::Histogram& latency() const { return latency_; }
    // (transfer id, arrival) of the vectors that arrived at this chip as a final destination, in arrival order
    // of their runs, one entry per stretch of runs of one transfer holding the latest arrival among them: a
    // transfer may appear more than once (its runs interleaved with another's); its latest arrival here is the
    // largest of its entries.
    const std::vector<std::pair<std::uint32_t, Time>>& deliveries() const { return deliveries_; }
    // Arrivals recorded so far (recording stops after record_limit + 1 of them).
    const std::vector<ArrivalRecord>& arrivals() const { return arrivals_; }
    const TimedMemory& memory() const { return memory_; }
    // True if the chip did anything (ran an instruction or received a vector).
    bool active() const { return totals_.instructions > 0 || totals_.vector_hops > 0; }
    // Per-port and per-op figures into `group`; utilization is busy time over `span`.
    void write_stats(stats::Group& group, Time span) const;
    // Per out port, for the model's link-class summary.
    struct LinkUse {
        topo::ChannelId channel = 0;
        std::int64_t vectors = 0;
        Time busy;
        std::int64_t corrected = 0;  // FEC outcomes of the vectors sent
        std::int64_t uncorrectable = 0;
    };
    std::vector<LinkUse> link_use() const;
    // Events this chip caused (arrivals it sent + timers), for --perf.
    std::uint64_t events_sent() const { return ctx().events_sent(); }

private:
    struct Claim {  // 24 bytes
        std::uint32_t instr = 0;
        std::uint32_t count = 0;
        std::int64_t start = 0;  // port vector number of its first vector
        // Copied from the instruction for the arrival's prefetch hook (note_next), which reads no instruction: where
        // a forwarding one sends (its out ports), where a storing one writes (its first slot; -1: none).
        std::int32_t slot0 = -1;
        sched::PortMask out_ports = 0;
    };
    // An in port's state, hot part first: what every run arriving here reads (the store, the timing of its units,
    // the claims, the FIFO, the predictions) lies in the first four cache lines of the aligned record; the
    // sending link's full timing and noise (a net::ScheduledLink, 192 bytes) is kept apart (in_views_) and read
    // only when the link has jitter or FEC errors, or for the arrival records.
    struct alignas(64) InPortState {
        WireStore* store = nullptr;  // the upstream out port's storage
        UnitArrivals arrivals;       // its units' arrivals, from the sending link's timing and noise (in_views_)
        // The arriving link's serialization and latency, for the steppers made per run (a SerialStepper made from
        // the LinkTiming sums its latency parts, a cache miss per run at 10,440 TSPs).
        Serializer serial;
        std::int32_t port = 0;
        std::size_t cursor = 0;
        std::int64_t arrived = 0;
        std::vector<Claim> claims;
        sched::LeaveTimes fifo;  // when the vectors in the FIFO leave it
        PredictionIndex predictions;
        topo::ChannelId channel = 0;  // arriving channel
        const LinkTiming* timing = nullptr;
    };
    struct OutPortState {
        std::int32_t port = 0;
        topo::ChannelId channel = 0;
        net::ScheduledPort<WireEntry>* link = nullptr;  // the link (in links_): trains, storage, wire
        net::ScheduledLink& tx() const { return link->link(); }
        Serializer serial;           // the link's serialization (see InPortState::serial)
        UnitArrivals arrivals;       // its units' arrivals (tx()'s rule, without reading tx() on plain links)
        bool jitter = false;         // the link has jitter
        std::int32_t peer_port = 0;  // the receiving port at the other end
        std::int64_t trains = 0;
    };
    // One train an instruction put on one out port, and how far its vectors have been emitted.
    struct OutTrain {
        std::int32_t out = 0;  // index into outs_
        Time start;
        std::uint64_t first_index = 0;
        Time floor;             // arrival of the last unit emitted (or of the previous train's last unit)
        std::int64_t next = 1;  // position of the next unit to emit
    };
    struct Pending {
        VectorRun run;
        SparseValues values;
    };
    // What an instruction holds only while it runs (from its first arriving part or its action until its last
    // vector is handed on), allocated then and freed after: most of a long program is done or not yet started.
    struct Live {
        std::vector<OutTrain> trains;
        SparseValues operand;  // Send: the values sent; Reduce: memory operands (offsets from the first vector)
        std::vector<Pending> pending;
    };
    // One cache line (line-aligned): read per action and per arriving run of it. When it acts is kept in its
    // Action entry (actions_), the one place that reads it.
    struct alignas(64) InstrState {
        sched::Instruction ins;
        Time issue;                  // clock.edge(cycle)
        std::uint32_t order = 0;     // program index
        std::uint32_t claimed = 0;   // vectors whose arrival was processed
        std::uint32_t consumed = 0;  // vectors handed on (written, forwarded)
        std::int8_t in = -1;         // index into ins_ (receiving ops)
        bool acted = false;
        std::unique_ptr<Live> live;  // while it runs (see Live; from spare_live_ when one is kept)
    };
    // A storing instruction's part whose writes land later than they are known (a train's vectors are known when
    // its first arrives): kept as the part's values and the state that times its vectors, and written into the
    // memory when a read or the end of the run reaches their keys (8 bytes per vector until it lands). Parts sit
    // in a slab (deferred_parts_, reused with their values' capacity); the heap orders 16-byte handles, so that
    // stepping between interleaved parts moves no part.
    struct Deferred {
        AccessKey key;  // of vector k
        std::uint32_t k = 0;
        // The train position of the part's first unit (in the padding after k; 0 when it does not fit 32 bits):
        // on a plain link its vectors' keys are then found directly (skip_to_key).
        std::uint32_t position = 0;
        const InPortState* in = nullptr;  // the in port's (for the timing of its units)
        Time issue;                                 // the instruction's
        std::int64_t slot0 = 0;  // slot of the part's first vector
        Time train_start;        // of the train the part arrives in
        std::uint64_t index0 = 0;  // link-wide index of the part's first unit
        Time floor;          // arrival of the vector before k
        SerialStepper sent;  // serialization of vector k's unit in its train
        std::vector<std::int64_t> values;  // one per vector of the part
    };
    struct DeferredRef {  // a heap entry: a part's next key and its slot in deferred_parts_
        Time time;
        std::uint32_t order = 0;
        std::uint32_t part = 0;
        AccessKey key() const { return {time, order}; }
        bool operator>(const DeferredRef& o) const { return o.key() < key(); }
    };
    struct Emission {  // vector mode: a Send's next vector, due at its slot
        Time time;
        std::uint32_t instr = 0;
        std::uint32_t train = 0;
        bool operator>(const Emission& o) const {
            return time != o.time ? time > o.time : (instr != o.instr ? instr > o.instr : train > o.train);
        }
    };

    // An in port that also holds what the kernel's prefetch hook (prefetch_arrival) loads for the next run
    // arriving on it: the port's state and the addresses its handler reads first, refreshed by the chip after
    // every run it takes there (note_next); the hook only reads them.
    struct alignas(64) ArrivalPort : sim::InPort {
        using sim::InPort::InPort;
        const TspChip* chip = nullptr;
        const InPortState* state = nullptr;
        WireStore* store = nullptr;  // the state's (read here without reading the state)
        // The current claim, its instruction (one line), the prediction entry, the FIFO's times, and where the
        // claim's instruction hands the run on: its first out port's record and link, or its slots' cell bits.
        std::array<const void*, 6> next{};
    };
    static void prefetch_arrival(const void* obj, const sim::Event& e);
    void note_next(std::size_t in);
    // The action timer, with what the kernel's prefetch hook (prefetch_action) loads before the next action: the
    // addresses on_action reads first (the action's entry, its instruction's lines, its Live block, its out
    // ports' records and links), written when the timer is armed (note_action); the hook only reads them. Two
    // cache lines, the ones the kernel prefetches as the slot's object.
    static constexpr std::size_t kActionLines = 2;
    static constexpr std::size_t kActionNext = (kActionLines * 64 - sizeof(sim::Timer) - sizeof(void*)) / sizeof(void*);
    struct alignas(64) ActionTimer {
        template <class... A>
        explicit ActionTimer(A&&... a) : timer(std::forward<A>(a)...) {}
        sim::Timer timer;  // first: the hook's obj is the timer, pointer-interconvertible with this record
        const TspChip* chip = nullptr;
        std::array<const void*, kActionNext> next{};
    };
    static void prefetch_action(const void* obj, const sim::Event& e);
    void note_action();
    void on_arrival(std::uint32_t handle);
    void on_action();
    void on_emission();
    void on_stop();

    // I acts at `action` (its Action entry's time).
    void act(InstrState& I, Time action);
    // I's Live block, taken from spare_live_ (or allocated) when it has none.
    Live& state(InstrState& I);
    // Frees I's Live block, or keeps it (emptied) in spare_live_.
    void drop_live(InstrState& I);
    // Frees what a receiving instruction held while running once its last vector is handed on.
    void release_if_done(InstrState& I);
    // Calls f(index into outs_) for each out port of `ins`, in port order.
    template <class F>
    void for_each_out(const sched::Instruction& ins, F&& f) const {
        for (unsigned mask = ins.out_ports; mask != 0; mask &= mask - 1)
            f(out_index_[static_cast<std::size_t>(std::countr_zero(mask))]);
    }
    void open_trains(InstrState& I, Time action);
    // `values` (the run's) may be taken: it is left empty or holding another buffer.
    void accept(InPortState& ip, const VectorRun& run, SparseValues& values);
    // Checks vector k of `run` (position `pos` of instruction I) arriving at t, needed by `need`; a forwarded
    // vector leaves the FIFO at `last_slot`. `fwd` and `final_hop`: forwards(I.ins) and stores(I.ins).
    [[gnu::always_inline]] void check_vector(InPortState& ip, InstrState& I, std::int64_t pos, const VectorRun& run,
                                             std::int64_t k, Time t, Time need, Time last_slot, bool fwd,
                                             bool final_hop);
    // Its reports and records, out of line.
    [[gnu::cold, gnu::noinline]] void report_unexpected(const InPortState& ip, const InstrState& I,
                                                        const VectorRun& run, std::uint32_t vec, std::uint32_t want,
                                                        Time t);
    [[gnu::cold, gnu::noinline]] void report_late(const InPortState& ip, const InstrState& I, const VectorRun& run,
                                                  std::uint32_t vec, Time t, Time avail, Time need);
    [[gnu::cold, gnu::noinline]] void report_overflow(const InPortState& ip, const VectorRun& run, std::uint32_t vec,
                                                      Time t);
    [[gnu::cold, gnu::noinline]] void report_mispredicted(const InPortState& ip, const VectorRun& run,
                                                          std::uint32_t vec, Time t, const std::optional<Time>& p);
    [[gnu::noinline]] void record_arrival(const InPortState& ip, const VectorRun& run, std::int64_t k,
                                          std::uint32_t vec, Time t);
    void consume(InstrState& I, Pending& part);
    // Times vector d.k of a deferred part: its key.
    [[gnu::always_inline]] void step(Deferred& d);
    // On a plain link (no jitter, no FEC errors), d's vectors after k timed directly instead of stepped: d is left
    // as step() leaves it at the first vector whose key is not before `before` (d.k = its count when none), from
    // a guess checked against the exact keys of two vectors. False, d unchanged, when not done (then step).
    bool skip_to_key(Deferred& d, AccessKey before) const;
    // Writes every deferred vector with key < `before` into the memory, in key order.
    void apply_deferred(AccessKey before);
    void finish() override;
    // Emits `m` vectors (identity and origin from `src`) as the next units of train `ot`.
    // `take` (null or &values): the caller reads `values` no more, so a run carrying all of them takes the buffer
    // instead of a copy.
    void emit(OutTrain& ot, const VectorRun& src, std::uint32_t m, const SparseValues& values,
              SparseValues* take = nullptr);
    // An empty `v` without a buffer takes a spare one (if any); give_spare() keeps v's buffer as a spare (bounded)
    // or frees it, leaving v empty.
    void take_spare(SparseValues& v);
    void give_spare(SparseValues& v);
    void send_run(OutPortState& op, const VectorRun& r, Time arrival, const SparseValues* values);

    static bool forwards(const sched::Instruction& ins);
    static bool stores(const sched::Instruction& ins);
    Time available(Time arrival) const;
    // ---- forward timing: schedule.hpp rule 5 (Forward) and rule 7 (forwarding Reduce) ------------------------
    // When the onward train of forwarding instruction `ins` starts (sched::train_start): clock.edge(cycle +
    // forward_cycles), or reduce_cycles for a Reduce. It does not wait for the vectors (cut-through): their deadlines say when each
    // must be available.
    Time forward_train_start(const sched::Instruction& ins) const;
    // The deadlines of vectors pos, pos + 1, ... (1-based within the instruction) of a forwarding instruction
    // issued at `issue`: need() = its first slot over the out ports (issue + serialization(pos - 1): it must be
    // available by then, else it is late), leave() = its last slot (it leaves the FIFO then). Stepped with
    // additions only, for the executor's per-vector loops.
    class ForwardDeadlines {
    public:
        ForwardDeadlines(const TspChip& chip, const InstrState& I, std::int64_t pos);
        Time need() const { return need_; }
        Time leave() const { return leave_; }
        void next() {
            if (n_ == 1) {  // one out port (most forwarding instructions): update() for it, inline
                slot_[0].next();
                const Time at = issue_ + slot_[0].value();
                need_ = at;
                leave_ = std::max(Time::zero(), at);
            } else {
                next_all();
            }
        }

    private:
        void next_all();
        void update();
        Time issue_;
        std::size_t n_ = 0;
        std::array<SerialStepper, 16> slot_;
        Time need_, leave_;
    };
    // check_vector for vectors j .. j + m - 1 of `run`, the instruction's next ones, predicted (when checked) by
    // pred_base + pred stepped: the counters, deliveries and latency histogram updated once for the part.
    template <class NextArrival>
    [[gnu::always_inline]] void accept_bulk(InPortState& ip, InstrState& I, const VectorRun& run, std::uint32_t j,
                                            std::uint32_t m, NextArrival& next_arrival,
                                            std::optional<ForwardDeadlines>& forward,
                                            SerialStepper& receive_slot, SerialStepper& origin, Time pred_base,
                                            SerialStepper& pred, bool fwd, bool final_hop);
    void report(Time t, std::int32_t port, std::uint32_t transfer, std::uint32_t vector, ErrorKind kind,
                const std::string& what);
    std::string where(Time t, std::int32_t port) const;

    // ---- What a run's arrival and an instruction's action read, together in the chip's first lines: scattered
    // over its 29 lines they were about 20 cache misses per run at 10,440 TSPs. ----
    const TspSystem& system_;
    std::vector<std::int32_t> in_index_;  // port -> index into ins_ (-1)
    std::vector<InPortState> ins_;
    std::vector<InstrState> instrs_;  // program order
    ExecutorConfig config_;
    std::int64_t fifo_depth_;
    Time jitter_allowance_;
    bool check_predictions_;
    ChipTotals totals_;
    SparseValues arrived_values_;  // the values of the run being accepted
    // Value buffers kept for the runs this chip posts: a run's buffer travels with it to the receiver, which keeps
    // the one it read before (a forwarding chip posts about as many runs as it takes). At most kSpareBuffers of at
    // most kSpareEntries entries (a malloc and a free per run otherwise); freed at finish().
    static constexpr std::size_t kSpareBuffers = 2;    // a Forward or Reduce hands on what it takes: one suffices
    static constexpr std::size_t kSpareEntries = 256;  // 4 KiB: runs of up to 256 vectors (46 at 10,440 TSPs)
    std::vector<SparseValues> spare_values_;
    // Live blocks of finished instructions, emptied, for the next ones (an allocation and a free per instruction
    // otherwise, plus its trains'): at most kSpareLive, without their operands' buffers.
    static constexpr std::size_t kSpareLive = 2;  // instructions overlap little on one chip
    std::vector<std::unique_ptr<Live>> spare_live_;
    Pending part_;  // the part of it being handed to one instruction
    std::vector<OutPortState> outs_;
    std::vector<std::int32_t> out_index_;  // port -> index into outs_ (-1)
    std::int64_t vector_bytes_;
    std::int64_t vectors_forwarded_ = 0;
    std::int64_t vectors_reduced_ = 0;
    sched::ClockEdges edges_;  // the core clock, for the per-vector checks (available())
    // The serialization pace (unit size and rate) of every link class when they all share one, for the latency of
    // the vectors delivered here (otherwise read from the run's origin channel: a cache miss per run).
    std::optional<Serializer> origin_pace_;
    stats::Histogram latency_;
    // Appended per run, the last entry updated while the runs are of its transfer (a std::map was a node
    // allocation and a walk over cold nodes per transfer delivered); reserved for one per storing instruction.
    std::vector<std::pair<std::uint32_t, Time>> deliveries_;
    SparseValues scratch_;
    SparseValues scratch_out_;

    TimedMemory memory_;
    std::vector<Deferred> deferred_parts_;      // slab (see Deferred)
    std::vector<std::uint32_t> deferred_free_;  // free slots of deferred_parts_
    std::vector<DeferredRef> deferred_;         // min-heap by key
    // The slots of the parts in deferred_ as (first slot, count), sorted, and whether two of them overlapped since
    // deferred_ was last empty (then apply_deferred() keeps every write in key order across parts).
    std::vector<std::pair<std::int64_t, std::int64_t>> deferred_ranges_;
    bool deferred_overlap_ = false;
    void add_deferred_range(std::int64_t slot0, std::int64_t count);
    void drop_deferred_range(std::int64_t slot0, std::int64_t count);

    // The instructions by (action time, program index), each with its action time: the next one's is read to arm
    // the timer, which read the next instruction's state (a cache miss per action at 10,440 TSPs, where it is
    // evicted again before it acts).
    struct Action {
        Time time;
        std::uint32_t instr = 0;
        sched::PortMask out_ports = 0;  // the instruction's (for note_action, without reading it)
        std::int32_t slot0 = -1;        // the first slot it reads (Send, Reduce), else -1 (likewise)
    };
    std::vector<Action> actions_;
    std::size_t next_action_ = 0;
    ActionTimer action_timer_;
    std::int64_t op_counts_[4] = {0, 0, 0, 0};

    // ---- Read rarely while running ----
    std::deque<net::ScheduledPort<WireEntry>> links_;  // per out port, in outs_ order
    topo::VertexId vertex_;
    ClockDomain clock_;
    std::int64_t crossing_cycles_;
    std::deque<ArrivalPort> in_ports_;         // ins_ order
    std::deque<net::ScheduledLink> in_views_;  // ins_ order (InPortState::arrivals)
    std::vector<Emission> emissions_;          // min-heap (vector mode)
    sim::Timer emission_timer_;
    sim::Timer stop_timer_;
    std::vector<ScheduleError> errors_;
    std::vector<ArrivalRecord> arrivals_;
};

}  // namespace loom::tsp
