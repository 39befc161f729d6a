#include "loom/ananta/tcp_connection.hpp"

#include <algorithm>

#include "loom/ananta/rate_math.hpp"
#include "loom/base/assert.hpp"

namespace loom::ananta {

static_assert(sizeof(TcpConnection) == 160, "Openers' slot: the hot tail ends in the slot's last line");

namespace {
constexpr std::int64_t kPsPerS = 1'000'000'000'000;

// The receiver's side of a data segment, for both ends that receive: true when `seq` is new (not yet delivered
// in order nor held out of order). In order it advances `next` past any held segments that now follow; out of
// order it is held (the set is allocated on the first such segment).
bool accept_segment(std::uint32_t seq, std::uint32_t& next, std::unique_ptr<std::set<std::uint32_t>>& held) {
    if (seq < next || (held && held->contains(seq))) return false;
    if (seq != next) {
        if (!held) held = std::make_unique<std::set<std::uint32_t>>();
        held->insert(seq);
        return true;
    }
    ++next;
    while (held && !held->empty() && *held->begin() == next) {
        held->erase(held->begin());
        ++next;
    }
    return true;
}
}  // namespace

TcpConnection::TcpConnection(const TcpConfig& config, std::uint64_t id, const FiveTuple& tuple, bool is_client)
    : config_(&config), client_(is_client) {
    record_.id = id;
    record_.tuple = tuple;
    mss_ = static_cast<std::uint16_t>(config.segment_bytes);
}

ConnectionRecord TcpConnection::record() const {
    ConnectionRecord r = record_;
    // What the sender once counted per segment and per ACK: new segments plus data resends, and the payload
    // acknowledged (snd_una_ only moves on an ACK that makes progress, mss_ only before any data).
    r.segments_sent = std::uint64_t{next_send_} + data_resends_;
    if (client_) r.bytes_delivered = std::min<std::uint64_t>(std::uint64_t{snd_una_} * mss_, bytes_);
    return r;
}

void TcpConnection::set_total() {
    const std::uint64_t total = (bytes_ + mss_ - 1) / mss_;
    LOOM_ASSERT(total <= 0xffff'ffffU, "a connection sends at most 2^32 - 1 segments (IpPacket::seq is 32-bit)");
    total_ = static_cast<std::uint32_t>(total);
}

TcpConnection TcpConnection::client(const TcpConfig& config, std::uint64_t id, const FiveTuple& tuple,
                                    std::uint64_t bytes) {
    TcpConnection c(config, id, tuple, true);
    c.bytes_ = bytes;
    return c;
}

TcpConnection TcpConnection::server(const TcpConfig& config, std::uint64_t id, const FiveTuple& tuple) {
    return TcpConnection(config, id, tuple, false);
}

IpPacket TcpConnection::segment(std::uint8_t flags, std::uint32_t seq, std::uint32_t payload) const {
    IpPacket p = make_packet(out_tuple(), payload, flags);
    p.seq = seq;
    p.ack = client_ ? 0 : rcv_next_;
    if ((flags & tcp_flag::kSyn) != 0) p.mss = static_cast<std::uint16_t>(config_->segment_bytes);
    return p;
}

Time TcpConnection::data_time(std::uint32_t index) const {
    // Segment k leaves at established + ceil(k * segment bits / rate): computed from the start, never by
    // adding rounded per-segment times.
    return record_.established +
           Time::ps(ceil_product_div(index, mss_, 8 * kPsPerS, config_->data_rate.bits_per_s()));
}

Time TcpConnection::rto() const {
    // initial_rto doubled per retry, capped at max_rto: what the value was when it was kept and doubled on every
    // expiry (retries_ counts those expiries and is reset together with it).
    Time r = config_->initial_rto;
    for (std::uint32_t i = 0; i < retries_; ++i) r = std::min(r * 2, config_->max_rto);
    return r;
}

void TcpConnection::arm(Time now) { deadline_ = now + rto(); }

void TcpConnection::fail(Time now) {
    state_ = TcpState::Failed;
    deadline_ = kNever;
    record_.outcome = ConnectionOutcome::Failed;
    record_.finished = now;
}

void TcpConnection::finish(Time now) {
    state_ = TcpState::Done;
    deadline_ = kNever;
    record_.outcome = ConnectionOutcome::Completed;
    record_.finished = now;
}

void TcpConnection::open(Time now, TcpOutput& out) {
    LOOM_ASSERT(client_ && state_ == TcpState::Closed, "open() is for a closed client connection");
    set_total();
    state_ = TcpState::SynSent;
    record_.opened = now;
    out.send.push_back(segment(tcp_flag::kSyn, 0, 0));
    arm(now);
}

void TcpConnection::send_data(std::uint32_t index, TcpOutput& out) {
    // Every segment but the last carries a full MSS (bytes_, on the connection's cold line, read for the last only).
    const std::uint32_t payload =
        index + 1 < total_ ? mss_
                           : static_cast<std::uint32_t>(std::min<std::uint64_t>(
                                 mss_, bytes_ - std::uint64_t{index} * mss_));
    IpPacket p = make_packet(out_tuple(), payload, tcp_flag::kAck | tcp_flag::kPsh);
    p.seq = index;
    if (!client_) p.ack = rcv_next_;
    out.send.push_back(p);
}

void TcpConnection::progress(Time now) {
    retries_ = 0;
    deadline_ = snd_una_ < next_send_ ? now + config_->initial_rto : kNever;
}

void TcpConnection::receive(const IpPacket& p, Time now, TcpOutput& out) {
    if (state_ == TcpState::Failed) return;
    const bool syn = p.has(tcp_flag::kSyn);
    const bool fin = p.has(tcp_flag::kFin);
    if (client_) {
        if (state_ == TcpState::SynSent && syn && p.has(tcp_flag::kAck)) {
            state_ = TcpState::Established;
            record_.established = now;
            if (p.mss != 0) mss_ = std::min<std::uint16_t>(mss_, p.mss);
            set_total();
            out.send.push_back(segment(tcp_flag::kAck, 0, 0));
            retries_ = 0;
            deadline_ = kNever;
            if (total_ == 0) {
                out.send.push_back(segment(tcp_flag::kFin | tcp_flag::kAck, 0, 0));
                state_ = TcpState::FinWait;
                arm(now);
            } else {
                on_timer(now, out);  // segment 0 leaves at once
            }
            return;
        }
        if (syn) {  // a repeated SYN-ACK: our ACK was lost
            if (state_ == TcpState::Established || state_ == TcpState::FinWait)
                out.send.push_back(segment(tcp_flag::kAck, 0, 0));
            return;
        }
        if (state_ == TcpState::FinWait && fin) {
            out.send.push_back(segment(tcp_flag::kAck, static_cast<std::uint32_t>(std::uint64_t{total_} + 1), 0));
            finish(now);
            return;
        }
        if ((state_ == TcpState::Established || state_ == TcpState::FinWait) && p.has(tcp_flag::kAck) &&
            p.ack > snd_una_ && p.ack <= total_) {
            snd_una_ = p.ack;  // bytes_delivered follows from it (record())
            progress(now);
            if (state_ == TcpState::Established && snd_una_ == total_) {
                out.send.push_back(segment(tcp_flag::kFin | tcp_flag::kAck, static_cast<std::uint32_t>(total_), 0));
                state_ = TcpState::FinWait;
                arm(now);
            }
        }
        return;
    }
    // Server.
    if (syn) {
        if (state_ == TcpState::Closed) {
            state_ = TcpState::SynReceived;
            record_.opened = now;
            if (p.mss != 0) mss_ = std::min<std::uint16_t>(mss_, p.mss);
            arm(now);
        }
        if (state_ == TcpState::SynReceived) out.send.push_back(segment(tcp_flag::kSyn | tcp_flag::kAck, 0, 0));
        return;
    }
    if (state_ == TcpState::Closed) return;
    if (state_ == TcpState::SynReceived) {
        state_ = TcpState::Established;
        record_.established = now;
        retries_ = 0;
        deadline_ = kNever;
    }
    if (state_ == TcpState::Done) {
        if (fin) out.send.push_back(segment(tcp_flag::kFin | tcp_flag::kAck, 0, 0));
        return;
    }
    if (p.payload_bytes > 0) {
        ++record_.segments_received;
        if (accept_segment(p.seq, rcv_next_, out_of_order_)) record_.bytes_delivered += p.payload_bytes;
        out.send.push_back(segment(tcp_flag::kAck, 0, 0));
        return;
    }
    if (fin) {
        if (p.seq == rcv_next_) {
            ++rcv_next_;
            out.send.push_back(segment(tcp_flag::kFin | tcp_flag::kAck, 0, 0));
            finish(now);
        } else {
            out.send.push_back(segment(tcp_flag::kAck, 0, 0));
        }
    }
}

void TcpConnection::timeout(Time now, TcpOutput& out) {
    if (deadline_ == kNever || now < deadline_) return;
    if (retries_ >= static_cast<std::uint32_t>(config_->max_retries)) return fail(now);
    ++retries_;
    ++record_.retransmissions;
    switch (state_) {
        case TcpState::SynSent: out.send.push_back(segment(tcp_flag::kSyn, 0, 0)); break;
        case TcpState::SynReceived: out.send.push_back(segment(tcp_flag::kSyn | tcp_flag::kAck, 0, 0)); break;
        case TcpState::Established:
            send_data(snd_una_, out);
            ++data_resends_;
            break;
        case TcpState::FinWait:
            out.send.push_back(segment(tcp_flag::kFin | tcp_flag::kAck, static_cast<std::uint32_t>(total_), 0));
            break;
        default: break;
    }
    arm(now);
}

void TcpConnection::on_timer(Time now, TcpOutput& out) {
    timeout(now, out);
    if (state_ != TcpState::Established || !client_) return;
    while (next_send_ < total_ && data_time(next_send_) <= now) {
        send_data(next_send_++, out);
        if (deadline_ == kNever) arm(now);
    }
}

Time TcpConnection::next_timer() const {
    Time t = deadline_;
    if (client_ && state_ == TcpState::Established && next_send_ < total_) t = std::min(t, data_time(next_send_));
    return t;
}

// ---- TcpServer: TcpConnection's server branch, state for state ----

Time TcpServer::rto(const TcpConfig& config) const {
    Time r = config.initial_rto;
    for (std::uint8_t i = 0; i < retries_; ++i) r = std::min(r * 2, config.max_rto);
    return r;
}

IpPacket TcpServer::segment(const TcpConfig& config, std::uint8_t flags) const {
    IpPacket p = make_packet(tuple_.reversed(), 0, flags);
    p.ack = rcv_next_;
    if ((flags & tcp_flag::kSyn) != 0) p.mss = static_cast<std::uint16_t>(config.segment_bytes);
    return p;
}

std::uint32_t TcpServer::receive(const TcpConfig& config, const IpPacket& p, Time now, TcpOutput& out,
                                 HeldSegments& held, std::uint32_t key) {
    if (state_ == TcpState::Failed) return 0;
    const bool syn = p.has(tcp_flag::kSyn);
    const bool fin = p.has(tcp_flag::kFin);
    if (syn) {
        if (state_ == TcpState::Closed) {
            state_ = TcpState::SynReceived;
            if (p.mss != 0) mss_ = std::min<std::uint16_t>(mss_, p.mss);
            deadline_ = now + rto(config);
        }
        if (state_ == TcpState::SynReceived) out.send.push_back(segment(config, tcp_flag::kSyn | tcp_flag::kAck));
        return 0;
    }
    if (state_ == TcpState::Closed) return 0;
    if (state_ == TcpState::SynReceived) {
        state_ = TcpState::Established;
        retries_ = 0;
        deadline_ = kNever;
    }
    if (state_ == TcpState::Done) {
        if (fin) out.send.push_back(segment(config, tcp_flag::kFin | tcp_flag::kAck));
        return 0;
    }
    if (p.payload_bytes > 0) {
        std::uint32_t delivered = 0;
        // Without a held set, a segment at or below rcv_next_ needs none (accept_segment only reads it); one
        // beyond a gap allocates it.
        HeldSegments::Set none;
        const bool use_held = holding_ || p.seq > rcv_next_;
        HeldSegments::Set& set = use_held ? held.of(key) : none;
        if (accept_segment(p.seq, rcv_next_, set)) delivered = p.payload_bytes;
        if (use_held) holding_ = true;
        out.send.push_back(segment(config, tcp_flag::kAck));
        return delivered;
    }
    if (fin) {
        if (p.seq == rcv_next_) {
            ++rcv_next_;
            out.send.push_back(segment(config, tcp_flag::kFin | tcp_flag::kAck));
            state_ = TcpState::Done;
            deadline_ = now;  // the completion time from now on
            if (holding_) held.release(key);
            holding_ = false;
        } else {
            out.send.push_back(segment(config, tcp_flag::kAck));
        }
    }
    return 0;
}

void TcpServer::on_timer(const TcpConfig& config, Time now, TcpOutput& out) {
    // Only a SYN-ACK waits for an acknowledgement on this side (the timer is off once established).
    if (state_ == TcpState::Done || deadline_ == kNever || now < deadline_) return;
    if (retries_ >= static_cast<std::uint32_t>(config.max_retries)) {
        state_ = TcpState::Failed;
        deadline_ = kNever;
        return;
    }
    ++retries_;
    if (state_ == TcpState::SynReceived) out.send.push_back(segment(config, tcp_flag::kSyn | tcp_flag::kAck));
    deadline_ = now + rto(config);
}

config::Schema<TcpConfig> tcp_schema() {
    using C = TcpConfig;
    config::Schema<C> s("TCP-like endpoints: handshake, paced data with cumulative ACKs, FIN, RTO with back-off; "
                        "no congestion control.");
    s.field("initial_rto", &C::initial_rto, "Retransmission timeout before any back-off (RFC 6298: 1 s).")
        .at_least(Time::ps(1));
    s.field("max_rto", &C::max_rto, "Cap of the doubled timeout (RFC 6298 allows 60 s).").at_least(Time::ps(1));
    s.field("max_retries", &C::max_retries, "Resends of one segment before the connection fails (Linux SYN default 6).")
        .range(0, 64);
    s.field("segment_bytes", &C::segment_bytes, "MSS offered on SYN; data segments carry min(own, peer's).")
        .range(1, 65495);
    s.field("data_rate", &C::data_rate, "Payload rate at which data segments are paced.").at_least(Bandwidth::bps(1));
    return s;
}

UdpFlow::UdpFlow(std::uint64_t id, const FiveTuple& tuple, const UdpFlowSpec& spec) : spec_(spec) {
    record_.id = id;
    record_.tuple = tuple;
}

void UdpFlow::start(Time now, TcpOutput& out) {
    start_ = now;
    record_.opened = now;
    record_.established = now;  // no handshake
    on_timer(now, out);
}

void UdpFlow::on_timer(Time now, TcpOutput& out) {
    if (start_ == kNever) return;
    while (sent_ < spec_.datagrams && start_ + spec_.interval * static_cast<std::int64_t>(sent_) <= now) {
        IpPacket p = make_packet(record_.tuple, spec_.bytes);
        p.seq = static_cast<std::uint32_t>(sent_);
        out.send.push_back(p);
        ++sent_;
        ++record_.segments_sent;
    }
    if (sent_ == spec_.datagrams && record_.outcome == ConnectionOutcome::Open) {
        record_.outcome = ConnectionOutcome::Completed;
        record_.finished = now;
    }
}

Time UdpFlow::next_timer() const {
    if (start_ == kNever || sent_ >= spec_.datagrams) return kNever;
    return start_ + spec_.interval * static_cast<std::int64_t>(sent_);
}

void UdpFlow::receive(const IpPacket& packet, Time now) {
    if (record_.opened == kNever) {
        record_.opened = now;
        record_.established = now;
    }
    ++record_.segments_received;
    record_.bytes_delivered += packet.payload_bytes;
    last_seen_ = now;
}

bool UdpFlow::ended(Time now) const { return last_seen_ != kNever && now - last_seen_ >= spec_.idle_timeout; }

}  // namespace loom::ananta
