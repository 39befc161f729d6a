#include "loom/fabric/monitor.hpp"

#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "loom/base/error.hpp"
#include "loom/fabric/terminal.hpp"

namespace loom::fabric {

Monitor::Monitor(sim::Context& ctx, const FabricSetup& net)
    : sim::Component(ctx),
      net_(net),
      measure_(ctx, "measure", this, sim::handler<&Monitor::on_notice>),
      timer_(ctx, this, sim::handler<&Monitor::on_sample>, sim::Phase::Report) {}

FabricCounters Monitor::totals() const {
    FabricCounters t;
    for (const FabricCounters* c : counters_) t.add(*c);
    return t;
}

std::int64_t Monitor::marked_outstanding() const {
    std::int64_t n = 0;
    for (const Terminal* term : marked_) n += term->marked().generated - term->marked().ejected;
    return n;
}

void Monitor::on_notice(std::uint32_t ejected_cycle) {
    if (stats_.phase != MeasurePhase::Drain) return;
    const std::int64_t now = net_.clock.edge_at_or_before(Time::ps(ctx().now_ps()));
    const std::int64_t c = now - static_cast<std::uint32_t>(static_cast<std::uint32_t>(now) - ejected_cycle);
    if (c <= drain_from_) return;  // counted by the sample that began the drain
    if (--outstanding_ == 0) finish_run();
}

void Monitor::init() {
    wall_start_ = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    FabricStats& s = stats_;
    if (net_.traffic.pattern == workload::TrafficPatternKind::Trace) {
        s.phase = MeasurePhase::Measure;
        s.measure_start = 0;
        return;
    }
    if (net_.traffic.rate <= 0) {
        // Nothing is ever generated: an empty window, measured at once.
        s.phase = MeasurePhase::Done;
        return;
    }
    ctx().sim().announce_phase("warm-up");
    timer_.arm_at(Time::ps(net_.clock.edge(net_.traffic.measurement.sample_cycles - 1).count()));
}

bool Monitor::steady(const Sample& a, const Sample& b) const {
    const double theta = net_.traffic.measurement.warmup_threshold;
    if (a.packets_ejected == 0 || b.packets_ejected == 0) return false;
    if (std::abs(b.mean_latency - a.mean_latency) > theta * std::max(a.mean_latency, b.mean_latency)) return false;
    // Backlog growth within theta of the flits generated plus one standard deviation of a Poisson count.
    const double allowed = theta * static_cast<double>(b.flits_generated) +
                           static_cast<double>(net_.traffic.packet_flits) *
                               std::sqrt(static_cast<double>(b.packets_generated));
    return static_cast<double>(b.backlog - a.backlog) <= allowed;
}

void Monitor::saturate(std::string reason) {
    FabricStats& s = stats_;
    s.saturated = true;
    s.saturation_reason = std::move(reason);
    finish_run();
}

void Monitor::finish_run() {
    stats_.phase = MeasurePhase::Done;
    ctx().sim().stop();
}

void Monitor::on_sample() {
    const std::int64_t c = net_.clock.edge_at_or_before(Time::ps(ctx().now_ps()));
    const workload::MeasurementConfig& m = net_.traffic.measurement;
    FabricStats& s = stats_;
    FabricCounters now = totals();
    now.cycle = c;
    Sample x;
    x.end_cycle = c;
    x.flits_generated = now.flits_generated - last_.flits_generated;
    x.packets_generated = now.packets_generated - last_.packets_generated;
    x.flits_ejected = now.flits_ejected - last_.flits_ejected;
    x.packets_ejected = now.packets_ejected - last_.packets_ejected;
    if (x.packets_ejected > 0)
        x.mean_latency = static_cast<double>(now.latency_cycles - last_.latency_cycles) /
                         static_cast<double>(x.packets_ejected);
    x.backlog = now.flits_generated - now.flits_ejected;
    samples_.push_back(x);
    last_ = now;

    // Deadlock watchdog: flits in the network and none delivered for deadlock_cycles.
    const std::int64_t in_network = now.flits_injected - now.flits_ejected;
    idle_cycles_ = (x.flits_ejected == 0 && in_network > 0) ? idle_cycles_ + m.sample_cycles : 0;
    if (idle_cycles_ >= m.deadlock_cycles)
        throw ModelError(fmt::format("fabric: no flit ejected for {} cycles (cycle {}) while {} flits are in the "
                                     "network: deadlock",
                                     idle_cycles_, c, in_network));

    const double terminals = static_cast<double>(net_.pattern.terminals());
    const double per = terminals * static_cast<double>(m.sample_cycles);
    // Accepted and offered load over the last (up to) three samples: what a saturated run reports.
    {
        std::int64_t ej = 0, gen = 0, n = 0;
        for (auto it = samples_.rbegin(); it != samples_.rend() && n < 3; ++it, ++n) {
            ej += it->flits_ejected;
            gen += it->flits_generated;
        }
        s.last_accepted = static_cast<double>(ej) / (per * static_cast<double>(n));
        s.last_offered = static_cast<double>(gen) / (per * static_cast<double>(n));
    }

    switch (s.phase) {
        case MeasurePhase::Warmup: {
            s.warmup_samples = static_cast<std::int64_t>(samples_.size());
            const auto k = static_cast<std::int32_t>(samples_.size());
            if (k >= m.min_warmup_samples && steady(samples_[samples_.size() - 2], samples_.back())) {
                s.phase = MeasurePhase::Measure;
                ctx().sim().announce_phase("measure");
                s.measure_start = c + 1;
                s.measure_end = c + 1 + m.measure_cycles;
                s.window_start = now;
                // Every terminal marks the packets it generates from c + 1 on.
                const Time next = Time::ps(net_.clock.edge(c + 1).count() - ctx().now_ps());
                for (std::int32_t t = 0; t < net_.pattern.terminals(); ++t)
                    measure_.send(static_cast<std::uint32_t>(t), 0, next);
            } else if (k >= m.max_warmup_samples) {
                saturate(fmt::format("no steady state after {} warm-up samples of {} cycles: last sample mean "
                                     "latency {:.1f} cycles, backlog {} flits",
                                     k, m.sample_cycles, x.mean_latency, x.backlog));
                return;
            }
            break;
        }
        case MeasurePhase::Measure: {
            if (c + 1 < s.measure_end) break;
            s.window_end = now;
            const double cycles = static_cast<double>(s.measure_end - s.measure_start);
            const double offered =
                static_cast<double>(now.flits_generated - s.window_start.flits_generated) / (terminals * cycles);
            const double accepted =
                static_cast<double>(now.flits_ejected - s.window_start.flits_ejected) / (terminals * cycles);
            if (accepted < (1.0 - m.warmup_threshold) * offered) {
                saturate(fmt::format("accepted {:.4f} flits/cycle/terminal in the window, below the offered {:.4f}",
                                     accepted, offered));
                return;
            }
            s.phase = MeasurePhase::Drain;
            ctx().sim().announce_phase("drain");
            drain_from_ = c;
            outstanding_ = marked_outstanding();
            if (outstanding_ == 0) {
                finish_run();
                return;
            }
            break;
        }
        case MeasurePhase::Drain: {
            if (c + 1 - s.measure_end >= m.max_drain_cycles) {
                saturate(fmt::format("{} marked packets still in flight {} cycles after the window", outstanding_,
                                     c + 1 - s.measure_end));
                return;
            }
            break;
        }
        case MeasurePhase::Done: return;
    }
    timer_.arm_at(Time::ps(net_.clock.edge(c + m.sample_cycles).count()));
}

}  // namespace loom::fabric
