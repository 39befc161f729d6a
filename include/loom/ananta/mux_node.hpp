// A Mux of the Ananta run: the pure Mux state machine (ananta/mux.hpp), inside its lifecycle with a BGP speaker
// (ananta/mux_lifecycle.hpp), behind one link to its ToR. Packets leave at the departure time the Mux's core
// model gives; commands come from the timed scenario. With BGP sessions on, the speaker's messages are packets
// to the ToR and the Mux fails and recovers through its lifecycle.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "loom/ananta/control_hooks.hpp"
#include "loom/ananta/dc_node.hpp"
#include "loom/ananta/departure_queue.hpp"
#include "loom/ananta/fastpath.hpp"
#include "loom/ananta/mux.hpp"
#include "loom/ananta/mux_lifecycle.hpp"
#include "loom/sim/channel.hpp"
#include "loom/sim/timer.hpp"

namespace loom::ananta {

class MuxNode final : public DcNode {
public:
    static constexpr std::string_view kSubsystem = "ananta";
    MuxNode(sim::Context& ctx, const DcShared& shared, std::uint32_t index, std::uint32_t number);

    void init() override;
    // A configuration command (from the builder at time 0 or from the scenario); rejections are recorded. It is
    // also kept as the state a recovering Mux receives (the manager's copy, until the manager runs here).
    void command(const MuxCommand& c);
    // Without BGP sessions: a failed Mux drops every packet that reaches it (mux_down) until it comes back.
    void set_failed(bool failed) { failed_ = failed; }
    bool failed() const { return failed_ || !alive(); }

    // With BGP sessions (called by the builder before init): the speaker sends its messages as packets.
    void enable_bgp();
    // mux_down: graceful (withdraw, keep forwarding for drain_time, close the sessions, stop) or silent.
    void go_down(bool graceful);
    // mux_up: boots an empty Mux that opens its sessions; it announces once it has its state (after the
    // configured delay, or at install_state()).
    void come_up();
    // mux_state: a booted Mux receives its state (every command so far) and announces its routes.
    void install_state();

    const Mux& mux() const { return life_.mux(); }
    const MuxLifecycle& lifecycle() const { return life_; }
    // Counters summed over every incarnation (a reboot starts the Mux's own from zero).
    MuxCounters counters() const;
    std::uint32_t number() const { return number_; }
    std::uint64_t pending() const override { return departures_.size(); }
    std::vector<Sighting> sightings() const { return sightings_.all(); }
    struct Rejection {
        Time at;
        CommandRejected what;
    };
    const std::vector<Rejection>& rejections() const { return rejections_; }
    std::uint64_t overload_reports() const { return overload_reports_; }
    StateBytes bytes_of_state() const;
    // The control plane that hears this Mux's overload reports (builder; none: reports stay local).
    void set_control(ControlHooks* control) { control_ = control; }
    // Packets that reached the Mux while it was down or dead (MuxDown drops).
    std::uint64_t black_holed() const { return black_holed_; }
    // BGP packets: sent, and lost in the Mux's own overloaded data path.
    std::uint64_t bgp_sent() const { return bgp_sent_; }
    std::uint64_t bgp_lost() const { return bgp_lost_; }

    // Fastpath and health (mux_dynamics.cpp). enable_fastpath: redirects are accepted from `ananta` and sent for
    // connections between two of `vips`; packets are then counted by destination VIP (mux_packets_by_vip).
    void enable_fastpath(const std::vector<IpAddr>& ananta, const std::vector<IpAddr>& vips);
    const MuxFastpath* fastpath() const { return fastpath_.get(); }
    const std::map<IpAddr, std::uint64_t>& packets_by_vip() const { return by_vip_; }
    // The endpoint on the manager relay's channel (created on first use): health changes arrive there.
    sim::ChannelPort& health_port();
    struct HealthApplied {
        Time at;
        IpAddr dip = 0;
        bool healthy = true;
    };
    const std::vector<HealthApplied>& health_applied() const { return health_applied_; }
    // A health change from the manager (the relay's channel or the control plane's command link); recorded
    // when applied.
    void apply_health(const SetDipHealth& c);

private:
    void on_redirect(const IpPacket& p);
    void observe_fastpath(const IpPacket& p);
    void on_health(std::uint32_t arg);
    bool alive() const { return life_.state() != MuxState::Off && life_.state() != MuxState::Silent; }
    void on_packet(const IpPacket& p) override;
    bool prefetches() const override { return true; }
    void prefetch_arrival(const IpPacket& p) const override {  // the flow entry Mux::handle will look up
        if (life_.has_mux()) life_.mux().flows().prefetch(p.inner);
    }
    void take(Time now);
    void on_depart();
    void on_tick();
    void on_bgp_timer();
    void on_stop();
    void on_state();
    void queue_departure(const IpPacket& p, Time at);
    void send_bgp();  // sends lout_.bgp
    void arm_bgp();

    void report_overload();

    // Hot: what every packet reads besides the Mux itself, first among the MuxNode's own fields (from a line's
    // start) and side by side, not spread behind the lifecycle's kilobytes: the flags, the output lists, the
    // departures.
    alignas(64) bool failed_ = false;
    bool bgp_ = false;  // enable_bgp: timers exist only then
    std::uint32_t number_;
    std::uint64_t overload_reports_ = 0;
    ControlHooks* control_ = nullptr;
    std::unique_ptr<MuxFastpath> fastpath_;
    std::uint64_t black_holed_ = 0, bgp_sent_ = 0, bgp_lost_ = 0;
    MuxLifecycleOutput lout_;
    DepartureQueue departures_;
    sim::Timer depart_timer_;
    MuxLifecycle life_;
    sim::Timer tick_timer_;
    SightingLog sightings_;
    std::vector<Rejection> rejections_;
    std::vector<FastpathRedirect> redirects_;
    std::map<IpAddr, std::uint64_t> by_vip_;
    std::unique_ptr<sim::ChannelPort> health_;
    std::vector<HealthApplied> health_applied_;
    // BGP (enable_bgp).
    std::vector<BgpMessage> boot_messages_;
    std::vector<MuxCommand> state_;
    MuxCounters past_;
    std::unique_ptr<sim::Timer> bgp_timer_, stop_timer_, state_timer_;
};

}  // namespace loom::ananta
