// A data-center router (ToR, spine or border) of the Ananta run: forwards IP packets by the wire destination
// (the outer header when encapsulated) with ECMP at each tier, decrements TTL, and drops what it cannot route.
#pragma once

#include <memory>
#include <vector>

#include "loom/ananta/bgp_peer.hpp"
#include "loom/ananta/dc_node.hpp"
#include "loom/ananta/ecmp.hpp"
#include "loom/sim/timer.hpp"

namespace loom::ananta {

enum class Tier : std::uint8_t { Tor, Spine, Border };

// Routes, by the kind of the wire destination (addr::decode):
//   ToR r     host or VM of rack r -> its host port; a Mux on this ToR -> its port; a VIP -> ECMP over the live
//             Muxes on this ToR, or up when it has none; anything else -> ECMP over the spines.
//   spine     host, VM or Mux -> the ToR of its rack; a VIP -> ECMP over the ToRs holding live Muxes;
//             an Internet client -> ECMP over the borders.
//   border    an Internet client -> its client node's port; anything in the data center -> ECMP over spines.
// With BGP sessions a ToR's VIP routes are its BgpPeer's instead: ECMP over the Muxes announcing the VIP.
// ECMP hashes the wire 5-tuple with the tier's seed (ecmp.hash_seed + tier), the same on every router of a tier.
class RouterNode final : public DcNode {
public:
    static constexpr std::string_view kSubsystem = "ananta";
    RouterNode(sim::Context& ctx, const DcShared& shared, std::uint32_t index, Tier tier, std::uint32_t number);

    // Wiring, by the builder (port numbers from add_port).
    // rack slot / rack / client node
    void set_down_port(std::uint32_t key, std::uint32_t port) { set(down_ports_, key, port, down_, down_count_); }
    void set_mux_port(std::uint32_t mux, std::uint32_t port) { set(mux_ports_, mux, port, mux_port_, mux_count_); }
    void set_up_ports(std::vector<NextHop> ports);
    // The ECMP group toward the Muxes (ToR: local Mux ports; spine: ToR ports). Returns the share of sampled
    // flows that moved (0 on the first call); an empty set means "no Mux": VIP traffic goes up or is dropped.
    double set_vip_ports(std::vector<NextHop> ports);

    // BGP sessions with the Muxes on this ToR (by the builder, before init); route changes go to `listener`.
    void enable_bgp(std::unique_ptr<BgpPeer> peer, BgpRouteListener* listener);
    const BgpPeer* bgp() const { return bgp_.get(); }
    std::int64_t mux_port(std::uint32_t mux) const { return at(mux_port_, mux_count_, mux); }

    std::size_t vip_ports() const { return vip_->size(); }
    Tier tier() const { return tier_; }
    std::uint32_t number() const { return number_; }
    const std::vector<double>& shares_moved() const { return moved_; }

private:
    // v[key] = port, growing v (with -1) as needed; `data` and `count` follow it.
    static void set(std::vector<std::int64_t>& v, std::uint32_t key, std::uint32_t port, const std::int64_t*& data,
                    std::uint32_t& count);
    static std::int64_t at(const std::int64_t* data, std::uint32_t count, std::uint32_t k) {
        return k < count ? data[k] : -1;
    }
    void on_packet(const IpPacket& p) override;
    // Every router hop's arrival: its input ports call it directly (make_input), and it calls on_packet
    // without the virtual table.
    std::unique_ptr<IpIn> make_input(const std::string& name) override;
    void arrival(const IpIn::PacketType& p) {
        if (admit(p.payload)) RouterNode::on_packet(p.payload);
    }
    std::int64_t route(const IpPacket& p) const;

    // Hot: what routing a packet reads, besides DcNode's first line, in two lines of their own (the first starts
    // a line, whatever the size of DcNode's cold part): a hop down to a known port (the rack's hosts at a ToR, a
    // rack at a spine, a client at a border) and an ECMP choice upward read the first only (with the table it
    // points to); a choice among the VIP's next hops reads the second too.
    alignas(64) std::uint64_t hash_base_;  // tuple_hash_base(seed_): the flow hash's seed step, once
    const std::int64_t* down_ = nullptr;  // down_ports_.data()
    std::uint32_t down_count_ = 0;        // down_ports_.size()
    std::uint32_t number_;  // rack for a ToR
    Tier tier_;
    bool has_bgp_ = false;  // bgp_ is set
    EcmpView up_view_;   // up_->view(), taken at each change of up_
    EcmpView vip_view_;  // vip_->view(), taken at each change of vip_
    const std::int64_t* mux_port_ = nullptr;  // mux_ports_.data()
    std::uint32_t mux_count_ = 0;             // mux_ports_.size()
    std::unique_ptr<BgpPeer> bgp_;  // enable_bgp only
    std::vector<std::int64_t> down_ports_;  // by rack slot (ToR), rack (spine) or client node (border)
    std::vector<std::int64_t> mux_ports_;   // ToR: by Mux number
    std::unique_ptr<EcmpSelector> up_;
    std::unique_ptr<EcmpSelector> vip_;
    std::uint64_t seed_;
    std::vector<double> moved_;
    // BGP (enable_bgp only).
    void on_bgp_timer();
    void bgp_done();  // acts on bgp_out_ and re-arms the timer
    std::unique_ptr<sim::Timer> bgp_timer_;
    BgpRouteListener* listener_ = nullptr;
    BgpRouterOutput bgp_out_;
};

}  // namespace loom::ananta
