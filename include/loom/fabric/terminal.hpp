// A network endpoint: generates packets (Bernoulli arrivals or a trace), queues them in its injection (source)
// queue, sends their flits to its router under credit flow control, and ejects the flits addressed to it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "loom/fabric/flit_link.hpp"
#include "loom/fabric/fabric_setup.hpp"
#include "loom/fabric/fabric_stats.hpp"
#include "loom/sim/channel.hpp"
#include "loom/sim/component.hpp"
#include "loom/sim/timer.hpp"
#include "loom/workload/traffic_trace.hpp"

namespace loom::fabric {

class RouterClock;

// Injection: a packet generated at cycle t waits in the (unbounded) source queue; when it reaches the front it
// gets its destination (synthetic traffic draws it then, from the terminal's own stream) and the class-0 VC of
// the router's terminal port with the most credits, and its flits leave one per cycle from
// max(t, the cycle after the previous flit) while that VC has credits. The packet's total latency counts from t,
// its network latency from its head flit's departure.
// Ejection: the terminal absorbs every flit in the cycle it arrives (one per cycle at most, the channel's rate),
// so the ejection channel needs no credits; a tail flit completes its packet at its arrival cycle.
// Closed-loop transfers (FabricSetup::transfers set; TransferBook states the rules): a transfer that starts
// opens one stream per destination holding this terminal's share of its packets; the next packet is taken from
// the streams in InjectionOrder (round robin or at random), each leaving as above. A tail flit ejected here
// counts toward this terminal's share of its transfer; a share complete sends each source terminal of each
// dependent a notice over the "fabric.transfers" channel, timed at the start it allows; a transfer with
// dependencies starts here when the notices of all their shares have arrived.
// Bernoulli arrivals are drawn as geometric gaps (one timer event per packet, none per idle cycle): packet
// probability p = rate / packet_flits per cycle, gap = 1 + floor(ln U / ln(1 - p)) cycles, U uniform in (0, 1].
class Terminal : public sim::Component {
public:
    static constexpr std::string_view kSubsystem = "fabric";

    // `trace`: this terminal's messages (src == id), sorted by time; empty for synthetic traffic.
    Terminal(sim::Context& ctx, const FabricSetup& net, std::int32_t id, std::vector<workload::TraceMessage> trace);

    std::int32_t id() const { return id_; }
    // The terminal's endpoint on the wake channel: it sends the injection line's wake-ups and receives those of
    // the ejection line (kEjectionWake) and of the router's credit line (kCreditWake).
    sim::ChannelPort& wake_port() { return wake_; }
    static constexpr std::uint32_t kEjectionWake = 0, kCreditWake = 1;
    // The lines: flits to the router, credits back from it, flits ejected to this terminal (the builder binds
    // their wake-ups).
    // The injection and ejection lines also hold the records of the packets whose heads they carry, in chunks
    // of `pool` (the run's, which the lines' rings take theirs from).
    void attach(FlitLink& injection, FlitLink& credits, FlitLink& ejection, RingPool& pool);
    // The measurement channel ("fabric.measure", endpoint = terminal id) and the monitor's endpoint on it.
    void attach_measure(sim::Channel& channel, std::uint32_t monitor);
    sim::ChannelPort& measure_port() { return measure_; }
    // The clock that ticks the terminal (the run's routers' one), before the run.
    void use_clock(RouterClock& clock) { clock_ = &clock; }
    const FlitLink& injection_line() const { return *injection_; }
    // The terminal's ends of the lines it reads.
    const LineReader& credit_line() const { return credits_in_; }
    const LineReader& ejection_line() const { return ejection_; }

    // Closed-loop transfers: this terminal's endpoint on the notice channel (endpoint index = terminal id), and
    // its place on its vertex (local index and the vertex's terminal count).
    void attach_notices(sim::Channel& channel);
    // Credits for the router's input buffers; schedules the first arrival.
    void init() override;

    std::int32_t credits(std::int32_t vc) const { return credits_[static_cast<std::size_t>(vc)]; }
    // Packets generated and not yet started (the source queue and the transfer streams).
    std::int64_t queued_packets() const {
        return queued_ + stream_packets_;
    }
    // What this terminal counted (its own; the monitor sums them at sample boundaries, the model in finish).
    const FabricCounters& counters() const { return counters_; }
    const MarkedStats& marked() const { return marked_ ? *marked_ : kNoMarked; }
    // Closed-loop transfers: the shares completed here and the transfers started here after notices.
    const TransferBook::Log& transfer_log() const { return xf_ ? xf_->log : kNoLog; }

private:
    friend class RouterClock;
    // A message not yet wholly started: its packets (packet_flits each, the last one the rest) are cut one at a
    // time as they start, so a huge trace message costs one entry, not one per packet.
    struct Pending {
        std::int64_t created;  // cycle
        std::int64_t flits;    // still to start
        std::int32_t dst;      // -1: drawn when each packet starts
    };

    // One destination copy of a transfer, as far as this terminal sends it: packets next, next + step, ...
    struct Stream {
        std::int32_t transfer;
        std::int32_t dst_index;  // into the transfer's destinations
        std::int64_t next;       // next packet number
        std::int64_t start;      // the transfer's start cycle
    };

    void on_generate();
    void on_measure(std::uint32_t);
    bool marks(std::int64_t created) const { return created >= measure_start_ && created < measure_end_; }
    // The marked packets' statistics, made at the first marked packet (most of a terminal's state otherwise:
    // 304 bytes, 5 MB on 16,512 terminals before the measurement window opens).
    MarkedStats& mark() {
        if (!marked_) [[unlikely]] marked_ = std::make_unique<MarkedStats>();
        return *marked_;
    }
    void on_notice(std::uint32_t transfer);
    void begin_transfer(std::int32_t t, std::int64_t start);
    void start_stream_packet();
    void open_packet(std::int64_t created, std::int32_t dst, std::int32_t flits, std::int32_t transfer);
    void on_wake(std::uint32_t arg);
    void on_tick(std::int64_t c);  // by the clock, at cycle c
    void eject(std::uint32_t arg, std::int64_t arrived);
    std::int64_t next_ejection(std::int64_t cycle) const;
    void wake(std::int64_t cycle);
    void enqueue(std::int64_t cycle, std::int32_t dst, std::int64_t flits);
    void start_packet();
    void pump(std::int64_t cycle);
    std::int64_t next_gap();
    std::int64_t now_cycle() const { return net_.clock.edge_at_or_before(Time::ps(ctx().now_ps())); }
    Time delay_to(std::int64_t cycle) const { return Time::ps(net_.clock.edge(cycle).count() - ctx().now_ps()); }

    const FabricSetup& net_;
    std::int32_t id_;
    std::int64_t latency_;  // terminal channel, cycles
    std::int32_t inject_vcs_;  // class-0 VCs: 0 .. inject_vcs_-1

    sim::ChannelPort wake_;
    sim::Timer generate_;
    RouterClock* clock_ = nullptr;
    std::uint32_t clock_unit_ = 0;        // its bit in the clock's masks (RouterClock::set_units)
    std::int64_t next_tick_ = INT64_MAX;  // the cycle the clock ticks it at (INT64_MAX: none)
    FlitLink* injection_ = nullptr;
    LineReader credits_in_;  // its ends of the credit and ejection lines (a pop touches the ring chunk only)
    LineReader ejection_;
    RingPool* pool_ = nullptr;

    // What sending and ejecting touch comes first, together; the marked packets' statistics and the rest after.
    FabricCounters counters_;
    // The measurement window as the monitor announced it (trace traffic: every packet, from the start).
    std::int64_t measure_start_ = INT64_MAX, measure_end_ = INT64_MAX;
    // Per VC: the handle of the packet arriving on the ejection line (in the object, beside what ejecting touches,
    // not in an allocation of its own: a cache line more per ejected flit otherwise).
    std::array<std::uint32_t, Flit::kMaxVcs> arriving_{};
    std::array<std::int32_t, Flit::kMaxVcs> credits_{};  // per VC of the router's input (the same reason)

    // The source queue: queue_[queue_head_ ..] (a vector, not a deque: a deque's first block is 512 bytes per
    // terminal, most of the memory of 16,512 idle terminals).
    std::vector<Pending> queue_;
    std::size_t queue_head_ = 0;
    std::int64_t queued_ = 0;  // packets in the source queue
    bool sending_ = false;       // a packet is being sent: its record is current_
    std::uint32_t current_handle_ = 0;  // its record's handle on the injection line (from its head on)
    std::uint64_t packets_opened_ = 0;  // packets this terminal made (their ids: terminal id << 40 | this count)
    std::int32_t current_vc_ = 0;
    std::int32_t current_sent_ = 0;
    std::int32_t current_flits_ = 0;
    std::int64_t next_free_ = 0;  // first cycle the injection channel is free
    // The packet being sent, copied into the injection line's record at its head (kept unaligned here: a
    // FabricRecord member would align the whole terminal to a cache line).
    FabricPacket current_;
    std::uint64_t current_id_ = 0;
    std::uint32_t current_dst_ = 0;

    bool bernoulli_ = false;
    std::int64_t sample_cycles_ = 0;  // the monitor's sample length (Bernoulli traffic), else 0
    bool every_cycle_ = false;
    double log_q_ = 0;  // ln(1 - p)
    std::vector<workload::TraceMessage> trace_;
    std::size_t next_message_ = 0;

    std::unique_ptr<MarkedStats> marked_;  // see mark()
    sim::ChannelPort measure_;
    std::uint32_t monitor_ = 0;  // the monitor's endpoint on the measurement channel

    // Closed-loop transfers (made only when the run has transfers: 250 bytes a terminal otherwise unused).
    struct TransferState {
        std::int32_t local = 0, local_count = 1;  // this terminal's index on its vertex, and the vertex's terminals
        std::vector<std::pair<std::int64_t, std::int32_t>> starts;  // (cycle, transfer) without dependencies, sorted
        std::size_t next_start = 0;
        std::vector<Stream> streams;
        std::size_t rr = 0;  // round robin: the stream to send from next
        std::unordered_map<std::int32_t, std::int64_t> expect;   // flits still to arrive here, per transfer
        std::unordered_map<std::int32_t, std::int32_t> waiting;  // notices still awaited, per transfer sent from here
        TransferBook::Log log;
    };
    std::unique_ptr<sim::ChannelPort> notice_;
    std::unique_ptr<TransferState> xf_;
    std::int64_t stream_packets_ = 0;  // packets in the transfer streams not yet started
    static const MarkedStats kNoMarked;
    static const TransferBook::Log kNoLog;
};

}  // namespace loom::fabric
