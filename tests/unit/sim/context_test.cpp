#include <catch2/catch.hpp>

#include <sstream>

#include <spdlog/sinks/ostream_sink.h>

#include "loom/base/error.hpp"
#include "loom/base/rng.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/sim/timer.hpp"
#include "loom/stats/group.hpp"

using namespace loom;
using namespace loom::sim;
using namespace loom::literals;

namespace {

class Talker : public Component {
public:
    static constexpr std::string_view kSubsystem = "net";
    explicit Talker(Context& ctx) : Component(ctx), timer(ctx, this, handler<&Talker::on_timer>) {}
    Timer timer;

private:
    void on_timer() { ctx().log().info("queue depth {}", 3); }
};

class Quiet : public Component {
public:
    using Component::Component;
};

}  // namespace

TEST_CASE("A component's RNG stream is derived from the run seed and its path") {
    SimulatorOptions options;
    options.seed = 42;
    Simulator sim(options);
    auto& a = sim.add<Quiet>("sys.rack3.node2");
    auto& b = sim.add<Quiet>("sys.rack3.node3");
    Rng expected(derive(42, "sys.rack3.node2"));
    CHECK(a.ctx().rng().next_u64() == expected.next_u64());
    CHECK(a.ctx().rng().next_u64() != b.ctx().rng().next_u64());
}

TEST_CASE("A component's source id is the rank of its path and its events carry it") {
    Simulator sim;
    auto& b = sim.add<Quiet>("b");
    auto& a = sim.add<Quiet>("a");
    CHECK(b.ctx().source() == 0);  // provisional: the creation index
    sim.init();
    CHECK(a.ctx().source() == 0);
    CHECK(b.ctx().source() == 1);
    const std::uint64_t k0 = b.ctx().next_key(Phase::Timer);
    const std::uint64_t k1 = b.ctx().next_key(Phase::Delivery);
    CHECK(key::source_of(k0) == 1);
    CHECK(key::phase_of(k0) == 1);
    CHECK(key::counter_of(k0) == 0);
    CHECK(key::counter_of(k1) == 1);
    CHECK(b.ctx().events_sent() == 2);
}

TEST_CASE("A stats group appears only for components that record something") {
    Simulator sim;
    auto& a = sim.add<Quiet>("a");
    sim.add<Quiet>("b");
    a.ctx().stats().counter("x").add(2);
    CHECK(sim.stats().find("a") != nullptr);
    CHECK(sim.stats().find("b") == nullptr);
    CHECK(&a.ctx().stats() == sim.stats().find("a"));
}

TEST_CASE("Log lines carry the simulated time and the component path") {
    std::ostringstream out;
    SimulatorOptions options;
    options.log_sink = std::make_shared<spdlog::sinks::ostream_sink_st>(out);
    options.log_level = spdlog::level::info;
    Simulator sim(options);
    auto& t = sim.add<Talker>("sys.rack3.node2.tsp5");
    sim.init();
    t.timer.arm_at(722_ns);
    sim.run();
    const std::string line = out.str();
    CHECK(line.find("[net]") != std::string::npos);
    CHECK(line.find("t=722ns") != std::string::npos);
    CHECK(line.find("sys.rack3.node2.tsp5: queue depth 3") != std::string::npos);
}

TEST_CASE("Disabled log levels format nothing") {
    std::ostringstream out;
    SimulatorOptions options;
    options.log_sink = std::make_shared<spdlog::sinks::ostream_sink_st>(out);
    options.log_level = spdlog::level::warn;
    Simulator sim(options);
    auto& t = sim.add<Talker>("a");
    CHECK_FALSE(t.ctx().log().enabled(spdlog::level::info));
    sim.init();
    t.timer.arm_at(1_ns);
    sim.run();
    CHECK(out.str().empty());
}
