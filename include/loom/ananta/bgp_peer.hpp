// The BGP side of a ToR in the data-center run: the pure BgpRouter behind the ToR's links to its Muxes. It takes
// the BGP and BFD packets addressed to the ToR, keeps one ECMP next-hop set per announced prefix, answers
// with Notifications, and logs what happened to each session for the run's report.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "loom/ananta/bgp.hpp"
#include "loom/ananta/bgp_wire.hpp"

namespace loom::ananta {

enum class BgpEventKind : std::uint8_t {
    SessionUp,      // an Open was accepted
    HoldExpired,    // the hold timer ran out
    FastDetection,  // the BFD-like detector ran out
    Closed,         // the Mux closed the session (Notification)
    Announced,      // an Update added the Mux to a prefix's next hops
    Withdrawn,      // a Withdraw removed it
};
// "session_up", "hold_expired", "fast_detection", "closed", "announced", "withdrawn".
const char* bgp_event_name(BgpEventKind k);

struct BgpEvent {
    Time at;
    IpAddr mux = 0;
    BgpEventKind kind = BgpEventKind::SessionUp;
};

// Receives each route change of a ToR's BGP (a prefix's next hops changed), to re-spread the tiers above.
class BgpRouteListener {
public:
    virtual void bgp_route_changed(std::uint32_t rack, const RouteChange& change, Time now) = 0;

protected:
    ~BgpRouteListener() = default;
};

class BgpPeer {
public:
    BgpPeer(const BgpConfig& bgp, const EcmpConfig& ecmp, IpAddr self);

    // The Mux at `mux` hangs off output port `port`.
    void attach(IpAddr mux, std::uint32_t port);
    // The message of a BGP or BFD packet addressed to this router, or nullopt (the packet is routed as usual).
    std::optional<BgpMessage> accepts(const IpPacket& p) const;
    void receive(const BgpMessage& m, Time now, BgpRouterOutput& out);
    void tick(Time now, BgpRouterOutput& out);
    Time next_deadline() const { return router_.next_deadline(); }

    // The port toward the Mux a flow to `dst` takes (flow_hash: the router's ECMP hash); -1 when no Mux
    // announces a prefix holding `dst`.
    std::int64_t route(IpAddr dst, std::uint64_t flow_hash) const;
    // Whether some prefix has at least one next hop.
    bool any_route() const { return routes_ > 0; }
    // The port of an attached Mux (asserted).
    std::uint32_t port_of(IpAddr mux) const;

    const BgpRouter& router() const { return router_; }
    IpAddr address() const { return router_.address(); }
    const std::vector<BgpEvent>& events() const { return events_; }
    // Messages received, by BgpKind.
    const std::array<std::uint64_t, 6>& received() const { return received_; }

private:
    void note(const BgpRouterOutput& out, std::size_t changes_before, std::size_t down_before, Time now);

    BgpRouter router_;
    std::map<IpAddr, std::uint32_t> ports_;
    std::map<Prefix, std::size_t> hop_count_;
    std::size_t routes_ = 0;  // prefixes with at least one next hop
    std::vector<BgpEvent> events_;
    std::array<std::uint64_t, 6> received_{};
};

}  // namespace loom::ananta
