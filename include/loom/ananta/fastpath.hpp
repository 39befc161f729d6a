// Fastpath, both sides, as pure state machines. When a VIP-to-VIP connection's handshake completes through the
// Muxes, the destination VIP's Mux sends a redirect toward the source VIP; a Mux of the source VIP resolves
// which DIP owns the source port (its SNAT mapping) and redirects both hosts; each Host Agent, accepting
// redirects only from Ananta's own addresses, then sends that connection host to host, both ways.
#pragma once

#include <cstdint>
#include <set>
#include <unordered_map>
#include <vector>

#include "loom/ananta/flow_table.hpp"
#include "loom/ananta/ip_packet.hpp"
#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"

namespace loom::ananta {

class Mux;

// The "fastpath" config section (the paper gives no values).
struct FastpathConfig {
    // Fastpath for every VIP of the run (a VIP's own "fastpath": true turns it on for that VIP alone). Off by
    // default: the paper describes it as an option of intra-DC VIP-to-VIP traffic.
    bool enabled = false;
    // Not published: a Mux waits this long after a connection's SYN for the ACK that completes the handshake.
    Time handshake_timeout = Time::s(10);
    // Not published: a host forgets a redirect unused this long (the Host Agent's NAT idle timeout).
    Time idle_timeout = Time::s(240);
};
config::Schema<FastpathConfig> fastpath_schema();

// A redirect. `tuple` is the connection as the source host sends it (source VIP:port -> destination VIP:port).
// Stage 1 (destination's Mux -> source VIP) carries `destination`; stage 2 (source's Mux -> each host) carries
// both ends.
struct FastpathRedirect {
    IpAddr from = 0;
    IpAddr to = 0;
    FiveTuple tuple;
    FlowTarget source;
    FlowTarget destination;
    bool operator==(const FastpathRedirect&) const = default;
};
// Size on the wire: a 32-byte message over UDP/IP (not published; the model's own encoding).
inline constexpr std::uint32_t kFastpathRedirectBytes = 32 + kUdpHeaderBytes + kIpHeaderBytes;

struct MuxFastpathCounters {
    std::uint64_t handshakes = 0;     // completions seen (stage-1 redirects sent)
    std::uint64_t resolved = 0;       // stage-1 redirects turned into host redirects
    std::uint64_t unresolved = 0;     // source port with no SNAT mapping on this Mux
    std::uint64_t refused = 0;        // redirects not from an Ananta address
};

// The Mux's half. Fastpath is on per VIP and needs both VIPs on; set it alike on every Mux of the pool.
class MuxFastpath {
public:
    MuxFastpath(const FastpathConfig& config, IpAddr self, std::vector<IpAddr> ananta_addresses);

    void set_enabled(IpAddr vip, bool on);
    bool enabled(IpAddr vip) const { return enabled_.contains(vip); }
    // Every packet the Mux forwarded (as it arrived, before encapsulation), with its target: a SYN opens a
    // pending handshake, the connection's next packet with ACK set completes it and a stage-1 redirect to the
    // source VIP goes out. Also expires stale handshakes, at most once per handshake_timeout.
    void observe(const IpPacket& packet, const FlowTarget& target, Time now, std::vector<FastpathRedirect>& out);
    // A stage-1 redirect that reached this Mux (addressed to a VIP it serves): resolves the source port's DIP
    // through `mux`'s SNAT mappings and sends a redirect to each host (one when both VMs share a host).
    void handle(const FastpathRedirect& r, const Mux& mux, Time now, std::vector<FastpathRedirect>& out);
    // Forgets handshakes pending for handshake_timeout or longer.
    void expire(Time now);

    std::size_t pending() const { return pending_.size(); }
    const MuxFastpathCounters& counters() const { return counters_; }

private:
    FastpathConfig config_;
    IpAddr self_;
    std::set<IpAddr> ananta_;
    std::set<IpAddr> enabled_;
    std::unordered_map<FiveTuple, Time, FiveTupleHasher> pending_;  // lookups only
    Time next_expiry_ = Time::zero();
    MuxFastpathCounters counters_;
};

// The Host Agent's half: the redirects it accepted, keyed by the tuple this host sends.
class HostFastpath {
public:
    HostFastpath(const FastpathConfig& config, IpAddr self) : config_(config), self_(self) {}

    void set_ananta_addresses(std::vector<IpAddr> addresses) { ananta_ = {addresses.begin(), addresses.end()}; }
    // Accepts a stage-2 redirect from an Ananta address that names this host as one end; false = refused.
    bool accept(const FastpathRedirect& r, Time now);
    // A packet on its way out (already NATed to its VIP): when a redirect covers its tuple, wraps it in
    // IP-in-IP this host -> the peer DIP and returns true; otherwise leaves it for the router.
    bool route(IpPacket& p, Time now);
    void expire(Time now);
    std::size_t size() const { return peers_.size(); }

private:
    struct Peer {
        IpAddr dip = 0;
        Time last_used;
    };
    FastpathConfig config_;
    IpAddr self_;
    std::set<IpAddr> ananta_;
    std::unordered_map<FiveTuple, Peer, FiveTupleHasher> peers_;  // lookups only
};

}  // namespace loom::ananta
