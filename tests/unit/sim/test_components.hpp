// Small components shared by the kernel tests: they record what arrives and when.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/sim/channel.hpp"
#include "loom/sim/port.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/sim/timer.hpp"

namespace loom::sim::test {

struct Arrival {
    std::int64_t time;
    std::string who;
    std::uint32_t arg;
};

// A shared log written by several components, only ever read by the test itself.
using Journal = std::vector<Arrival>;

// Sends on `out`, records arrivals on `in`.
class Node : public Component {
public:
    Node(Context& ctx, Journal* journal)
        : Component(ctx), in(ctx, "in", this, handler<&Node::on_in>), out(ctx, "out"), journal_(journal) {}
    InPort in;
    OutPort out;

private:
    void on_in(std::uint32_t arg) { journal_->push_back({now().count(), path(), arg}); }
    Journal* journal_;
};

// Only receives.
class Sink : public Component {
public:
    Sink(Context& ctx, Journal* journal) : Component(ctx), in(ctx, "in", this, handler<&Sink::on_in>), journal_(journal) {}
    InPort in;

private:
    void on_in(std::uint32_t arg) { journal_->push_back({now().count(), path(), arg}); }
    Journal* journal_;
};

// Forwards every arrival on `out` after `delay` (at least the link latency).
class Relay : public Component {
public:
    Relay(Context& ctx, Time delay)
        : Component(ctx), in(ctx, "in", this, handler<&Relay::on_in>), out(ctx, "out"), delay_(delay) {}
    InPort in;
    OutPort out;

private:
    void on_in(std::uint32_t arg) { out.send(arg, delay_); }
    Time delay_;
};

// Sends `count` payloads 0..count-1 at init, all with the same delay.
class Source : public Component {
public:
    Source(Context& ctx, Time delay, std::uint32_t count = 1)
        : Component(ctx), out(ctx, "out"), delay_(delay), count_(count) {}
    void init() override {
        for (std::uint32_t i = 0; i < count_; ++i) out.send(i, delay_);
    }
    OutPort out;

private:
    Time delay_;
    std::uint32_t count_;
};

// A channel endpoint that records arrivals.
class Member : public Component {
public:
    Member(Context& ctx, Journal* journal)
        : Component(ctx), port(ctx, "ch", this, handler<&Member::on_arrival>), journal_(journal) {}
    ChannelPort port;

private:
    void on_arrival(std::uint32_t arg) { journal_->push_back({now().count(), path(), arg}); }
    Journal* journal_;
};

// A component with one timer that records its firings.
class Alarm : public Component {
public:
    Alarm(Context& ctx, Journal* journal, Phase phase = Phase::Timer)
        : Component(ctx), timer(ctx, this, handler<&Alarm::on_timer>, phase), journal_(journal) {}
    Timer timer;
    Time rearm_in = Time::zero();  // when non-zero, the handler re-arms itself this much later
    int fired = 0;

private:
    void on_timer() {
        ++fired;
        journal_->push_back({now().count(), path(), 0});
        if (rearm_in > Time::zero()) timer.arm_in(rearm_in);
    }
    Journal* journal_;
};

}  // namespace loom::sim::test
