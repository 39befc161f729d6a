// The debug-build check that a component's pool is touched only by its owner, compiled in here whatever the
// build type, so the test runs in release builds too.
#define LOOM_OWNERSHIP_CHECKS 1

#include <catch2/catch.hpp>

#include <string>

#include "loom/base/error.hpp"
#include "loom/net/packet.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/sim/timer.hpp"

using namespace loom;
using namespace loom::literals;

namespace {

struct Token {
    std::int64_t value;
};

// Owns a pool; allocates from it on its own timer.
class Keeper : public sim::Component {
public:
    explicit Keeper(sim::Context& ctx) : Component(ctx), timer_(ctx, this, sim::handler<&Keeper::on_timer>) {
        pool.bind_owner(ctx);
    }
    void init() override { timer_.arm_in(1_ns); }
    net::PacketPool<Token> pool;

private:
    void on_timer() { pool[pool.allocate()].payload.value = 7; }
    sim::Timer timer_;
};

// Reaches into a Keeper's pool, at init or on a timer at 2 ns.
class Intruder : public sim::Component {
public:
    Intruder(sim::Context& ctx, Keeper& victim, bool at_init)
        : Component(ctx), victim_(victim), at_init_(at_init), timer_(ctx, this, sim::handler<&Intruder::on_timer>) {}
    void init() override {
        if (at_init_) victim_.pool.allocate();
        timer_.arm_in(2_ns);
    }

private:
    void on_timer() { victim_.pool[net::PacketHandle{0}].payload.value = 9; }
    Keeper& victim_;
    bool at_init_;
    sim::Timer timer_;
};

}  // namespace

TEST_CASE("A component touching another's pool is detected, naming both, while the owner and the builder are not") {
    sim::Simulator sim;
    auto& keeper = sim.add<Keeper>("sys.keeper");
    sim.add<Intruder>("sys.intruder", keeper, false);
    keeper.pool.allocate();  // the builder may fill it
    sim.init();
    sim.run({1_ns});  // the owner's own event
    CHECK(keeper.pool.live() == 2);
    try {
        sim.run();
        FAIL("the intruder's access went unnoticed");
    } catch (const InternalError& e) {
        const std::string m = e.what();
        CHECK(m.find("sys.intruder: touched a packet pool owned by sys.keeper at 2ns") != std::string::npos);
    }
    CHECK(sim.running() == nullptr);
    CHECK(keeper.pool[net::PacketHandle{0}].payload.value == 0);  // the model's end-of-run reads are allowed
}

TEST_CASE("A component touching another's pool in its init() is detected") {
    sim::Simulator sim;
    auto& keeper = sim.add<Keeper>("sys.keeper");
    sim.add<Intruder>("sys.intruder", keeper, true);
    CHECK_THROWS_WITH(sim.init(), Catch::Contains("sys.intruder: touched a packet pool owned by sys.keeper"));
}

TEST_CASE("An unbound pool is checked by nobody") {
    sim::Simulator sim;
    auto& keeper = sim.add<Keeper>("sys.keeper");
    net::PacketPool<Token> shared;
    shared.allocate();
    keeper.pool.allocate();
    CHECK(shared.owner().owner() == nullptr);
    CHECK(keeper.pool.owner().owner() == &keeper.ctx());
}
