// A Mux of the Ananta run: the pure Mux state machine (ananta/mux.hpp) behind one link to its ToR. Packets
// leave at the departure time the Mux's core model gives; commands come from the timed scenario.
#pragma once

#include <queue>
#include <vector>

#include "loom/ananta/control_hooks.hpp"
#include "loom/ananta/dc_node.hpp"
#include "loom/ananta/mux.hpp"
#include "loom/sim/timer.hpp"

namespace loom::ananta {

class MuxNode final : public DcNode {
public:
    static constexpr std::string_view kSubsystem = "ananta";
    MuxNode(sim::Context& ctx, const DcShared& shared, std::uint32_t index, std::uint32_t number);

    void init() override;
    // A configuration command (from the builder at time 0 or from the scenario); rejections are recorded.
    void command(const MuxCommand& c);
    // A failed Mux drops every packet that reaches it (mux_down) until it comes back.
    void set_failed(bool failed) { failed_ = failed; }
    bool failed() const { return failed_; }

    const Mux& mux() const { return mux_; }
    std::uint32_t number() const { return number_; }
    std::uint64_t pending() const override { return departures_.size(); }
    const std::vector<Sighting>& sightings() const { return sightings_; }
    struct Rejection {
        Time at;
        CommandRejected what;
    };
    const std::vector<Rejection>& rejections() const { return rejections_; }
    std::uint64_t overload_reports() const { return overload_reports_; }
    std::size_t bytes_of_state() const;
    // The control plane that hears this Mux's overload reports (builder; none: reports stay local).
    void set_control(ControlHooks* control) { control_ = control; }

private:
    struct Departure {
        std::int64_t at;
        std::uint64_t seq;
        IpPacket packet;
        bool operator>(const Departure& o) const { return at > o.at || (at == o.at && seq > o.seq); }
    };
    void on_packet(const IpPacket& p) override;
    void take(Time now);
    void on_depart();
    void on_tick();

    Mux mux_;
    std::uint32_t number_;
    bool failed_ = false;
    MuxOutput out_;
    std::priority_queue<Departure, std::vector<Departure>, std::greater<>> departures_;
    std::uint64_t departure_seq_ = 0;
    sim::Timer depart_timer_;
    sim::Timer tick_timer_;
    std::vector<Sighting> sightings_;
    std::vector<Rejection> rejections_;
    std::uint64_t overload_reports_ = 0;
    ControlHooks* control_ = nullptr;
    void report_overload();
};

}  // namespace loom::ananta
