#include <catch2/catch.hpp>

#include <algorithm>

#include "loom/ananta/manager.hpp"
#include "manager_world.hpp"

using namespace loom;
using namespace loom::ananta;
using loom::ananta::test::World;
using loom::ananta::test::WorldSpec;

namespace {

const IpAddr kVip1 = ip(100, 64, 0, 1);
const IpAddr kVip2 = ip(100, 64, 0, 2);
const IpAddr kRemote = ip(198, 51, 100, 7);

// Stage times chosen so every completion below can be computed by hand.
WorldSpec spec() {
    WorldSpec s;
    s.manager.validation_time = Time::us(100);
    s.manager.vip_configuration_time = Time::us(500);
    s.manager.snat_time = Time::us(50);
    s.manager.mux_pool_time = Time::us(100);
    s.manager.host_agent_time = Time::us(100);
    s.manager.overload_time = Time::us(100);
    s.manager.health_time = Time::us(20);
    s.manager.mux_programming_latency = Time::ms(1);
    s.manager.host_programming_latency = Time::us(100);
    s.manager.workers = 1;
    return s;
}

IpAddr dip_of(IpAddr vip, int i) { return ip(10, 3, static_cast<std::uint8_t>(vip & 0xff), static_cast<std::uint8_t>(i + 1)); }

// Two DIPs behind port 80, one on each host, both SNATed to the VIP.
VipConfig vip_config(World& w, IpAddr vip, std::uint32_t tenant = 1) {
    VipConfig c;
    c.vip = vip;
    c.tenant = tenant;
    VipEndpointConfig e;
    e.endpoint = Endpoint{vip, IpProto::Tcp, 80};
    for (int i = 0; i < 2; ++i) {
        e.dips.push_back(WeightedDip{dip_of(vip, i), 8080, w.host_addr(static_cast<std::size_t>(i)), 1});
        c.snat.push_back(SnatDip{dip_of(vip, i), w.host_addr(static_cast<std::size_t>(i))});
    }
    c.endpoints.push_back(e);
    return c;
}

const VipConfigDone* done_of(const World& w, std::uint64_t request) {
    for (const auto& d : w.vip_done)
        if (d.request == request) return &d;
    return nullptr;
}

}  // namespace

TEST_CASE("A VIP configuration completes when every Mux and Host Agent has acknowledged, at the time the stages add up to") {
    World w(spec());
    w.start();
    w.run_until(Time::ms(1));
    REQUIRE(w.manager(0).is_primary(Time::ms(1)));
    const Epoch epoch = w.manager(0).epoch();
    CHECK(epoch > 0);

    w.input(0, VipConfigRequest{7, vip_config(w, kVip1)}, Time::ms(1));
    // Validation 100 us, VIP configuration 500 us, Paxos commit at once (no delays), Mux pool 100 us, then the
    // Muxes apply 1 ms later; the host stage (100 us) and host programming (100 us) finish before that.
    w.run_until(Time::ms(1) + Time::us(1699));
    CHECK(w.vip_done.empty());
    w.run_until(Time::ms(1) + Time::us(1700) - Time::ps(1));
    CHECK(w.vip_done.empty());
    w.run_until(Time::ms(1) + Time::us(1700));
    REQUIRE(w.vip_done.size() == 1);
    CHECK(w.vip_done[0].outcome == Outcome::Done);
    CHECK(w.vip_done[0].requested == Time::ms(1));
    CHECK(w.vip_done[0].done == Time::us(2700));

    for (std::size_t m = 0; m < w.mux_count(); ++m) {
        CHECK(w.mux(m).epoch() == epoch);
        CHECK(w.mux(m).pick(FiveTuple{kRemote, kVip1, 40000, 80, IpProto::Tcp}) != nullptr);
    }
    CHECK(w.host(0).epoch() == epoch);
    CHECK(w.host(1).epoch() == epoch);
    // Pre-allocation: one range per SNAT DIP, replicated to every manager replica.
    for (std::size_t r = 0; r < 3; ++r) CHECK(w.manager(r).snat().held().size() == 2);
    CHECK(w.snat_shadow[0].size() == 16);
    CHECK(w.snat_shadow[1] == w.snat_shadow[0]);
}

TEST_CASE("A VIP configuration is not complete while one Mux has not acknowledged") {
    World w(spec());
    w.start();
    w.run_until(Time::ms(1));
    w.mute.insert(w.mux_addr(1));
    w.input(0, VipConfigRequest{7, vip_config(w, kVip1)}, Time::ms(1));
    w.run_until(Time::ms(50));
    CHECK(w.vip_done.empty());
    CHECK(w.mux(1).pick(FiveTuple{kRemote, kVip1, 40000, 80, IpProto::Tcp}) != nullptr);  // applied, ack lost
}

TEST_CASE("An invalid VIP configuration is refused after validation and programs nothing") {
    World w(spec());
    w.start();
    w.run_until(Time::ms(1));
    VipConfig c = vip_config(w, kVip1);
    c.endpoints[0].dips[1].weight = 0;
    w.input(0, VipConfigRequest{3, c}, Time::ms(1));
    w.run_until(Time::ms(10));
    REQUIRE(w.vip_done.size() == 1);
    CHECK(w.vip_done[0].outcome == Outcome::Invalid);
    CHECK(w.vip_done[0].done == Time::us(1100));
    CHECK(w.mux_applied.empty());
}

TEST_CASE("A manager that is not primary answers requests with NotPrimary") {
    World w(spec());
    w.start();
    w.run_until(Time::ms(1));
    w.input(1, VipConfigRequest{9, vip_config(w, kVip1)}, Time::ms(1));
    w.run_until(Time::ms(10));
    REQUIRE(w.vip_done.size() == 1);
    CHECK(w.vip_done[0].outcome == Outcome::NotPrimary);
}

namespace {

struct StormResult {
    Time vip_latency;
    std::size_t snat_before = 0;  // SNAT requests completed before the VIP configuration
    std::size_t snat_total = 0;
};

StormResult storm(bool priorities) {
    WorldSpec s = spec();
    s.manager.stage_priorities = priorities;
    World w(s);
    w.start();
    w.run_until(Time::ms(1));
    w.input(0, VipConfigRequest{1, vip_config(w, kVip1)}, Time::ms(1));
    w.run_until(Time::ms(10));
    REQUIRE(done_of(w, 1) != nullptr);
    const Time t = Time::ms(10);
    for (int i = 0; i < 50; ++i)
        w.input(0, SnatAsk{w.host_addr(0), SnatRequest{ip(10, 4, 0, static_cast<std::uint8_t>(i + 1)), kVip1}}, t);
    w.input(0, VipConfigRequest{2, vip_config(w, kVip2)}, t);
    w.run_until(Time::ms(100));
    const VipConfigDone* d = done_of(w, 2);
    REQUIRE(d != nullptr);
    REQUIRE(d->outcome == Outcome::Done);
    StormResult r;
    r.vip_latency = d->done - d->requested;
    for (const auto& sd : w.snat_done) {
        REQUIRE(sd.outcome == Outcome::Done);
        ++r.snat_total;
        if (sd.done < d->done) ++r.snat_before;
    }
    return r;
}

}  // namespace

TEST_CASE("With stage priorities a VIP configuration completes ahead of a queued SNAT storm") {
    const StormResult r = storm(true);
    CHECK(r.snat_total == 50);
    CHECK(r.snat_before == 0);
    // The first SNAT request holds the worker 50 us; validation then runs ahead of the queue (to 150 us), VIP
    // configuration to 650 us. Its commit arrives just after the worker took the next SNAT request (no
    // preemption: to 700 us), so the Mux stage runs 700-800 us and the Muxes apply at 1800 us.
    CHECK(r.vip_latency == Time::us(1800));
}

TEST_CASE("Without stage priorities a VIP configuration completes behind a queued SNAT storm") {
    const StormResult r = storm(false);
    CHECK(r.snat_total == 50);
    // First come first served: the 50 SNAT stages (to 2500 us), validation (2600), the 50 SNAT Mux stages
    // (queued before the VIP configuration stage: to 7600), VIP configuration (8100), then the 45 SNAT host
    // stages whose Mux acks came before the VIP's commit (to 12600), the VIP's Mux stage (12700) and its Muxes
    // apply at 13700 us. Every SNAT request has completed by then.
    CHECK(r.snat_before == 50);
    CHECK(r.vip_latency == Time::us(13700));
}
