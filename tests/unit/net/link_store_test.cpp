// A link's storage: filled by its sender, read and emptied by its receiver, touched by nobody else (the debug
// check is compiled in here whatever the build type, so the test runs in release builds too).
#define LOOM_OWNERSHIP_CHECKS 1

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "loom/base/error.hpp"
#include "loom/net/link_store.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/sim/timer.hpp"

using namespace loom;
using namespace loom::literals;

namespace {

struct Entry {
    std::int64_t value = 0;
    std::vector<int> data;
};

// Pushes an entry on its timer at 1 ns.
class Sender : public sim::Component {
public:
    explicit Sender(sim::Context& ctx) : Component(ctx), timer_(ctx, this, sim::handler<&Sender::on_timer>) {}
    void init() override { timer_.arm_in(1_ns); }
    net::LinkStore<Entry> store;
    std::uint32_t handle = 0;

private:
    void on_timer() {
        Entry& e = store.push(handle);
        e.value = 5;
        e.data.assign(100, 1);
    }
    sim::Timer timer_;
};

// Takes the entry at 2 ns; `rogue`: pushes into the store instead.
class Receiver : public sim::Component {
public:
    Receiver(sim::Context& ctx, Sender& sender, bool rogue)
        : Component(ctx), sender_(sender), rogue_(rogue), timer_(ctx, this, sim::handler<&Receiver::on_timer>) {}
    void init() override { timer_.arm_in(2_ns); }
    std::int64_t got = 0;
    std::vector<int> mine;

private:
    void on_timer() {
        if (rogue_) {
            std::uint32_t h = 0;
            sender_.store.push(h);
            return;
        }
        Entry& e = sender_.store.at(sender_.handle);
        got = e.value;
        mine.swap(e.data);
        sender_.store.release(sender_.handle);
    }
    Sender& sender_;
    bool rogue_;
    sim::Timer timer_;
};

// Reads the store at 3 ns.
class Bystander : public sim::Component {
public:
    Bystander(sim::Context& ctx, Sender& sender)
        : Component(ctx), sender_(sender), timer_(ctx, this, sim::handler<&Bystander::on_timer>) {}
    void init() override { timer_.arm_in(3_ns); }

private:
    void on_timer() { sender_.store.at(0); }
    Sender& sender_;
    sim::Timer timer_;
};

}  // namespace

TEST_CASE("A link's storage is filled by its sender and emptied by its receiver, and a third party is detected") {
    sim::Simulator sim;
    auto& sender = sim.add<Sender>("sys.a");
    auto& receiver = sim.add<Receiver>("sys.b", sender, false);
    sim.add<Bystander>("sys.c", sender);
    sender.store.bind(sender.ctx(), receiver.ctx());
    sim.init();
    sim.run({2_ns});
    CHECK(receiver.got == 5);
    CHECK(receiver.mine.size() == 100);  // the receiver's own copy now
    CHECK(sender.store.live() == 0);
    CHECK(sender.store.pushed() == 1);
    try {
        sim.run();
        FAIL("the bystander's access went unnoticed");
    } catch (const InternalError& e) {
        CHECK(std::string(e.what()).find("sys.c: touched a link's storage owned by sys.b at 3ns") != std::string::npos);
    }
}

TEST_CASE("A receiver writing into its sender's link storage is detected") {
    sim::Simulator sim;
    auto& sender = sim.add<Sender>("sys.a");
    auto& receiver = sim.add<Receiver>("sys.b", sender, true);
    sender.store.bind(sender.ctx(), receiver.ctx());
    sim.init();
    CHECK_THROWS_WITH(sim.run(), Catch::Contains("sys.b: touched a link's storage owned by sys.a"));
}

TEST_CASE("A link's storage reuses released slots, most recent first, with their capacity") {
    net::LinkStore<Entry> store;  // unbound: checked by nobody (the builder's use)
    std::uint32_t a = 0, b = 0, c = 0;
    store.push(a).data.assign(64, 2);
    store.push(b);
    CHECK(a == 0);
    CHECK(b == 1);
    CHECK(store.live() == 2);
    store.release(a);
    Entry& e = store.push(c);
    CHECK(c == 0);
    CHECK(e.data.capacity() >= 64);  // the sender clears or overwrites what it reuses
    CHECK(store.capacity() == 2);
    CHECK(store.pushed() == 3);
}
