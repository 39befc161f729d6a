#include "loom/ananta/mux_node.hpp"

#include <algorithm>

#include "loom/ananta/bgp_wire.hpp"

namespace loom::ananta {

namespace {

std::vector<IpAddr> mux_routers(const DcShared& shared, std::uint32_t number) {
    const auto racks = static_cast<std::uint32_t>(shared.config.network.mux_racks);
    return {tor_bgp_address(number % racks)};
}

void add_counters(MuxCounters& to, const MuxCounters& c) {
    to.received += c.received;
    to.forwarded += c.forwarded;
    to.new_connections += c.new_connections;
    to.flow_hits += c.flow_hits;
    to.stateless_fallbacks += c.stateless_fallbacks;
    to.snat_returns += c.snat_returns;
    to.commands_accepted += c.commands_accepted;
    to.commands_rejected += c.commands_rejected;
    for (std::size_t i = 0; i < to.drops.size(); ++i) to.drops[i] += c.drops[i];
}

}  // namespace

MuxNode::MuxNode(sim::Context& ctx, const DcShared& shared, std::uint32_t index, std::uint32_t number)
    : DcNode(ctx, shared, index),
      number_(number),
      depart_timer_(ctx, this, sim::handler<&MuxNode::on_depart>, sim::Phase::Delivery),
      life_(shared.config.params.mux, shared.config.dynamics.bgp, addr::mux(number), mux_routers(shared, number)),
      tick_timer_(ctx, this, sim::handler<&MuxNode::on_tick>) {
    // Every VIP is announced (as a /32) once the Mux serves; it serves from the start with the builder's state.
    for (std::size_t v = 0; v < shared.config.vips.size(); ++v)
        life_.add_prefix(Prefix{vip_address(shared.config.vips, v), 32}, Time::zero(), lout_);
    life_.boot(Time::zero(), lout_);
    life_.state_installed(Time::zero(), lout_);
    boot_messages_ = lout_.bgp;
    lout_.clear();
}

void MuxNode::enable_bgp() {
    bgp_ = true;
    bgp_timer_ = std::make_unique<sim::Timer>(ctx(), this, sim::handler<&MuxNode::on_bgp_timer>);
    stop_timer_ = std::make_unique<sim::Timer>(ctx(), this, sim::handler<&MuxNode::on_stop>);
    state_timer_ = std::make_unique<sim::Timer>(ctx(), this, sim::handler<&MuxNode::on_state>);
}

void MuxNode::init() {
    tick_timer_.arm_at(shared_.config.params.mux.overload_window);
    if (!bgp_) return;
    lout_.clear();
    lout_.bgp = boot_messages_;
    send_bgp();
    arm_bgp();
}

MuxCounters MuxNode::counters() const {
    MuxCounters c = past_;
    add_counters(c, life_.mux().counters());
    return c;
}

void MuxNode::command(const MuxCommand& c) {
    state_.push_back(c);
    lout_.clear();
    life_.handle(c, now(), lout_);
    for (const CommandRejected& r : lout_.mux.rejected) rejections_.push_back(Rejection{now(), r});
}

void MuxNode::on_tick() {
    lout_.clear();
    if (alive()) life_.mux().tick(now(), lout_.mux);
    overload_reports_ += lout_.mux.reports.size();
    report_overload();
    tick_timer_.arm_in(shared_.config.params.mux.overload_window);
}

void MuxNode::queue_departure(const IpPacket& p, Time at) {
    departures_.push(at.count(), p);
    if (!depart_timer_.armed() || depart_timer_.expiry() > at) depart_timer_.arm_at(at);
}

void MuxNode::on_packet(const IpPacket& p) {
    if (failed_) {
        ++black_holed_;
        return drop(p, DropReason::MuxDown);
    }
    if (p.message == kFastpathRedirect) return on_redirect(p);
    const Time t = now();
    if (bgp_) {
        if (auto m = bgp_message(p); m && m->to == life_.mux().address()) {
            if (!alive()) {
                ++black_holed_;
                return drop(p, DropReason::MuxDown);
            }
            consumed(p);
            life_.handle(*m, t);
            arm_bgp();
            return;
        }
    }
    lout_.clear();
    const std::uint64_t before = life_.mux().counters().new_connections;
    life_.handle(p, t, lout_);
    if (!alive()) ++black_holed_;
    // A new connection (a SYN, a UDP flow's first datagram or a flow-table miss): what the record merge reads.
    if (life_.mux().counters().new_connections != before)
        sightings_.add(p.inner, t, life_.mux().address());
    overload_reports_ += lout_.mux.reports.size();
    report_overload();
    for (const MuxDrop& d : lout_.mux.drops) drop(d.packet, d.reason);
    for (const MuxForward& f : lout_.mux.forwards) {
        if (f.depart <= t) {
            send(0, f.packet);
        } else {
            queue_departure(f.packet, f.depart);
        }
    }
    if (fastpath_) observe_fastpath(p);
}

void MuxNode::on_depart() {
    const std::int64_t t = now().count();
    while (!departures_.empty() && departures_.front().at <= t) {
        // send and drop copy the packet out; neither queues a departure, so the slot stays as it is until pop.
        const IpPacket& p = departures_.front().packet;
        // A Mux that stopped gracefully lets its cores finish; a dead one sends nothing.
        if (failed_ || life_.state() == MuxState::Silent) {
            ++black_holed_;
            drop(p, DropReason::MuxDown);
        } else {
            send(0, p);
        }
        departures_.pop();
    }
    if (!departures_.empty()) depart_timer_.arm_at(Time::ps(departures_.front().at));
}

void MuxNode::send_bgp() {
    const Time t = now();
    for (const BgpMessage& m : lout_.bgp) {
        const IpPacket p = bgp_packet(m);
        ++tally_.created;
        ++bgp_sent_;
        if (m.control) {
            send(0, p, true);
            continue;
        }
        // Sharing the data path: the message waits for a core with the data packets, or is lost with them.
        const CoreDecision d = life_.mux().offer_local(p, t);
        if (!d.accepted) {
            ++bgp_lost_;
            drop(p, DropReason::MuxOverload);
        } else if (d.departure <= t) {
            send(0, p);
        } else {
            queue_departure(p, d.departure);
        }
    }
    lout_.bgp.clear();
}

void MuxNode::arm_bgp() {
    const Time next = life_.next_deadline();
    if (next == Time::max()) {
        bgp_timer_->cancel();
    } else if (!bgp_timer_->armed() || bgp_timer_->expiry() != next) {
        bgp_timer_->arm_at(std::max(next, now()));
    }
}

void MuxNode::on_bgp_timer() {
    lout_.clear();
    life_.tick_bgp(now(), lout_);
    send_bgp();
    arm_bgp();
}

void MuxNode::go_down(bool graceful) {
    if (!alive()) return;
    lout_.clear();
    state_timer_->cancel();
    if (graceful) {
        life_.drain(now(), lout_);
        send_bgp();
        stop_timer_->arm_in(shared_.config.dynamics.bgp.drain_time);
    } else {
        stop_timer_->cancel();
        life_.fail_silent(now());
    }
    arm_bgp();
}

void MuxNode::on_stop() {
    lout_.clear();
    life_.shutdown(now(), lout_);
    send_bgp();
    arm_bgp();
}

void MuxNode::come_up() {
    if (alive()) return;
    add_counters(past_, life_.mux().counters());
    lout_.clear();
    life_.boot(now(), lout_);
    send_bgp();
    arm_bgp();
    if (shared_.config.dynamics.bgp.state_source == BgpConfig::StateSource::Delay)
        state_timer_->arm_in(shared_.config.dynamics.bgp.state_delay);
    if (control_ != nullptr) control_->mux_booted(number_);  // the manager programs it again
}

void MuxNode::on_state() { install_state(); }

void MuxNode::install_state() {
    if (life_.state() != MuxState::AwaitingState) return;
    lout_.clear();
    for (const MuxCommand& c : state_) life_.handle(c, now(), lout_);
    lout_.clear();
    life_.state_installed(now(), lout_);
    send_bgp();
    arm_bgp();
}

void MuxNode::report_overload() {
    if (control_ != nullptr)
        for (const OverloadReport& r : lout_.mux.reports) control_->overload(number_, r);
}

StateBytes MuxNode::bytes_of_state() const {
    StateBytes b;
    b.mux_flows = life_.mux().flows().bytes();  // pool and index, as allocated
    b.sightings = sightings_.bytes();
    return b;
}

}  // namespace loom::ananta
