#include "loom/ananta/dc_node.hpp"

#include <algorithm>
#include <new>

#include "loom/base/assert.hpp"

namespace loom::ananta {

namespace {

// A free slot of `slots` (a ChunkedVector) (one given back earlier, else a new one at the end): connection slots are reused.
template <class Slots>
std::uint32_t take_slot(Slots& slots, std::vector<std::uint32_t>& free) {
    if (free.empty()) {
        slots.emplace_back();
        return static_cast<std::uint32_t>(slots.size() - 1);
    }
    const std::uint32_t s = free.back();
    free.pop_back();
    return s;
}

LinkTiming timing_of(const LinkClassConfig& c, const char* part) {
    // Packets are counted in bytes: a unit is one byte, so a packet of b bytes (plus framing) is b units and
    // its serialization is exact from the train's start.
    LinkTiming t;
    t.rate = c.rate;
    t.unit_payload = Bytes(1);
    t.unit_wire = Bytes(1);
    t.latency_parts = {{part, c.latency}};
    return t;
}

}  // namespace


DcShared::DcShared(const DcConfig& c) : config(c) {
    for (std::size_t i = 0; i < kDropReasonCount; ++i) {
        const auto r = static_cast<DropReason>(i);
        reason_of[i] = r == DropReason::QueueFull ? net::DropReason::QueueFull : reasons.add(drop_reason_name(r));
    }
    frozen = reasons.add("frozen");
    redirect_refused = reasons.add("redirect_refused");
    vm_down = reasons.add("vm_down");
    port.queues = {net::QueueConfig{c.network.queue_packets, Bytes(0), 1}};
    port.packet_overhead = c.network.framing;
    // Not published: the control queue is as long as the data queue.
    control_port.emplace(port);
    control_port->queues.push_back(port.queues.front());

    host_link = timing_of(c.network.host_link, "host_link");
    fabric_link = timing_of(c.network.fabric_link, "fabric_link");
    internet_link = timing_of(c.network.internet_link, "internet_link");
}

DcNode::DcNode(sim::Context& ctx, const DcShared& shared, std::uint32_t index)
    : sim::Component(ctx),
      shared_(shared),
      mtu_(static_cast<std::uint32_t>(shared.config.network.mtu)),
      index_(index) {}

DcNode::~DcNode() {
    for (std::uint32_t i = block_used_; i > 0; --i) block_[i - 1].~IpOut();
    if (block_ != nullptr) ::operator delete(block_, std::align_val_t{alignof(IpOut)});
}

void DcNode::reserve_ports(std::uint32_t n) {
    LOOM_ASSERT(outs_.empty() && block_ == nullptr, "DcNode::reserve_ports after the first port");
    if (n == 0) return;
    block_ = static_cast<IpOut*>(::operator new(sizeof(IpOut) * n, std::align_val_t{alignof(IpOut)}));
    block_room_ = n;
}

std::uint32_t DcNode::add_port(const std::string& name, const LinkTiming& timing, const net::PortConfig* config,
                              std::uint32_t data_queue) {
    const net::PortConfig& c = config ? *config : shared_.port;
    IpOut* out = nullptr;
    if (outs_.size() == block_used_ && block_used_ < block_room_) {
        out = new (block_ + block_used_) IpOut(ctx(), name, timing, c, 0, &shared_.reasons);
        ++block_used_;
    } else {
        out = loose_.emplace_back(std::make_unique<IpOut>(ctx(), name, timing, c, 0, &shared_.reasons)).get();
    }
    out->engine().set_data_queue(data_queue);
    outs_.push_back(out);
    ins_.push_back(make_input(name + "_in"));
    if (prefetches()) ins_.back()->enable_prefetch<DcNode>();
    return static_cast<std::uint32_t>(outs_.size() - 1);
}

std::unique_ptr<IpIn> DcNode::make_input(const std::string& name) {
    return std::make_unique<IpIn>(ctx(), name, this, sim::handler<&DcNode::arrival>);
}

void DcNode::arrival(const IpIn::PacketType& p) {
    if (admit(p.payload)) on_packet(p.payload);
}

void DcNode::note_received(const IpPacket& p) {
    hops_.push_back(HopRecord{now(), p, HopEvent::Received, 0, index_, 0});
}

void DcNode::send_checked(std::uint32_t port, const IpPacket& p, bool control) {
    if (traced(p)) hops_.push_back(HopRecord{now(), p, HopEvent::Sent, 0, index_, port});
    IpOut& o = port_at(port);
    if (check_mtu(p, mtu_) != MtuVerdict::Fits) {
        o.refuse(shared_.net_reason(DropReason::Mtu));
        return;
    }
    o.send(p, p.size_bytes, control ? 0 : net::PortEngine::kDataQueue);
}

void DcNode::drop(const IpPacket& p, net::DropReason r) {
    if (traced(p)) hops_.push_back(HopRecord{now(), p, HopEvent::Dropped, r.id, index_, 0});
    tally_.drops.add(r);
    ++tally_.drops_total;
}

void DcNode::note_delivered(const IpPacket& p) {
    hops_.push_back(HopRecord{now(), p, HopEvent::Delivered, 0, index_, 0});
}

// ---- SightingLog ----

void SightingLog::add(const FiveTuple& outside, Time at, IpAddr who) {
    std::size_t w = 0;
    while (w < whos_.size() && whos_[w] != who) ++w;
    if (w == whos_.size()) {
        LOOM_ASSERT(whos_.size() < 255, "a sighting log reports at most 255 addresses");
        whos_.push_back(who);
    }
    Entry& e = log_.emplace_back();
    e = Entry{outside.src, outside.dst, outside.src_port, outside.dst_port, outside.proto,
              static_cast<std::uint8_t>(w), at};
}

std::vector<Sighting> SightingLog::all() const {
    std::vector<Sighting> out;
    out.reserve(log_.size());
    for (std::size_t i = 0; i < log_.size(); ++i) out.push_back((*this)[i]);
    return out;
}

// ---- Openers ----

std::uint32_t Openers::open(std::uint64_t id, const FiveTuple& tuple, std::uint32_t traffic, const TrafficConfig& t,
                            Time now, TcpOutput& out) {
    const std::uint32_t s = take_slot(slots_, free_);
    Slot& slot = slots_[s];
    slot.outside = tuple;
    slot.traffic = traffic;
    if (tuple.proto == IpProto::Tcp) {
        TcpConnection& c = slot.conn.emplace<TcpConnection>(
            TcpConnection::client(tcp_, id, tuple, static_cast<std::uint64_t>(t.bytes)));
        c.open(now, out);
    } else {
        UdpFlowSpec spec;
        spec.bytes = static_cast<std::uint32_t>(t.udp_datagram_bytes);
        spec.datagrams = std::max<std::uint64_t>(
            1, static_cast<std::uint64_t>((t.bytes + t.udp_datagram_bytes - 1) / t.udp_datagram_bytes));
        spec.interval = t.udp_interval;
        slot.conn.emplace<UdpFlow>(id, tuple, spec).start(now, out);
    }
    // A tuple still open in another slot is taken over by the new connection.
    by_tuple_.erase(tuple, key_of());
    by_tuple_.insert(tuple, s, key_of());
    return s;
}

bool Openers::receive(const IpPacket& p, Time now, TcpOutput& out, std::uint32_t& slot) {
    const std::uint32_t i = by_tuple_.find(p.inner.reversed(), key_of());
    if (i == TupleIndex::kNone) return false;
    slot = i;
    if (auto* c = std::get_if<TcpConnection>(&slots_[i].conn)) c->receive(p, now, out);
    return true;
}

void Openers::on_timer(std::uint32_t slot, Time now, TcpOutput& out) {
    Slot& s = slots_[slot];
    if (auto* c = std::get_if<TcpConnection>(&s.conn)) c->on_timer(now, out);
    if (auto* u = std::get_if<UdpFlow>(&s.conn)) u->on_timer(now, out);
}

Time Openers::next_timer(std::uint32_t slot) const {
    const Slot& s = slots_[slot];
    if (!s.live()) return kNever;
    if (const auto* c = std::get_if<TcpConnection>(&s.conn)) return c->next_timer();
    return std::get<UdpFlow>(s.conn).next_timer();
}

bool Openers::retire_if_done(std::uint32_t slot) {
    Slot& s = slots_[slot];
    if (!s.live()) return false;
    // A TCP connection's state says whether it is over without reading its record (a line a timer does not read).
    if (const auto* c = std::get_if<TcpConnection>(&s.conn)) {
        if (!c->over()) return false;
    } else if (std::get<UdpFlow>(s.conn).record().outcome == ConnectionOutcome::Open) {
        return false;
    }
    retired_.push_back(report_of(s));
    by_tuple_.erase(tuple_of(s), key_of());
    s.conn.emplace<std::monostate>();
    free_.push_back(slot);
    return true;
}

std::vector<ConnectionReport> Openers::reports() const {
    std::vector<ConnectionReport> out = retired_;
    for (std::size_t i = 0; i < slots_.size(); ++i)
        if (slots_[i].live()) out.push_back(report_of(slots_[i]));
    return out;
}

std::size_t Openers::bytes_of_state() const {
    std::size_t heap = 0;
    for (std::size_t i = 0; i < slots_.size(); ++i)
        if (const auto* c = std::get_if<TcpConnection>(&slots_[i].conn)) heap += c->heap_bytes();
    return heap + slots_.bytes() + free_.capacity() * sizeof(std::uint32_t) + by_tuple_.bytes() +
           retired_.capacity() * sizeof(ConnectionReport);
}

// ---- Servers ----

std::optional<std::uint32_t> Servers::receive(const IpPacket& p, Time now, TcpOutput& out, std::uint32_t hint) {
    if (p.inner.proto == IpProto::Udp) {
        ++udp_[p.inner];
        bytes_received_ += p.payload_bytes;
        return std::nullopt;
    }
    // A live server is in the index under its tuple and only there (taken and freed together with its cell), so
    // a live hinted slot with the packet's tuple is what the lookup would return.
    std::uint32_t s = hint < slots_.size() && slots_[hint].live() && slots_[hint].tuple() == p.inner
                          ? hint
                          : by_tuple_.find(p.inner, key_of());
    if (s == TupleIndex::kNone) {
        if (!p.is_syn() || p.has(tcp_flag::kAck)) return std::nullopt;  // a stray segment: nothing to answer
        s = take_slot(slots_, free_);
        slots_[s] = TcpServer(tcp_, p.inner);
        by_tuple_.insert(p.inner, s, key_of());
    }
    bytes_received_ += slots_[s].receive(tcp_, p, now, out, held_, s);
    return s;
}

void Servers::on_timer(std::uint32_t slot, Time now, TcpOutput& out) {
    TcpServer& s = slots_[slot];
    if (!s.live()) return;
    const Time done = s.done_at();
    if (done == kNever) s.on_timer(tcp_, now, out);
    if (s.state() == TcpState::Failed || (done != kNever && now >= done + linger())) {
        by_tuple_.erase(s.tuple(), key_of());
        if (s.holding()) held_.release(slot);
        s = TcpServer();
        free_.push_back(slot);
    }
}

Time Servers::next_timer(std::uint32_t slot) const {
    const TcpServer& s = slots_[slot];
    if (!s.live()) return kNever;
    if (s.done_at() != kNever) return s.done_at() + linger();
    return s.next_timer();
}

std::size_t Servers::bytes_of_state() const {
    return held_.bytes() + slots_.bytes() + free_.capacity() * sizeof(std::uint32_t) + by_tuple_.bytes() +
           udp_.size() * (sizeof(FiveTuple) + 8 + 2 * sizeof(void*)) + udp_.bucket_count() * sizeof(void*);
}

}  // namespace loom::ananta
