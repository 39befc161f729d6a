// The Ananta run's dynamics end to end: a Fastpath connection's packets hop by hop with exact headers and its
// switch to host to host, a spoofed redirect refused, Host Agents' health probes keeping new connections away
// from a failed VM (and back after it recovers), the hash study and the dynamics sections' errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "loom/ananta/ananta_model.hpp"
#include "loom/ananta/fastpath_wire.hpp"
#include "loom/ananta/hash_study.hpp"
#include "loom/sim/simulator.hpp"

#include "model_run.hpp"

using namespace loom;
using namespace loom::ananta;
using Json = config::Json;

namespace {

struct DynRun : testing::ModelRun {
    DynRun(const Json& config, Time end) : ModelRun(config, end) {}
    bool is_mux(std::uint32_t i) const { return dynamic_cast<const MuxNode*>(&node(i)) != nullptr; }
};

// 2 racks of 2 hosts, 2 Muxes on ToR 0. VIP a (100.64.0.1) is the VM of host 0, VIP b (100.64.0.2) the VM of
// host 3; exactly one connection a -> b of 10 segments, traced by its SNAT source 100.64.0.1:1024.
Json pair_config(bool fastpath) {
    Json c = Json::parse(R"({
      "model": "ananta", "seed": 5, "end_time": "2s",
      "network": {"racks": 2, "hosts_per_rack": 2, "spines": 2, "borders": 1, "muxes": 2, "mux_racks": 1,
                  "client_nodes": 1},
      "vips": [{"name": "a", "port": 80, "dips": [{"host": 0, "port": 8080}]},
               {"name": "b", "port": 80, "dips": [{"host": 3, "port": 8080}]}],
      "traffic": [{"name": "ab", "source": "vip", "from_vip": 0, "to_vip": 1, "connections_per_s": 1,
                   "arrivals": "fixed", "bytes": 14600, "stop": "1s"}],
      "trace": {"source": "100.64.0.1:1024"}
    })");
    c["vips"][0]["fastpath"] = fastpath;
    c["vips"][1]["fastpath"] = fastpath;
    return c;
}

const IpAddr kVipA = ip(100, 64, 0, 1);
const IpAddr kVipB = ip(100, 64, 0, 2);
const FiveTuple kWire{kVipA, kVipB, 1024, 80, IpProto::Tcp};

}  // namespace

TEST_CASE("Fastpath walk-through: redirects after the handshake with exact headers, then host to host both ways") {
    DynRun r(pair_config(true), Time::s(2));
    const IpAddr host_a = addr::host(0, 0), dip_a = addr::vm(0, 0, 0);
    const IpAddr host_b = addr::host(1, 1), dip_b = addr::vm(1, 1, 0);
    const std::vector<HopRecord> hops = r.model->traced_hops();
    REQUIRE(!hops.empty());

    // Stage 1: the Mux that forwarded the handshake's ACK sends a redirect to VIP a naming b's DIP.
    auto stage1 = std::find_if(hops.begin(), hops.end(), [&](const HopRecord& h) {
        return h.event == HopEvent::Sent && r.is_mux(h.node) && is_redirect(h.packet) && h.packet.wire_dst() == kVipA;
    });
    REQUIRE(stage1 != hops.end());
    const IpAddr mux1 = dynamic_cast<const MuxNode&>(r.node(stage1->node)).mux().address();
    const IpPacket expect1 =
        redirect_packet(FastpathRedirect{mux1, kVipA, kWire, FlowTarget{}, FlowTarget{dip_b, 8080, host_b}});
    CHECK(stage1->packet == expect1);
    CHECK(stage1->packet.size_bytes == 60);
    CHECK(stage1->packet.outer[0] == OuterHeader{mux1, kVipA, kDefaultTtl});
    CHECK(stage1->packet.inner == kWire);
    // Its ACK arrived at that Mux at the same time: the handshake completed through the Muxes.
    CHECK(std::any_of(hops.begin(), stage1, [&](const HopRecord& h) {
        return h.node == stage1->node && h.event == HopEvent::Received && h.at == stage1->at &&
               h.packet.tcp_flags == tcp_flag::kAck && h.packet.inner == kWire;
    }));

    // Stage 2: a Mux of VIP a resolves SNAT port 1024 to a's DIP and redirects both hosts.
    std::vector<HopRecord> stage2;
    for (const HopRecord& h : hops)
        if (h.event == HopEvent::Sent && r.is_mux(h.node) && is_redirect(h.packet) && h.packet.wire_dst() != kVipA)
            stage2.push_back(h);
    REQUIRE(stage2.size() == 2);
    const IpAddr mux2 = dynamic_cast<const MuxNode&>(r.node(stage2[0].node)).mux().address();
    const FlowTarget src{dip_a, 0, host_a}, dst{dip_b, 8080, host_b};
    CHECK(stage2[0].packet == redirect_packet(FastpathRedirect{mux2, host_a, kWire, src, dst}));
    CHECK(stage2[1].packet == redirect_packet(FastpathRedirect{mux2, host_b, kWire, src, dst}));
    const auto accepted = [&](IpAddr host) {
        auto it = std::find_if(hops.begin(), hops.end(), [&](const HopRecord& h) {
            const auto* hn = dynamic_cast<const HostNode*>(&r.node(h.node));
            return hn != nullptr && hn->agent().address() == host && h.event == HopEvent::Delivered && is_redirect(h.packet);
        });
        REQUIRE(it != hops.end());
        return it->at;
    };
    const Time switched = std::max(accepted(host_a), accepted(host_b));

    // From then on: host a wraps the connection's packets host a -> b's DIP, host b wraps its replies host b ->
    // a's DIP, and no packet of the connection reaches a Mux.
    bool forward = false, backward = false;
    for (const HopRecord& h : hops) {
        if (h.at <= switched || is_redirect(h.packet)) continue;
        CHECK_FALSE((h.event == HopEvent::Received && r.is_mux(h.node)));
        if (h.event != HopEvent::Sent) continue;
        const auto* hn = dynamic_cast<const HostNode*>(&r.node(h.node));
        if (hn == nullptr) continue;
        REQUIRE(h.packet.depth == 1);
        if (hn->agent().address() == host_a) {
            CHECK(h.packet.outer[0] == OuterHeader{host_a, dip_b, kDefaultTtl});
            CHECK(h.packet.inner == kWire);
            if (h.packet.payload_bytes > 0) CHECK(h.packet.size_bytes == 20 + 20 + 20 + h.packet.payload_bytes);
            forward = true;
        } else {
            CHECK(hn->agent().address() == host_b);
            CHECK(h.packet.outer[0] == OuterHeader{host_b, dip_a, kDefaultTtl});
            CHECK(h.packet.inner == kWire.reversed());
            backward = true;
        }
    }
    CHECK(forward);
    CHECK(backward);
    const Json& f = r.summary().at("fastpath");
    CHECK(f.at("mux").at("handshakes") == 1);
    CHECK(f.at("mux").at("resolved") == 1);
    CHECK(f.at("hosts").at("redirects_accepted") == 2);
    REQUIRE(r.model->records().size() == 1);
    CHECK(r.model->records()[0].record.outcome == ConnectionOutcome::Completed);
}

TEST_CASE("With Fastpath off every packet of a VIP-to-VIP connection goes through the Muxes") {
    DynRun on(pair_config(true), Time::s(2));
    DynRun off(pair_config(false), Time::s(2));
    auto mux_arrivals = [](const DynRun& r) {
        std::uint64_t n = 0;
        for (const HopRecord& h : r.model->traced_hops())
            if (h.event == HopEvent::Received && r.is_mux(h.node) && !is_redirect(h.packet)) ++n;
        return n;
    };
    // SYN, SYN-ACK, 10 data segments and their ACKs, FIN and FIN-ACK at least.
    CHECK(mux_arrivals(off) >= 24);
    CHECK(mux_arrivals(on) <= 6);
    CHECK_FALSE(off.summary().contains("fastpath"));
    REQUIRE(off.model->records().size() == 1);
    CHECK(off.model->records()[0].record.outcome == ConnectionOutcome::Completed);
}

TEST_CASE("A spoofed Fastpath redirect from a non-Ananta address is refused, counted, and changes nothing") {
    Json c = pair_config(true);
    c["scenario"] = Json::array({{{"at", "1ms"}, {"action", "spoof_redirect"}, {"target", "ananta.client0"}, {"vip", 1}},
                                 {{"at", "2ms"}, {"action", "spoof_redirect"}, {"target", "ananta.rack0.host1"}, {"vip", 0}}});
    DynRun r(c, Time::s(2));
    CHECK(r.drops("redirect_refused") == 2);
    const Json& f = r.summary().at("fastpath");
    CHECK(f.at("spoofed_sent") == 2);
    CHECK(f.at("hosts").at("redirects_refused") == 2);
    CHECK(f.at("hosts").at("redirects_accepted") == 2);  // the genuine ones
    CHECK(r.model->records()[0].record.outcome == ConnectionOutcome::Completed);
}

namespace {
// One VIP over the 4 hosts of one rack, 2 Muxes; Internet clients open 400 connections per second; the VM of
// host 1 fails at 1 s and recovers at 2 s. Probes every 100 ms, 50 ms timeout, 2 results to change.
Json health_config() {
    return Json::parse(R"({
      "model": "ananta", "seed": 7, "end_time": "3s",
      "network": {"racks": 1, "hosts_per_rack": 4, "spines": 1, "borders": 1, "muxes": 2, "client_nodes": 1,
                  "internet_link": {"rate": "10Gbps", "latency": "1ms"}},
      "vips": [{"name": "web", "port": 80, "dip_hosts_first": 0, "dip_hosts_count": 4, "dip_port": 8080}],
      "traffic": [{"name": "c", "to_vip": 0, "connections_per_s": 400, "bytes": 1460, "stop": "2500ms"}],
      "tcp": {"initial_rto": "100ms", "max_retries": 2},
      "health": {"enabled": true, "interval": "100ms", "timeout": "50ms", "reply_latency": "1ms",
                 "report_delay": "1ms", "update_delay": "10ms"},
      "scenario": [{"at": "1s", "action": "vm_unhealthy", "dips": [{"host": 1}]},
                   {"at": "2s", "action": "vm_healthy", "dips": [{"host": 1}]}]
    })");
}
}  // namespace

TEST_CASE("An unhealthy DIP gets no new connection once the Muxes hear of it, and gets them again after recovery") {
    DynRun r(health_config(), Time::s(3));
    const IpAddr dip = addr::vm(0, 1, 0);
    const Json& h = r.summary().at("health");
    // Probes at k * 100 ms: the ones sent at 1.0 s and 1.1 s fail at 1.05 s and 1.15 s; the report reaches the
    // relay 1 ms later and every Mux 10 ms after that. Recovery: probes at 2.0 s and 2.1 s answered 1 ms later.
    REQUIRE(h.at("reports").size() == 2);
    CHECK(h.at("reports")[0] == Json{{"at_ps", Time::ms(1150).count()}, {"dip", format_ip(dip)}, {"healthy", false}});
    CHECK(h.at("reports")[1] == Json{{"at_ps", Time::ms(2101).count()}, {"dip", format_ip(dip)}, {"healthy", true}});
    REQUIRE(h.at("failures").size() == 1);
    const Json& f = h.at("failures")[0];
    CHECK(f.at("detection_ps") == Time::ms(150).count());
    CHECK(f.at("stop_ps") == Time::ms(161).count());
    // New connections (new NAT bindings at its host): some before the Muxes knew, none between 1.161 s and the
    // recovery's 2.112 s, some after.
    std::uint64_t before = 0, during = 0, after = 0;
    for (const HostNode* host : r.model->hosts())
        for (const Sighting& s : host->sightings()) {
            if (s.who != dip) continue;
            if (s.at >= Time::s(1) && s.at < Time::ms(1161)) ++before;
            if (s.at >= Time::ms(1161) && s.at < Time::ms(2112)) ++during;
            if (s.at >= Time::ms(2112)) ++after;
        }
    CHECK(before > 0);
    CHECK(during == 0);
    CHECK(after > 0);
    CHECK(f.at("new_connections_after_failure") == before);
    CHECK(r.drops("vm_down") > 0);
    // The Muxes applied both changes: the DIP is healthy on every Mux at the end.
    for (const MuxNode* m : r.model->muxes()) {
        CHECK(m->mux().healthy(dip));
        CHECK(m->health_applied().size() == 2);
    }
}

TEST_CASE("The hash study section compares Ananta and Maglev over the VIP's DIPs and the pool's table") {
    Json c = health_config();
    c.erase("health");
    c.erase("scenario");
    c["mux"] = {{"hash", "maglev"}, {"maglev_table_size", 251}};
    c["hash_study"] = {{"enabled", true}, {"flows", 20000}, {"maglev_table_sizes", {13, 1021}}};
    DynRun r(c, Time::ms(500));
    const Json& s = r.summary().at("hash_study");
    CHECK(s.at("dips") == 4);
    CHECK(s.at("pool_hash") == "maglev");
    CHECK(s.at("maglev").size() == 3);  // 13, 251 (the pool's) and 1021
    CHECK(s.at("pool") == s.at("maglev").at("251"));
    // Ananta's modulo-4 table: removing 1 of 4 DIPs moves 3/4 of connections... by the hash mod 4 vs mod 3.
    CHECK(s.at("ananta").at("removed").at("disrupted_share").get<double>() > 0.6);
    CHECK(s.at("ananta").at("removed").at("forced_share").get<double>() == Approx(0.25).margin(0.02));
    CHECK(s.at("pool").at("removed").at("disrupted_share").get<double>() < 0.3);
    const auto& m = s.at("measured");
    CHECK(m.at("connections").get<std::uint64_t>() > 100);
    CHECK(m.at("max_over_mean").get<double>() >= 1.0);
}

TEST_CASE("Dynamics sections report bad parameters with their JSON pointers") {
    Json c = health_config();
    c["health"]["reply_latency"] = "60ms";
    c["hash_study"] = {{"enabled", true}, {"vip", 3}};
    c["scenario"].push_back({{"at", "1s"}, {"action", "vm_unhealthy"}});
    c["scenario"].push_back({{"at", "1s"}, {"action", "spoof_redirect"}, {"target", "ananta.nowhere"}});
    sim::Simulator sim{sim::SimulatorOptions{}};
    config::Errors errors;
    CHECK(build(c, sim, errors) == nullptr);
    std::string all;
    for (const auto& m : errors.messages()) all += m + "\n";
    CHECK(all.find("/health/reply_latency: expected less than timeout (50ms), got 60ms") != std::string::npos);
    CHECK(all.find("/hash_study/vip: VIP 3 does not exist (1 VIPs)") != std::string::npos);
    CHECK(all.find("/scenario/2/dips: expected at least one VM") != std::string::npos);

    Json t = health_config();
    t["mux"] = {{"hash", "maglev"}, {"maglev_table_size", 3}};
    sim::Simulator sim2{sim::SimulatorOptions{}};
    config::Errors e2;
    CHECK(build(t, sim2, e2) == nullptr);
    REQUIRE(e2.size() >= 1);
    CHECK(e2.messages()[0].find("/mux/maglev_table_size: a Maglev table needs at least one entry per DIP") == 0);

    Json p = health_config();
    p["hash_study"] = {{"enabled", true}, {"maglev_table_sizes", {100}}};
    p["trace"] = {{"source", "100.64.0.1"}};
    sim::Simulator sim3{sim::SimulatorOptions{}};
    config::Errors e3;
    CHECK(build(p, sim3, e3) == nullptr);
    std::string all3;
    for (const auto& m : e3.messages()) all3 += m + "\n";
    CHECK(all3.find("/hash_study/maglev_table_sizes: expected prime table sizes, got 100") != std::string::npos);
    CHECK(all3.find("/trace/source: expected \"a.b.c.d:port\", got \"100.64.0.1\"") != std::string::npos);

    Json s = pair_config(true);
    s["scenario"] = Json::array({{{"at", "1ms"}, {"action", "spoof_redirect"}, {"target", "ananta.mux0"}, {"vip", 0}}});
    sim::Simulator sim4{sim::SimulatorOptions{}};
    config::Errors e4;
    CHECK(build(s, sim4, e4) == nullptr);
    REQUIRE(e4.size() == 1);
    CHECK(e4.messages()[0].find("/scenario/0/target: spoof_redirect needs a client node or a host") == 0);
}

TEST_CASE("A redirect packet round-trips through its wire layout, hosts from the address plan") {
    const FastpathRedirect r{addr::mux(3), addr::host(1, 1), kWire, FlowTarget{addr::vm(0, 0, 0), 0, addr::host(0, 0)},
                             FlowTarget{addr::vm(1, 1, 0), 8080, addr::host(1, 1)}};
    const IpPacket p = redirect_packet(r);
    CHECK(p.message == kFastpathRedirect);
    CHECK(p.depth == 1);
    CHECK(p.outer[0] == OuterHeader{addr::mux(3), addr::host(1, 1), kDefaultTtl});
    CHECK(p.inner == kWire);
    CHECK(p.size_bytes == kFastpathRedirectBytes);
    const auto back = read_redirect(p);
    REQUIRE(back.has_value());
    CHECK(*back == r);
    IpPacket data = make_packet(kWire, 100, tcp_flag::kAck);
    data.encapsulate(addr::mux(3), addr::vm(1, 1, 0));
    CHECK_FALSE(read_redirect(data).has_value());
}
