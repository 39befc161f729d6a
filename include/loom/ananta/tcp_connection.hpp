// A TCP-like connection endpoint as a pure state machine: three-way handshake, data segments sent at a fixed
// rate with one cumulative ACK per segment received, FIN exchange, and a retransmission timeout that doubles
// on every expiry and fails the connection after max_retries. There is no congestion control and no RTT
// estimation (the RTO starts at initial_rto after every ACK that makes progress): this model measures the load
// balancer, not TCP. Segments are numbered by index (IpPacket::seq), not by byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

#include "loom/ananta/connection_record.hpp"
#include "loom/ananta/ip_packet.hpp"
#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"

namespace loom::ananta {

// The "tcp" config section.
struct TcpConfig {
    // RFC 6298's initial RTO, and its allowed cap of 60 s for the backed-off value.
    Time initial_rto = Time::s(1);
    Time max_rto = Time::s(60);
    // Retransmissions of one segment before the connection fails (Linux's default SYN retries, 6).
    std::int64_t max_retries = 6;
    // MSS offered on SYN (the Ethernet value, 1460); data segments carry min(this, the peer's MSS).
    std::int64_t segment_bytes = 1460;
    // Pacing of data segments (a workload choice, not from the paper): 100 Mbps of payload.
    Bandwidth data_rate = Bandwidth::bps(100'000'000);
};
config::Schema<TcpConfig> tcp_schema();

// Heap bytes of an out-of-order set of `n` segments: the set object and, per element, a red-black tree node
// (libstdc++: 32 bytes of links and colour, the 4-byte value padded to 8).
inline std::size_t out_of_order_bytes(const std::set<std::uint32_t>* s) {
    constexpr std::size_t kNodeBytes = 40;
    return s == nullptr ? 0 : sizeof(*s) + s->size() * kNodeBytes;
}

enum class TcpState : std::uint8_t { Closed, SynSent, SynReceived, Established, FinWait, Done, Failed };

// What one call produced: packets to send now. The caller clears it between calls.
struct TcpOutput {
    std::vector<IpPacket> send;
    void clear() { send.clear(); }
};

// One side of a connection (it keeps a reference to its config, which must outlive it). The opener (client) calls open(); the passive side (server) is created on the
// first SYN and fed it through receive(). The adapter keeps one timer at next_timer() and calls on_timer()
// when it fires (a call at any other time is harmless). Timing: a segment first sent at t and not acknowledged
// is resent at t + rto (not at t + rto - 1ps), then after 2 rto, 4 rto, ... capped at max_rto; after
// max_retries resends the connection fails when the next timeout expires.
class TcpConnection {
public:
    // Client: `tuple` is client -> server; sends `bytes` of data after the handshake, then closes.
    static TcpConnection client(const TcpConfig& config, std::uint64_t id, const FiveTuple& tuple, std::uint64_t bytes);
    // Server: `tuple` is the client -> server tuple as the server sees it.
    static TcpConnection server(const TcpConfig& config, std::uint64_t id, const FiveTuple& tuple);

    void open(Time now, TcpOutput& out);
    void receive(const IpPacket& packet, Time now, TcpOutput& out);
    void on_timer(Time now, TcpOutput& out);
    // When on_timer() must next be called; kNever when nothing is pending.
    Time next_timer() const;

    TcpState state() const { return state_; }
    // Whether it completed or failed (its record's outcome is no longer Open).
    bool over() const { return state_ == TcpState::Done || state_ == TcpState::Failed; }
    // Its record; a sender's segments_sent and bytes_delivered are derived from the sender's fields here.
    ConnectionRecord record() const;
    const FiveTuple& tuple() const { return record_.tuple; }  // as the opener sent it
    // The retransmission timeout: initial_rto doubled per retry of the current segment, capped at max_rto.
    Time rto() const;
    std::uint32_t segment_payload() const { return mss_; }
    std::uint64_t total_segments() const { return total_; }
    // Bytes it holds outside itself (the out-of-order set).
    std::size_t heap_bytes() const { return out_of_order_bytes(out_of_order_.get()); }

private:
    TcpConnection(const TcpConfig& config, std::uint64_t id, const FiveTuple& tuple, bool is_client);
    IpPacket segment(std::uint8_t flags, std::uint32_t seq, std::uint32_t payload) const;
    void send_data(std::uint32_t index, TcpOutput& out);
    void set_total();
    void arm(Time now);
    void timeout(Time now, TcpOutput& out);
    void progress(Time now);
    void fail(Time now);
    void finish(Time now);
    Time data_time(std::uint32_t index) const;

    FiveTuple out_tuple() const { return client_ ? record_.tuple : record_.tuple.reversed(); }

    // Layout (160 bytes): what only the handshake, the last segment, a loss or the server side read first, then
    // the record, whose tuple and `established` end it, then the 32 bytes of the sender's state. So every field a
    // client's timer firing or ACK reads (the tuple, `established`, the config, deadline, counters, MSS, state and
    // retries: 56 bytes) lies in the last 56 bytes, next to the index of the std::variant that holds a client's
    // connection (Openers), which every access reads too: one cache line of Openers' line-aligned slot. A
    // sender's segments_sent and bytes_delivered are not kept per segment but derived in record(); segment
    // counts are 32-bit, as IpPacket::seq is.
    // Receiver (server) side: segments received beyond a gap (allocated on the first one: empty without loss).
    std::unique_ptr<std::set<std::uint32_t>> out_of_order_;
    std::uint64_t bytes_ = 0;              // sender: bytes to send
    std::uint32_t rcv_next_ = 0;           // receiver (server) side: next segment expected
    std::uint32_t data_resends_ = 0;       // sender: data segments resent (segments_sent = next_send_ + this)
    std::uint64_t reserved_[2] = {0, 0};   // unused: places the hot fields at the end of a line
    ConnectionRecord record_;
    const TcpConfig* config_;
    Time deadline_ = kNever;               // retransmission timer
    std::uint32_t total_ = 0;              // sender: data segments to send
    std::uint32_t next_send_ = 0;          // sender: next new segment
    std::uint32_t snd_una_ = 0;            // sender: oldest unacknowledged
    std::uint16_t mss_ = 0;
    TcpState state_ = TcpState::Closed;
    std::uint8_t retries_ : 7 = 0;         // at most max_retries (<= 64, the schema's bound)
    bool client_ : 1 = false;
};

// Segments received beyond a gap by the TcpServers of one owner, by the owner's key for each server (its slot):
// kept outside the servers, which only flag that they have a set here, as few servers ever have one.
class HeldSegments {
public:
    using Set = std::unique_ptr<std::set<std::uint32_t>>;
    // The set of `key` (null until the first segment beyond a gap allocates it).
    Set& of(std::uint32_t key) { return sets_[key]; }
    void release(std::uint32_t key) { sets_.erase(key); }
    std::size_t size() const { return sets_.size(); }
    // Heap bytes: the bucket array and per key a map node (link, key, pointer: 24 bytes) and its set.
    std::size_t bytes() const {
        std::size_t b = sets_.bucket_count() * sizeof(void*);
        for (const auto& [key, set] : sets_) b += 3 * sizeof(void*) + out_of_order_bytes(set.get());
        return b;
    }

private:
    std::unordered_map<std::uint32_t, Set> sets_;
};

// The passive side of a connection as the model keeps it per open connection (32 bytes, half a cache line):
// what TcpConnection::server does, packet for packet and timer for timer, without the sender's fields, the
// record or a config pointer (the owner passes its config to every call) and with the segments held beyond a
// gap in the owner's HeldSegments under the owner's key for it. The retransmission timeout is derived from the
// retry count (initial_rto doubled per retry, capped at max_rto), as TcpConnection's evolves on this side.
// A default-constructed one is a free slot (live() false).
class TcpServer {
public:
    TcpServer() = default;
    // Created on the first SYN of `tuple` (client -> server as the server sees it); feed it that SYN next.
    TcpServer(const TcpConfig& config, const FiveTuple& tuple)
        : tuple_(tuple), mss_(static_cast<std::uint16_t>(config.segment_bytes)) {}

    bool live() const { return mss_ != 0; }
    // Returns the payload bytes this packet delivered (in order or beyond a gap, not seen before). Segments
    // beyond a gap are held in `held` under `key` (released when the connection completes).
    std::uint32_t receive(const TcpConfig& config, const IpPacket& packet, Time now, TcpOutput& out,
                          HeldSegments& held, std::uint32_t key);
    void on_timer(const TcpConfig& config, Time now, TcpOutput& out);
    // When on_timer() must next be called; kNever when nothing is pending (always once done).
    Time next_timer() const { return state_ == TcpState::Done ? kNever : deadline_; }
    // When the connection completed (kNever before).
    Time done_at() const { return state_ == TcpState::Done ? deadline_ : kNever; }
    TcpState state() const { return state_; }
    const FiveTuple& tuple() const { return tuple_; }
    Time rto(const TcpConfig& config) const;
    // Whether it has a set in its owner's HeldSegments (to release when the slot is freed).
    bool holding() const { return holding_; }

private:
    IpPacket segment(const TcpConfig& config, std::uint8_t flags) const;

    FiveTuple tuple_;
    Time deadline_ = kNever;  // retransmission timer; once Done: the completion time
    std::uint32_t rcv_next_ = 0;  // next segment expected
    std::uint16_t mss_ = 0;       // 0: a free slot (a live connection's MSS is at least 1)
    TcpState state_ = TcpState::Closed;
    std::uint8_t retries_ : 7 = 0;  // at most max_retries (<= 64, the schema's bound)
    bool holding_ : 1 = false;      // a set in the owner's HeldSegments (allocated by a segment beyond a gap)
};

// A UDP pseudo-connection: `datagrams` datagrams of `bytes` payload sent at a fixed interval by the sender;
// the receiver counts what arrives and considers the pseudo-connection ended after `idle_timeout` of silence.
struct UdpFlowSpec {
    std::uint64_t datagrams = 1;
    std::uint32_t bytes = 512;
    Time interval = Time::ms(1);
    Time idle_timeout = Time::s(10);
};

class UdpFlow {
public:
    UdpFlow(std::uint64_t id, const FiveTuple& tuple, const UdpFlowSpec& spec);
    // Sender: sends the first datagram; then on_timer() at next_timer() sends the rest (datagram k at
    // start + k interval). Completed when the last one is sent.
    void start(Time now, TcpOutput& out);
    void on_timer(Time now, TcpOutput& out);
    Time next_timer() const;
    // Receiver: records an arriving datagram.
    void receive(const IpPacket& packet, Time now);
    // Receiver: whether the pseudo-connection has been idle for idle_timeout at `now` (live at t + timeout - 1ps).
    bool ended(Time now) const;

    const ConnectionRecord& record() const { return record_; }

private:
    UdpFlowSpec spec_;
    ConnectionRecord record_;
    Time start_ = kNever;
    std::uint64_t sent_ = 0;
    Time last_seen_ = kNever;
};

}  // namespace loom::ananta
