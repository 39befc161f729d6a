#include "loom/fabric/terminal.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "loom/base/error.hpp"
#include "loom/fabric/flit.hpp"
#include "loom/fabric/router.hpp"

namespace loom::fabric {

const MarkedStats Terminal::kNoMarked = MarkedStats();
const TransferBook::Log Terminal::kNoLog{};

Terminal::Terminal(sim::Context& ctx, const FabricSetup& net, std::int32_t id,
                   std::vector<workload::TraceMessage> trace)
    : sim::Component(ctx),
      net_(net),
      id_(id),
      latency_(net.config.terminal_latency_cycles),
      inject_vcs_(net.vc_first(1)),
      wake_(ctx, "wake", this, sim::handler<&Terminal::on_wake>),
      generate_(ctx, this, sim::handler<&Terminal::on_generate>, sim::Phase::Timer),
      trace_(std::move(trace)),
      measure_(ctx, "measure", this, sim::handler<&Terminal::on_measure>) {
    if (net.traffic.pattern == workload::TrafficPatternKind::Trace) measure_start_ = 0;  // every packet is marked
    if (net.traffic.pattern != workload::TrafficPatternKind::Trace && net.traffic.rate > 0) {
        bernoulli_ = true;
        sample_cycles_ = net.traffic.measurement.sample_cycles;
        const double p = net.traffic.rate / static_cast<double>(net.traffic.packet_flits);
        every_cycle_ = p >= 1.0;
        log_q_ = every_cycle_ ? 0.0 : std::log1p(-p);
    }
    if (net.transfers != nullptr) {
        bernoulli_ = false;
        notice_ = std::make_unique<sim::ChannelPort>(ctx, "notice", this, sim::handler<&Terminal::on_notice>);
        xf_ = std::make_unique<TransferState>();
        const topo::VertexId v = net.pattern.router_of(id);
        xf_->local = id - net.pattern.first_terminal(v);
        xf_->local_count = net.topology.vertex(v).terminals;
        for (std::int32_t t : net.transfers->to(v)) {
            const std::int64_t flits = net.transfers->share_flits(t, v, xf_->local, xf_->local_count);
            if (flits > 0) xf_->expect.emplace(t, flits);
        }
    }
}

void Terminal::attach_notices(sim::Channel& channel) { notice_->attach(channel, static_cast<std::uint32_t>(id_)); }

void Terminal::attach(FlitLink& injection, FlitLink& credits, FlitLink& ejection, RingPool& pool) {
    pool_ = &pool;
    injection_ = &injection;
    credits_in_.attach(credits, pool);
    ejection_.attach(ejection, pool);
}

void Terminal::attach_measure(sim::Channel& channel, std::uint32_t monitor) {
    measure_.attach(channel, static_cast<std::uint32_t>(id_));
    monitor_ = monitor;
}

// The monitor opened the measurement window at this cycle (Monitor).
void Terminal::on_measure(std::uint32_t) {
    measure_start_ = now_cycle();
    measure_end_ = measure_start_ + net_.traffic.measurement.measure_cycles;
}

void Terminal::wake(std::int64_t cycle) {
    if (cycle >= next_tick_) return;
    next_tick_ = cycle;
    clock_->schedule(this, cycle);
}

void Terminal::on_wake(std::uint32_t arg) {
    if (arg == kEjectionWake) {
        wake(now_cycle());
        return;
    }
    // Credits matter only to a packet waiting for them; otherwise they are read when the next flit leaves.
    if (sending_ && credits_[static_cast<std::size_t>(current_vc_)] == 0)
        wake(now_cycle());
}

void Terminal::on_tick(std::int64_t c) {
    next_tick_ = INT64_MAX;
    // The front entry's word is read once per flit (pop passes on the next one).
    std::uint64_t e = ejection_.front();
    while (LineReader::is_entry(e) && LineReader::arrived(e, c)) {
        const std::int64_t arrived = FlitLink::arrival_of(e, c);
        eject(ejection_.pop(*pool_, e), arrived);
    }
    if (LineReader::is_entry(e)) wake(next_ejection(c));
    pump(c);
}

// Flits are taken off the ejection line with their own arrival cycles, so the terminal need not wake for each:
// it wakes for the next tail (a packet completes), at the end of the monitor's sample when flits arrive before
// it (so every sample counts exactly the flits that arrived in it), and, with no tail in the line, at its last
// entry (later pushes onto a non-empty line send no wake-up).
std::int64_t Terminal::next_ejection(std::int64_t c) const {
    const LineReader& line = ejection_;
    // The first tail's arrival, else the last entry's (found by the reader's walk: the sender's end is not read).
    std::int64_t next = 0;
    line.scan(c, [&](std::uint32_t payload, std::int64_t arrival) {
        next = arrival;
        return Flit::is_tail(payload);
    });
    if (sample_cycles_ > 0) {
        const std::int64_t first = line.front_arrival(c);
        next = std::min(next, (first + sample_cycles_) / sample_cycles_ * sample_cycles_ - 1);
    }
    return next;
}

void Terminal::init() {
    std::fill_n(credits_.begin(), net_.config.vcs, net_.config.vc_buffer_flits);
    if (net_.transfers != nullptr) {
        const TransferBook& book = *net_.transfers;
        for (std::int32_t t : book.from(net_.pattern.router_of(id_)))
            if (book.item(t).deps == 0) xf_->starts.emplace_back(book.item(t).start_cycle, t);
        std::sort(xf_->starts.begin(), xf_->starts.end());
        if (!xf_->starts.empty()) generate_.arm_at(Time::ps(net_.clock.edge(xf_->starts.front().first).count()));
    } else if (bernoulli_) {
        // The first Bernoulli trial is cycle 0.
        generate_.arm_at(Time::ps(net_.clock.edge(next_gap() - 1).count()));
    } else if (!trace_.empty()) {
        generate_.arm_at(Time::ps(net_.clock.edge(net_.clock.edge_at_or_after(Time::ps(trace_.front().time.count()))).count()));
    }
}

std::int64_t Terminal::next_gap() {
    if (every_cycle_) return 1;
    // U in (0, 1], so ln U is finite; gaps beyond 2^50 cycles are clamped (they never fire in a run).
    const double u = 1.0 - ctx().rng().uniform01();
    const double k = std::floor(std::log(u) / log_q_);
    return 1 + (k < 0x1p50 ? static_cast<std::int64_t>(k) : std::int64_t{1} << 50);
}

void Terminal::enqueue(std::int64_t cycle, std::int32_t dst, std::int64_t flits) {
    queue_.push_back(Pending{cycle, flits, dst});
    const std::int64_t max_flits = net_.traffic.packet_flits;
    const std::int64_t packets = (flits + max_flits - 1) / max_flits;
    queued_ += packets;
    counters_.flits_generated += flits;
    counters_.packets_generated += packets;
    if (marks(cycle)) mark().generated += packets;
}

// One share of one dependency of `transfer` is complete; the last notice starts it (TransferBook).
void Terminal::on_notice(std::uint32_t transfer) {
    const auto t = static_cast<std::int32_t>(transfer);
    auto [w, fresh] = xf_->waiting.try_emplace(t, net_.transfers->item(t).dep_shares);
    if (--w->second > 0) return;
    xf_->waiting.erase(w);
    const std::int64_t c = now_cycle();
    xf_->log.started.emplace_back(t, c);
    begin_transfer(t, c);
    pump(c);
}

void Terminal::begin_transfer(std::int32_t t, std::int64_t start) {
    const TransferBook& book = *net_.transfers;
    const TransferBook::Item& it = book.item(t);
    std::int64_t packets = 0, flits = 0;
    // This terminal sends packets k with (k + t) mod P == its local index (TransferBook).
    const std::int64_t first = ((xf_->local - t) % xf_->local_count + xf_->local_count) % xf_->local_count;
    for (std::size_t j = 0; j < it.dsts.size(); ++j) {
        if (first >= it.packets) break;
        xf_->streams.push_back(Stream{t, static_cast<std::int32_t>(j), first, start});
        for (std::int64_t k = first; k < it.packets; k += xf_->local_count) {
            ++packets;
            flits += book.packet_flits(t, k);
        }
    }
    stream_packets_ += packets;
    counters_.flits_generated += flits;
    counters_.packets_generated += packets;
    if (marks(start)) mark().generated += packets;
}

void Terminal::on_generate() {
    const std::int64_t c = now_cycle();
    if (net_.transfers != nullptr) {
        while (xf_->next_start < xf_->starts.size() && xf_->starts[xf_->next_start].first <= c) {
            const auto [start, t] = xf_->starts[xf_->next_start++];
            begin_transfer(t, start);
        }
        if (xf_->next_start < xf_->starts.size())
            generate_.arm_at(Time::ps(net_.clock.edge(xf_->starts[xf_->next_start].first).count()));
    } else if (bernoulli_) {
        enqueue(c, -1, net_.traffic.packet_flits);
        generate_.arm_at(Time::ps(net_.clock.edge(c + next_gap()).count()));
    } else {
        const std::int64_t flit_bytes = net_.config.flit_bytes.count();
        while (next_message_ < trace_.size() &&
               net_.clock.edge_at_or_after(Time::ps(trace_[next_message_].time.count())) <= c) {
            const workload::TraceMessage& m = trace_[next_message_++];
            enqueue(c, m.dst, (m.bytes.count() + flit_bytes - 1) / flit_bytes);
        }
        if (next_message_ < trace_.size())
            generate_.arm_at(
                Time::ps(net_.clock.edge(net_.clock.edge_at_or_after(Time::ps(trace_[next_message_].time.count()))).count()));
    }
    pump(c);
}

void Terminal::start_packet() {
    Pending& head = queue_[queue_head_];
    const auto flits = static_cast<std::int32_t>(std::min<std::int64_t>(head.flits, net_.traffic.packet_flits));
    head.flits -= flits;
    const Pending pending{head.created, flits, head.dst};
    --queued_;
    if (head.flits > 0) {
        // The message's next packet starts next.
    } else if (++queue_head_ == queue_.size()) {
        queue_.clear();
        queue_head_ = 0;
    } else if (queue_head_ >= 64 && 2 * queue_head_ >= queue_.size()) {
        queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(queue_head_));
        queue_head_ = 0;
    }
    const std::int32_t dst = pending.dst >= 0 ? pending.dst : net_.pattern.destination(id_, ctx().rng());
    open_packet(pending.created, dst, flits, -1);
}

void Terminal::start_stream_packet() {
    const TransferBook& book = *net_.transfers;
    std::size_t i = 0;
    if (xf_->streams.size() > 1)
        i = net_.transfers->options().order == InjectionOrder::Random ? ctx().rng().uniform(xf_->streams.size())
                                                                      : (xf_->rr < xf_->streams.size() ? xf_->rr : 0);
    Stream& st = xf_->streams[i];
    const TransferBook::Item& it = book.item(st.transfer);
    const std::int64_t k = st.next;
    const topo::VertexId dv = it.dsts[static_cast<std::size_t>(st.dst_index)];
    const std::int32_t dst = net_.pattern.first_terminal(dv) +
                             static_cast<std::int32_t>((k + st.transfer) % net_.topology.vertex(dv).terminals);
    const std::int32_t t = st.transfer;
    st.next += xf_->local_count;
    if (st.next >= it.packets) {
        xf_->streams.erase(xf_->streams.begin() + static_cast<std::ptrdiff_t>(i));
        xf_->rr = i;
    } else {
        xf_->rr = i + 1;
    }
    --stream_packets_;
    open_packet(st.start, dst, book.packet_flits(t, k), t);
}

void Terminal::open_packet(std::int64_t created, std::int32_t dst, std::int32_t flits, std::int32_t transfer) {
    current_id_ = (static_cast<std::uint64_t>(id_) << 40) | packets_opened_++;
    current_dst_ = static_cast<std::uint32_t>(dst);
    FabricPacket& p = current_;
    p = FabricPacket{};
    p.dest_router = net_.pattern.router_of(dst);
    p.flits = flits;
    p.created_cycle = created;
    p.marked = marks(created);
    p.transfer = transfer;
    sending_ = true;
    current_sent_ = 0;
    current_flits_ = flits;
    // The class-0 VC with the most credits (lowest on ties).
    current_vc_ = 0;
    for (std::int32_t vc = 1; vc < inject_vcs_; ++vc)
        if (credits_[static_cast<std::size_t>(vc)] > credits_[static_cast<std::size_t>(current_vc_)]) current_vc_ = vc;
    ++counters_.packets_injected;
}

void Terminal::pump(std::int64_t cycle) {
    FabricCounters& t = counters_;
    for (std::uint64_t e = credits_in_.front(); LineReader::is_entry(e) && LineReader::arrived(e, cycle);)
        ++credits_[credits_in_.pop(*pool_, e)];
    for (;;) {
        if (!sending_) {
            if (queue_head_ < queue_.size())
                start_packet();
            else if (xf_ && !xf_->streams.empty())
                start_stream_packet();
            else
                return;
        }
        auto& credits = credits_[static_cast<std::size_t>(current_vc_)];
        if (credits == 0) {
            // Blocked: wake for the next credit on its way, if any (else its push sends a wake-up).
            if (!credits_in_.empty()) wake(credits_in_.front_arrival(cycle));
            return;
        }
        --credits;
        const std::int64_t depart = std::max(cycle, next_free_);
        next_free_ = depart + 1;
        const bool head = current_sent_ == 0;
        const bool tail = ++current_sent_ == current_flits_;
        if (head) {
            current_.injected_cycle = depart;
            current_handle_ =
                FlitLink::push_record(*pool_, FabricRecord{current_id_, static_cast<std::uint32_t>(id_), current_dst_, current_});
        }
        injection_->push_lazy(*pool_, wake_, depart + latency_,
                              Flit::encode(current_handle_, static_cast<std::uint32_t>(current_vc_), head, tail),
                              [&] { return delay_to(depart + latency_); });
        ++t.flits_injected;
        ++t.channel_flits[kInjectionChannel];
        if (tail) sending_ = false;
    }
}

void Terminal::eject(std::uint32_t arg, std::int64_t c) {  // c: the flit's arrival cycle
    ++counters_.flits_ejected;
    // The packet's record stays in the ejection line's storage (ours to read from the head's arrival on) until
    // its tail is in.
    std::uint32_t& handle = arriving_[Flit::vc_of(arg)];
    if (Flit::is_head(arg)) {
        handle = Flit::packet_of(arg);
        FlitLink::prefetch_record(*pool_, handle);  // read at the tail
    }
    if (!Flit::is_tail(arg)) return;
    const FabricRecord& packet = FlitLink::record(*pool_, handle);

    const FabricPacket& p = packet.payload;
    const std::int64_t total = c - p.created_cycle;
    const std::int64_t network = c - p.injected_cycle;
    ++counters_.packets_ejected;
    counters_.latency_cycles += total;
    counters_.network_latency_cycles += network;
    if (p.marked) {
        MarkedStats& s = mark();
        s.packet_latency.record(total);
        s.network_latency.record(network);
        s.hops.record(p.route.hops);
        ++s.marked_packets;
        s.marked_flits += p.flits;
        ++(p.route.nonminimal ? s.nonminimal_packets : s.minimal_packets);
        s.global_hops += p.route.crossings;
        s.local_hops += p.route.hops - p.route.crossings;
        ++s.ejected;
        // Once the window has closed, the monitor counts the marked packets still out (Monitor).
        if (c >= measure_end_)
            measure_.send(monitor_, static_cast<std::uint32_t>(c), delay_to(std::max(c, now_cycle()) + 1));
    }
    if (net_.observer) {
        PacketSummary summary;
        summary.id = packet.id;
        summary.src = static_cast<std::int32_t>(packet.src);
        summary.dst = static_cast<std::int32_t>(packet.dst);
        summary.flits = p.flits;
        summary.created_cycle = p.created_cycle;
        summary.injected_cycle = p.injected_cycle;
        summary.ejected_cycle = c;
        summary.hops = p.route.hops;
        summary.crossings = p.route.crossings;
        summary.channel_cycles = p.channel_cycles;
        summary.nonminimal = p.route.nonminimal;
        summary.marked = p.marked;
        net_.observer(summary);
    }
    LOOM_DEBUG_ASSERT(packet.dst == static_cast<std::uint32_t>(id_), "packet ejected at the wrong terminal");
    if (p.transfer >= 0) {
        const TransferBook& book = *net_.transfers;
        const auto e = xf_->expect.find(p.transfer);
        if (e == xf_->expect.end() || (e->second -= p.flits) < 0)
            throw ModelError(fmt::format("fabric: {} received more flits of transfer {} than were sent to it", path(),
                                         book.item(p.transfer).id));
        if (e->second == 0) {
            // This terminal's share is complete: tell the source terminals of every dependent.
            xf_->expect.erase(e);
            xf_->log.shares_done.emplace_back(p.transfer, c);
            const std::int64_t now = now_cycle();
            for (std::int32_t d : book.item(p.transfer).dependents) {
                const TransferBook::Item& dep = book.item(d);
                const std::int32_t first = net_.pattern.first_terminal(dep.src);
                const Time delay = delay_to(book.start_after(d, c, now));
                for (std::int32_t k = 0; k < net_.topology.vertex(dep.src).terminals; ++k)
                    notice_->send(static_cast<std::uint32_t>(first + k), static_cast<std::uint32_t>(d), delay);
            }
        }
    }
    FlitLink::release_record(*pool_, handle);
}

}  // namespace loom::fabric
