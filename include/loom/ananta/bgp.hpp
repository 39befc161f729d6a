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

    // The data-center run: sessions between each Mux and its ToR as packets. Off: routers learn which Muxes
    // live from the scenario's mux_down/mux_up directly (no BGP packets), as before.
    bool sessions = false;
    // A graceful mux_down withdraws the Mux's routes, keeps forwarding what still arrives for drain_time, then
    // closes the sessions and stops. Not published: 1 s, many times a router's update processing.
    Time drain_time = Time::s(1);
    // Where a recovering Mux gets its state before it announces: after state_delay (standing for the manager,
    // which is not in the run yet) or from a mux_state scenario action.
    enum class StateSource : std::uint8_t { Delay, Action };
    StateSource state_source = StateSource::Delay;
    // Not published: 500 ms for the manager to push a pool's configuration to a fresh Mux.
    Time state_delay = Time::ms(500);
    // A speaker whose session a router closed (hold expiry, or a message on a session the router no longer
    // has) opens it again after connect_retry. Not published for Ananta; RFC 4271 suggests 120 s for
    // ConnectRetryTime, implementations restart an idle peer after seconds: 5 s.
    Time connect_retry = Time::s(5);
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
    // A message from a router. A Notification means the router closed the session: nothing more is sent to it
    // until it is opened again, connect_retry later (Open, then the announced prefixes).
    void handle(const BgpMessage& m, Time now);
    // Sends the keepalives and hellos due at or before `now`, and the re-opens due.
    void tick(Time now, std::vector<BgpMessage>& out);
    // When tick() next has something to send; Time::max() when nothing is scheduled.
    Time next_deadline() const;

    bool running() const { return running_; }
    bool announcing() const { return running_ && installed_; }
    const std::set<Prefix>& prefixes() const { return prefixes_; }
    // Sessions a router closed that wait for their re-open.
    std::size_t closed_sessions() const { return reopen_at_.size(); }
    std::uint64_t reopens() const { return reopens_; }

private:
    void send(BgpKind k, const Prefix& p, std::vector<BgpMessage>& out) const;
    void send_to(IpAddr router, BgpKind k, const Prefix& p, std::vector<BgpMessage>& out) const;

    BgpConfig config_;
    IpAddr self_;
    std::vector<IpAddr> routers_;
    std::set<Prefix> prefixes_;
    bool running_ = false;
    bool installed_ = false;
    Time next_keepalive_ = Time::max();
    Time next_hello_ = Time::max();
    std::map<IpAddr, Time> reopen_at_;  // closed by the router: when to open again
    std::uint64_t reopens_ = 0;
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
    // Messages to peers: a Notification when the router's timer ends a session, and in answer to a BGP message
    // (not a hello) from a peer without a session, so that the speaker learns to open it again.
    std::vector<BgpMessage> replies;
    void clear() {
        changes.clear();
        down.clear();
        replies.clear();
    }
};

// The router side: a session is up from its Open; any message refreshes the hold timer and hellos refresh
// the fast detector. A peer last heard at t is up at t + hold_time - 1ps and down at t + hold_time (with fast
// detection, last hello at h: down at h + fast_multiplier*fast_interval). A session that goes down takes its
// announcements with it (the peer is sent a Notification). Each prefix's next hops are the peers announcing it (as NextHop = the peer's
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
