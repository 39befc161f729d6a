#include "loom/ananta/endpoint_node.hpp"

#include <algorithm>
#include <cmath>

namespace loom::ananta {

EndpointNode::EndpointNode(sim::Context& ctx, const DcShared& shared, std::uint32_t index)
    : DcNode(ctx, shared, index),
      openers_(shared.config.params.tcp),
      servers_(shared.config.params.tcp),
      arrivals_(ctx, this, sim::handler<&EndpointNode::on_arrival>),
      conn_timers_(ctx, this, sim::handler<&EndpointNode::on_conn_timer>) {}

void EndpointNode::add_source(std::uint32_t traffic, IpAddr from, double rate) {
    Source s;
    s.traffic = traffic;
    s.from = from;
    s.gap_ps = std::max<std::int64_t>(1, std::llround(1e12 / rate));
    s.enabled = shared_.config.traffic[traffic].enabled;
    sources_.push_back(s);
}

void EndpointNode::init() {
    for (std::uint32_t s = 0; s < sources_.size(); ++s)
        if (sources_[s].enabled) arm_arrival(s, true);
}

void EndpointNode::arm_arrival(std::uint32_t s, bool first) {
    const TrafficConfig& t = shared_.config.traffic[sources_[s].traffic];
    std::int64_t gap = sources_[s].gap_ps;
    if (t.arrivals == Arrivals::Poisson) {
        gap = std::max<std::int64_t>(1, std::llround(ctx().rng().exponential(static_cast<double>(gap))));
    } else if (first) {
        // Fixed spacing: the sources of one traffic start at different phases of the gap (their order in
        // this component), so that many nodes do not open connections in lockstep.
        gap = static_cast<std::int64_t>(ctx().rng().uniform(static_cast<std::uint64_t>(gap)));
    }
    const Time base = first ? std::max(now(), t.start) : now();
    const Time at = base + Time::ps(gap);
    if (at >= t.stop) return;
    arrivals_.arm_at(s, at);
}

void EndpointNode::set_traffic(std::uint32_t traffic, bool on) {
    for (std::uint32_t s = 0; s < sources_.size(); ++s) {
        if (sources_[s].traffic != traffic || sources_[s].enabled == on) continue;
        sources_[s].enabled = on;
        if (on) {
            arm_arrival(s, true);
        } else {
            arrivals_.cancel(s);
        }
    }
}

void EndpointNode::on_arrival(std::uint32_t s) {
    Source& src = sources_[s];
    if (!src.enabled) return;
    const TrafficConfig& t = shared_.config.traffic[src.traffic];
    if (now() >= t.stop) return;
    const FiveTuple tuple = next_tuple(s);
    tcp_out_.clear();
    const std::uint32_t slot = openers_.open(opened_, tuple, src.traffic, t, now(), tcp_out_);
    ++opened_;
    ++src.opened;
    flush(slot);
    rearm_opener(slot);
    arm_arrival(s, false);
}

void EndpointNode::flush(std::uint32_t opener) {
    for (const IpPacket& p : tcp_out_.send) {
        ++tally_.created;
        emit(p, opener);
    }
    tcp_out_.clear();
}

void EndpointNode::rearm_opener(std::uint32_t slot) {
    if (openers_.retire_if_done(slot)) {
        conn_timers_.cancel(2 * slot);
        return;
    }
    const Time t = openers_.next_timer(slot);
    if (t == kNever) {
        conn_timers_.cancel(2 * slot);
    } else {
        conn_timers_.arm_at(2 * slot, std::max(t, now()));
    }
}

void EndpointNode::rearm_server(std::uint32_t slot) {
    const Time t = servers_.next_timer(slot);
    if (t == kNever) {
        conn_timers_.cancel(2 * slot + 1);
    } else {
        conn_timers_.arm_at(2 * slot + 1, std::max(t, now()));
    }
}

void EndpointNode::on_conn_timer(std::uint32_t id) {
    const std::uint32_t slot = id / 2;
    tcp_out_.clear();
    if (id % 2 == 0) {
        openers_.on_timer(slot, now(), tcp_out_);
        flush(slot);
        rearm_opener(slot);
    } else {
        servers_.on_timer(slot, now(), tcp_out_);
        flush(kNoSlot);
        rearm_server(slot);
    }
}

std::uint32_t EndpointNode::deliver(const IpPacket& p, std::uint32_t server_hint) {
    consumed(p);
    tcp_out_.clear();
    std::uint32_t slot = 0;
    if (openers_.receive(p, now(), tcp_out_, slot)) {
        flush(slot);
        rearm_opener(slot);
        return kNoSlot;
    }
    if (auto s = servers_.receive(p, now(), tcp_out_, server_hint)) {
        flush(kNoSlot);
        rearm_server(*s);
        return *s;
    }
    return kNoSlot;
}

StateBytes EndpointNode::bytes_of_state() const {
    StateBytes b;
    b.openers = openers_.bytes_of_state();
    b.servers = servers_.bytes_of_state();
    // A TimerSet holds a heap entry per armed deadline and a 4-byte position per id up to the largest armed: ids
    // 2 slot and 2 slot + 1 (opener, server). The entry is counted at 24 bytes, its former size, so that the
    // figure stays comparable with earlier reports; it is 16 bytes now (spare capacity not visible from here).
    constexpr std::size_t kHeapEntry = 24, kPosition = 4;
    b.timers = (conn_timers_.size() + arrivals_.size()) * kHeapEntry +
               (2 * std::max(openers_.slots(), servers_.slots()) + sources_.size()) * kPosition;
    return b;
}

// ---- ClientNode ----

ClientNode::ClientNode(sim::Context& ctx, const DcShared& shared, std::uint32_t index, std::uint32_t number)
    : EndpointNode(ctx, shared, index), number_(number) {}

FiveTuple ClientNode::tuple_of(std::uint32_t node, std::uint64_t n, IpAddr vip, std::uint16_t port, IpProto proto) {
    return FiveTuple{addr::client(node, static_cast<std::uint32_t>(n / 60'000)), vip,
                     static_cast<std::uint16_t>(1024 + n % 60'000), port, proto};
}

FiveTuple ClientNode::next_tuple(std::uint32_t source) {
    const TrafficConfig& t = shared_.config.traffic[sources_[source].traffic];
    const auto v = static_cast<std::size_t>(t.to_vip);
    const VipSpec& vip = shared_.config.vips[v];
    return tuple_of(number_, opened(), vip_address(shared_.config.vips, v), static_cast<std::uint16_t>(vip.port),
                    vip.protocol);
}

void ClientNode::emit(const IpPacket& p, std::uint32_t) { send(0, p); }

void ClientNode::on_packet(const IpPacket& p) {
    if (addr::decode(p.inner.dst).kind != addr::Kind::Client) return drop(p, DropReason::NoRoute);
    deliver(p);
}

// ---- HostNode ----

HostNode::HostNode(sim::Context& ctx, const DcShared& shared, std::uint32_t index, IpAddr self)
    : EndpointNode(ctx, shared, index), agent_(shared.config.params.host_agent, self, shared.config.dynamics.fastpath) {
    const addr::Decoded d = addr::decode(self);
    for (std::int64_t k = 0; k < shared.config.network.vms_per_host; ++k)
        vms_.push_back(addr::vm(d.rack, d.slot, static_cast<std::uint32_t>(k)));
}

std::uint64_t HostNode::pending() const {
    std::uint64_t n = 0;
    for (IpAddr v : vms_) n += agent_.held(v);
    return n;
}

void HostNode::command(const HostCommand& c) {
    out_.clear();
    agent_.handle(c, now(), out_);
    take(kNoSlot);
}

FiveTuple HostNode::next_tuple(std::uint32_t source) {
    const TrafficConfig& t = shared_.config.traffic[sources_[source].traffic];
    const auto v = static_cast<std::size_t>(t.to_vip);
    const VipSpec& vip = shared_.config.vips[v];
    // Ephemeral ports of the VM, in turn (unique among a VM's open connections unless 28,000 are open).
    const auto port = static_cast<std::uint16_t>(32'768 + next_port_++ % 28'000);
    return FiveTuple{sources_[source].from, vip_address(shared_.config.vips, v), port,
                     static_cast<std::uint16_t>(vip.port), vip.protocol};
}

void HostNode::emit(const IpPacket& p, std::uint32_t opener) {
    if (!down_.empty() && down_.contains(p.inner.src)) return drop(p, shared_.vm_down);
    out_.clear();
    agent_.from_vm(p, now(), out_);
    // The first packet of a VM's connection shows the SNAT translation: the record's outside tuple.
    if (opener != kNoSlot && out_.to_router.size() == 1 && out_.to_router[0].inner.src_port != 0 &&
        openers_.tuple(opener) == p.inner)
        openers_.set_outside(opener, out_.to_router[0].inner);
    if (count_by_vip_) count_sent();
    take(opener);
}

void HostNode::take(std::uint32_t) {
    for (const HostDrop& d : out_.drops) drop(d.packet, d.reason);
    for (const IpPacket& q : out_.to_router) send(0, q);
    snat_requests_ += out_.snat_requests.size();
    if (control_ != nullptr)
        for (const SnatRequest& r : out_.snat_requests) control_->snat_request(position_, r);
    // Deliveries to local VMs (a grant releasing held packets never produces any). A delivery can make the VM
    // send, which comes back here: the list is swapped into a spare buffer (kept for reuse, no allocation).
    // A VM's own packet (emit) delivers nothing locally: no buffer changes hands then.
    if (out_.to_vm.empty()) return out_.clear();
    std::vector<HostDelivery> to_vm;
    if (!spare_.empty()) {
        to_vm = std::move(spare_.back());
        spare_.pop_back();
    }
    to_vm.swap(out_.to_vm);
    out_.clear();
    for (const HostDelivery& d : to_vm) {
        if (!down_.empty() && down_.contains(d.dip)) {
            drop(d.packet, shared_.vm_down);
        } else {
            const std::uint32_t hint = d.server_hint == HostDelivery::kNoServerHint ? kNoSlot : d.server_hint;
            const std::uint32_t s = deliver(d.packet, hint);
            if (s != hint && s != kNoSlot && d.binding != HostDelivery::kNoBinding)
                agent_.set_server_hint(d.binding, s);
        }
    }
    to_vm.clear();
    spare_.push_back(std::move(to_vm));
}

void HostNode::on_packet(const IpPacket& p) {
    if (p.message == kFastpathRedirect) return on_redirect(p);
    if (count_by_vip_) ++work_by_vip_[p.inner.dst].agent_packets;
    out_.clear();
    const std::size_t bindings = agent_.bindings();
    agent_.from_network(p, now(), out_);
    if (out_.to_vm.size() == 1 && p.encapsulated()) {
        // The packet as it was outside the IP-in-IP headers: its inner header and payload, which wrapping and
        // unwrapping leave as they are (no copy of the packet to unwrap).
        const FiveTuple& outside = p.inner;
        // A new NAT binding is a new inbound connection: what the record merge reads.
        if (agent_.bindings() > bindings) sightings_.add(outside, now(), out_.to_vm[0].dip);
        if (outside.proto == IpProto::Udp) udp_bytes_[outside] += p.payload_bytes;
    }
    take(kNoSlot);
}

StateBytes HostNode::bytes_of_state() const {
    StateBytes b = EndpointNode::bytes_of_state();
    b.nat = agent_.binding_bytes();  // the pool and its two indexes, as allocated
    b.sightings = sightings_.bytes();
    // An unordered_map node: the pair, the next pointer and the cached hash; plus the bucket array.
    b.udp = udp_bytes_.size() * (sizeof(FiveTuple) + 8 + 2 * sizeof(void*)) + udp_bytes_.bucket_count() * sizeof(void*);
    return b;
}

}  // namespace loom::ananta
