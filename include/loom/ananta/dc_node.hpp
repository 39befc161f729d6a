// What every component of the data-center run shares: IP packets on net/ ports, the setup data they only read
// (drop-reason names, ECMP and port parameters), the per-component tally that conservation adds up, the
// hop record --trace draws, and the connection endpoints that client nodes and host VMs own as plain data.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "loom/ananta/chunked_vector.hpp"
#include "loom/ananta/dc_config.hpp"
#include "loom/ananta/drop_reason.hpp"
#include "loom/ananta/ip_packet.hpp"
#include "loom/ananta/tcp_connection.hpp"
#include "loom/ananta/tuple_index.hpp"
#include "loom/base/link_timing.hpp"
#include "loom/base/prefetch.hpp"
#include "loom/net/drop_reason.hpp"
#include "loom/net/input_port.hpp"
#include "loom/net/output_port.hpp"
#include "loom/net/port_config.hpp"
#include "loom/sim/component.hpp"
#include "loom/sim/timer_set.hpp"

namespace loom::ananta {

// The IpPacket is the whole per-hop record (its size_bytes is the size on the wire): no net PacketHeader, so a
// port slot is the packet's one cache line.
using IpOut = net::OutputPort<IpPacket, net::NoHeader>;
using IpIn = net::InputPort<IpPacket, net::NoHeader>;

// Built once before the components and only read afterwards (like a port's DropReasons table, which it holds):
// it outlives every component of the run.
struct DcShared {
    DcConfig config;
    net::DropReasons reasons;
    std::array<net::DropReason, kDropReasonCount> reason_of{};  // Ananta's reasons as net ids
    net::DropReason frozen;                                      // "frozen": reached a frozen component
    net::DropReason redirect_refused;  // "redirect_refused": a Fastpath redirect not from an Ananta address
    net::DropReason vm_down;           // "vm_down": to or from a VM that stopped answering (vm_unhealthy)
    net::PortConfig port;
    // Ports at both ends of a Mux's link when BGP uses a separate control queue: queue 0 control (strict
    // priority), queue 1 data.
    std::optional<net::PortConfig> control_port;
    LinkTiming host_link, fabric_link, internet_link;
    // --trace: the client end (address, port) of the connection to record; 0 when none is chosen yet.
    IpAddr trace_addr = 0;
    std::uint16_t trace_port = 0;

    explicit DcShared(const DcConfig& c);
    net::DropReason net_reason(DropReason r) const { return reason_of[static_cast<std::size_t>(r)]; }
};

// One hop of the traced connection: a packet arriving at a component, leaving (or refused at) one of its ports,
// consumed by an endpoint there or dropped there.
enum class HopEvent : std::uint8_t { Received, Sent, Delivered, Dropped };
struct HopRecord {
    Time at;
    IpPacket packet;
    HopEvent event = HopEvent::Sent;
    std::uint16_t reason = 0;  // net drop reason id when Dropped
    std::uint32_t node = 0;    // index of the component in the model's list
    std::uint32_t port = 0;    // output port index when Sent
};

// Packets a component created, consumed (an endpoint took them) and dropped itself (ports count their own);
// `pending` is what it holds at the end (a Mux's departures, a Host Agent's SNAT holds).
// (What reached it is its input ports' count, InputPort::received.)
struct Tally {
    std::uint64_t created = 0;
    std::uint64_t consumed = 0;
    net::DropCounts drops;
    std::uint64_t drops_total = 0;
};

// Base of every component of the run: ports, tally, trace. Ports are created by the builder (add_port), in a
// deterministic order, and live as long as the component.
class DcNode : public sim::Component {
public:
    DcNode(sim::Context& ctx, const DcShared& shared, std::uint32_t index);
    ~DcNode() override;
    DcNode(const DcNode&) = delete;
    DcNode& operator=(const DcNode&) = delete;

    // Room for the first `n` output ports in one block (the builder calls it before the first add_port, with the
    // number of ports it will add): a send finds port i < n at block + i, reading no table of ports (whose line
    // was cold at most sends: a component sends rarely against the run's footprint). Ports added beyond the
    // room, or without it, are allocated one by one and found through the table.
    void reserve_ports(std::uint32_t n);
    // Adds output and input port `name` (the input calls on_packet). Returns the port number. `config`
    // (default: the shared one) and the queue data packets take on it (`data_queue`).
    std::uint32_t add_port(const std::string& name, const LinkTiming& timing, const net::PortConfig* config = nullptr,
                           std::uint32_t data_queue = 0);
    IpOut& out(std::uint32_t i) { return *outs_[i]; }
    IpIn& in(std::uint32_t i) { return *ins_[i]; }
    std::size_t ports() const { return outs_.size(); }
    // Output ports in the reserved block (the first ones), for tests.
    std::uint32_t block_ports() const { return block_used_; }
    const Tally& tally() const { return tally_; }
    const std::vector<HopRecord>& hops() const { return hops_; }
    virtual std::uint64_t pending() const { return 0; }
    std::uint32_t index() const { return index_; }
    void set_frozen(bool f) { frozen_ = f; }
    // The scenario's hand (spoof_redirect): sends `p` on port 0 as if this component had created it.
    void send_forged(const IpPacket& p) {
        ++tally_.created;
        send(0, p);
    }
    bool frozen() const { return frozen_; }
    // The kernel's prefetch hook of this component's input ports (net::InputPort::enable_prefetch): starts loading
    // what an arrival of `p` guessed to come next will look up. `p` may be stale: only reads, bounds checked.
    void prefetch_packet(const IpIn::PacketType& p) const { prefetch_arrival(p.payload); }

protected:
    virtual void on_packet(const IpPacket& p) = 0;
    // The input port add_port gives port `name`: by default its arrivals take arrival() (the trace and freeze
    // checks, then on_packet through the virtual table). A final class overrides it to bind its own arrival
    // member (admit(), then its on_packet called directly), one indirect call less per arrival.
    virtual std::unique_ptr<IpIn> make_input(const std::string& name);
    // What arrival() does before on_packet: the traced connection's record, and false when the component is
    // frozen (the packet is dropped as such and goes no further).
    [[gnu::always_inline]] bool admit(const IpPacket& p) {
        if (traced(p)) [[unlikely]] note_received(p);
        if (frozen_) [[unlikely]] {
            drop(p, shared_.frozen);
            return false;
        }
        return true;
    }
    // Whether the component has per-connection state worth prefetching for an arrival (add_port then gives its
    // input ports the hook): endpoints, Muxes. prefetch_arrival does it (see prefetch_packet).
    virtual bool prefetches() const { return false; }
    virtual void prefetch_arrival(const IpPacket&) const {}
    // Sends `p` on port `port`, refusing it there (counted by the port) when it exceeds the MTU. `control`:
    // through queue 0 (the control queue where a port has one) instead of the port's data queue.
    void send(std::uint32_t port, const IpPacket& p, bool control = false) {
        if (traced(p) || check_mtu(p, mtu_) != MtuVerdict::Fits) [[unlikely]]
            return send_checked(port, p, control);
        port_at(port).send(p, p.size_bytes, control ? 0 : net::PortEngine::kDataQueue);
    }
    // Forwards `in` on port `port` with its outermost TTL decremented (the caller checked it is above 1): the
    // port's slot gets the one copy. Traced packets and MTU refusals take send() with a copy of their own.
    void forward(std::uint32_t port, const IpPacket& in) {
        if (traced(in) || check_mtu(in, mtu_) != MtuVerdict::Fits) [[unlikely]] {
            IpPacket p = in;
            p.decrement_ttl();
            return send_checked(port, p, false);
        }
        port_at(port).send_edited(in, in.size_bytes, net::PortEngine::kDataQueue,
                                  [](IpPacket& p) { p.decrement_ttl(); });
    }
    void drop(const IpPacket& p, net::DropReason r);
    void drop(const IpPacket& p, DropReason r) { drop(p, shared_.net_reason(r)); }
    // An endpoint here took `p`. Inline: every delivery calls it; the traced connection's record is out of line.
    void consumed(const IpPacket& p) {
        if (traced(p)) [[unlikely]] note_delivered(p);
        ++tally_.consumed;
    }
    bool traced(const IpPacket& p) const {
        return shared_.trace_addr != 0 &&
               ((p.inner.src == shared_.trace_addr && p.inner.src_port == shared_.trace_port) ||
                (p.inner.dst == shared_.trace_addr && p.inner.dst_port == shared_.trace_port));
    }

    const DcShared& shared_;

private:
    void arrival(const IpIn::PacketType& p);
    // The traced connection's Received record, out of line (an arrival saves no registers for it).
    [[gnu::noinline]] void note_received(const IpPacket& p);
    [[gnu::noinline]] void note_delivered(const IpPacket& p);
    // send()'s rare cases, out of line: the traced connection's hop record, the MTU refusal.
    void send_checked(std::uint32_t port, const IpPacket& p, bool control);

    // Output port `i`: in the block (its address from the component's first line), else through the table.
    IpOut& port_at(std::uint32_t i) { return i < block_used_ ? block_[i] : *outs_[i]; }

    // Hot: what every arrival and send reads, with the component's own fields and shared_ in its first line.
    IpOut* block_ = nullptr;       // reserve_ports' block: output ports 0 .. block_used_ - 1
    std::uint32_t block_used_ = 0;
    std::uint32_t mtu_;  // shared_.config.network.mtu
    std::uint32_t index_;
    bool frozen_ = false;
    std::uint32_t block_room_ = 0;     // ports the block holds
    std::vector<IpOut*> outs_;         // every output port, by number
    std::vector<std::unique_ptr<IpOut>> loose_;  // the ports outside the block

protected:
    Tally tally_;
    std::vector<HopRecord> hops_;

private:
    std::vector<std::unique_ptr<IpIn>> ins_;
};

// Bytes the components hold for connections, by part, as allocated (vector capacities, index tables): what
// stats.ananta.state reports. What a part cannot see of a container it does not own is named where it is counted.
struct StateBytes {
    std::size_t openers = 0;    // opening ends: slots, free list, tuple index, records of retired connections
    std::size_t servers = 0;    // passive ends: slots, free list, tuple index, UDP receivers
    std::size_t timers = 0;     // connection and traffic timers: armed deadlines and the id -> position table
    std::size_t nat = 0;        // Host Agent NAT bindings: pool, free list, both indexes
    std::size_t mux_flows = 0;  // Mux flow tables: pool, free list, index
    std::size_t sightings = 0;  // what Muxes and Host Agents saw of each connection ever, for the record merge
    std::size_t udp = 0;        // UDP payload bytes by flow that hosts keep for the record merge
    std::size_t total() const { return openers + servers + timers + nat + mux_flows + sightings + udp; }
    StateBytes& operator+=(const StateBytes& o) {
        openers += o.openers;
        servers += o.servers;
        timers += o.timers;
        nat += o.nat;
        mux_flows += o.mux_flows;
        sightings += o.sightings;
        udp += o.udp;
        return *this;
    }
};

// Where a connection's packets went, as one component saw them: merged into the connection records at finish.
struct Sighting {
    FiveTuple outside;  // client (or SNAT VIP:port) -> VIP:port
    Time at;
    IpAddr who = 0;  // the Mux, or the DIP the Host Agent delivered to
};

// The sightings of one component, kept for every connection it ever saw: 24 bytes each (the outside tuple, the
// time, and `who` as an index into the few addresses this component reports: a Mux's own, a host's VMs), in
// chunks, so that the log costs what it holds.
class SightingLog {
public:
    void add(const FiveTuple& outside, Time at, IpAddr who);
    std::size_t size() const { return log_.size(); }
    Sighting operator[](std::size_t i) const {
        const Entry& e = log_[i];
        return Sighting{FiveTuple{e.src, e.dst, e.src_port, e.dst_port, e.proto}, e.at, whos_[e.who]};
    }
    // All of them, in the order seen.
    std::vector<Sighting> all() const;
    std::size_t bytes() const { return log_.bytes() + whos_.capacity() * sizeof(IpAddr); }

private:
    struct Entry {
        IpAddr src = 0, dst = 0;
        std::uint16_t src_port = 0, dst_port = 0;
        IpProto proto = IpProto::Tcp;
        std::uint8_t who = 0;  // index into whos_
        Time at;
    };
    static_assert(sizeof(Entry) == 24, "a sighting packs into 24 bytes");
    // Not published: 16 entries (384 bytes) per chunk; a host sees tens of connections, a Mux thousands.
    ChunkedVector<Entry, 16> log_;
    std::vector<IpAddr> whos_;  // distinct `who`s, in order of first sighting (at most 255)
};

// What the report keeps of one connection (built from the opener's record and the sightings).
struct ConnectionReport {
    ConnectionRecord record;
    FiveTuple outside;
    std::uint32_t traffic = 0;
    IpProto proto = IpProto::Tcp;
};

// The opening ends of TCP connections and UDP pseudo-connections of one component, with their timers (ids are
// slots). A finished connection is retired: its record kept, its slot reused.
class Openers {
public:
    // `tcp` outlives the Openers (its connections refer to it).
    explicit Openers(const TcpConfig& tcp) : tcp_(tcp) {}
    // Opens a connection; packets to send are appended to `out`. Returns its slot (a timer id).
    std::uint32_t open(std::uint64_t id, const FiveTuple& tuple, std::uint32_t traffic, const TrafficConfig& t,
                       Time now, TcpOutput& out);
    // A packet for one of our connections (its inner tuple is server -> us); false when none matches.
    bool receive(const IpPacket& p, Time now, TcpOutput& out, std::uint32_t& slot);
    // Prefetches the slot receive() is likely to read for `p` (the index's home cell's, if its tag matches).
    void prefetch(const IpPacket& p) const {
        const std::uint32_t i = by_tuple_.guess(p.inner.reversed());
        if (i < slots_.size()) prefetch_object(slots_[i]);
    }
    void on_timer(std::uint32_t slot, Time now, TcpOutput& out);
    Time next_timer(std::uint32_t slot) const;
    // Retires the connection in `slot` if it is over; true if it was.
    bool retire_if_done(std::uint32_t slot);
    void set_outside(std::uint32_t slot, const FiveTuple& outside) { slots_[slot].outside = outside; }
    const FiveTuple& tuple(std::uint32_t slot) const { return tuple_of(slots_[slot]); }
    std::size_t open_count() const { return by_tuple_.size(); }
    // Records of retired connections, then of open ones (slot order), for the merge.
    std::vector<ConnectionReport> reports() const;
    std::size_t bytes_of_state() const;
    std::size_t slots() const { return slots_.size(); }

private:
    // An open connection (TCP or UDP; monostate: a free slot), its outside tuple (what the network beyond a
    // SNAT sees) and its traffic; the record lives in the connection until it retires.
    // Layout: 192 bytes on a line boundary (the chunks start on one), the outside tuple and traffic (read at
    // open and retirement) first, so that a TCP connection's hot tail (56 bytes) and the variant's index lie in
    // the slot's last line: a client's timer firing or ACK reads one line, not two or three.
    struct alignas(64) Slot {
        FiveTuple outside;
        std::uint32_t traffic = 0;
        std::variant<std::monostate, TcpConnection, UdpFlow> conn;
        bool live() const { return conn.index() != 0; }
    };
    static_assert(sizeof(Slot) == 192, "three cache lines");
    static ConnectionRecord record_of(const Slot& s) {
        return s.conn.index() == 1 ? std::get<1>(s.conn).record() : std::get<2>(s.conn).record();
    }
    static const FiveTuple& tuple_of(const Slot& s) {
        return s.conn.index() == 1 ? std::get<1>(s.conn).tuple() : std::get<2>(s.conn).record().tuple;
    }
    ConnectionReport report_of(const Slot& s) const {
        const ConnectionRecord r = record_of(s);
        return ConnectionReport{r, s.outside, s.traffic, r.tuple.proto};
    }
    auto key_of() const {
        return [this](std::uint32_t i) -> const FiveTuple& { return tuple_of(slots_[i]); };
    }

    const TcpConfig& tcp_;
    // Not published: 16 slots (3 KB) per chunk, small beside a client's thousands of connections and a host's
    // few.
    ChunkedVector<Slot, 16> slots_;
    std::vector<std::uint32_t> free_;
    TupleIndex by_tuple_;  // open connections by their tuple
    std::vector<ConnectionReport> retired_;
};

// The passive ends: TCP servers created on a SYN, UDP receivers created on a first datagram. A finished TCP
// server lingers (answering a repeated FIN) for kServerLinger before it is removed.
class Servers {
public:
    // `tcp` outlives the Servers (its connections refer to it).
    explicit Servers(const TcpConfig& tcp) : tcp_(tcp) {}
    // A packet for a server (inner tuple client -> us). Returns the slot touched (a timer id) or nullopt. `hint`:
    // the slot guessed to hold the packet's server (as returned for an earlier packet of its connection; any
    // value): used, without an index lookup, when that slot's server is live with the packet's tuple.
    std::optional<std::uint32_t> receive(const IpPacket& p, Time now, TcpOutput& out,
                                         std::uint32_t hint = TupleIndex::kNone);
    void on_timer(std::uint32_t slot, Time now, TcpOutput& out);
    Time next_timer(std::uint32_t slot) const;
    std::uint64_t bytes_received() const { return bytes_received_; }
    std::size_t open_count() const { return by_tuple_.size(); }
    std::size_t bytes_of_state() const;
    std::size_t slots() const { return slots_.size(); }
    // Not published: a finished server is kept 8 initial RTOs (covering a peer's FIN resent three times).
    Time linger() const { return tcp_.initial_rto * 8; }

private:
    auto key_of() const {
        return [this](std::uint32_t i) -> const FiveTuple& { return slots_[i].tuple(); };
    }

    const TcpConfig& tcp_;
    // Not published: 8 servers (256 bytes, four lines: a server never straddles two) per chunk; a host serves tens
    // of connections at once.
    ChunkedVector<TcpServer, 8> slots_;
    HeldSegments held_;  // segments beyond a gap, by slot
    std::vector<std::uint32_t> free_;
    TupleIndex by_tuple_;  // servers by their client -> server tuple
    std::uint64_t bytes_received_ = 0;
    std::unordered_map<FiveTuple, std::uint64_t, FiveTupleHasher> udp_;  // datagrams by flow
};

// The flow hash routers use for ECMP: the wire addresses (outer header when encapsulated), ports and protocol.
// `base`: tuple_hash_base of the seed. Always inlined: a router's ECMP choice calls it.
[[gnu::always_inline]] inline std::uint64_t wire_hash_from(const IpPacket& p, std::uint64_t base) {
    FiveTuple t = p.inner;
    t.src = p.wire_src();
    t.dst = p.wire_dst();
    return tuple_hash_from(t, base);
}
inline std::uint64_t wire_hash(const IpPacket& p, std::uint64_t seed) { return wire_hash_from(p, tuple_hash_base(seed)); }

}  // namespace loom::ananta
