#include <catch2/catch.hpp>

#include <algorithm>
#include <tuple>

#include "loom/ananta/manager.hpp"
#include "loom/base/rng.hpp"
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

namespace {

// A VIP with one SNAT DIP on host 0 and no pre-allocation, so the first outbound packet asks for ports.
World snat_world(WorldSpec s = spec()) {
    s.snat.preallocate_ranges = 0;
    World w(s);
    w.start();
    w.run_until(Time::ms(1));
    VipConfig c = vip_config(w, kVip1);
    w.input(0, VipConfigRequest{1, c}, Time::ms(1));
    w.run_until(Time::ms(10));
    REQUIRE(done_of(w, 1) != nullptr);
    return w;
}

}  // namespace

TEST_CASE("A held outbound packet leaves with the VIP as source once every Mux maps its port back to the DIP") {
    World w = snat_world();
    const IpAddr dip = dip_of(kVip1, 0);
    w.vm_send(0, make_packet(FiveTuple{dip, kRemote, 5555, 443, IpProto::Tcp}, 0, tcp_flag::kSyn), Time::ms(10));
    w.run_until(Time::ms(20));
    REQUIRE(w.snat_done.size() == 1);
    const SnatDone& d = w.snat_done[0];
    CHECK(d.outcome == Outcome::Done);
    CHECK(d.ranges == 1);
    // SNAT stage 50 us, commit, Mux stage 100 us, Muxes apply 1 ms later and ack, host stage 100 us, host
    // programming 100 us.
    CHECK(d.done - d.requested == Time::us(1350));
    CHECK(d.answered - d.requested == Time::us(1250));
    REQUIRE(w.to_router.size() == 1);
    const FiveTuple out = w.to_router[0].inner;
    CHECK(out.src == kVip1);
    CHECK(out.src_port >= 1024);
    for (std::size_t m = 0; m < w.mux_count(); ++m) CHECK(w.snat_shadow[m].at({kVip1, out.src_port}) == dip);
    // The return packet reaches any Mux and is mapped statelessly to the DIP.
    MuxOutput mo;
    w.mux(1).handle(make_packet(out.reversed(), 0, tcp_flag::kSyn | tcp_flag::kAck), Time::ms(20), mo);
    REQUIRE(mo.forwards.size() == 1);
    CHECK(mo.forwards[0].target.dip == dip);
    CHECK(mo.forwards[0].stateless);
}

TEST_CASE("A second SNAT request of a DIP while one is outstanding is dropped") {
    World w = snat_world();
    const IpAddr dip = dip_of(kVip1, 0);
    w.input(0, SnatAsk{w.host_addr(0), SnatRequest{dip, kVip1}}, Time::ms(10));
    w.input(0, SnatAsk{w.host_addr(0), SnatRequest{dip, kVip1}}, Time::ms(10) + Time::us(10));
    w.run_until(Time::ms(20));
    REQUIRE(w.snat_done.size() == 2);
    CHECK(w.snat_done[0].outcome == Outcome::Dropped);
    CHECK(w.snat_done[0].requested == Time::ms(10) + Time::us(10));
    CHECK(w.snat_done[1].outcome == Outcome::Done);
    CHECK(w.manager(0).counters().snat_dropped == 1);
    // Once answered, the DIP may ask again.
    w.input(0, SnatAsk{w.host_addr(0), SnatRequest{dip, kVip1}}, Time::ms(20));
    w.run_until(Time::ms(30));
    REQUIRE(w.snat_done.size() == 3);
    CHECK(w.snat_done[2].outcome == Outcome::Done);
}

TEST_CASE("Demand prediction gives a DIP that asks again soon several ranges") {
    World w = snat_world();
    const IpAddr dip = dip_of(kVip1, 0);
    w.input(0, SnatAsk{w.host_addr(0), SnatRequest{dip, kVip1}}, Time::ms(10));
    w.input(0, SnatAsk{w.host_addr(0), SnatRequest{dip, kVip1}}, Time::ms(20));      // within 1 s: 4 ranges
    // More than 1 s after the previous allocation: one range again.
    w.input(0, SnatAsk{w.host_addr(0), SnatRequest{dip, kVip1}}, Time::ms(2100));
    w.run_until(Time::s(3));
    REQUIRE(w.snat_done.size() == 3);
    CHECK(w.snat_done[0].ranges == 1);
    CHECK(w.snat_done[1].ranges == 4);
    CHECK(w.snat_done[2].ranges == 1);
    CHECK(w.manager(0).snat().ports_held(dip) == 6 * 8);
    for (std::size_t r = 0; r < 3; ++r) CHECK(w.manager(r).snat().ports_held(dip) == 48);
}

TEST_CASE("Per-VM limits refuse SNAT requests beyond the ports held and the allocation rate") {
    WorldSpec s = spec();
    s.snat.demand_prediction = false;
    s.snat.max_ports_per_vm = 16;
    World w = snat_world(s);
    const IpAddr dip = dip_of(kVip1, 0);
    for (int i = 0; i < 3; ++i) w.input(0, SnatAsk{w.host_addr(0), SnatRequest{dip, kVip1}}, Time::ms(10 + 5 * i));
    w.run_until(Time::ms(30));
    REQUIRE(w.snat_done.size() == 3);
    CHECK(w.snat_done[1].outcome == Outcome::Done);
    CHECK(w.snat_done[2].outcome == Outcome::Refused);
    CHECK(w.snat_done[2].refusal == SnatRefusal::PortLimit);

    WorldSpec r = spec();
    r.snat.demand_prediction = false;
    r.snat.max_allocations_per_window = 2;
    World v = snat_world(r);
    for (int i = 0; i < 3; ++i) v.input(0, SnatAsk{v.host_addr(0), SnatRequest{dip, kVip1}}, Time::ms(10 + 5 * i));
    v.input(0, SnatAsk{v.host_addr(0), SnatRequest{dip, kVip1}}, Time::ms(1011));  // the window has moved on
    v.run_until(Time::ms(1100));
    REQUIRE(v.snat_done.size() == 4);
    CHECK(v.snat_done[1].outcome == Outcome::Done);
    CHECK(v.snat_done[2].refusal == SnatRefusal::RateLimit);
    CHECK(v.snat_done[3].outcome == Outcome::Done);
}

TEST_CASE("A returned range leaves every Mux before another DIP can get it, and idle ranges are reclaimed") {
    WorldSpec s = spec();
    s.snat.first_port = 1024;
    s.snat.last_port = 1031;  // one range only
    s.snat.idle_reclaim = Time::ms(100);
    World w = snat_world(s);
    const IpAddr a = dip_of(kVip1, 0), b = dip_of(kVip1, 1);
    w.input(0, SnatAsk{w.host_addr(0), SnatRequest{a, kVip1}}, Time::ms(10));
    w.input(0, SnatAsk{w.host_addr(1), SnatRequest{b, kVip1}}, Time::ms(20));
    w.run_until(Time::ms(30));
    REQUIRE(w.snat_done.size() == 2);
    CHECK(w.snat_done[1].refusal == SnatRefusal::Exhausted);
    const SnatGrant g{0, a, kVip1, 1024, 8};
    w.input(0, SnatReturn{w.host_addr(0), g}, Time::ms(30));
    w.run_until(Time::ms(31));
    CHECK(w.manager(0).snat().owner(kVip1, 1024) == a);  // the Muxes still map it
    w.run_until(Time::ms(40));
    CHECK_FALSE(w.manager(0).snat().owner(kVip1, 1024).has_value());
    CHECK(w.snat_shadow[0].empty());
    CHECK_FALSE(w.manager(2).snat().owner(kVip1, 1024).has_value());
    w.input(0, SnatAsk{w.host_addr(1), SnatRequest{b, kVip1}}, Time::ms(40));
    w.run_until(Time::ms(50));
    CHECK(w.snat_shadow[1].at({kVip1, 1024}) == b);
    // b shows no use: 100 ms after the grant (40.05 ms) its range is reclaimed through Paxos and the Muxes.
    w.run_until(Time::ms(140));
    CHECK(w.manager(0).snat().owner(kVip1, 1024) == b);
    w.run_until(Time::ms(150));
    CHECK(w.snat_shadow[0].empty());
    CHECK_FALSE(w.manager(0).snat().owner(kVip1, 1024).has_value());
    CHECK(w.manager(0).counters().snat_reclaimed == 2);
}

TEST_CASE("Overload isolation withdraws the top VIP from every Mux and leaves other VIPs untouched") {
    World w(spec());
    w.start();
    w.run_until(Time::ms(1));
    w.input(0, VipConfigRequest{1, vip_config(w, kVip1, 1)}, Time::ms(1));
    w.input(0, VipConfigRequest{2, vip_config(w, kVip2, 2)}, Time::ms(1));
    w.run_until(Time::ms(10));
    REQUIRE(w.vip_done.size() == 2);
    const std::size_t before = w.mux_applied.size();
    OverloadReport rep;
    rep.window_start = Time::ms(9);
    rep.window_end = Time::ms(10);
    rep.overload_drops = 40;
    rep.top = {TopTalker{kVip2, 5000}, TopTalker{kVip1, 100}};
    w.input(0, MuxOverload{w.mux_addr(0), rep}, Time::ms(10));
    w.run_until(Time::ms(20));
    REQUIRE(w.isolation_done.size() == 1);
    const IsolationDone& d = w.isolation_done[0];
    CHECK(d.vip == kVip2);
    CHECK(d.overload_start == Time::ms(9));
    CHECK(d.reported == Time::ms(10));
    // Overload stage 100 us, commit, Mux stage 100 us, Muxes apply 1 ms later.
    CHECK(d.withdrawn == Time::ms(10) + Time::us(1200));
    std::set<IpAddr> reached;
    for (std::size_t i = before; i < w.mux_applied.size(); ++i) {
        const auto* wd = std::get_if<WithdrawVip>(&w.mux_applied[i].second.command);
        REQUIRE(wd != nullptr);  // nothing else was sent: VIP 1 untouched
        CHECK(wd->vip == kVip2);
        reached.insert(w.mux_applied[i].second.mux);
    }
    CHECK(reached.size() == w.mux_count());
    REQUIRE(w.routes.size() == 1);
    CHECK(w.routes[0].vip == kVip2);
    CHECK_FALSE(w.routes[0].steered);
    for (std::size_t r = 0; r < 3; ++r) CHECK(w.manager(r).withdrawn(kVip2));
    for (std::size_t m = 0; m < w.mux_count(); ++m) {
        MuxOutput o;
        w.mux(m).handle(make_packet(FiveTuple{kRemote, kVip2, 40000, 80, IpProto::Tcp}, 0, tcp_flag::kSyn), Time::ms(20), o);
        w.mux(m).handle(make_packet(FiveTuple{kRemote, kVip1, 40000, 80, IpProto::Tcp}, 0, tcp_flag::kSyn), Time::ms(20), o);
        REQUIRE(o.drops.size() == 1);
        CHECK(o.drops[0].reason == DropReason::BlackHoled);
        CHECK(o.drops[0].packet.inner.dst == kVip2);
        REQUIRE(o.forwards.size() == 1);
        CHECK(o.forwards[0].packet.inner.dst == kVip1);
    }
    // A report of a window that began before the withdrawal took effect describes the same overload: ignored.
    w.input(0, MuxOverload{w.mux_addr(1), rep}, Time::ms(20));
    w.run_until(Time::ms(30));
    REQUIRE(w.isolation_done.size() == 2);
    CHECK(w.isolation_done[1].vip == 0);
    CHECK_FALSE(w.manager(0).withdrawn(kVip1));
    // A later window still overloaded with the same VIP on top withdraws the next one down the list.
    rep.window_start = Time::ms(29);
    rep.window_end = Time::ms(30);
    w.input(0, MuxOverload{w.mux_addr(1), rep}, Time::ms(30));
    w.run_until(Time::ms(40));
    REQUIRE(w.isolation_done.size() == 3);
    CHECK(w.isolation_done[2].vip == kVip1);
}

namespace {

// Manager 0 configures VIP 1, freezes; manager 1 takes over and configures VIP 2 (raising every Mux's epoch);
// manager 0 resumes believing it leads and relays a health change with its old epoch.
World stale_primary(bool fix) {
    WorldSpec s = spec();
    s.manager.write_on_reject = fix;
    World w(s);
    w.start();
    w.run_until(Time::ms(1));
    w.input(0, VipConfigRequest{1, vip_config(w, kVip1)}, Time::ms(1));
    w.run_until(Time::ms(10));
    REQUIRE(done_of(w, 1) != nullptr);
    w.frozen.insert(0);
    w.campaign(1);
    w.run_until(Time::ms(12));
    REQUIRE(w.manager(1).is_primary(Time::ms(12)));
    w.input(1, VipConfigRequest{2, vip_config(w, kVip2)}, Time::ms(12));
    w.run_until(Time::ms(20));
    REQUIRE(done_of(w, 2) != nullptr);
    CHECK(w.mux(0).epoch() == w.manager(1).epoch());
    CHECK(w.manager(1).epoch() > w.manager(0).epoch());
    w.frozen.clear();
    CHECK(w.manager(0).is_primary(Time::ms(20)));  // it never heard of its successor
    w.input(0, HealthReport{w.host_addr(0), dip_of(kVip1, 0), false}, Time::ms(20));
    w.run_until(Time::ms(30));
    return w;
}

}  // namespace

TEST_CASE("With the fix a stale primary whose command a Mux rejects writes through Paxos and steps down") {
    World w = stale_primary(true);
    CHECK(w.mux_rejections.size() == w.mux_count());
    CHECK(w.manager(0).counters().fence_writes == 1);
    CHECK_FALSE(w.manager(0).is_primary(Time::ms(30)));
    CHECK(w.manager(1).is_primary(Time::ms(30)));
    // Now it refuses work instead of acting on it.
    w.input(0, HealthReport{w.host_addr(0), dip_of(kVip1, 0), true}, Time::ms(30));
    w.input(0, SnatAsk{w.host_addr(0), SnatRequest{dip_of(kVip1, 0), kVip1}}, Time::ms(30));
    w.run_until(Time::ms(40));
    CHECK(w.mux_rejections.size() == w.mux_count());
    REQUIRE_FALSE(w.snat_done.empty());
    CHECK(w.snat_done.back().outcome == Outcome::NotPrimary);
}

TEST_CASE("Without the fix a stale primary goes on acting after its commands are rejected") {
    World w = stale_primary(false);
    CHECK(w.mux_rejections.size() == w.mux_count());
    CHECK(w.manager(0).counters().fence_writes == 0);
    CHECK(w.manager(0).is_primary(Time::ms(30)));
    w.input(0, HealthReport{w.host_addr(0), dip_of(kVip1, 0), true}, Time::ms(30));
    w.run_until(Time::ms(40));
    CHECK(w.mux_rejections.size() == 2 * w.mux_count());
    CHECK(w.manager(0).is_primary(Time::ms(40)));
}

namespace {

struct SnatChecker {
    std::string violation;
};

// Every Mux maps a (VIP, port) to the DIP the primary's allocator has it held by, so no two Muxes ever
// disagree and a port is never mapped to a DIP that no longer holds it.
void check_snat(World& w, void* arg) {
    auto& c = *static_cast<SnatChecker*>(arg);
    if (!c.violation.empty()) return;
    std::map<std::pair<IpAddr, std::uint16_t>, IpAddr> seen;
    for (std::size_t m = 0; m < w.mux_count(); ++m)
        for (const auto& [key, dip] : w.snat_shadow[m]) {
            auto [it, fresh] = seen.emplace(key, dip);
            if (!fresh && it->second != dip) c.violation = "two Muxes map a port to different DIPs";
            if (w.manager(0).snat().owner(key.first, key.second) != dip)
                c.violation = "a Mux maps a port to a DIP that does not hold it";
        }
    for (const auto& g : w.manager(0).snat().held())
        if (w.manager(0).snat().ports_held(g.dip) > w.manager(0).snat().config().max_ports_per_vm)
            c.violation = "a DIP holds more ports than its limit";
}

}  // namespace

TEST_CASE("Randomized SNAT request and return sequences keep every port with one DIP and one request per DIP") {
    std::size_t total_dropped = 0;
    for (std::uint64_t seed = 1; seed <= LOOM_SNAT_RANDOM_RUNS; ++seed) {
        WorldSpec s = spec();
        s.snat.preallocate_ranges = 0;
        s.snat.first_port = 1024;
        s.snat.last_port = 1024 + 63;
        s.snat.max_ports_per_vm = 24;
        s.snat.predicted_ranges = 2;
        s.snat.prediction_interval = Time::ms(3);
        s.snat.max_allocations_per_window = 3;
        s.snat.rate_window = Time::ms(5);
        s.snat.idle_reclaim = Time::ms(8);
        s.manager.workers = 1 + static_cast<std::int64_t>(seed % 2);
        World w = snat_world(s);
        SnatChecker checker;
        w.after_event = check_snat;
        w.after_arg = &checker;
        Rng rng(seed);
        Time t = Time::ms(10);
        for (int i = 0; i < 80; ++i) {
            t += Time::us(static_cast<std::int64_t>(rng.uniform(400)));
            const std::size_t h = rng.uniform(2);
            const IpAddr dip = ip(10, 5, static_cast<std::uint8_t>(h), static_cast<std::uint8_t>(1 + rng.uniform(3)));
            const auto roll = rng.uniform(6);
            if (roll < 3) {
                w.input(0, SnatAsk{w.host_addr(h), SnatRequest{dip, kVip1}}, t);
            } else if (roll < 5) {
                w.run_until(t);
                std::vector<SnatGrant> mine;
                for (const auto& g : w.manager(0).snat().held())
                    if (g.dip == dip) mine.push_back(g);
                if (!mine.empty()) w.input(0, SnatReturn{w.host_addr(h), mine[rng.uniform(mine.size())]}, t);
            } else {
                w.input(0, SnatInUse{dip, kVip1}, t);
            }
        }
        w.run_until(t + Time::ms(50));
        INFO("seed " << seed);
        CHECK(checker.violation.empty());
        // One request per DIP: answered requests of a DIP never overlap, and each dropped one fell inside an
        // answered one's span.
        std::map<IpAddr, std::vector<std::pair<Time, Time>>> spans;
        std::size_t done = 0, dropped = 0;
        for (const auto& d : w.snat_done)
            if (d.outcome == Outcome::Done || d.outcome == Outcome::Refused) {
                spans[d.dip].emplace_back(d.requested, d.answered);
                done += d.outcome == Outcome::Done;
            }
        for (auto& [dip, v] : spans) {
            std::sort(v.begin(), v.end());
            for (std::size_t i = 1; i < v.size(); ++i) CHECK(v[i - 1].second <= v[i].first);
        }
        for (const auto& d : w.snat_done) {
            if (d.outcome != Outcome::Dropped) continue;
            ++dropped;
            const auto& v = spans[d.dip];
            CHECK(std::any_of(v.begin(), v.end(), [&](const auto& span) { return span.first <= d.requested && d.requested <= span.second; }));
        }
        CHECK(done > 0);
        CHECK(w.snat_done.size() >= 20);
        total_dropped += dropped;
        // Replicas agree with the primary on what is held.
        CHECK(w.manager(1).snat().held().size() == w.manager(0).snat().held().size());
    }
    CHECK(total_dropped > 0);  // the second-request path was exercised
}

TEST_CASE("A Host Agent's health report is relayed to every Mux as the DIP's new health") {
    World w(spec());
    w.start();
    w.run_until(Time::ms(1));
    w.input(0, VipConfigRequest{1, vip_config(w, kVip1)}, Time::ms(1));
    w.run_until(Time::ms(10));
    const std::size_t before = w.mux_applied.size();
    const IpAddr sick = dip_of(kVip1, 1);
    w.input(0, HealthReport{w.host_addr(1), sick, false}, Time::ms(10));
    w.input(0, HealthReport{w.host_addr(1), sick, false}, Time::ms(10));  // no change: nothing relayed
    w.run_until(Time::ms(20));
    REQUIRE(w.mux_applied.size() == before + w.mux_count());
    for (std::size_t i = before; i < w.mux_applied.size(); ++i) {
        const auto* se = std::get_if<SetDipHealth>(&w.mux_applied[i].second.command);
        REQUIRE(se != nullptr);
        CHECK(se->dip == sick);
        CHECK(!se->healthy);
        // Health stage 20 us, then the Muxes apply 1 ms later.
        CHECK(w.mux_applied[i].second.at == Time::ms(10) + Time::us(1020));
    }
    CHECK(w.manager(0).counters().health_relays == 1);
    // Every new connection now goes to the healthy DIP.
    for (std::uint16_t port = 40000; port < 40032; ++port)
        CHECK(w.mux(0).pick(FiveTuple{kRemote, kVip1, port, 80, IpProto::Tcp})->dip == dip_of(kVip1, 0));
}

TEST_CASE("A silent Mux counts as down and no longer holds up completion, and comes back when heard") {
    WorldSpec s = spec();
    s.manager.mux_down_after = Time::ms(20);
    s.manager.host_down_after = Time::s(1000);
    World w(s);
    w.start();
    w.run_until(Time::ms(1));
    w.mute.insert(w.mux_addr(1));
    for (Time t = Time::ms(5); t <= Time::ms(40); t += Time::ms(5)) w.input(0, PeerAlive{w.mux_addr(0)}, t);
    w.input(0, VipConfigRequest{1, vip_config(w, kVip1)}, Time::ms(1));
    w.run_until(Time::ms(19));
    CHECK(w.vip_done.empty());
    CHECK(w.manager(0).mux_up(w.mux_addr(1)));
    w.run_until(Time::ms(20));  // 20 ms of silence since the start
    CHECK_FALSE(w.manager(0).mux_up(w.mux_addr(1)));
    REQUIRE(w.vip_done.size() == 1);
    CHECK(w.vip_done[0].done == Time::ms(20));
    CHECK(w.manager(0).mux_up(w.mux_addr(0)));
    w.input(0, PeerAlive{w.mux_addr(1)}, Time::ms(30));
    w.run_until(Time::ms(30));
    CHECK(w.manager(0).mux_up(w.mux_addr(1)));
}

TEST_CASE("Manager log values round-trip through the 48-byte Paxos value") {
    LogEntry e;
    e.kind = LogKind::SnatGrant;
    e.vip = kVip1;
    e.dip = ip(10, 0, 0, 9);
    for (std::uint16_t i = 0; i < kMaxLogRanges; ++i) e.ranges.emplace_back(static_cast<std::uint16_t>(1024 + 8 * i), 8);
    const auto v = encode(e, 77);
    CHECK(v.id == 77);
    const auto d = decode(v);
    REQUIRE(d.has_value());
    CHECK(d->kind == LogKind::SnatGrant);
    CHECK(d->vip == kVip1);
    CHECK(d->dip == e.dip);
    CHECK(d->ranges == e.ranges);
    const auto f = decode(encode(LogEntry{LogKind::Fence, 0, 0, 0x1234'5678'9abc'def0ULL, {}}, 5));
    REQUIRE(f.has_value());
    CHECK(f->word == 0x1234'5678'9abc'def0ULL);
    CHECK_FALSE(decode(paxos::Value::noop()).has_value());
    CHECK(epoch_of(paxos::Ballot{2, 1}) > epoch_of(paxos::Ballot{1, 4}));
}

TEST_CASE("With steering on, a withdrawn VIP is handed to route management for DoS protection") {
    WorldSpec s = spec();
    s.manager.steer_withdrawn = true;
    World w(s);
    w.start();
    w.run_until(Time::ms(1));
    w.input(0, VipConfigRequest{1, vip_config(w, kVip1)}, Time::ms(1));
    w.run_until(Time::ms(10));
    OverloadReport rep;
    rep.top = {TopTalker{kVip1, 100}};
    w.input(0, MuxOverload{w.mux_addr(0), rep}, Time::ms(10));
    w.run_until(Time::ms(20));
    REQUIRE(w.routes.size() == 1);
    CHECK(w.routes[0].vip == kVip1);
    CHECK(w.routes[0].withdrawn);
    CHECK(w.routes[0].steered);
}

TEST_CASE("Two manager worlds driven by the same inputs produce identical records") {
    auto run = [] {
        World w(spec());
        w.start();
        w.run_until(Time::ms(1));
        w.input(0, VipConfigRequest{1, vip_config(w, kVip1)}, Time::ms(1));
        Rng rng(9);
        for (int i = 0; i < 40; ++i)
            w.input(0, SnatAsk{w.host_addr(0), SnatRequest{ip(10, 6, 0, static_cast<std::uint8_t>(rng.uniform(8) + 1)), kVip1}},
                    Time::ms(10) + Time::us(static_cast<std::int64_t>(rng.uniform(5000))));
        w.run_until(Time::ms(60));
        std::vector<std::tuple<IpAddr, int, std::int64_t, std::int64_t, std::uint32_t>> r;
        for (const auto& d : w.snat_done)
            r.emplace_back(d.dip, static_cast<int>(d.outcome), d.requested.count(), d.done.count(), d.ranges);
        return std::make_pair(r, w.manager(0).snat().held());
    };
    const auto a = run();
    const auto b = run();
    CHECK(a.first.size() == 40);
    CHECK(a == b);
}
