// The input-queued virtual-channel router: per-VC input buffers, credit flow control, a routing / VC allocation /
// switch allocation / switch traversal pipeline with separable allocators and internal speed-up, and output
// channels that send one flit per cycle. It runs only in cycles where some flit can move.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "loom/fabric/allocator.hpp"
#include "loom/fabric/flit.hpp"
#include "loom/fabric/flit_link.hpp"
#include "loom/fabric/fabric_setup.hpp"
#include "loom/fabric/fabric_stats.hpp"
#include "loom/net/clocked_link.hpp"
#include "loom/sim/component.hpp"
#include "loom/sim/channel.hpp"
#include "loom/sim/timer.hpp"

namespace loom::fabric {

class RouterClock;
class Terminal;

// What a router's tick writes and reads within that tick only: the switch allocator's picks and the outputs'
// request masks, the in-place VC allocator's. The run's RouterClock keeps one and lends it to every router it
// ticks, one at a time, so these stay in the cache instead of being a few cold lines of every router's block (no
// value passes from one tick to another through it: between ticks every request mask is zero, and the picks are
// written before they are read).
struct alignas(64) TickScratch {
    std::uint64_t out_req[64] = {};  // per output port: inputs picking it this round (in-place allocation)
    std::uint64_t va_req[64] = {};   // per output VC: input VCs picking it (in-place VC allocation)
    std::uint8_t pick[64] = {};      // per input port: the VC it picked this round
    std::uint8_t pick_out[64] = {};  // per input port: the output of its pick, or of its grant
    std::uint8_t va_pick[64] = {};   // per input VC: the output VC it picked (in-place VC allocation)
};

// Ports 0 .. network_ports()-1 are the topology's ports of the router's vertex (unwired ones get nothing and are
// never routed to); ports network_ports() + k connect local terminal k. Each wired port has an input flit line
// and the credit line back to its sender, and an output flit line and the credit line coming back from its
// receiver (FlitLink); the sender ends of the lines it pushes are in its own port records (PortOut), its ends of
// those it reads (LineReader) in its block: a flit line's in its per-port PortIn.
// Terminal ports have no credit line from the terminal: a terminal absorbs a flit every
// cycle, so ejection needs no flow control. Every line into the router wakes it through its one endpoint on the
// run's wake channel, with argument flit_wake_arg(port) or credit_wake_arg(port).
//
// Timing, in router cycles (R, V, S, X the pipeline stages; L the channel latency of a port):
//  - a flit arriving at cycle a is written into its VC's buffer at a;
//  - a head flit at the front of its VC is routed at the first tick >= a + R and takes part in VC allocation
//    from then on; granted at cycle v, it may take part in switch allocation from v + V;
//  - a body flit may take part in switch allocation from a + R + V (so a packet's flits keep their spacing);
//  - switch allocation runs rounds_at(c) times in cycle c (internal speed-up); a flit granted at cycle s leaves
//    on its output channel at max(s + S + X, the cycle after the channel's previous flit) and arrives at the
//    next router at that cycle + L. At zero load a head flit spends R + V + S + X cycles in each router;
//  - the flit's credit leaves at s + credit_delay and arrives upstream L cycles later;
//  - an output VC is held by one packet from its VC grant until its tail flit wins switch allocation; a grant
//    needs a free output VC of the packet's class, and every switch grant needs a credit of that output VC.
// Activity: the router ticks (Phase::Clock, from the run's RouterClock) only in cycles where a flit arrives or
// something can progress; a flit blocked on credits waits for the credit's arrival. A credit line is read when an
// output VC's count is zero, at a tick kCreditBatch cycles after the last read of every line, and at every tick
// when the routing function reads the outputs' queues (read_credits); the router is woken for it when a flit waits
// on it.
// Aligned to a cache line, so that its hot members (the context, the setup and the counters a tick writes,
// declared first) share the object's first lines.
class alignas(64) Router : public sim::Component {
public:
    static constexpr std::string_view kSubsystem = "fabric";
    // Cycles between the ticks that read every arrived credit while the output VCs have credits (drain). 64:
    // on the reference 589.8 instructions and 10.78 LL data misses per flit-hop against 594.1 / 10.85 at 16,
    // for 6 MiB more chunks in flight on the 16,512-terminal network (256: 588.0 / 10.74, 30 MiB more).
    static constexpr std::int32_t kCreditBatch = 64;

    Router(sim::Context& ctx, const FabricSetup& net, topo::VertexId vertex);
    ~Router() override;

    topo::VertexId vertex() const { return vertex_; }
    std::int32_t network_ports() const { return network_ports_; }
    std::int32_t ports() const { return ports_; }
    std::int32_t terminal_port(std::int32_t k) const { return network_ports_ + k; }
    // Whether the topology wires `port` (terminal ports always are).
    bool wired(std::int32_t port) const { return (wired_ >> port) & 1; }
    bool is_terminal_port(std::int32_t port) const { return port >= network_ports_; }
    // The router's endpoint on the wake channel: it sends the wake-ups of the lines it pushes (output flits,
    // returned credits) and receives those of the lines it reads, whose arguments name the line.
    sim::ChannelPort& wake_port() { return wake_; }
    static constexpr std::uint32_t flit_wake_arg(std::int32_t port) { return static_cast<std::uint32_t>(port) << 1; }
    static constexpr std::uint32_t credit_wake_arg(std::int32_t port) {
        return (static_cast<std::uint32_t>(port) << 1) | 1u;
    }
    // The run's port records (PortOut), every router's ports in a row and the terminals' after them, and the
    // index of this router's first (before the run): port q sends on all[first + q], pushing the flits leaving on
    // q and the credits returned for the flits arriving on q. Sets the output channels' latencies.
    void use_links(PortOut* all, std::uint32_t first);
    // The lines of `port` the router reads, by the index of their sender's record in the run's array: the flits
    // arriving on it (all[sender].flits), and for a network port the credits coming back for its output
    // (all[receiver].credits); the router attaches its ends (LineReader), before the line's first push and after
    // use_pool. The builder binds each line's wake-up; a flit line also holds the records of the packets whose
    // heads it carries.
    void attach_input(std::int32_t port, std::uint32_t sender);
    void attach_output(std::int32_t port, std::uint32_t receiver);
    // The run's pool: the input buffers take their chunks from it, and the lines' rings and records are in it
    // (before the run).
    void use_pool(RingPool& pool) { pool_ = &pool; }
    // The clock that ticks the router (the run's routers share one), before the run.
    void use_clock(RouterClock& clock);
    // The router's ends of the lines it reads on `port` (the flits arriving, the credits for its output).
    const LineReader& input_line(std::int32_t port) const { return in_[port].flits; }
    const LineReader* credit_line(std::int32_t port) const {
        return is_terminal_port(port) ? nullptr : &credit_in_[port];
    }
    // What the router reads first of `port`'s flit line, its due arrival (tests: beside its end of the line).
    const std::uint32_t* flit_due(std::int32_t port) const { return &in_[port].flit_due; }
    // The lines the router pushes on `port`: its flits out, the credits it returns for the flits arriving on it.
    const PortOut& port_out(std::int32_t port) const { return out_[port]; }

    // Every output VC starts with vc_buffer_flits credits (the downstream buffer is empty).
    void init() override;

    // Observation, for statistics and conservation checks.
    std::int32_t credits(std::int32_t port, std::int32_t vc) const;
    std::int32_t buffered(std::int32_t port, std::int32_t vc) const;
    std::int64_t buffered_flits() const;
    std::int32_t peak_vc_flits() const { return peak_vc_flits_; }
    std::int64_t ticks() const { return ticks_; }
    // What this router counted (its own; summed by the monitor at sample boundaries and by the model in finish).
    const FabricCounters& counters() const { return counters_; }


private:
    friend class RouterClock;
    enum class VcState : std::uint8_t { Idle, Routing, VcAlloc, Active };
    // An input VC: its buffer and its state, one cache line. The buffer holds (arrival cycle mod 2^32) << 32 | flit
    // argument per flit, oldest first: the first kInline in the record itself (slot[0] the front), the rest in a
    // ring in the lines' RingPool chunks (front the oldest, back one past the newest, both nullptr while at most
    // kInline flits are buffered). Most VCs hold a few flits at a time, so a flit's write into the buffer and its
    // read out of it touch the record, which the router reads at both anyway, instead of a chunk of its own.
    static constexpr std::uint32_t kInline = 4;
    struct alignas(64) Vc {
        std::uint64_t slot[kInline] = {};
        std::uint64_t* front = nullptr;  // the ring of the entries after the first kInline
        std::uint64_t* back = nullptr;
        // Routing / VcAlloc: first cycle of routing / VC allocation. Active: first cycle the front flit may take
        // part in switch allocation.
        std::int64_t ready = 0;
        std::uint32_t size = 0;  // flits buffered (in slot, then in the ring)
        VcState state = VcState::Idle;
        std::uint8_t out_port = 0;  // VcAlloc, Active: the output port
        std::uint8_t cls = 0;       // VcAlloc: index into class_vcs_ of the output VCs the packet may take
        std::uint8_t out_vc = 0;    // Active: the VC held on out_port
    };
    static_assert(sizeof(Vc) == 64);
    // What draining the lines into the router reads, per port: 16 bytes, four to a cache line. The front
    // arrivals are kept modulo 2^32, as in the lines' entries (cycles_until), beside the router's end of the flit
    // line (LineReader), so that a flit's pop touches this line and the ring chunk, no state of the sender's and
    // no line of ends of its own. The credit lines' ends are in an array of their own (credit_in_): they are
    // read in batches (kCreditBatch), so their line is touched once per batch.
    struct alignas(16) PortIn {
        std::uint32_t flit_due = 0;    // front arrival of the flit line while the port's bit is in flit_lines_
        std::uint32_t credit_due = 0;  // front arrival of the credit line while its bit is in credit_lines_
        LineReader flits;              // the flits arriving on the port
    };
    static_assert(sizeof(PortIn) == 16);
    // Cycles from `cycle` until the arrival `due` (modulo 2^32; negative once it has passed, an entry is never in
    // flight for 2^31 cycles).
    static std::int32_t cycles_until(std::uint32_t due, std::int64_t cycle) {
        return static_cast<std::int32_t>(due - static_cast<std::uint32_t>(cycle));
    }

    void on_wake(std::uint32_t arg);
    void on_flit_wake(std::int32_t port);
    void on_credit_wake(std::int32_t port);
    // The router's tick at cycle `c`, called by the clock (which passes the cycle: the router's Context is not
    // read for the time, one cold line less per tick).
    void on_tick(std::int64_t c);
    void drain(std::int64_t cycle);
    void accept_flit(std::int32_t port, std::uint32_t arg, std::int64_t arrival);
    void wake(std::int64_t cycle);
    void route(std::int32_t iv);
    void vc_allocate(std::int64_t cycle);
    void vc_allocate_inline(std::int64_t cycle);
    void grant_vc(std::int32_t iv, std::int32_t ov, std::int64_t cycle);
    std::span<const std::uint16_t> va_list() const { return {va_list_, va_count_}; }
    void va_erase_active();
    std::uint64_t switch_allocate(std::int64_t cycle, std::uint64_t dirty);
    void switch_requests(std::int64_t cycle, std::uint64_t dirty, std::uint64_t req);
    std::uint64_t switch_grant(std::int64_t cycle);
    std::uint32_t scan_requests(std::int32_t p, std::int64_t cycle);
    // Reads the credits on port p's line that have arrived by `cycle` (drain does so only for UGAL-L).
    void read_credits(std::int32_t p, std::int64_t cycle);
    // Whether output VC ov has a credit at `cycle`: its count, else its count once its line is read.
    bool has_credit(std::int32_t ov, std::int64_t cycle);
    std::int32_t v_out_port(std::int32_t port, std::int32_t vc) const { return vc_[port * vcs_ + vc].out_port; }
    void forward(std::int32_t port, std::int32_t vc, std::int32_t out_port, std::int64_t cycle);
    // Arrival cycles of a forwarded flit and of its credit.
    struct Arrivals {
        std::int64_t flit = 0, credit = 0;
    };
    Arrivals send_noisy(std::int32_t port, std::int32_t out_port, std::int64_t cycle);
    void sa_add(std::int32_t port, std::int32_t vc);
    // An Active VC's ready cycle, set in cycle `cycle`: keeps its soon_ / later_ bits (one set iff ready > cycle).
    void set_sa_ready(std::int32_t iv, std::int64_t ready, std::int64_t cycle);
    // At the start of a tick's switch allocation: sets the cok_ bits of the VCs whose credits came back, clears
    // the soon_ and later_ bits of the VCs ready by `cycle`.
    void settle_ready(std::int64_t cycle);
    void sa_remove(std::int32_t port, std::int32_t vc);
    std::int32_t cand_first(const Vc& x) const { return x.out_port * vcs_ + class_vcs_[x.cls].first; }
    std::int32_t cand_end(const Vc& x) const { return x.out_port * vcs_ + class_vcs_[x.cls].end; }
    std::int64_t now_cycle() const { return net_.clock.edge_at_or_before(Time::ps(ctx().now_ps())); }
    // From now to `cycle`'s edge; only within a tick (now is the clock's tick time).
    Time delay_to(std::int64_t cycle) const;

    static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

    // Members a tick touches first, in few cache lines: the counters' router part right after them, the rest
    // (noise, the block's owner, the allocators not done in place) last.
    // What the clock and every tick read first, in the object's first cache line (after the base's 16 bytes).
    std::int64_t next_tick_ = kNever;  // the cycle the router is scheduled to tick at (kNever: none)
    std::int64_t ticks_ = 0;
    std::uint64_t flit_lines_ = 0;     // ports whose input flit line holds entries
    std::uint64_t credit_lines_ = 0;   // ports whose credit line holds entries
    RingPool* pool_ = nullptr;         // the input buffers' chunks
    PortIn* in_ = nullptr;             // per port
    LineReader* credit_in_ = nullptr;  // per port: network ports, the credits for its output
    const FabricSetup& net_;
    topo::VertexId vertex_;
    std::int32_t network_ports_;
    std::int32_t ports_;
    std::int32_t vcs_;
    std::int32_t first_terminal_;
    std::uint32_t body_wait_;  // R + V: cycles a body flit waits in the buffer before switch allocation
    // Pipeline stages in cycles (each at most 10^6, a config bound; 32 bits keep the hot members in fewer lines).
    std::int32_t routing_cycles_, vc_alloc_cycles_, traversal_cycles_, credit_delay_;
    std::int64_t speedup_milli_;  // internal speed-up in thousandths (rounds of cycle c: see FabricConfig)
    bool sw_inline_;              // separable input-first switch allocation, one iteration: done in place
    bool va_inline_;              // the same for VC allocation, with at most 64 input VCs
    bool noisy_ = false;          // the channels have noise (noise_ below)
    bool occupancy_ = false;      // the routing function reads each output's queue (route() sums its credits)
    // The VCs of class c on a port: [first, end) = [vc_first(c), vc_first(c + 1)); entry `classes` is every VC
    // (ejection takes any).
    struct VcRange {
        std::uint8_t first, end;
    };
    std::array<VcRange, Flit::kMaxVcs + 1> class_vcs_{};
    std::uint8_t any_class_ = 0;  // the entry of every VC

    // The router's state is one block (block_), carved into these arrays, so that a tick touches a few
    // neighbouring cache lines instead of a dozen separate allocations.
    struct BlockFree {
        void operator()(std::byte* p) const;
    };
    Vc* vc_ = nullptr;                    // input VCs: port * vcs + vc
    PortOut* links_ = nullptr;            // the run's port records (use_links): the lines it reads are there
    PortOut* out_ = nullptr;              // per port: its own, links_ + its first (not in the block)
    std::int32_t* credits_ = nullptr;     // per output VC
    std::uint8_t* ov_busy_ = nullptr;     // per output VC
    std::uint8_t* vc_port_ = nullptr;     // per input VC: its port (iv / vcs_ without a division)
    std::uint16_t* sa_vcs_ = nullptr;     // per input port: its VCs Active with a buffered flit
    std::uint32_t* sw_lines_ = nullptr;   // per input port: the VCs requesting the switch this round
    std::uint8_t* in_ptr_ = nullptr;      // per input port: round-robin pointer over its VCs (in place)
    std::uint8_t* out_ptr_ = nullptr;     // per output port: round-robin pointer over the inputs (in place)
    std::uint8_t* out_kind_ = nullptr;    // per output port: its channel's kind (statistics)
    // The input VCs Routing or waiting for VC allocation, in the order they became so: the first va_count_
    // entries (at most one per input VC).
    std::uint16_t* va_list_ = nullptr;
    std::uint16_t va_count_ = 0;
    std::uint64_t sw_req_ = 0;            // input ports requesting the switch in this tick's current round
    std::uint8_t* va_in_ptr_ = nullptr;   // per input VC: round-robin pointer over the output VCs
    std::uint8_t* va_out_ptr_ = nullptr;  // per output VC: round-robin pointer over the input VCs
    TickScratch* scratch_ = nullptr;      // the clock's (use_clock)
    std::uint64_t sa_ports_ = 0;          // input ports with a nonzero sa_vcs_
    // Switch allocation's request conditions as bit masks over the input VCs (masks_: at most 64 of them), so
    // that a round computes every input's requests in a few word operations instead of reading each VC's record
    // and credit count: input VC iv requests iff its bit is set in sa_ and cok_ and clear in soon_ and later_.
    bool masks_ = false;
    std::uint64_t sa_ = 0;        // Active with a buffered flit (sa_vcs_ as one word)
    std::uint64_t cok_ = 0;       // Active and its output VC had a credit at the last look (settle_ready sets
                                  // the bits of VCs whose credits came back; bits of other VCs are stale)
    std::uint64_t soon_ = 0;      // Active, not ready before cycle soon_at_ (while soon_at_ > now)
    std::uint64_t later_ = 0;     // Active, its ready cycle may be after this tick's (settle_later)
    std::int64_t soon_at_ = 0;
    std::uint32_t vc_mask_ = 0;   // the low vcs_ bits
    std::int64_t credits_read_ = 0;       // the last tick that read every credit line (drain)
    sim::ChannelPort wake_;
    RouterClock* clock_ = nullptr;
    std::int32_t peak_vc_flits_ = 0;
    FabricCounters counters_;  // the router's part first (FabricCounters)

    // Cold members after the counters, so that what a tick touches stays in as few cache lines as possible.
    std::uint64_t wired_ = 0;  // ports with lines
    std::uint32_t depth_;      // flits an input VC's buffer holds (init's credits)
    // Noisy channels (FabricConfig::noisy_links): per network port the noise of its output's flits, then of the
    // credits returned beside them; empty when the channels are clean.
    std::vector<net::LinkNoise> noise_;

    std::unique_ptr<std::byte, BlockFree> block_;  // owns the arrays above
    // The allocators of the kinds not done in place (nullptr otherwise).
    std::unique_ptr<Allocator> va_, sw_;
};

// Ticks the run's routers and terminals: one kernel event (Phase::Clock) per cycle in which some router or
// terminal is due, calling the due ones' ticks, instead of one timer event per tick (on the reference, 527 k of
// 1.21 M events were router ticks, and a third of the rest terminal ticks). A router's or terminal's tick touches
// only its own state and the lines it reads and writes, whose entries arrive at least one cycle after their push,
// so the order of the ticks within a cycle changes no result; it does decide whether a push finds its line empty
// (and sends a wake-up), and terminals' ejections call the packet observer in it. So the clock keeps the order
// their own Phase::Clock events had (by source id, from the paths): the terminals whose source id is below the
// clock's, the routers (by vertex: the order of their blocks and lines in memory), the other terminals. The lines
// whose records are read in these ticks name the clock as their records' owner (sim::Owner).
class RouterClock : public sim::Component {
public:
    static constexpr std::string_view kSubsystem = "fabric";

    RouterClock(sim::Context& ctx, const FabricSetup& net);

    // The routers (by vertex) and terminals it ticks (before the run).
    void set_units(std::vector<Router*> routers, std::vector<Terminal*> terminals);
    // Orders the terminals by source id (assigned by the simulator after the build, before init).
    void init() override;

    // Router `r` (terminal `t`) ticks at `cycle` (at or after the current cycle); called by its wake, which keeps
    // one schedule per router or terminal (an earlier one supersedes, and a superseded entry is skipped when its
    // cycle comes).
    void schedule(Router* r, std::int64_t cycle) {
        LOOM_DEBUG_ASSERT(static_cast<std::size_t>(r->vertex()) < routers_.size() &&
                              routers_[static_cast<std::size_t>(r->vertex())] == r,
                          "a router the clock does not know");
        schedule_unit(first_router_ + static_cast<std::uint32_t>(r->vertex()), cycle);
    }
    void schedule(Terminal* t, std::int64_t cycle);
    // Kernel events the clock handled (cycles with a router or terminal due).
    std::int64_t cycles_ticked() const { return fired_; }
    // Where the clock ticks terminal `t` among its units, and the first router's unit (checks and tests).
    static std::uint32_t unit_of(const Terminal& t);
    // What the routers' ticks use within a tick (TickScratch).
    TickScratch& scratch() { return scratch_; }
    const TickScratch& scratch() const { return scratch_; }
    std::uint32_t first_router_unit() const { return first_router_; }
    // The time of the cycle being ticked (ps), for the ticks' wake-up delays.
    std::int64_t tick_ps() const { return tick_ps_; }

private:
    // Units are bits in a cycle's mask, ticked in ascending order: [0, first_router_) terminals, then the routers
    // by vertex, then the other terminals.
    // Inline, with the rare paths out of line: a router's or terminal's wake-up costs a few instructions
    // instead of a call that saves and restores six registers (about 16 of its 41 instructions before).
    [[gnu::always_inline]] void schedule_unit(std::uint32_t unit, std::int64_t cycle) {
        if (cycle - last_ < kRing) [[likely]] {
            mark(cycle, unit);
        } else {
            schedule_far(unit, cycle);
        }
        if (cycle < armed_ && !ticking_) [[unlikely]] arm(cycle);
    }
    // A schedule beyond the ring (into far_), and arming the kernel timer for `cycle`.
    [[gnu::noinline, gnu::cold]] void schedule_far(std::uint32_t unit, std::int64_t cycle);
    [[gnu::noinline]] void arm(std::int64_t cycle);
    void tick_unit(std::uint32_t unit, std::int64_t cycle);
    std::int64_t tick_ps_ = 0;  // now, while on_tick runs
    void on_tick();
    // The first cycle in [from, from + kRing) with an entry in the ring, or kNever.
    std::int64_t next_in_ring(std::int64_t from) const;

    static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
    // Cycles ahead kept in the ring (a power of two): a router's next tick is almost always within a few cycles
    // (its pipeline stages, a channel's latency); later ones wait in far_.
    static constexpr std::int64_t kRing = 256;

    void mark(std::int64_t cycle, std::uint32_t unit) {
        const auto b = static_cast<std::size_t>(cycle & (kRing - 1));
        ring_[b * words_ + (unit >> 6)] |= std::uint64_t{1} << (unit & 63);
        busy_[b >> 6] |= std::uint64_t{1} << (b & 63);
    }

    const FabricSetup& net_;
    sim::Timer tick_;
    std::vector<Router*> routers_;            // by vertex
    std::vector<Terminal*> terminals_;        // by unit, without the routers' (see Units above), from init on
    std::uint32_t first_router_ = 0;          // the first router's unit
    std::size_t words_ = 0;                   // 64-bit words of a cycle's mask
    // The units due in cycle c: a bit per unit in ring_[c % kRing], for cycles in [last_, last_ + kRing);
    // busy_ marks the cycles with some bit set.
    std::vector<std::uint64_t> ring_;
    std::array<std::uint64_t, kRing / 64> busy_{};
    std::vector<std::pair<std::int64_t, std::uint32_t>> far_;  // (cycle, unit) of later cycles, unordered
    std::int64_t far_min_ = kNever;                       // their earliest cycle
    std::int64_t last_ = 0;                               // the cycle ticked last
    std::int64_t armed_ = kNever;                         // the cycle tick_ is armed for (kNever: none)
    bool ticking_ = false;                                // in on_tick (it arms tick_ once, at its end)
    std::int64_t fired_ = 0;
    TickScratch scratch_;  // lent to the router being ticked
};

}  // namespace loom::fabric
