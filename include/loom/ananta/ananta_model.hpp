// The Ananta model of `loom run`: builds the data center of a config (routers, Muxes, hosts with Host Agents
// and VMs, Internet client nodes) on net/ ports, applies the timed scenario, and at the end merges what each
// component saw into connection records, checks packet conservation and reports.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loom/ananta/dc_config.hpp"
#include "loom/ananta/dc_node.hpp"
#include "loom/ananta/endpoint_node.hpp"
#include "loom/ananta/mux_node.hpp"
#include "loom/ananta/router_node.hpp"
#include "loom/sim/registry.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/sim/timer.hpp"
#include "loom/stats/json.hpp"

namespace loom::ananta {

class AnantaModel;
class ControlPlane;
class HealthRelay;

// Applies the scenario's actions at their times. It is the experimenter's hand, not a part of the modelled
// system: it reaches the components directly, as the builder does. A driver (kDriver: it ranks before every other
// component), it acts in the Delivery phase, so an action at T is in force for every packet arriving at T (and
// none arriving at T - 1 ps).
class ScenarioDriver final : public sim::Component {
public:
    static constexpr std::string_view kSubsystem = "ananta";
    static constexpr bool kDriver = true;  // lowest source id: an action at T precedes every arrival at T
    ScenarioDriver(sim::Context& ctx, AnantaModel& model);
    void init() override;
    void finish() override;
    double wall_start() const { return wall_start_; }
    double wall_end() const { return wall_end_; }

private:
    void on_timer();
    AnantaModel& model_;
    sim::Timer timer_;
    std::size_t next_ = 0;
    double wall_start_ = 0, wall_end_ = 0;
};

// One ECMP change a router made (a Mux went down or came up).
struct EcmpChange {
    Time at;
    std::string router;
    double share_moved = 0;
};

// A Mux failure or recovery of the scenario with BGP sessions on, and what came of it (filled at the end).
struct MuxEventRecord {
    Time at;
    std::uint32_t mux = 0;
    ActionKind action = ActionKind::MuxDown;
    bool graceful = true;
};

class AnantaModel final : public sim::ModelInstance, private BgpRouteListener {
public:
    AnantaModel(sim::Simulator& sim, const DcConfig& config);

    void finish() override;
    std::string perf_fields() const override;
    std::optional<std::string> trace() const override;
    std::optional<std::string> text_summary() const override;
    // Packets, drops by reason, per-Mux counters, connections, state and DIPs per VIP, read during the run
    // (ananta_stats.cpp).
    std::vector<sim::Probe> probes(const std::string& key) const override;

    // Applies one scenario action now (the driver calls it in list order).
    void apply(const ActionConfig& a);
    const std::vector<ActionConfig>& actions() const { return actions_; }

    // For tests and reports.
    const DcShared& shared() const { return *shared_; }
    const std::vector<MuxNode*>& muxes() const { return muxes_; }
    const std::vector<HostNode*>& hosts() const { return hosts_; }
    const std::vector<ClientNode*>& clients() const { return clients_; }
    const std::vector<RouterNode*>& tors() const { return tors_; }
    const std::vector<RouterNode*>& spines() const { return spines_; }
    const std::vector<RouterNode*>& borders() const { return borders_; }
    const std::vector<DcNode*>& nodes() const { return nodes_; }
    const std::vector<EcmpChange>& ecmp_changes() const { return ecmp_changes_; }
    // The manager replicas and their glue ("control_plane"), or nullptr when it is off.
    const ControlPlane* control() const { return control_; }
    const std::vector<MuxEventRecord>& mux_events() const { return mux_events_; }
    bool bgp_sessions() const { return shared_->config.dynamics.bgp.sessions; }
    // The traced connection's hops, in time order (node order within a time).
    std::vector<HopRecord> traced_hops() const;
    // Every connection record with its Mux and DIP filled from the sightings (after finish()).
    const std::vector<ConnectionReport>& records() const { return records_; }
    std::uint64_t packet_hops() const;
    const stats::Json& summary() const { return summary_; }
    // Problems conservation found (empty when it holds).
    std::vector<std::string> conservation_problems() const;

private:
    void build();
    void configure_vips();
    void update_vip_routes();
    std::vector<WeightedDip> dips_of(const std::vector<DipSpec>& dips) const;
    void merge_records();
    stats::Json make_summary();
    void add_probes();  // ananta_stats.cpp
    // Fastpath, health probing and the hashing study (ananta_dynamics.cpp).
    void build_dynamics();
    void apply_dynamics(const ActionConfig& a);
    void dynamics_summary(stats::Json& s) const;
    std::string dynamics_text() const;
    // BGP sessions (ananta_bgp.cpp).
    void build_bgp();
    void apply_bgp(const ActionConfig& a);
    void bgp_route_changed(std::uint32_t rack, const RouteChange& change, Time now) override;
    stats::Json bgp_summary() const;
    std::string bgp_text() const;

    sim::Simulator& sim_;
    std::unique_ptr<DcShared> shared_;
    std::vector<ActionConfig> actions_;  // sorted by time, list order kept
    ScenarioDriver* driver_ = nullptr;
    std::vector<DcNode*> nodes_;
    std::vector<RouterNode*> borders_, spines_, tors_;
    std::vector<MuxNode*> muxes_;
    std::vector<HostNode*> hosts_;
    std::vector<ClientNode*> clients_;
    std::vector<bool> mux_live_;
    ControlPlane* control_ = nullptr;
    std::vector<std::vector<WeightedDip>> vip_dips_;  // current DIP list of each VIP
    std::vector<EcmpChange> ecmp_changes_;
    std::vector<MuxEventRecord> mux_events_;
    std::vector<ConnectionReport> records_;
    stats::Json summary_;
    double wall_s_ = 0;
    bool finished_ = false;
    sim::Probes probes_;
    HealthRelay* relay_ = nullptr;
    std::vector<IpAddr> fastpath_vips_;
    struct VmEvent {
        Time at;
        IpAddr dip = 0;
        bool down = true;
    };
    std::vector<VmEvent> vm_events_;
    std::uint64_t spoofs_sent_ = 0;
};

// Parses and cross-checks the config, then builds the model into `sim`; nullptr with `errors` filled when the
// config is bad (validate cross-checks included: scenario targets that name no port or component).
std::unique_ptr<AnantaModel> build(const config::Json& root, sim::Simulator& sim, config::Errors& errors);

void register_components(sim::Registry& registry);

}  // namespace loom::ananta
