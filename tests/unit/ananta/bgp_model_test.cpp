// BGP sessions in the Ananta run: the ToR's next hops after a withdrawal and after a hold expiry (at T, not
// T - 1 ps), graceful vs silent Mux failures, a recovering Mux announcing only once it has its state, and the
// config errors of the "bgp" section.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "loom/ananta/ananta_model.hpp"
#include "loom/ananta/bgp_wire.hpp"
#include "loom/sim/simulator.hpp"

#include "model_run.hpp"

using namespace loom;
using namespace loom::ananta;
using Json = config::Json;

namespace {

// 4 Muxes on ToR 0 with BGP sessions (hold 3 s, keepalives every second), one VIP, a few connections.
Json bgp_config() {
    return Json::parse(R"({
      "model": "ananta", "seed": 5, "end_time": "8s",
      "network": {"racks": 2, "hosts_per_rack": 2, "spines": 2, "borders": 1, "muxes": 4, "mux_racks": 1,
                  "client_nodes": 1, "internet_link": {"rate": "10Gbps", "latency": "1ms"}},
      "vips": [{"name": "web", "port": 80, "dip_hosts_first": 0, "dip_hosts_count": 4, "dip_port": 8080}],
      "traffic": [{"name": "t", "to_vip": 0, "connections_per_s": 20, "bytes": 2920, "stop": "6s"}],
      "bgp": {"sessions": true, "hold_time": "3s", "keepalive_interval": "1s"}
    })");
}

struct BgpRun : testing::ModelRun {
    BgpRun(const Json& config, Time end) : ModelRun(config, end, Finish::later) {}
    std::vector<NextHop> hops() const { return model->tors()[0]->bgp()->router().next_hops(addr::vip(0)); }
    bool up(std::uint32_t mux) const { return model->tors()[0]->bgp()->router().session_up(addr::mux(mux)); }
};

std::vector<NextHop> muxes(std::initializer_list<std::uint32_t> ms) {
    std::vector<NextHop> v;
    for (std::uint32_t m : ms) v.push_back(addr::mux(m));
    return v;
}

Json with_action(Json c, const Json& action) {
    c["scenario"].push_back(action);
    return c;
}

}  // namespace

TEST_CASE("With BGP sessions every Mux is a next hop of the VIP once its announcement reached the ToR") {
    BgpRun r(bgp_config(), Time::ms(1));
    CHECK(r.hops() == muxes({0, 1, 2, 3}));
    CHECK(r.model->tors()[0]->bgp()->router().sessions() == 4);
}

TEST_CASE("A graceful mux_down withdraws first: the ToR drops the Mux from the VIP's next hops at once, and the "
          "session closes after the drain time") {
    const Json c = with_action(bgp_config(), {{"at", "2s"}, {"action", "mux_down"}, {"mux", 1}});
    BgpRun r(c, Time::s(2) + Time::ms(1));
    CHECK(r.hops() == muxes({0, 2, 3}));
    CHECK(r.up(1));  // still draining: the session stays until the stop
    r.sim.run(sim::RunLimits{Time::s(3) + Time::ms(1)});
    CHECK_FALSE(r.up(1));
    r.finish();
    const auto& e = r.model->summary().at("bgp").at("mux_events").at(0);
    CHECK(e.at("mode") == "graceful");
    CHECK(e.at("removed_by") == "withdrawn");
    CHECK(e.at("black_hole_ps") == 0);
    CHECK(r.model->summary().at("bgp").at("hold_expiries") == 0);
}

TEST_CASE("A silent Mux stays a next hop until its hold timer expires: present at T - 1 ps, gone at T") {
    const Json c = with_action(bgp_config(), {{"at", "2s"}, {"action", "mux_down"}, {"mux", 2}, {"withdraw", false}});
    // The ToR last heard Mux 2's keepalive sent at 2 s - 1 s = 1 s (keepalives leave at k * 1 s); find when it
    // arrived from the full run's record, then stop just before and at the expiry.
    Time expiry;
    {
        BgpRun full(c, Time::s(8));
        full.finish();
        const auto& e = full.model->summary().at("bgp").at("mux_events").at(0);
        REQUIRE(e.at("removed_by") == "hold_expired");
        expiry = Time::s(2) + Time::ps(e.at("removed_after_ps").get<std::int64_t>());
        CHECK(expiry > Time::s(4));
        CHECK(expiry < Time::s(4) + Time::ms(1));
        CHECK(e.at("black_hole_ps").get<std::int64_t>() == (expiry - Time::s(2)).count());
        CHECK(full.model->summary().at("bgp").at("muxes").at("mux2").at("state") == "silent");
    }
    BgpRun before(c, expiry - Time::ps(1));
    CHECK(before.hops() == muxes({0, 1, 2, 3}));
    CHECK(before.up(2));
    BgpRun at(c, expiry);
    CHECK(at.hops() == muxes({0, 1, 3}));
    CHECK_FALSE(at.up(2));
}

TEST_CASE("Fast detection removes a silent Mux after fast_multiplier missed hellos instead of the hold time") {
    Json c = with_action(bgp_config(), {{"at", "2s"}, {"action", "mux_down"}, {"mux", 2}, {"withdraw", false}});
    c["bgp"]["fast_detection"] = true;
    c["bgp"]["fast_interval"] = "10ms";
    BgpRun r(c, Time::s(8));
    r.finish();
    const auto& e = r.model->summary().at("bgp").at("mux_events").at(0);
    CHECK(e.at("removed_by") == "fast_detection");
    CHECK(e.at("removed_after_ps").get<std::int64_t>() > Time::ms(20).count());
    CHECK(e.at("removed_after_ps").get<std::int64_t>() <= Time::ms(30).count());
}

TEST_CASE("A recovering Mux opens its session but announces only after it has received its state") {
    Json c = bgp_config();
    c["bgp"]["state_source"] = "action";
    c["scenario"] = Json::array({{{"at", "1s"}, {"action", "mux_down"}, {"mux", 3}, {"withdraw", false}},
                                 {{"at", "5s"}, {"action", "mux_up"}, {"mux", 3}},
                                 {{"at", "6s"}, {"action", "mux_state"}, {"mux", 3}}});
    BgpRun r(c, Time::s(5) + Time::ms(1));
    CHECK(r.up(3));                            // the Open arrived
    CHECK(r.hops() == muxes({0, 1, 2}));       // nothing announced yet
    r.sim.run(sim::RunLimits{Time::s(6) + Time::ms(1)});
    CHECK(r.hops() == muxes({0, 1, 2, 3}));
    r.finish();
    const auto& ev = r.model->summary().at("bgp").at("mux_events");
    CHECK(ev.at(2).at("action") == "mux_state");
    CHECK(ev.at(2).at("announced_after_ps").get<std::int64_t>() > 0);
    CHECK(r.model->summary().at("bgp").at("muxes").at("mux3").at("boots") == 2);
}

TEST_CASE("BGP messages travel as TCP port 179 segments and BFD hellos as UDP 3784 datagrams, sized as on the wire") {
    const BgpMessage ka{BgpKind::Keepalive, addr::mux(1), tor_bgp_address(0), Prefix{}, false};
    const IpPacket p = bgp_packet(ka);
    CHECK(p.inner.proto == IpProto::Tcp);
    CHECK(p.inner.dst_port == kBgpPort);
    CHECK(p.size_bytes == 19 + 40);
    REQUIRE(bgp_message(p).has_value());
    CHECK(*bgp_message(p) == ka);
    const BgpMessage up{BgpKind::Update, addr::mux(1), tor_bgp_address(0), Prefix{addr::vip(0), 32}, true};
    CHECK(*bgp_message(bgp_packet(up)) == up);
    const BgpMessage hello{BgpKind::Hello, addr::mux(1), tor_bgp_address(0), Prefix{}, false};
    const IpPacket h = bgp_packet(hello);
    CHECK(h.inner.proto == IpProto::Udp);
    CHECK(h.inner.dst_port == kBfdPort);
    CHECK(h.size_bytes == 24 + 28);
    CHECK(*bgp_message(h) == hello);
    // A data packet to a VIP on port 179 is not a BGP message.
    CHECK_FALSE(bgp_message(make_packet(FiveTuple{addr::client(0, 1), addr::vip(0), 179, 179, IpProto::Tcp}, 10)));
}

TEST_CASE("Bad bgp parameters and a mux_state without sessions are config errors naming their JSON pointer") {
    sim::Simulator sim;
    auto errors_of = [&](const Json& c) {
        config::Errors errors;
        auto m = build(c, sim, errors);
        CHECK(m == nullptr);
        std::string all;
        for (const auto& e : errors.messages()) all += e + "\n";
        return all;
    };
    Json c = bgp_config();
    c["bgp"]["hold_time"] = "0s";
    CHECK(errors_of(c).find("/bgp/hold_time") != std::string::npos);
    c = bgp_config();
    c["bgp"]["keepalive_interval"] = "5s";
    CHECK(errors_of(c).find("/bgp/keepalive_interval: expected less than hold_time") != std::string::npos);
    c = bgp_config();
    c["bgp"]["state_source"] = "manager";
    CHECK(errors_of(c).find("/bgp/state_source") != std::string::npos);
    c = bgp_config();
    c["bgp"]["sesions"] = true;
    CHECK(errors_of(c).find("/bgp/sesions") != std::string::npos);
    c = bgp_config();
    c["bgp"]["sessions"] = false;
    c["scenario"] = Json::array({{{"at", "1s"}, {"action", "mux_state"}, {"mux", 0}}});
    CHECK(errors_of(c).find("/scenario/0/action: mux_state needs BGP sessions") != std::string::npos);
}
