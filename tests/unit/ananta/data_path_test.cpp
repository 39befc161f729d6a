// The pure state machines wired by hand with fixed hop latencies: client -> router (ECMP over the Muxes)
// -> Mux -> Host Agent -> server VM, and the reply by DSR from the Host Agent to the router and the client.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <vector>

#include "loom/ananta/ecmp.hpp"
#include "loom/ananta/host_agent.hpp"
#include "loom/ananta/mux.hpp"
#include "loom/ananta/tcp_connection.hpp"

using namespace loom;
using namespace loom::ananta;

namespace {

const IpAddr kVip = ip(100, 64, 0, 1);
const IpAddr kClient = ip(203, 0, 113, 5);
const Endpoint kWeb{kVip, IpProto::Tcp, 80};
const Time kHop = Time::us(10);

struct DataPath {
    enum class Where { Router, Host, Client, ClientTimer };
    struct Event {
        Where where;
        IpPacket packet;
        IpAddr host = 0;
    };

    TcpConfig tcp;
    std::vector<Mux> muxes;
    std::map<IpAddr, HostAgent> agents;  // by host address
    std::map<FiveTuple, TcpConnection, bool (*)(const FiveTuple&, const FiveTuple&)> servers{
        [](const FiveTuple& a, const FiveTuple& b) {
            return std::tie(a.src, a.dst, a.src_port, a.dst_port) < std::tie(b.src, b.dst, b.src_port, b.dst_port);
        }};
    std::unique_ptr<EcmpSelector> ecmp = std::make_unique<ResilientEcmp>(64);
    std::multimap<Time, Event> queue;  // equal times keep insertion order
    std::uint64_t client_packets = 0;
    std::uint64_t dsr_packets = 0;
    std::vector<IpAddr> mux_seen;  // which Mux each client packet crossed

    DataPath() {
        tcp.segment_bytes = 1460;
        tcp.data_rate = Bandwidth::bps(100'000'000);
        const std::vector<WeightedDip> dips{{ip(10, 0, 0, 10), 8080, ip(10, 0, 0, 1), 1},
                                            {ip(10, 0, 1, 10), 8080, ip(10, 0, 1, 1), 1}};
        std::vector<NextHop> hops;
        for (std::uint32_t i = 0; i < 2; ++i) {
            muxes.emplace_back(MuxConfig{}, ip(10, 1, 0, 1 + i));
            MuxOutput out;
            muxes.back().handle(SetEndpoint{1, kWeb, dips, 0}, Time::zero(), out);
            hops.push_back(i);
        }
        ecmp->set_next_hops(hops);
        for (const WeightedDip& d : dips) {
            HostAgent h(HostAgentConfig{}, d.host);
            HostOutput out;
            h.handle(AddVm{1, d.dip}, Time::zero(), out);
            h.handle(SetNatRule{1, kWeb, d.dip, d.port, false}, Time::zero(), out);
            agents.emplace(d.host, std::move(h));
        }
    }

    void schedule_client(TcpConnection& c, const TcpOutput& out, Time now) {
        for (const IpPacket& p : out.send) {
            ++client_packets;
            queue.emplace(now + kHop, Event{Where::Router, p, 0});
        }
        if (c.next_timer() != kNever) queue.emplace(c.next_timer(), Event{Where::ClientTimer, IpPacket{}, 0});
    }

    void run(TcpConnection& client, Time until, Time drop_mux0_at = kNever) {
        TcpOutput c_out;
        client.open(Time::zero(), c_out);
        schedule_client(client, c_out, Time::zero());
        bool dropped = false;
        while (!queue.empty() && queue.begin()->first <= until) {
            auto [now, ev] = *queue.begin();
            queue.erase(queue.begin());
            if (!dropped && now >= drop_mux0_at) {
                const std::vector<NextHop> one{1};
                ecmp->set_next_hops(one);
                dropped = true;
            }
            switch (ev.where) {
                case Where::Router: {
                    Mux& m = muxes[ecmp->select(tuple_hash(ev.packet.inner, 7))];
                    mux_seen.push_back(m.address());
                    MuxOutput out;
                    m.handle(ev.packet, now, out);
                    for (const MuxForward& f : out.forwards)
                        queue.emplace(f.depart + kHop, Event{Where::Host, f.packet, f.target.host});
                    break;
                }
                case Where::Host: {
                    HostAgent& h = agents.at(ev.host);
                    HostOutput out;
                    h.from_network(ev.packet, now, out);
                    for (const HostDelivery& d : out.to_vm) {
                        auto it = servers.find(d.packet.inner);
                        if (it == servers.end())
                            it = servers.emplace(d.packet.inner, TcpConnection::server(tcp, 1, d.packet.inner)).first;
                        TcpOutput s_out;
                        it->second.receive(d.packet, now, s_out);
                        for (const IpPacket& p : s_out.send) h.from_vm(p, now, out);
                    }
                    for (const IpPacket& p : out.to_router) {
                        ++dsr_packets;
                        queue.emplace(now + kHop * 2, Event{Where::Client, p, 0});  // host -> router -> client
                    }
                    break;
                }
                case Where::Client: {
                    TcpOutput out;
                    client.receive(ev.packet, now, out);
                    schedule_client(client, out, now);
                    break;
                }
                case Where::ClientTimer: {
                    if (client.next_timer() > now) break;  // a stale timer
                    TcpOutput out;
                    client.on_timer(now, out);
                    schedule_client(client, out, now);
                    break;
                }
            }
        }
    }
};

}  // namespace

TEST_CASE("A connection runs end to end through a Mux and returns by DSR without crossing a Mux") {
    DataPath path;
    const FiveTuple t{kClient, kVip, 40000, 80, IpProto::Tcp};
    TcpConnection client = TcpConnection::client(path.tcp, 1, t, 10 * 1440);
    path.run(client, Time::s(5));
    CHECK(client.state() == TcpState::Done);
    CHECK(client.record().retransmissions == 0);
    // Setup: SYN 10 us to the router, Mux service 4.545455 us, 10 us to the host; SYN-ACK 20 us back.
    CHECK(client.record().setup_latency() == Time::us(40) + Time::ps(4'545'455));
    REQUIRE(path.servers.size() == 1);
    const TcpConnection& server = path.servers.begin()->second;
    CHECK(server.state() == TcpState::Done);
    CHECK(server.record().bytes_delivered == 10 * 1440);
    // The MSS the client uses was clamped on the SYN-ACK by the Host Agent.
    CHECK(client.segment_payload() == 1440);
    // Every client packet crossed a Mux, every server packet went by DSR: the Muxes saw only one direction.
    std::uint64_t mux_received = 0;
    for (const Mux& m : path.muxes) mux_received += m.counters().received;
    CHECK(mux_received == path.client_packets);
    CHECK(path.dsr_packets > 0);
    // One Mux carried the whole connection (ECMP on the 5-tuple).
    for (const IpAddr a : path.mux_seen) CHECK(a == path.mux_seen.front());
}

TEST_CASE("A connection moved to another Mux by ECMP keeps its DIP because every Mux hashes alike") {
    // Find a connection that ECMP sends to Mux 0, then remove Mux 0 after the handshake.
    DataPath probe;
    std::uint16_t port = 40000;
    while (probe.ecmp->select(tuple_hash(FiveTuple{kClient, kVip, port, 80, IpProto::Tcp}, 7)) != 0) ++port;
    DataPath path;
    const FiveTuple t{kClient, kVip, port, 80, IpProto::Tcp};
    TcpConnection client = TcpConnection::client(path.tcp, 1, t, 20 * 1440);
    path.run(client, Time::s(5), Time::ms(1));
    CHECK(client.state() == TcpState::Done);
    CHECK(client.record().retransmissions == 0);
    CHECK(path.mux_seen.front() == path.muxes[0].address());
    CHECK(path.mux_seen.back() == path.muxes[1].address());
    // Mux 1 saw a mid-connection miss: a new connection by its table, the same DIP by the shared hash.
    CHECK(path.muxes[1].counters().new_connections == 1);
    CHECK(path.servers.size() == 1);
    std::uint64_t no_flow = 0;
    for (const auto& [host, h] : path.agents) no_flow += h.counters().drops[static_cast<std::size_t>(DropReason::NoFlow)];
    CHECK(no_flow == 0);
}
