#include "loom/ananta/router_node.hpp"

#include <algorithm>

namespace loom::ananta {

namespace {
// Hashes sampled to report the share of flows an ECMP change moved.
constexpr std::uint64_t kMoveSamples = 65'536;
}  // namespace

RouterNode::RouterNode(sim::Context& ctx, const DcShared& shared, std::uint32_t index, Tier tier, std::uint32_t number)
    : DcNode(ctx, shared, index),
      hash_base_(tuple_hash_base(static_cast<std::uint64_t>(shared.config.params.ecmp.hash_seed) +
                                 static_cast<std::uint64_t>(tier))),
      number_(number),
      tier_(tier),
      up_(make_ecmp(shared.config.params.ecmp)),
      vip_(make_ecmp(shared.config.params.ecmp)),
      seed_(static_cast<std::uint64_t>(shared.config.params.ecmp.hash_seed) + static_cast<std::uint64_t>(tier)) {}

void RouterNode::set(std::vector<std::int64_t>& v, std::uint32_t key, std::uint32_t port, const std::int64_t*& data,
                     std::uint32_t& count) {
    if (key >= v.size()) v.resize(key + std::size_t{1}, -1);
    v[key] = port;
    data = v.data();
    count = static_cast<std::uint32_t>(v.size());  // key + 1 at most: fits
}

void RouterNode::set_up_ports(std::vector<NextHop> ports) {
    up_->set_next_hops(ports);
    up_view_ = up_->view();
}

double RouterNode::set_vip_ports(std::vector<NextHop> ports) {
    if (vip_->size() == 0) {
        vip_->set_next_hops(ports);
        vip_view_ = vip_->view();
        return 0.0;
    }
    if (ports.empty()) {
        vip_->set_next_hops(ports);
        vip_view_ = vip_->view();
        moved_.push_back(1.0);
        return 1.0;
    }
    const double m = change_next_hops(*vip_, ports, kMoveSamples, seed_);
    vip_view_ = vip_->view();
    moved_.push_back(m);
    return m;
}

// Inlined into on_packet (its only caller: every router hop), with the flow hash: out of line, the call and the
// hash's own call cost about 14 instructions a hop.
[[gnu::always_inline]] inline std::int64_t RouterNode::route(const IpPacket& p) const {
    const addr::Decoded d = addr::decode(p.wire_dst());
    // The flow hash only where a choice among next hops is made (the hops down to a known port need none).
    const auto h = [&]() __attribute__((always_inline)) { return wire_hash_from(p, hash_base_); };
    switch (tier_) {
        case Tier::Tor:
            switch (d.kind) {
                case addr::Kind::Host:
                case addr::Kind::Vm:
                    if (d.rack == number_) return at(down_, down_count_, d.slot);
                    break;
                case addr::Kind::Mux:
                    if (auto port = at(mux_port_, mux_count_, d.index); port >= 0) return port;
                    break;
                case addr::Kind::Vip:
                    if (has_bgp_) {
                        if (const std::int64_t port = bgp_->route(p.wire_dst(), h()); port >= 0) return port;
                        break;
                    }
                    if (vip_view_.size() > 0) return vip_view_.select(h());
                    break;
                case addr::Kind::Client: break;
                case addr::Kind::Unknown: return -1;
            }
            return up_view_.size() > 0 ? static_cast<std::int64_t>(up_view_.select(h())) : -1;
        case Tier::Spine:
            switch (d.kind) {
                case addr::Kind::Host:
                case addr::Kind::Vm: return at(down_, down_count_, d.rack);
                case addr::Kind::Mux: return at(mux_port_, mux_count_, d.index);  // the builder's Mux -> rack map
                case addr::Kind::Vip: return vip_view_.size() > 0 ? static_cast<std::int64_t>(vip_view_.select(h())) : -1;
                case addr::Kind::Client: return up_view_.size() > 0 ? static_cast<std::int64_t>(up_view_.select(h())) : -1;
                case addr::Kind::Unknown: return -1;
            }
            return -1;
        case Tier::Border:
            switch (d.kind) {
                case addr::Kind::Client: return at(down_, down_count_, d.index);
                case addr::Kind::Unknown: return -1;
                default: return up_view_.size() > 0 ? static_cast<std::int64_t>(up_view_.select(h())) : -1;
            }
    }
    return -1;
}

void RouterNode::on_packet(const IpPacket& in) {
    if (has_bgp_)
        if (const auto m = bgp_->accepts(in)) {
            consumed(in);
            bgp_out_.clear();
            bgp_->receive(*m, now(), bgp_out_);
            return bgp_done();
        }
    // The TTL is decremented in the copy that leaves (forward); the route reads only the addresses.
    if (in.wire_ttl() <= 1) [[unlikely]] {
        IpPacket p = in;
        p.decrement_ttl();
        return drop(p, DropReason::TtlExpired);
    }
    const std::int64_t port = route(in);
    if (port < 0) [[unlikely]] {
        IpPacket p = in;
        p.decrement_ttl();
        return drop(p, DropReason::NoRoute);
    }
    forward(static_cast<std::uint32_t>(port), in);
}

std::unique_ptr<IpIn> RouterNode::make_input(const std::string& name) {
    return std::make_unique<IpIn>(ctx(), name, this, sim::handler<&RouterNode::arrival>);
}

void RouterNode::enable_bgp(std::unique_ptr<BgpPeer> peer, BgpRouteListener* listener) {
    bgp_ = std::move(peer);
    has_bgp_ = bgp_ != nullptr;
    listener_ = listener;
    bgp_timer_ = std::make_unique<sim::Timer>(ctx(), this, sim::handler<&RouterNode::on_bgp_timer>);
}

void RouterNode::on_bgp_timer() {
    bgp_out_.clear();
    bgp_->tick(now(), bgp_out_);
    bgp_done();
}

void RouterNode::bgp_done() {
    if (listener_ != nullptr)
        for (const RouteChange& c : bgp_out_.changes) listener_->bgp_route_changed(number_, c, now());
    for (const BgpMessage& m : bgp_out_.replies) {
        ++tally_.created;
        send(bgp_->port_of(m.to), bgp_packet(m), m.control);
    }
    const Time next = bgp_->next_deadline();
    if (next == Time::max()) {
        bgp_timer_->cancel();
    } else if (!bgp_timer_->armed() || bgp_timer_->expiry() != next) {
        bgp_timer_->arm_at(std::max(next, now()));
    }
}

}  // namespace loom::ananta
