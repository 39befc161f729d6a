// The Ananta control plane inside the packet model: manager replicas over Paxos links, VIP configuration through
// the primary, SNAT ranges requested by Host Agents (each (VIP, port) with one DIP, no two live connections on
// one 5-tuple, one request per DIP), failover, the stale primary with and without the fix, overload withdrawal,
// determinism, and the config errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "loom/ananta/ananta_model.hpp"
#include "loom/ananta/control_plane.hpp"
#include "loom/ananta/control_plane_wire.hpp"
#include "loom/sim/simulator.hpp"

#include "model_run.hpp"

using namespace loom;
using namespace loom::ananta;
using Json = config::Json;

namespace {

// 2 racks of 4 hosts, 4 Muxes; VIP web on hosts 0-3, VIP app on hosts 4-7 whose VMs open connections to web
// through SNAT; Internet clients to web; the control plane on.
Json cp_config() {
    return Json::parse(R"({
      "model": "ananta", "seed": 5, "end_time": "3s",
      "network": {"racks": 2, "hosts_per_rack": 4, "spines": 2, "borders": 1, "muxes": 4, "client_nodes": 1},
      "vips": [{"name": "web", "port": 80, "dip_hosts_first": 0, "dip_hosts_count": 4},
               {"name": "app", "port": 443, "dip_hosts_first": 4, "dip_hosts_count": 4}],
      "traffic": [{"name": "internet", "to_vip": 0, "connections_per_s": 50, "bytes": 1460, "stop": "2500ms"},
                  {"name": "outbound", "source": "vip", "from_vip": 1, "to_vip": 0, "connections_per_s": 200,
                   "bytes": 1460, "start": "300ms", "stop": "2500ms"}],
      "tcp": {"data_rate": "10Mbps"},
      "control_plane": {"enabled": true}
    })");
}

struct CpRun : testing::ModelRun {
    explicit CpRun(const Json& config) : ModelRun(config) { REQUIRE(model->control() != nullptr); }
    const ControlPlane& cp() const { return *model->control(); }
    const Json& summary() const { return model->summary().at("control_plane"); }
};

std::vector<std::string> errors_of(const Json& config) {
    sim::Simulator sim;
    config::Errors errors;
    auto m = build(config, sim, errors);
    return errors.messages();
}

}  // namespace

TEST_CASE("With the control plane on VIP-to-VIP connections get their SNAT ports from the manager and every Mux maps each port to the one DIP holding it") {
    CpRun r(cp_config());
    CHECK(r.cp().snat_violations().empty());
    for (const auto& v : r.cp().snat_violations()) INFO(v);
    CHECK(r.cp().duplicate_requests() == 0);
    REQUIRE(!r.cp().grants().empty());
    REQUIRE(!r.cp().snat_records().empty());
    // Each (VIP, port) was granted to at most one DIP over the whole run (nothing is reclaimed in 3 s).
    std::map<std::pair<IpAddr, std::uint16_t>, IpAddr> owner;
    for (const GrantRecord& g : r.cp().grants())
        for (std::uint32_t i = 0; i < g.count; ++i) {
            auto [it, fresh] = owner.emplace(std::make_pair(g.vip, static_cast<std::uint16_t>(g.first + i)), g.dip);
            CHECK((fresh || it->second == g.dip));
        }
    // And every Mux maps every granted port back to its DIP at the end.
    for (const MuxNode* m : r.model->muxes())
        for (const auto& [key, dip] : owner) {
            const FlowTarget* t = m->mux().snat_target(key.first, IpProto::Tcp, key.second);
            REQUIRE(t != nullptr);
            CHECK(t->dip == dip);
        }
    const Json& c = r.model->summary().at("connections");
    CHECK(c.at("failed") == 0);
    CHECK(c.at("open") == 0);
    CHECK(r.summary().at("snat").at("waiting") == 0);
    CHECK(r.summary().at("snat").at("latency_ps").at("p50").get<std::int64_t>() > 0);
}

TEST_CASE("No two live connections share a 5-tuple: every established VIP-to-VIP connection made its own NAT binding at its server") {
    CpRun r(cp_config());
    const IpAddr app = addr::vip(1);
    std::uint64_t established = 0;
    for (const ConnectionReport& c : r.model->records())
        if (c.record.tuple.dst == addr::vip(0) && addr::decode(c.record.tuple.src).kind == addr::Kind::Vm &&
            c.record.established_at_all())
            ++established;
    std::uint64_t bindings = 0;
    std::set<std::tuple<IpAddr, std::uint16_t, IpAddr, std::uint16_t>> seen;
    for (const HostNode* h : r.model->hosts())
        for (const Sighting& s : h->sightings())
            if (s.outside.src == app) {
                ++bindings;
                seen.emplace(s.outside.src, s.outside.src_port, s.outside.dst, s.outside.dst_port);
            }
    REQUIRE(established > 100);
    // A connection on a 5-tuple that another live one used would have found that binding instead of making one.
    CHECK(bindings == established);
    CHECK(seen.size() == bindings);  // bindings live 240 s: no tuple was used twice in this run
}

TEST_CASE("At most one SNAT request per DIP is outstanding and a second is never sent") {
    Json j = cp_config();
    j["snat"] = {{"preallocate_ranges", 0}, {"demand_prediction", false}};
    CpRun r(j);
    CHECK(r.cp().duplicate_requests() == 0);
    std::uint64_t dropped = 0;
    for (const ManagerNode* m : r.cp().replicas()) dropped += m->counters().snat_dropped;
    CHECK(dropped == 0);
    // Per DIP the requests are sequential: each was asked after the previous one was granted.
    std::map<IpAddr, Time> last_granted;
    for (const SnatRecord& s : r.cp().snat_records()) {
        auto it = last_granted.find(s.dip);
        if (it != last_granted.end()) CHECK(s.requested >= it->second);
        REQUIRE(s.granted != kNever);
        last_granted[s.dip] = s.granted;
    }
    CHECK(r.cp().snat_records().size() > 8);
}

TEST_CASE("configure_vip goes through the primary and completes once every Mux and Host Agent has applied it") {
    Json j = cp_config();
    j["scenario"] = Json::parse(R"([{"at": "1s", "action": "configure_vip", "vip": 0,
                                     "dips": [{"host": 0}, {"host": 1}, {"host": 2}]}])");
    CpRun r(j);
    const auto& ops = r.cp().vip_configs();
    const VipConfigRecord* op = nullptr;
    for (const auto& o : ops)
        if (!o.initial) op = &o;
    REQUIRE(op != nullptr);
    CHECK(op->outcome == Outcome::Done);
    CHECK(op->replica == 0);
    // At least a durable write, the Muxes' programming and the Host Agents' (defaults: 1 ms, 1 ms, 100 us).
    CHECK(op->done - op->requested > Time::ms(2));
    CHECK(op->done - op->requested < Time::ms(10));
    const Epoch e = r.cp().replicas()[0]->manager()->epoch();
    for (const MuxNode* m : r.model->muxes()) CHECK(m->mux().epoch() == e);
    // The new DIP list is in force: host 3's VM gets no connection opened after the change.
    for (const MuxNode* m : r.model->muxes()) {
        const WeightedDip* d = m->mux().pick(FiveTuple{addr::client(0, 7), addr::vip(0), 1234, 80, IpProto::Tcp});
        REQUIRE(d != nullptr);
        CHECK(d->host != addr::host(0, 3));
    }
}

TEST_CASE("The primary's crash elects a new one and work resumes, while a majority down stops all of it") {
    Json j = cp_config();
    j["scenario"] = Json::parse(R"([{"at": "1s", "action": "replica_crash", "replica": 0},
                                     {"at": "1200ms", "action": "configure_vip", "vip": 0}])");
    {
        CpRun r(j);
        const auto& s = r.summary();
        CHECK(s.at("primary").at("elections_won").get<int>() >= 2);
        CHECK(s.at("vip_configuration").at("done") == 1);
        CHECK(s.at("snat").at("waiting") == 0);
        CHECK(r.model->summary().at("connections").at("failed") == 0);
    }
    j["control_plane"]["replicas_down"] = 2;  // 3 left; the crash leaves 2 of 5
    {
        CpRun r(j);
        const auto& s = r.summary();
        CHECK(s.at("vip_configuration").at("done") == 0);
        CHECK(s.at("vip_configuration").at("not_done") == 1);
        CHECK(s.at("primary").at("time_without_primary_ps").get<std::int64_t>() > Time::ms(1500).count());
    }
}

TEST_CASE("A thawed stale primary steps down at its first rejected command with the fix and acts on without it") {
    auto config = [](bool fix) {
        Json j = cp_config();
        j["traffic"] = Json::parse(R"([{"name": "internet", "to_vip": 0, "connections_per_s": 50, "bytes": 1460}])");
        j["end_time"] = "4s";
        j["scenario"] = Json::parse(R"([{"at": "500ms", "action": "replica_freeze", "replica": 0},
            {"at": "1s", "action": "configure_vip", "vip": 0}, {"at": "2s", "action": "replica_thaw", "replica": 0},
            {"at": "2500ms", "action": "health_report", "dips": [{"host": 1}], "healthy": false},
            {"at": "3s", "action": "health_report", "dips": [{"host": 1}], "healthy": true}])");
        j["manager"] = {{"write_on_reject", fix}};
        return j;
    };
    CpRun with(config(true));
    CpRun without(config(false));
    const auto& w = with.summary();
    const auto& wo = without.summary();
    CHECK(w.at("replicas").at("manager0").at("believes_primary") == false);
    CHECK(wo.at("replicas").at("manager0").at("believes_primary") == true);
    CHECK(w.at("commands").at("fence_writes").get<int>() >= 1);
    CHECK(wo.at("commands").at("fence_writes") == 0);
    // The stale primary's commands were all refused (epochs), in both runs.
    CHECK(w.at("replicas").at("manager0").at("commands_rejected_at_peers").get<int>() > 0);
    CHECK(wo.at("replicas").at("manager0").at("commands_rejected_at_peers").get<int>() >
          w.at("replicas").at("manager0").at("commands_rejected_at_peers").get<int>());
    const auto two_w = w.at("primary").at("time_with_two_believing_primaries_ps").get<std::int64_t>();
    const auto two_wo = wo.at("primary").at("time_with_two_believing_primaries_ps").get<std::int64_t>();
    CHECK(two_wo > two_w);
    CHECK(two_wo > Time::s(1).count());
    // Frozen from 500 ms to 2 s, the old primary believed it led but could not act: that time is excluded from
    // the time with two acting primaries (the new one was elected within 500 ms of the freeze).
    const auto act_w = w.at("primary").at("time_with_two_acting_primaries_ps").get<std::int64_t>();
    const auto act_wo = wo.at("primary").at("time_with_two_acting_primaries_ps").get<std::int64_t>();
    CHECK(two_w - act_w >= Time::s(1).count());
    CHECK(two_w - act_w <= Time::ms(1500).count());
    CHECK(two_wo - act_wo == two_w - act_w);
    CHECK(act_wo > act_w);
}

TEST_CASE("A control-plane run is deterministic: the same config gives the same summary") {
    Json j = cp_config();
    j["control_plane"]["link"] = Json::parse(R"({"faults": {"loss": 0.05, "duplicate": 0.05, "reorder_window": "100us"}})");
    j["scenario"] = Json::parse(R"([{"at": "1s", "action": "replica_crash", "replica": 0},
                                     {"at": "1500ms", "action": "replica_recover", "replica": 0}])");
    CpRun a(j);
    CpRun b(j);
    CHECK(a.model->summary().dump() == b.model->summary().dump());
    CHECK(a.summary().at("paxos_links").at("packets_dropped").get<int>() > 0);
}

TEST_CASE("Control-plane config errors name their JSON pointer") {
    Json j = cp_config();
    j["control_plane"]["replicas"] = 0;
    auto e = errors_of(j);
    REQUIRE(!e.empty());
    CHECK(e.front().find("/control_plane/replicas") != std::string::npos);

    j = cp_config();
    j["control_plane"]["enabled"] = false;
    j["scenario"] = Json::parse(R"([{"at": "1s", "action": "replica_crash", "replica": 0}])");
    e = errors_of(j);
    REQUIRE(!e.empty());
    CHECK(e.front().find("/scenario/0/action: needs the control plane") != std::string::npos);

    j = cp_config();
    j["scenario"] = Json::parse(R"([{"at": "1s", "action": "replica_crash", "replica": 5}])");
    e = errors_of(j);
    REQUIRE(!e.empty());
    CHECK(e.front().find("/scenario/0/replica: expected a replica in 0..4, got 5") != std::string::npos);

    j = cp_config();
    j["control_plane"]["replicas_down"] = 5;
    e = errors_of(j);
    REQUIRE(!e.empty());
    CHECK(e.front().find("/control_plane/replicas_down") != std::string::npos);
}

TEST_CASE("Under a flood the overloaded Muxes' reports make the primary withdraw the flooded VIP from every Mux and the other tenant loses no connection") {
    Json j = Json::parse(R"({
      "model": "ananta", "seed": 2, "end_time": "2s",
      "network": {"racks": 2, "hosts_per_rack": 4, "spines": 2, "borders": 1, "muxes": 4, "client_nodes": 2},
      "vips": [{"name": "web", "port": 80, "tenant": 2, "dip_hosts_first": 0, "dip_hosts_count": 4},
               {"name": "victim", "port": 80, "tenant": 1, "dip_hosts_first": 4, "dip_hosts_count": 4}],
      "traffic": [{"name": "web", "to_vip": 0, "connections_per_s": 500, "bytes": 1460},
                  {"name": "flood", "to_vip": 1, "connections_per_s": 20000, "bytes": 0, "start": "500ms",
                   "stop": "1500ms"}],
      "mux": {"cores": 1, "core_pps": 20000, "core_queue_packets": 256},
      "tcp": {"data_rate": "10Mbps"},
      "control_plane": {"enabled": true}
    })");
    CpRun r(j);
    REQUIRE(r.cp().isolations().size() == 1);
    const IsolationDone& i = r.cp().isolations()[0];
    CHECK(i.vip == addr::vip(1));
    CHECK(i.withdrawn > i.reported);
    CHECK(i.reported > Time::ms(500));
    for (const auto& w : r.cp().withdrawals()) {
        REQUIRE(w.size() == 1);
        CHECK(w[0] == addr::vip(1));
    }
    const Json& web = r.model->summary().at("vips").at("web");
    CHECK(web.at("failed") == 0);
    CHECK(web.at("connections").get<int>() > 500);
}

TEST_CASE("UDP connections of a VIP's DIPs get their SNAT ports from the manager too, mapped on every Mux") {
    Json j = cp_config();
    j["traffic"][1]["protocol"] = "udp";
    j["vips"][0]["protocol"] = "udp";
    j["traffic"][0]["protocol"] = "udp";
    CpRun r(j);
    CHECK(r.cp().snat_violations().empty());
    REQUIRE(!r.cp().grants().empty());
    for (const MuxNode* m : r.model->muxes())
        for (const GrantRecord& g : r.cp().grants()) {
            const FlowTarget* t = m->mux().snat_target(g.vip, IpProto::Udp, g.first);
            REQUIRE(t != nullptr);
            CHECK(t->dip == g.dip);
        }
    // Datagrams from the app VIP's DIPs reached web's VMs under the app VIP's address and a granted port.
    std::set<std::uint16_t> granted;
    for (const GrantRecord& g : r.cp().grants())
        for (std::uint32_t i = 0; i < g.count; ++i) granted.insert(static_cast<std::uint16_t>(g.first + i));
    std::uint64_t bytes = 0;
    for (const HostNode* h : r.model->hosts())
        for (const auto& [t, b] : h->udp_bytes())
            if (t.src == addr::vip(1)) {
                CHECK(granted.contains(t.src_port));
                bytes += b;
            }
    CHECK(bytes > 0);
    CHECK(r.summary().at("snat").at("waiting") == 0);
}

TEST_CASE("Commands and their acknowledgements are packets on the command links, applied after the programming latency") {
    Json j = cp_config();
    j["control_plane"]["control_latency"] = "3ms";
    j["scenario"] = Json::parse(R"([{"at": "1s", "action": "configure_vip", "vip": 0}])");
    CpRun r(j);
    std::uint64_t received = 0, sent = 0, malformed = 0;
    for (const ControlAgent* a : r.cp().agents()) {
        received += a->packets_received();
        malformed += a->malformed();
        CHECK(a->incomplete() == 0);
    }
    for (ManagerNode* m : r.cp().replicas())
        for (const auto& o : m->command_outs()) sent += o->engine().sent();
    CHECK(received > 0);
    CHECK(received == sent);
    CHECK(malformed == 0);
    const VipConfigRecord* op = nullptr;
    for (const auto& o : r.cp().vip_configs())
        if (!o.initial) op = &o;
    REQUIRE(op != nullptr);
    REQUIRE(op->outcome == Outcome::Done);
    // Inside the primary: the Muxes' command (3 ms) + programming (1 ms) + ack (3 ms), the Host Agents' at the
    // same time (3 ms + 100 us + 3 ms): at least 7 ms beyond the stages and the durable writes.
    CHECK(op->manager_latency >= Time::ms(7));
    CHECK(op->manager_latency < Time::ms(12));
}

TEST_CASE("A command split over several packets is reassembled whatever the order and a duplicate is ignored") {
    SetEndpoint big{7, Endpoint{addr::vip(0), IpProto::Tcp, 80}, {}, 3};
    for (std::uint32_t i = 0; i < 20; ++i) big.dips.push_back(WeightedDip{addr::vm(0, i % 4, i / 4), 80, addr::host(0, i % 4), 1 + i});
    auto parts = command_parts(MuxCommand{big}, 42, 9);
    REQUIRE(parts.size() > 2);
    ControlAssembler as;
    std::optional<std::vector<std::uint8_t>> bytes;
    for (std::size_t i = parts.size(); i-- > 0;) {
        auto b = as.add(1, parts[i]);
        if (b) bytes = b;
        CHECK(!as.add(1, parts[i]).has_value());  // a duplicate part
    }
    REQUIRE(bytes.has_value());
    CHECK(!as.add(1, parts[0]).has_value());  // a duplicate of a command already complete
    MuxCommand mux;
    HostCommand host;
    REQUIRE(read_command(ControlType::Mux, *bytes, mux, host));
    const auto* got = std::get_if<SetEndpoint>(&mux);
    REQUIRE(got != nullptr);
    CHECK(got->epoch == 7);
    CHECK(got->tenant == 3);
    CHECK(got->endpoint == big.endpoint);
    CHECK(got->dips == big.dips);
    const auto ack = ack_message(42, CommandRejected{3, 7});
    REQUIRE(ack_rejection(ack).has_value());
    CHECK(*ack_rejection(ack) == CommandRejected{3, 7});
    CHECK(!ack_rejection(ack_message(42, std::nullopt)).has_value());
}

TEST_CASE("A Host Agent returns a SNAT range idle for snat.idle_return, the manager frees it on every Mux and another DIP reuses it") {
    Json j = cp_config();
    j["end_time"] = "6s";
    j["traffic"][1]["connections_per_s"] = 20;
    j["traffic"][1]["stop"] = "5500ms";
    j["snat"] = {{"idle_return", "250ms"}, {"preallocate_ranges", 0}, {"demand_prediction", false}};
    CpRun r(j);
    const auto& returns = r.cp().returns();
    REQUIRE(returns.size() > 5);
    const Time idle = Time::ms(250);
    for (const ReturnRecord& g : returns) CHECK(g.at - g.idle_since == idle);  // not at T - 1 ps: at T
    CHECK(r.cp().reused_ranges() > 0);
    // Reused by another DIP: a range returned by one DIP was granted to a different one afterwards.
    bool other = false;
    for (const ReturnRecord& g : returns)
        for (const GrantRecord& h : r.cp().grants())
            other = other || (h.at > g.at && h.vip == g.vip && h.first == g.first && h.dip != g.dip);
    CHECK(other);
    std::uint64_t reclaimed = 0;
    for (const ManagerNode* m : r.cp().replicas()) reclaimed += m->counters().snat_reclaimed;
    CHECK(reclaimed > 0);
    // Each (VIP, port) mapped to at most one DIP at any time: between a range's grants the previous holder had
    // returned it, and no Mux mapped a granted port to another DIP (checked at every grant).
    CHECK(r.cp().snat_violations().empty());
    for (const auto& v : r.cp().snat_violations()) INFO(v);
    std::map<std::pair<IpAddr, std::uint16_t>, IpAddr> holder;
    std::size_t k = 0;
    std::vector<std::pair<Time, int>> events;  // merged by time: grants (+) and returns (-)
    for (std::size_t i = 0; i < r.cp().grants().size(); ++i) events.emplace_back(r.cp().grants()[i].at, static_cast<int>(i) + 1);
    for (std::size_t i = 0; i < returns.size(); ++i) events.emplace_back(returns[i].at, -static_cast<int>(i) - 1);
    std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [at, e] : events) {
        if (e > 0) {
            const GrantRecord& g = r.cp().grants()[static_cast<std::size_t>(e - 1)];
            auto [it, fresh] = holder.emplace(std::make_pair(g.vip, g.first), g.dip);
            CHECK((fresh || it->second == g.dip));
            ++k;
        } else {
            const ReturnRecord& g = returns[static_cast<std::size_t>(-e - 1)];
            holder.erase({g.vip, g.first});
        }
    }
    CHECK(k == r.cp().grants().size());
    CHECK(r.model->summary().at("connections").at("failed") == 0);
}

TEST_CASE("A new primary learns every VIP configuration from the log and programs a recovering Mux with all of them") {
    Json j = cp_config();
    j["end_time"] = "4s";
    j["scenario"] = Json::parse(R"([{"at": "500ms", "action": "configure_vip", "vip": 0,
                                     "dips": [{"host": 0}, {"host": 1}, {"host": 2}]},
                                    {"at": "1s", "action": "replica_crash", "replica": 0},
                                    {"at": "1500ms", "action": "mux_down", "mux": 2},
                                    {"at": "2500ms", "action": "mux_up", "mux": 2}])");
    CpRun r(j);
    const ManagerNode* primary = nullptr;
    for (const ManagerNode* m : r.cp().replicas())
        if (m->is_primary()) primary = m;
    REQUIRE(primary != nullptr);
    REQUIRE(primary->replica() != 0);
    const Manager& mg = *primary->manager();
    // Both VIPs, with the DIP list configured before the failover (not the run's initial one).
    REQUIRE(mg.vip_configs().size() == 2);
    const VipConfig& web = mg.vip_configs().at(addr::vip(0));
    REQUIRE(web.endpoints.size() == 1);
    CHECK(web.endpoints[0].dips.size() == 3);
    CHECK(mg.vip_configs().at(addr::vip(1)).snat.size() == 4);
    // Every replica's log holds the same configurations.
    for (const ManagerNode* m : r.cp().replicas())
        if (m->up()) CHECK(m->manager()->vip_configs().size() == 2);
    // The recovering Mux got both VIPs' endpoints from the new primary after it came back.
    std::set<IpAddr> reprogrammed;
    for (const EndpointApplied& e : r.cp().endpoints_applied())
        if (e.mux == 2 && e.at >= Time::ms(2500) && e.replica == primary->replica()) reprogrammed.insert(e.vip);
    CHECK(reprogrammed == std::set<IpAddr>{addr::vip(0), addr::vip(1)});
    const WeightedDip* d = r.model->muxes()[2]->mux().pick(FiveTuple{addr::client(0, 7), addr::vip(0), 1234, 80, IpProto::Tcp});
    REQUIRE(d != nullptr);
    CHECK(d->host != addr::host(0, 3));
    CHECK(r.cp().snat_violations().empty());
}
