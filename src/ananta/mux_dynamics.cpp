// MuxNode's Fastpath and health: redirects in and out, and health changes from the manager's relay.
#include "loom/ananta/fastpath_wire.hpp"
#include "loom/ananta/health_relay.hpp"
#include "loom/ananta/mux_node.hpp"

namespace loom::ananta {

void MuxNode::enable_fastpath(const std::vector<IpAddr>& ananta, const std::vector<IpAddr>& vips) {
    fastpath_ = std::make_unique<MuxFastpath>(shared_.config.dynamics.fastpath, life_.mux().address(), ananta);
    for (IpAddr v : vips) fastpath_->set_enabled(v, true);
}

void MuxNode::observe_fastpath(const IpPacket& p) {
    ++by_vip_[p.inner.dst];
    if (lout_.mux.forwards.size() != 1) return;
    redirects_.clear();
    fastpath_->observe(p, lout_.mux.forwards[0].target, now(), redirects_);
    for (const FastpathRedirect& r : redirects_) {
        ++tally_.created;
        send(0, redirect_packet(r));
    }
}

void MuxNode::on_redirect(const IpPacket& p) {
    if (!alive()) {  // a Mux down (with BGP sessions) forwards nothing, redirects included
        ++black_holed_;
        return drop(p, DropReason::MuxDown);
    }
    const std::optional<FastpathRedirect> r = read_redirect(p);
    if (!fastpath_ || !r) return drop(p, shared_.redirect_refused);
    if (!life_.has_mux()) return drop(p, DropReason::MuxDown);  // between incarnations (BGP sessions)
    const std::uint64_t refused = fastpath_->counters().refused;
    redirects_.clear();
    fastpath_->handle(*r, life_.mux(), now(), redirects_);
    if (fastpath_->counters().refused != refused) return drop(p, shared_.redirect_refused);
    consumed(p);
    for (const FastpathRedirect& h : redirects_) {
        ++tally_.created;
        send(0, redirect_packet(h));
    }
}

sim::ChannelPort& MuxNode::health_port() {
    if (!health_) health_ = std::make_unique<sim::ChannelPort>(ctx(), "health", this, sim::handler<&MuxNode::on_health>);
    return *health_;
}

void MuxNode::on_health(std::uint32_t arg) {
    const auto [dip, healthy] = health_of_arg(arg, shared_.config.network);
    if (!life_.has_mux()) return;  // a Mux between incarnations loses commands, as the lifecycle says
    apply_health(SetDipHealth{life_.mux().epoch(), dip, healthy});
}

void MuxNode::apply_health(const SetDipHealth& c) {
    const std::size_t before = rejections().size();
    command(c);
    if (rejections().size() == before && life_.has_mux()) health_applied_.push_back(HealthApplied{now(), c.dip, c.healthy});
}

}  // namespace loom::ananta
