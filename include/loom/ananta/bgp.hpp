// BGP between Muxes and routers as pure state machines: a Mux's speaker opens sessions, announces and
// withdraws VIP prefixes and sends keepalives (and, with fast detection, BFD-like hellos); a router's side
// times sessions out (hold timer, or the fast detector) and keeps one ECMP next-hop set per prefix.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "loom/ananta/ecmp.hpp"
#include "loom/ananta/ip_packet.hpp"
#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"

namespace loom::ananta {

// The "bgp" config section, the same on Muxes and routers.
struct BgpConfig {
    // Published: routers drop a Mux when its hold timer, typically 30 s, expires.
    Time hold_time = Time::s(30);
    // Not published: a third of the hold time (RFC 4271's suggested ratio).
    Time keepalive_interval = Time::s(10);
    // A BFD-like detector beside the hold timer: hellos every fast_interval, a session is declared down after
    // fast_multiplier intervals without one. Not published: 100 ms x 3 (detection in 300 ms), common BFD values.
    bool fast_detection = false;
    Time fast_interval = Time::ms(100);
    std::int64_t fast_multiplier = 3;
    // Keepalives and hellos share the Mux's data queue unless a separate control queue is configured.
    bool control_queue = false;
};
config::Schema<BgpConfig> bgp_schema();

// A VIP (length 32) or a VIP subnet.
struct Prefix {
    IpAddr addr = 0;
    std::uint8_t length = 32;
    auto operator<=>(const Prefix&) const = default;
    bool contains(IpAddr a) const {
        if (length == 0) return true;
        const std::uint32_t mask = length >= 32 ? 0xffffffffU : ~(0xffffffffU >> length);
        return (a & mask) == (addr & mask);
    }
};

enum class BgpKind : std::uint8_t {
    Open,          // starts a session
    Keepalive,     // refreshes the hold timer
    Update,        // announces `prefix`
    Withdraw,      // withdraws `prefix`
    Notification,  // closes the session (a graceful shutdown's last message)
    Hello,         // fast detection (BFD-like)
};
// "open", "keepalive", "update", "withdraw", "notification", "hello".
const char* bgp_kind_name(BgpKind k);

// One message from a speaker (`from`) to a router (`to`). `control` tells the adapter to use the output
// port's control queue (set when BgpConfig::control_queue is); otherwise it waits with the data packets.
struct BgpMessage {
    BgpKind kind = BgpKind::Keepalive;
    IpAddr from = 0;
    IpAddr to = 0;
    Prefix prefix;
    bool control = false;
    bool operator==(const BgpMessage&) const = default;
};
// Size on the wire at the IP layer: BGP over TCP (19-byte header; OPEN 29, UPDATE 27 + 5 per prefix, a
// withdrawal 23 + 5, NOTIFICATION 21) plus 40 bytes of TCP/IP; a hello is a BFD control packet (24) over
// UDP/IP (28).
std::uint32_t wire_bytes(const BgpMessage& m);

// The Mux side: one session to each router. Until state_installed() it opens sessions and keeps them alive
// but announces nothing, so a recovering Mux attracts no traffic before it knows its VIPs. Keepalives are sent
// at start + k*keepalive_interval (k >= 1), hellos at start + k*fast_interval, whatever else is sent.
class BgpSpeaker {
public:
    BgpSpeaker(const BgpConfig& config, IpAddr self, std::vector<IpAddr> routers);

    // Opens every session (Open to each router) and restarts the timers; announces nothing yet.
    void start(Time now, std::vector<BgpMessage>& out);
    // The Mux has its state: every prefix configured so far is announced.
    void state_installed(Time now, std::vector<BgpMessage>& out);
    void announce(const Prefix& p, Time now, std::vector<BgpMessage>& out);
    void withdraw(const Prefix& p, Time now, std::vector<BgpMessage>& out);
    // Withdraws every prefix on the wire but keeps the list (a draining Mux): nothing is announced until the
    // next start() and state_installed().
    void withdraw_all(Time now, std::vector<BgpMessage>& out);
    // Graceful: withdraws every announced prefix, then closes the sessions (Notification). Sends nothing after.
    void shutdown(Time now, std::vector<BgpMessage>& out);
    // Silent death: nothing more is sent (routers notice only by their timers).
    void go_silent();
    // Sends the keepalives and hellos due at or before `now`.
    void tick(Time now, std::vector<BgpMessage>& out);
    // When tick() next has something to send; Time::max() when nothing is scheduled.
    Time next_deadline() const;

    bool running() const { return running_; }
    bool announcing() const { return running_ && installed_; }
    const std::set<Prefix>& prefixes() const { return prefixes_; }

private:
    void send(BgpKind k, const Prefix& p, std::vector<BgpMessage>& out) const;

    BgpConfig config_;
    IpAddr self_;
    std::vector<IpAddr> routers_;
    std::set<Prefix> prefixes_;
    bool running_ = false;
    bool installed_ = false;
    Time next_keepalive_ = Time::max();
    Time next_hello_ = Time::max();
};

// Why a router's session ended.
enum class SessionEnd : std::uint8_t { HoldExpired, FastDetection, Notification };

struct RouteChange {
    Prefix prefix;
    std::vector<NextHop> hops;  // the new set (Mux addresses), sorted
    double share_moved = 0;     // of sampled flows now taking another next hop (1 to or from an empty set)
};
struct SessionDown {
    IpAddr peer = 0;
    SessionEnd reason = SessionEnd::HoldExpired;
    Time at;
};
struct BgpRouterOutput {
    std::vector<RouteChange> changes;
    std::vector<SessionDown> down;
    void clear() {
        changes.clear();
        down.clear();
    }
};

// The router side: a session is up from its Open; any message refreshes the hold timer and hellos refresh
// the fast detector. A peer last heard at t is up at t + hold_time - 1ps and down at t + hold_time (with fast
// detection, last hello at h: down at h + fast_multiplier*fast_interval). A session that goes down takes its
// announcements with it. Each prefix's next hops are the peers announcing it (as NextHop = the peer's
// address); every change goes through change_next_hops().
class BgpRouter {
public:
    // `share_samples` flows (sub-streams of the ECMP hash seed) measure each change's share moved.
    BgpRouter(const BgpConfig& bgp, const EcmpConfig& ecmp, IpAddr self, std::uint64_t share_samples = 1024);

    void handle(const BgpMessage& m, Time now, BgpRouterOutput& out);
    // Ends the sessions whose timers have run out at `now`.
    void tick(Time now, BgpRouterOutput& out);
    Time next_deadline() const;

    // Next hops of the longest announced prefix holding `dst` (sorted); empty when none.
    std::vector<NextHop> next_hops(IpAddr dst) const;
    // The next hop of a flow toward `dst`; nullopt when no Mux announces it.
    std::optional<NextHop> select(IpAddr dst, std::uint64_t flow_hash) const;
    bool session_up(IpAddr peer) const { return sessions_.contains(peer); }
    std::size_t sessions() const { return sessions_.size(); }
    IpAddr address() const { return self_; }

private:
    struct Session {
        Time last_heard;
        Time last_hello;
        std::set<Prefix> announced;
    };
    struct Route {
        std::set<NextHop> hops;
        std::unique_ptr<EcmpSelector> selector;
    };
    Time expiry(const Session& s) const;
    void end(IpAddr peer, SessionEnd reason, Time now, BgpRouterOutput& out);
    void set_hop(const Prefix& p, IpAddr peer, bool present, BgpRouterOutput& out);
    const Route* lookup(IpAddr dst) const;

    BgpConfig bgp_;
    EcmpConfig ecmp_;
    IpAddr self_;
    std::uint64_t share_samples_;
    std::map<IpAddr, Session> sessions_;
    std::map<Prefix, Route> routes_;
};

}  // namespace loom::ananta
