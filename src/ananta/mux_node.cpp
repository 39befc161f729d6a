#include "loom/ananta/mux_node.hpp"

namespace loom::ananta {

MuxNode::MuxNode(sim::Context& ctx, const DcShared& shared, std::uint32_t index, std::uint32_t number)
    : DcNode(ctx, shared, index),
      mux_(shared.config.params.mux, addr::mux(number)),
      number_(number),
      depart_timer_(ctx, this, sim::handler<&MuxNode::on_depart>, sim::Phase::Delivery),
      tick_timer_(ctx, this, sim::handler<&MuxNode::on_tick>) {}

void MuxNode::init() { tick_timer_.arm_at(shared_.config.params.mux.overload_window); }

void MuxNode::command(const MuxCommand& c) {
    out_.clear();
    mux_.handle(c, now(), out_);
    for (const CommandRejected& r : out_.rejected) rejections_.push_back(Rejection{now(), r});
}

void MuxNode::on_tick() {
    out_.clear();
    mux_.tick(now(), out_);
    overload_reports_ += out_.reports.size();
    report_overload();
    tick_timer_.arm_in(shared_.config.params.mux.overload_window);
}

void MuxNode::on_packet(const IpPacket& p) {
    if (failed_) return drop(p, DropReason::MuxDown);
    const Time t = now();
    out_.clear();
    const std::uint64_t before = mux_.counters().new_connections;
    mux_.handle(p, t, out_);
    // A new connection (a SYN, a UDP flow's first datagram or a flow-table miss): what the record merge reads.
    if (mux_.counters().new_connections != before) sightings_.push_back(Sighting{p.inner, t, mux_.address()});
    overload_reports_ += out_.reports.size();
    report_overload();
    for (const MuxDrop& d : out_.drops) drop(d.packet, d.reason);
    for (const MuxForward& f : out_.forwards) {
        if (f.depart <= t) {
            send(0, f.packet);
        } else {
            departures_.push(Departure{f.depart.count(), departure_seq_++, f.packet});
            if (!depart_timer_.armed() || depart_timer_.expiry() > f.depart) depart_timer_.arm_at(f.depart);
        }
    }
}

void MuxNode::on_depart() {
    const std::int64_t t = now().count();
    while (!departures_.empty() && departures_.top().at <= t) {
        const IpPacket p = departures_.top().packet;
        departures_.pop();
        if (failed_) {
            drop(p, DropReason::MuxDown);
        } else {
            send(0, p);
        }
    }
    if (!departures_.empty()) depart_timer_.arm_at(Time::ps(departures_.top().at));
}

void MuxNode::report_overload() {
    if (control_ != nullptr)
        for (const OverloadReport& r : out_.reports) control_->overload(number_, r);
}

std::size_t MuxNode::bytes_of_state() const {
    // The flow table's entries (key, target, class, time and list links, plus the hash node).
    return mux_.flows().size() * (sizeof(FiveTuple) + sizeof(FlowTarget) + 48) + sightings_.capacity() * sizeof(Sighting);
}

}  // namespace loom::ananta
