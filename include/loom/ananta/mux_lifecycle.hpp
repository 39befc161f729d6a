// A Mux's life as a pure state machine: the Mux logic plus its BGP speaker, through boot, waiting for state,
// serving, draining, and the two ways of failing: graceful (withdraw first, then close the sessions) and
// silent (stop forwarding and stop keepalives: routers notice only when their timers run out).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "loom/ananta/bgp.hpp"
#include "loom/ananta/mux.hpp"

namespace loom::ananta {

enum class MuxState : std::uint8_t {
    Off,            // never booted, or shut down gracefully
    AwaitingState,  // booted with empty state: sessions open, nothing announced, commands accepted
    Serving,        // state installed: routes announced, forwarding
    Draining,       // routes withdrawn, still forwarding what arrives
    Silent,         // died silently: sends nothing, forwards nothing
};
// "off", "awaiting_state", "serving", "draining", "silent".
const char* mux_state_name(MuxState s);

struct MuxLifecycleOutput {
    MuxOutput mux;
    std::vector<BgpMessage> bgp;
    void clear() {
        mux.clear();
        bgp.clear();
    }
};

// A boot (first or after a failure) starts from an empty Mux: flow state and configuration are lost and must
// be installed again (by the manager, or by the scenario until then); state_installed() then announces the
// prefixes. Packets that reach a Mux in Off or Silent are MuxDown drops (that is the black-holed traffic of a
// silent death); commands reaching it are lost.
class MuxLifecycle {
public:
    MuxLifecycle(const MuxConfig& mux, const BgpConfig& bgp, IpAddr self, std::vector<IpAddr> routers);

    // Prefixes (VIPs or VIP subnets) this Mux announces when serving; kept across restarts.
    void add_prefix(const Prefix& p, Time now, MuxLifecycleOutput& out);
    void remove_prefix(const Prefix& p, Time now, MuxLifecycleOutput& out);

    void boot(Time now, MuxLifecycleOutput& out);             // Off or Silent -> AwaitingState
    void state_installed(Time now, MuxLifecycleOutput& out);  // AwaitingState -> Serving
    void drain(Time now, MuxLifecycleOutput& out);            // Serving -> Draining (withdraws every prefix)
    void shutdown(Time now, MuxLifecycleOutput& out);         // -> Off: withdraws (if not drained), closes
    void fail_silent(Time now);                               // -> Silent

    void handle(const MuxCommand& command, Time now, MuxLifecycleOutput& out);
    void handle(const IpPacket& packet, Time now, MuxLifecycleOutput& out);
    // BGP keepalives and hellos due, and the Mux's own windows and expiry.
    void tick(Time now, MuxLifecycleOutput& out);
    // Only the BGP part of tick() (an adapter that runs the Mux's windows on its own timer).
    void tick_bgp(Time now, MuxLifecycleOutput& out);
    // A message from a router (a Notification closing a session); ignored unless alive.
    void handle(const BgpMessage& m, Time now);
    Time next_deadline() const { return speaker_.next_deadline(); }

    MuxState state() const { return state_; }
    bool has_mux() const { return mux_.has_value(); }
    const Mux& mux() const;  // the current incarnation (asserted to exist)
    Mux& mux();
    const BgpSpeaker& speaker() const { return speaker_; }
    std::uint64_t boots() const { return boots_; }
    std::uint64_t lost_packets() const { return lost_packets_; }    // MuxDown drops
    std::uint64_t lost_commands() const { return lost_commands_; }  // commands reaching a dead Mux

private:
    bool alive() const { return state_ != MuxState::Off && state_ != MuxState::Silent; }

    // Read by every packet (alive()): first, in the lifecycle's first line, not in one past the Mux's kilobytes.
    MuxState state_ = MuxState::Off;
    MuxConfig config_;
    IpAddr self_;
    BgpSpeaker speaker_;
    std::optional<Mux> mux_;
    std::uint64_t boots_ = 0;
    std::uint64_t lost_packets_ = 0;
    std::uint64_t lost_commands_ = 0;
};

}  // namespace loom::ananta
