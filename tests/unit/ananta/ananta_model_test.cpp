// The Ananta model run end to end in the simulator: packet walk-throughs with exact headers, the same DIP on
// every Mux, ECMP re-spreading, MTU drops, timed actions and TCP retransmissions at T-1/T, conservation under
// overload, epoch rejection, and the validate cross-checks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "loom/ananta/ananta_model.hpp"
#include "loom/base/error.hpp"
#include "loom/sim/simulator.hpp"

#include "model_run.hpp"

using namespace loom;
using namespace loom::ananta;
using Json = config::Json;

namespace {

// 2 racks of 2 hosts, 2 spines, 1 border, 4 Muxes on ToR 0, one client node; one VIP over the 4 hosts; exactly
// one TCP connection (fixed arrivals at 1/s until 1 s).
Json small_config() {
    return Json::parse(R"({
      "model": "ananta", "seed": 3, "end_time": "2s",
      "network": {"racks": 2, "hosts_per_rack": 2, "spines": 2, "borders": 1, "muxes": 4, "mux_racks": 1,
                  "client_nodes": 1, "internet_link": {"rate": "10Gbps", "latency": "1ms"}},
      "vips": [{"name": "web", "port": 80, "dip_hosts_first": 0, "dip_hosts_count": 4, "dip_port": 8080}],
      "traffic": [{"name": "one", "to_vip": 0, "connections_per_s": 1, "arrivals": "fixed", "bytes": 2880,
                   "stop": "1s"}]
    })");
}

using Run = testing::ModelRun;

std::vector<HopRecord> hops_with_flags(const Run& r, std::uint8_t flags) {
    std::vector<HopRecord> out;
    for (const HopRecord& h : r.model->traced_hops())
        if (h.packet.tcp_flags == flags) out.push_back(h);
    return out;
}

}  // namespace

TEST_CASE("A SYN crosses border, spine, ToR and a Mux, is wrapped in IP-in-IP and NATed to its DIP, with exact headers") {
    Run r(small_config());
    const std::vector<HopRecord> syn = hops_with_flags(r, tcp_flag::kSyn);
    REQUIRE(syn.size() >= 12);
    const ClientNode& client = *r.model->clients()[0];
    const IpAddr vip = addr::vip(0);
    const FiveTuple outside{addr::client(0, 0), vip, 1024, 80, IpProto::Tcp};
    IpPacket expect = make_packet(outside, 0, tcp_flag::kSyn);
    expect.mss = 1460;

    // client -> border0: sent and received unchanged.
    CHECK(syn[0].node == client.index());
    CHECK(syn[0].event == HopEvent::Sent);
    CHECK(syn[0].packet == expect);
    CHECK(syn[1].node == r.model->borders()[0]->index());
    CHECK(syn[1].event == HopEvent::Received);
    CHECK(syn[1].packet == expect);
    // Each router decrements the TTL: border, a spine, ToR 0 (which holds the Muxes).
    expect.ttl = 63;
    CHECK(syn[2].event == HopEvent::Sent);
    CHECK(syn[2].packet == expect);
    expect.ttl = 62;
    CHECK(r.node(syn[4].node).path().rfind("ananta.spine", 0) == 0);
    CHECK(syn[4].packet == expect);
    expect.ttl = 61;
    CHECK(syn[6].node == r.model->tors()[0]->index());
    CHECK(syn[6].packet == expect);
    // The Mux: IP-in-IP from its address to the DIP the shared hash picks (+20 bytes, outer TTL 64).
    const auto* mux = dynamic_cast<const MuxNode*>(&r.node(syn[7].node));
    REQUIRE(mux != nullptr);
    CHECK(syn[7].event == HopEvent::Received);
    const WeightedDip* dip = mux->mux().pick(outside);
    REQUIRE(dip != nullptr);
    IpPacket wrapped = expect;
    wrapped.encapsulate(mux->mux().address(), dip->dip);
    CHECK(syn[8].event == HopEvent::Sent);
    CHECK(syn[8].packet == wrapped);
    CHECK(syn[8].packet.size_bytes == 60);
    // Routers route on the outer header and decrement its TTL only.
    wrapped.outer[0].ttl = 63;
    CHECK(syn[10].node == r.model->tors()[0]->index());
    CHECK(syn[10].packet == wrapped);
    // The Host Agent decapsulates, NATs VIP:80 -> DIP:8080 and clamps the MSS to 1440.
    const HopRecord& delivered = syn.back();
    CHECK(delivered.event == HopEvent::Delivered);
    const auto* host = dynamic_cast<const HostNode*>(&r.node(delivered.node));
    REQUIRE(host != nullptr);
    CHECK(host->agent().address() == dip->host);
    IpPacket inside = expect;
    inside.inner.dst = dip->dip;
    inside.inner.dst_port = 8080;
    inside.mss = 1440;
    CHECK(delivered.packet.depth == 0);
    CHECK(delivered.packet.inner == inside.inner);
    CHECK(delivered.packet.mss == 1440);
    CHECK(delivered.packet.ttl == 61);  // the inner TTL is untouched while wrapped
    CHECK(delivered.packet.size_bytes == 40);
    // The connection completed, and its record names that Mux and DIP.
    const auto& recs = r.model->records();
    REQUIRE(recs.size() == 1);
    CHECK(recs[0].record.outcome == ConnectionOutcome::Completed);
    CHECK(recs[0].record.mux == mux->mux().address());
    CHECK(recs[0].record.dip == dip->dip);
}

TEST_CASE("The SYN-ACK returns by direct server return: reverse-NATed at the host, routed to the client, never through a Mux") {
    Run r(small_config());
    const std::vector<HopRecord> synack = hops_with_flags(r, tcp_flag::kSyn | tcp_flag::kAck);
    REQUIRE(!synack.empty());
    const FiveTuple back{addr::vip(0), addr::client(0, 0), 80, 1024, IpProto::Tcp};
    IpPacket expect = make_packet(back, 0, tcp_flag::kSyn | tcp_flag::kAck);
    expect.mss = 1440;  // the server's 1460, clamped on the way out
    const auto* host = dynamic_cast<const HostNode*>(&r.node(synack[0].node));
    REQUIRE(host != nullptr);
    CHECK(synack[0].event == HopEvent::Sent);
    CHECK(synack[0].packet == expect);
    std::uint8_t ttl = 64;
    for (const HopRecord& h : synack) {
        CHECK(dynamic_cast<const MuxNode*>(&r.node(h.node)) == nullptr);
        CHECK(h.packet.depth == 0);
        CHECK(h.packet.inner == back);
        if (h.event == HopEvent::Sent && dynamic_cast<const RouterNode*>(&r.node(h.node))) {
            --ttl;
            CHECK(h.packet.ttl == ttl);
        }
    }
    CHECK(ttl == 64 - 3);  // ToR, spine, border
    CHECK(synack.back().event == HopEvent::Delivered);
    CHECK(synack.back().node == r.model->clients()[0]->index());
}

TEST_CASE("Every Mux of the pool picks the same DIP for a connection") {
    Json c = small_config();
    c["traffic"][0]["connections_per_s"] = 200;
    c["traffic"][0]["arrivals"] = "poisson";
    Run r(c);
    REQUIRE(r.model->records().size() > 100);
    for (const ConnectionReport& rec : r.model->records()) {
        const IpAddr first = r.model->muxes()[0]->mux().pick(rec.outside)->dip;
        for (const MuxNode* m : r.model->muxes()) CHECK(m->mux().pick(rec.outside)->dip == first);
        CHECK(rec.record.dip == first);
    }
}

TEST_CASE("A Mux withdrawn from ECMP moves the share of flows theory predicts: 1/n resilient, about 1 - 1/n modulo") {
    for (const char* mode : {"resilient", "modulo"}) {
        Json c = small_config();
        c["ecmp"] = {{"mode", mode}};
        c["scenario"] = Json::array({{{"at", "500ms"}, {"action", "mux_down"}, {"mux", 1}}});
        Run r(c);
        const auto& changes = r.model->ecmp_changes();
        REQUIRE(changes.size() == 1);
        CHECK(changes[0].router == "ananta.tor0");
        CHECK(changes[0].at == Time::ms(500));
        INFO(mode);
        // Resilient with 256 buckets over 4 Muxes: exactly Mux 1's 64 buckets move (sampled: within 1%).
        // Modulo: a flow stays only where h mod 4 and h mod 3 give the same Mux, about a quarter of them.
        if (std::string(mode) == "resilient") {
            CHECK(changes[0].share_moved == Approx(0.25).margin(0.01));
        } else {
            CHECK(changes[0].share_moved == Approx(0.75).margin(0.02));
        }
    }
}

TEST_CASE("A packet over the MTU after encapsulation is dropped at the Mux unless the MSS is clamped") {
    Json c = small_config();
    c["host_agent"] = {{"mss_clamp", 1460}};  // full 1460-byte segments: 1500 bytes, 1520 with IP-in-IP
    Run r(c);
    CHECK(r.drops("mtu") > 0);
    CHECK(r.model->records()[0].record.outcome != ConnectionOutcome::Completed);
    Run ok(small_config());
    CHECK(ok.drops("mtu") == 0);
    CHECK(ok.model->records()[0].record.outcome == ConnectionOutcome::Completed);
}

TEST_CASE("A timed action at T holds for a packet arriving at T and not for one arriving at T - 1ps") {
    // Where and when the SYN reaches its Mux.
    Run probe(small_config());
    const std::vector<HopRecord> syn = hops_with_flags(probe, tcp_flag::kSyn);
    const HopRecord* at_mux = nullptr;
    for (const HopRecord& h : syn)
        if (h.event == HopEvent::Received && dynamic_cast<const MuxNode*>(&probe.node(h.node))) at_mux = &h;
    REQUIRE(at_mux != nullptr);
    const auto mux = static_cast<std::int64_t>(dynamic_cast<const MuxNode&>(probe.node(at_mux->node)).number());
    const Time t = at_mux->at;
    auto with_fail_at = [&](Time when) {
        Json c = small_config();
        c["scenario"] = Json::array(
            {{{"at", std::to_string(when.count()) + "ps"}, {"action", "mux_down"}, {"mux", mux}, {"withdraw", false}}});
        return c;
    };
    Run at_t(with_fail_at(t));
    Run after(with_fail_at(t + Time::ps(1)));
    // At T the Mux drops the SYN on arrival; failed 1 ps later, it had taken the SYN in (its core then sends it
    // at the departure time, when the Mux is down: that drop comes later).
    auto dropped_on_arrival = [&](const Run& run) {
        for (const HopRecord& h : hops_with_flags(run, tcp_flag::kSyn))
            if (h.event == HopEvent::Dropped && h.node == at_mux->node && h.at == t) return true;
        return false;
    };
    CHECK(dropped_on_arrival(at_t));
    CHECK_FALSE(dropped_on_arrival(after));
    CHECK(at_t.drops("mux_down") >= 1);
    CHECK(after.drops("mux_down") >= 1);
}

TEST_CASE("A SYN that is never answered is resent at exactly 1 s, 3 s and 7 s after the first, then the connection fails") {
    Json c = small_config();
    c["end_time"] = "200s";
    c["tcp"] = {{"max_retries", 3}};
    c["vips"][0]["dip_hosts_count"] = 1;
    c["scenario"] = Json::array({{{"at", "0s"}, {"action", "freeze"}, {"target", "ananta.rack0.host0"}}});
    Run r(c);
    std::vector<Time> sent;
    for (const HopRecord& h : hops_with_flags(r, tcp_flag::kSyn))
        if (h.event == HopEvent::Sent && h.node == r.model->clients()[0]->index()) sent.push_back(h.at);
    REQUIRE(sent.size() == 4);
    CHECK(sent[1] - sent[0] == Time::s(1));
    CHECK(sent[2] - sent[0] == Time::s(3));
    CHECK(sent[3] - sent[0] == Time::s(7));
    const ConnectionRecord& rec = r.model->records()[0].record;
    CHECK(rec.outcome == ConnectionOutcome::Failed);
    CHECK(rec.retransmissions == 3);
    CHECK(rec.finished - rec.opened == Time::s(15));  // the fourth timeout (8 s) after the last resend
    CHECK(r.drops("frozen") == 4);
}

TEST_CASE("A frozen router drops what reaches it as frozen, and its arrivals are traced first") {
    // Routers take their arrivals through their own input binding (RouterNode::make_input), not DcNode's.
    Json c = small_config();
    c["end_time"] = "20s";
    c["tcp"] = {{"max_retries", 2}};
    c["scenario"] = Json::array({{{"at", "0s"}, {"action", "freeze"}, {"target", "ananta.border0"}}});
    Run r(c);
    const std::vector<HopRecord> syn = hops_with_flags(r, tcp_flag::kSyn);
    std::size_t received = 0;
    for (const HopRecord& h : syn) {
        CHECK(h.node != r.model->tors()[0]->index());  // nothing got past the border
        if (h.node == r.model->borders()[0]->index()) {
            CHECK(h.event != HopEvent::Sent);
            if (h.event == HopEvent::Received) ++received;
        }
    }
    CHECK(received == 3);  // the SYN and its two resends
    CHECK(r.drops("frozen") == 3);
    CHECK(r.model->records()[0].record.outcome == ConnectionOutcome::Failed);
}

TEST_CASE("Under overload every packet is still delivered or dropped with a reason") {
    Json c = small_config();
    c["traffic"][0]["connections_per_s"] = 2000;
    c["traffic"][0]["bytes"] = 14400;
    c["mux"] = {{"cores", 1}, {"core_pps", 5000}, {"core_queue_packets", 8}};
    c["network"]["queue_packets"] = 4;
    c["network"]["internet_link"] = {{"rate", "200Mbps"}, {"latency", "1ms"}};
    c["tcp"] = {{"data_rate", "50Mbps"}};
    Run r(c);  // finish() throws on a conservation violation
    CHECK(r.drops("mux_overload") > 0);
    CHECK(r.drops("queue_full") > 0);
    CHECK(r.model->conservation_problems().empty());
}

TEST_CASE("A configuration command with an older epoch than a Mux has seen is rejected and reported") {
    Json c = small_config();
    c["scenario"] = Json::array({{{"at", "100ms"}, {"action", "command"}, {"vip", 0}, {"epoch", 5}, {"mux", 2}},
                                 {{"at", "200ms"}, {"action", "command"}, {"vip", 0}, {"epoch", 3}},
                                 {{"at", "300ms"}, {"action", "command"}, {"vip", 0}, {"epoch", 5}}});
    Run r(c);
    const auto& e = r.model->summary().at("epochs");
    CHECK(e.at("mux_commands_rejected").get<int>() == 1);  // only Mux 2 had seen epoch 5
    const auto& rej = e.at("rejections");
    REQUIRE(rej.size() == 1);
    CHECK(rej[0].at("mux") == "ananta.mux2");
    CHECK(rej[0].at("command_epoch") == 3);
    CHECK(rej[0].at("highest_seen") == 5);
    CHECK(rej[0].at("at_ps") == Time::ms(200).count());
}

TEST_CASE("Validation names the JSON pointer of a DIP on a missing host, a duplicate VIP and a bad scenario target") {
    Json c = small_config();
    c["vips"].push_back({{"name", "dup"}, {"address", "100.64.0.1"}, {"dips", {{{"host", 9}}}}});
    c["scenario"] = Json::array({{{"at", "1ms"}, {"action", "mux_down"}, {"mux", 4}}});
    sim::Simulator sim{sim::SimulatorOptions{}};
    config::Errors errors;
    CHECK(build(c, sim, errors) == nullptr);
    std::string all;
    for (const auto& m : errors.messages()) all += m + "\n";
    CHECK(all.find("/vips/1/dips/0/host: host 9 does not exist") != std::string::npos);
    CHECK(all.find("/vips/1: endpoint 100.64.0.1:80 is already defined by /vips/0") != std::string::npos);
    CHECK(all.find("/scenario/0/mux") != std::string::npos);
    Json l = small_config();
    l["scenario"] = Json::array({{{"at", "1ms"}, {"action", "link_down"}, {"target", "ananta.nowhere"}}});
    config::Errors e2;
    sim::Simulator sim2{sim::SimulatorOptions{}};
    CHECK(build(l, sim2, e2) == nullptr);
    REQUIRE(e2.size() == 1);
    CHECK(e2.messages()[0].find("/scenario/0/target") == 0);
    Json no_end = small_config();
    no_end.erase("end_time");
    config::Errors e3;
    sim::Simulator sim3{sim::SimulatorOptions{}};
    CHECK(build(no_end, sim3, e3) == nullptr);
    REQUIRE(e3.size() == 1);
    CHECK(e3.messages()[0].find("/end_time") == 0);
}

TEST_CASE("UDP pseudo-connections from the Internet and VIP-to-VIP through SNAT reach a DIP, and stop_traffic pauses a source") {
    Json c = small_config();
    c["vips"].push_back({{"name", "dns"}, {"port", 53}, {"protocol", "udp"}, {"dip_hosts_first", 0},
                         {"dip_hosts_count", 4}, {"dip_port", 5353}});
    c["traffic"] = Json::array(
        {{{"name", "q"}, {"to_vip", 1}, {"protocol", "udp"}, {"connections_per_s", 200}, {"bytes", 1024},
          {"udp_datagram_bytes", 512}, {"stop", "1s"}},
         {{"name", "v2v"}, {"source", "vip"}, {"from_vip", 0}, {"to_vip", 1}, {"protocol", "udp"},
          {"connections_per_s", 50}, {"bytes", 512}, {"stop", "1s"}}});
    c["scenario"] = Json::array({{{"at", "400ms"}, {"action", "stop_traffic"}, {"target", "q"}},
                                 {{"at", "600ms"}, {"action", "start_traffic"}, {"target", "q"}}});
    Run r(c);
    std::size_t internet = 0, vip = 0;
    for (const ConnectionReport& rec : r.model->records()) {
        CHECK(rec.record.outcome == ConnectionOutcome::Completed);
        CHECK(rec.record.mux != 0);
        CHECK(rec.record.dip != 0);
        if (rec.traffic == 0) {
            ++internet;
            CHECK(rec.record.bytes_delivered == 1024);
            CHECK_FALSE((rec.record.opened >= Time::ms(400) && rec.record.opened < Time::ms(600)));
        } else {
            ++vip;
            CHECK(rec.record.bytes_delivered == 512);
            CHECK(addr::decode(rec.outside.src).kind == addr::Kind::Vip);  // source-NATed to VIP 0
        }
    }
    CHECK(internet > 80);
    CHECK(vip > 20);
}

TEST_CASE("The builder puts each component's output ports side by side in one block, in port order") {
    Run r(small_config());
    for (DcNode* n : r.model->nodes()) {
        INFO(n->path());
        CHECK(n->block_ports() == n->ports());
        for (std::uint32_t p = 1; p < n->ports(); ++p) CHECK(&n->out(p) == &n->out(p - 1) + 1);
    }
}

namespace {

// A component that sends on command and keeps what it receives.
class Probe final : public DcNode {
public:
    using DcNode::DcNode;
    void send_on(std::uint32_t port, const IpPacket& p) { send(port, p); }
    std::vector<IpPacket> got;

private:
    void on_packet(const IpPacket& p) override { got.push_back(p); }
};

// A Probe that asks for the kernel's prefetch hook and records the packets it was shown.
class PrefetchingProbe final : public DcNode {
public:
    using DcNode::DcNode;
    std::vector<IpPacket> got;
    mutable std::vector<std::uint16_t> shown;  // dst_port of each packet shown

private:
    void on_packet(const IpPacket& p) override { got.push_back(p); }
    bool prefetches() const override { return true; }
    void prefetch_arrival(const IpPacket& p) const override { shown.push_back(p.inner.dst_port); }
};

}  // namespace

TEST_CASE("A component that prefetches gets the kernel's hook on its input ports, shown the next arrival") {
    for (bool hooked : {false, true}) {
        CAPTURE(hooked);
        sim::Simulator sim;
        const DcShared shared{DcConfig{}};
        auto& a = sim.add<Probe>("a", shared, 0u);
        std::vector<IpPacket>* got = nullptr;
        const std::vector<std::uint16_t>* shown = nullptr;
        DcNode* b = nullptr;
        if (hooked) {
            auto& r = sim.add<PrefetchingProbe>("b", shared, 1u);
            got = &r.got;
            shown = &r.shown;
            b = &r;
        } else {
            auto& r = sim.add<Probe>("b", shared, 1u);
            got = &r.got;
            b = &r;
        }
        for (std::uint32_t i = 0; i < 3; ++i) {
            const std::string n = std::to_string(i);
            a.add_port("p" + n, shared.fabric_link);
            b->add_port("q" + n, shared.fabric_link);
            net::connect(sim, a.out(i), b->in(i));
            net::connect(sim, b->out(i), a.in(i));
        }
        CHECK(sim.prefetch_hooks() == hooked);  // routers and probes without it leave the loop as it was
        sim.init();
        for (std::uint32_t i = 0; i < 3; ++i) {
            const auto port = static_cast<std::uint16_t>(7 + i);
            a.send_on(i, make_packet(FiveTuple{ip(10, 0, 0, 1), ip(10, 0, 0, 2), 1000, port}, 100));
        }
        sim.run();
        REQUIRE(got->size() == 3);
        if (!hooked) continue;
        // The second and third arrivals were shown while the one before was about to run.
        for (std::size_t k = 1; k < 3; ++k)
            CHECK(std::count(shown->begin(), shown->end(), (*got)[k].inner.dst_port) >= 1);
    }
}

TEST_CASE("Ports beyond a component's reserved block, or without one, carry packets like the block's") {
    sim::Simulator sim;
    const DcShared shared{DcConfig{}};
    auto& a = sim.add<Probe>("a", shared, 0u);
    auto& b = sim.add<Probe>("b", shared, 1u);
    a.reserve_ports(2);  // three ports follow: two in the block, one alone
    for (std::uint32_t i = 0; i < 3; ++i) {
        const std::string n = std::to_string(i);  // (a temporary's concatenation trips g++ 12's -Wrestrict)
        CHECK(a.add_port("p" + n, shared.fabric_link) == i);
        CHECK(b.add_port("q" + n, shared.fabric_link) == i);  // b reserved nothing
        net::connect(sim, a.out(i), b.in(i));
        net::connect(sim, b.out(i), a.in(i));
    }
    CHECK(a.block_ports() == 2);
    CHECK(b.block_ports() == 0);
    CHECK(&a.out(1) == &a.out(0) + 1);
    sim.init();
    for (std::uint32_t i = 0; i < 3; ++i) {
        IpPacket p = make_packet(FiveTuple{ip(10, 0, 0, 1), ip(10, 0, 0, 2), 1000, static_cast<std::uint16_t>(i)}, 100);
        a.send_on(i, p);
        b.send_on(i, p);
    }
    sim.run();
    REQUIRE(a.got.size() == 3);
    REQUIRE(b.got.size() == 3);
    for (std::uint32_t i = 0; i < 3; ++i) {
        CHECK(a.out(i).engine().sent() == 1);
        CHECK(b.out(i).engine().sent() == 1);
        CHECK(b.got[i].inner.dst_port == i);
        CHECK(a.got[i].inner.dst_port == i);
    }
}
