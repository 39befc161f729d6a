// The data-center run of the Ananta model as a config: the network ("network": Clos tiers, Muxes, hosts with
// VMs, Internet client nodes, links), the load-balanced services ("vips"), traffic sources ("traffic") and a
// timed scenario ("scenario"); plus the address plan every component derives its routes from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "loom/ananta/ananta_config.hpp"
#include "loom/ananta/control_plane_config.hpp"
#include "loom/ananta/dynamics_config.hpp"
#include "loom/ananta/ip_packet.hpp"
#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"

namespace loom::ananta {

// One class of links (both directions alike).
struct LinkClassConfig {
    Bandwidth rate = Bandwidth::gbps(10);
    Time latency = Time::us(1);
};

// "network": the Clos. Every ToR links to every spine and every spine to every border; host h of rack r hangs
// off ToR r; Mux i hangs off ToR (i mod mux_racks); client node c off border (c mod borders).
struct NetworkConfig {
    std::int64_t racks = 4;
    std::int64_t hosts_per_rack = 4;
    std::int64_t vms_per_host = 1;
    std::int64_t spines = 2;
    std::int64_t borders = 2;
    std::int64_t muxes = 4;
    // Racks whose ToR holds Muxes (the first mux_racks racks). Not published; one Mux rack keeps all Muxes
    // behind one ECMP group, the arrangement the re-spreading study measures.
    std::int64_t mux_racks = 1;
    std::int64_t client_nodes = 4;
    // Not published for Ananta's data centers: a 10G host link and 40G fabric links with 1 us per hop (a
    // switch plus a short cable), 10G Internet links with 5 ms one way (a nearby client population).
    LinkClassConfig host_link{Bandwidth::gbps(10), Time::us(1)};
    LinkClassConfig fabric_link{Bandwidth::gbps(40), Time::us(1)};
    LinkClassConfig internet_link{Bandwidth::gbps(10), Time::ms(5)};
    // Linux's default txqueuelen, used for every port (not published for the routers).
    std::int64_t queue_packets = 1000;
    // Ethernet's 1500-byte MTU on every link; a larger packet is dropped at the router (never fragmented).
    std::int64_t mtu = kDefaultMtu;
    // Ethernet framing per packet: preamble 8 + FCS 4 + inter-frame gap 12 (+ 14 header) = 38 bytes.
    Bytes framing{38};
};
config::Schema<NetworkConfig> network_schema();

// One back end of a VIP: VM `vm` of host `host` (global host number), serving on `port`.
struct DipSpec {
    std::int64_t host = 0;
    std::int64_t vm = 0;
    std::int64_t port = 8080;
    std::int64_t weight = 1;
};

// One load-balanced endpoint (VIP number i is 100.64.i/256.i%256; `port` and `protocol` name the endpoint).
// `dips` lists back ends one by one; `dip_hosts` adds VM `dip_vm` of hosts first..first+count-1 (weight 1),
// a shorthand for large pools.
struct VipSpec {
    std::string name;
    std::string address;  // dotted quad; empty: 100.64.0.1 + the VIP's position in the list
    std::int64_t port = 80;
    IpProto protocol = IpProto::Tcp;
    std::int64_t tenant = 0;
    std::vector<DipSpec> dips;
    std::int64_t dip_hosts_first = 0;
    std::int64_t dip_hosts_count = 0;
    std::int64_t dip_vm = 0;
    std::int64_t dip_port = 8080;
    bool fastpath = false;  // Fastpath for this VIP (also on for every VIP with fastpath.enabled)
};

// One traffic source: connections to VIP `to_vip` opened from Internet client nodes ("internet") or from the
// VMs behind VIP `from_vip` ("vip": intra-DC VIP-to-VIP through SNAT), at `connections_per_s` (Poisson or
// fixed spacing) between start and stop.
enum class TrafficSource : std::uint8_t { Internet, Vip };
enum class Arrivals : std::uint8_t { Poisson, Fixed };
struct TrafficConfig {
    std::string name;
    TrafficSource source = TrafficSource::Internet;
    std::int64_t from_vip = 0;
    std::int64_t to_vip = 0;
    IpProto protocol = IpProto::Tcp;
    double connections_per_s = 100;
    Arrivals arrivals = Arrivals::Poisson;
    std::int64_t bytes = 14'600;  // TCP: payload per connection; UDP: datagrams * udp_datagram_bytes
    std::int64_t udp_datagram_bytes = 512;
    Time udp_interval = Time::ms(1);
    Time start = Time::zero();
    Time stop = Time::max();
    bool enabled = true;  // a disabled source waits for a start_traffic action
};

// One timed action. `action`: mux_down | mux_up (with routes withdrawn or restored at the same time unless
// `withdraw` is false) | link_down | link_up (`target`: port path prefixes, comma-separated) | freeze | thaw
// (`target`: a component path) | set_dips (`vip`, `dips`, `epoch`) | start_traffic | stop_traffic (`target`:
// a traffic name) | command (`vip`, `epoch`, `mux` or -1 for all: re-sends the VIP's endpoint with that epoch) |
// vm_unhealthy | vm_healthy (`dips`: the VMs that stop or start answering, probes and connections alike) |
// spoof_redirect (`target`: the component that forges, `vip`: a Fastpath redirect to every host of its DIPs)
// | mux_state (`mux`: with BGP sessions, a recovering Mux receives its state and announces its routes).
// With BGP sessions, mux_down is graceful (withdraw, drain, stop) or, with `withdraw` false, silent.
enum class ActionKind : std::uint8_t {
    MuxDown, MuxUp, LinkDown, LinkUp, Freeze, Thaw, SetDips, StartTraffic, StopTraffic, Command,
    VmUnhealthy, VmHealthy, SpoofRedirect, MuxState,
    // With "control_plane" on: configure_vip (`vip`, optional new `dips`, `replica` or -1 for the one the
    // operator believes is primary) goes through the manager; replica_crash | replica_recover | replica_freeze |
    // replica_thaw (`replica`); health_report (`dips`, `healthy`): their Host Agents report to every replica.
    ConfigureVip, ReplicaCrash, ReplicaRecover, ReplicaFreeze, ReplicaThaw, HealthReport
};
struct ActionConfig {
    Time at = Time::zero();
    ActionKind action = ActionKind::Command;
    std::string target;
    std::int64_t mux = -1;
    std::int64_t vip = 0;
    std::int64_t epoch = 1;
    bool withdraw = true;
    std::vector<DipSpec> dips;
    std::int64_t replica = -1;  // manager replica (control-plane actions)
    bool healthy = false;       // health_report
};

// "trace": which connection --trace draws (client node, its n-th connection).
struct TraceConfig {
    std::int64_t client_node = 0;
    std::int64_t connection = 0;
    bool records = false;  // every connection record in stats.json (large runs: aggregates only)
    std::string source;    // "a.b.c.d:port": the connection with this outside source instead (e.g. a SNAT VIP:port)
};

struct DcConfig {
    NetworkConfig network;
    std::vector<VipSpec> vips;
    std::vector<TrafficConfig> traffic;
    std::vector<ActionConfig> scenario;
    TraceConfig trace;
    AnantaParameters params;
    ControlPlaneConfig control_plane;
    DynamicsParameters dynamics;
};

config::Schema<VipSpec> vip_spec_schema();
// "a.b.c.d" as an address; nullopt if it is not one.
std::optional<IpAddr> parse_ip(const std::string& text);
std::string format_ip(IpAddr a);
// "a.b.c.d:port" as an address and port; nullopt if it is not one.
std::optional<std::pair<IpAddr, std::uint16_t>> parse_endpoint(const std::string& text);
// The VIP of `vips[i]` (its address, or the default one of position i).
IpAddr vip_address(const std::vector<VipSpec>& vips, std::size_t i);
config::Schema<TrafficConfig> traffic_schema();
config::Schema<ActionConfig> action_schema();
config::Schema<TraceConfig> trace_schema();

// Parses every section of the model and cross-checks them (every DIP on an existing host and VM, VIPs unique,
// traffic naming existing VIPs, actions naming existing Muxes, VIPs and sources); errors name JSON Pointers.
void parse_dc_config(const config::Json& root, DcConfig& out, config::Errors& errors);
// Cross-checks of the control-plane section and actions (replica numbers, actions that need it enabled).
void check_control_plane(const DcConfig& config, config::Errors& errors);
// The sections as `loom list` shows them (the ones of ananta_config.hpp and dynamics_config.hpp included).
std::vector<config::FieldInfo> dc_sections();

// `loom topo` of an Ananta config: tiers, links by class, ECMP widths, capacities and the zero-load latency of an
// inbound packet (client -> border -> spine -> Mux ToR -> Mux -> ToR -> spine -> host ToR -> host) and of its
// DSR reply, without building the simulation. `text` gets the same as lines for a person.
config::Json network_report(const DcConfig& config, std::string& text);

// The address plan (host order, 0 = none). Kinds are told apart by the first octet.
namespace addr {
inline constexpr std::uint32_t kHost = 10, kMux = 9, kVip = 100, kClient = 150, kVmBase = 20;
inline IpAddr host(std::uint32_t rack, std::uint32_t slot) { return ip(kHost, rack >> 8, rack & 255, slot + 1); }
inline IpAddr vm(std::uint32_t rack, std::uint32_t slot, std::uint32_t k) {
    return ip(kVmBase + k, rack >> 8, rack & 255, slot + 1);
}
inline IpAddr mux(std::uint32_t i) { return ip(kMux, 0, i >> 8, i & 255); }
inline IpAddr vip(std::uint32_t v) { return ip(kVip, 64, (v + 1) >> 8, (v + 1) & 255); }
// Client node c owns first octet kClient + c (c < 100): 2^24 addresses.
inline IpAddr client(std::uint32_t node, std::uint32_t n) { return ((kClient + node) << 24) | (n & 0xffffff); }

enum class Kind : std::uint8_t { Host, Vm, Mux, Vip, Client, Unknown };
struct Decoded {
    Kind kind = Kind::Unknown;
    std::uint32_t rack = 0, slot = 0, index = 0;  // index: VM number, Mux number, VIP number, client node
};
// What an address is, by the numbering above. Always inlined: every router hop decodes its destination, and
// inlined the kind's tests merge with the router's switch on it (out of line it was 27 instructions a call).
[[gnu::always_inline]] inline Decoded decode(IpAddr a) {
    const std::uint32_t first = a >> 24;
    const std::uint32_t rack = (a >> 8) & 0xffff;
    const std::uint32_t low = a & 255;
    if (first == kHost && low >= 1) return Decoded{Kind::Host, rack, low - 1, 0};
    if (first >= kVmBase && first < kVmBase + 16 && low >= 1) return Decoded{Kind::Vm, rack, low - 1, first - kVmBase};
    if (first == kMux && ((a >> 16) & 255) == 0) return Decoded{Kind::Mux, 0, 0, a & 0xffff};
    if (first == kVip) return Decoded{Kind::Vip, 0, 0, 0};
    if (first >= kClient && first < kClient + 99) return Decoded{Kind::Client, 0, 0, first - kClient};
    return Decoded{};
}
}  // namespace addr

}  // namespace loom::ananta
