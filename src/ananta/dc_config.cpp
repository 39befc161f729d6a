#include "loom/ananta/dc_config.hpp"

#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "dc_dynamics.hpp"


namespace loom::ananta {

namespace {

config::Schema<LinkClassConfig> link_class_schema(const std::string& what) {
    using C = LinkClassConfig;
    config::Schema<C> s("One class of links: " + what + ".");
    s.field("rate", &C::rate, "Line rate of each direction.").at_least(Bandwidth::bps(1));
    s.field("latency", &C::latency, "Propagation plus switching latency of one hop.").range(Time::ps(1), Time::s(10));
    return s;
}

config::Schema<DipSpec> dip_spec_schema() {
    using C = DipSpec;
    config::Schema<C> s("A back end: a VM of a host.");
    s.field("host", &C::host, "Host number (rack * hosts_per_rack + slot).").range(0, std::int64_t{1} << 24);
    s.field("vm", &C::vm, "VM number on that host.").range(0, 15);
    s.field("port", &C::port, "Port the VM serves on.").range(1, 65535);
    s.field("weight", &C::weight, "Share of new connections, relative to the other DIPs (positive).")
        .range(1, 1 << 20);
    return s;
}

}  // namespace

config::Schema<NetworkConfig> network_schema() {
    using C = NetworkConfig;
    config::Schema<C> s("Ananta data-center network: a Clos of ToR, spine and border routers with ECMP per tier, "
                        "Muxes on ToRs, hosts with VMs, Internet client nodes behind the borders.");
    s.field("racks", &C::racks, "Racks, one ToR router each.").range(1, 65535);
    s.field("hosts_per_rack", &C::hosts_per_rack, "Hosts below each ToR.").range(1, 250);
    s.field("vms_per_host", &C::vms_per_host, "VMs on each host (DIPs 20+k.rack.slot).").range(1, 16);
    s.field("spines", &C::spines, "Spine routers; each links to every ToR and every border.").range(1, 1024);
    s.field("borders", &C::borders, "Border routers toward the Internet.").range(1, 256);
    s.field("muxes", &C::muxes, "Muxes of the pool (Ananta runs about 8 per pool).").range(1, 4096);
    s.field("mux_racks", &C::mux_racks,
            "Racks whose ToR holds Muxes: Mux i is on ToR i mod mux_racks (not published: 1).")
        .range(1, 65535);
    s.field("client_nodes", &C::client_nodes, "Internet client nodes; node c links to border c mod borders.")
        .range(1, 99);
    s.section("host_link", &C::host_link, link_class_schema("host and Mux to ToR"),
              "Host and Mux links (not published: 10Gbps, 1us).");
    s.section("fabric_link", &C::fabric_link, link_class_schema("ToR-spine and spine-border"),
              "Router-to-router links (not published: 40Gbps, 1us).");
    s.section("internet_link", &C::internet_link, link_class_schema("border to Internet client node"),
              "Internet links (not published: 10Gbps, 5ms).");
    s.field("queue_packets", &C::queue_packets, "Queue of every output port, in packets (Linux default 1000).")
        .range(1, 1 << 24);
    s.field("mtu", &C::mtu, "MTU of every link: larger packets are dropped, DF or not (Ethernet: 1500).")
        .range(68, 65535);
    s.field("framing", &C::framing, "Bytes of Ethernet framing added on the wire per packet (38).")
        .range(Bytes(0), Bytes(1000));
    s.check("mux_racks", [](const C& c) -> std::optional<std::string> {
        if (c.mux_racks > c.racks) return fmt::format("expected at most racks ({}), got {}", c.racks, c.mux_racks);
        return std::nullopt;
    });
    return s;
}

config::Schema<VipSpec> vip_spec_schema() {
    using C = VipSpec;
    config::Schema<C> s("A load-balanced endpoint (VIP, protocol, port) and its DIPs.");
    s.field("name", &C::name, "Name used in reports (default vip<i>).");
    s.field("address", &C::address, "The VIP as a dotted quad in 100.0.0.0/8 (default 100.64.0.1 + position).");
    s.field("port", &C::port, "Endpoint port.").range(1, 65535);
    s.choice("protocol", &C::protocol, {{"tcp", IpProto::Tcp}, {"udp", IpProto::Udp}}, "Endpoint protocol.");
    s.field("tenant", &C::tenant, "Tenant for weighted fair dropping.").range(0, 1 << 20);
    s.list("dips", &C::dips, dip_spec_schema(), "Back ends one by one.");
    s.field("dip_hosts_first", &C::dip_hosts_first, "First host of a range of back ends.").range(0, 1 << 24);
    s.field("dip_hosts_count", &C::dip_hosts_count, "Hosts in the range (0: none).").range(0, 1 << 24);
    s.field("dip_vm", &C::dip_vm, "VM of each host in the range.").range(0, 15);
    s.field("dip_port", &C::dip_port, "Port of each back end in the range.").range(1, 65535);
    s.field("fastpath", &C::fastpath, "Fastpath for connections between this VIP and another Fastpath VIP.");
    return s;
}

config::Schema<TrafficConfig> traffic_schema() {
    using C = TrafficConfig;
    config::Schema<C> s("A traffic source opening connections to a VIP.");
    s.field("name", &C::name, "Name for reports and scenario actions (default traffic<i>).");
    s.choice("source", &C::source, {{"internet", TrafficSource::Internet}, {"vip", TrafficSource::Vip}},
             "internet: client nodes; vip: the VMs behind from_vip (VIP-to-VIP through SNAT).");
    s.field("from_vip", &C::from_vip, "Source VIP (its position in vips) when source is vip.").range(0, 1 << 20);
    s.field("to_vip", &C::to_vip, "Destination VIP (its position in vips).").range(0, 1 << 20);
    s.choice("protocol", &C::protocol, {{"tcp", IpProto::Tcp}, {"udp", IpProto::Udp}},
             "tcp: TCP-like connections; udp: pseudo-connections of datagrams.");
    s.field("connections_per_s", &C::connections_per_s, "New connections per second over the whole source.")
        .range(1e-6, 1e9);
    s.choice("arrivals", &C::arrivals, {{"poisson", Arrivals::Poisson}, {"fixed", Arrivals::Fixed}},
             "Spacing of new connections: exponential or fixed.");
    s.field("bytes", &C::bytes, "Payload bytes each connection sends.").range(0, std::int64_t{1} << 40);
    s.field("udp_datagram_bytes", &C::udp_datagram_bytes, "UDP payload per datagram.").range(1, 65000);
    s.field("udp_interval", &C::udp_interval, "Spacing of a UDP pseudo-connection's datagrams.")
        .at_least(Time::ps(1));
    s.field("start", &C::start, "First connection no earlier than this.").at_least(Time::zero());
    s.field("stop", &C::stop, "No new connection from this time on.").at_least(Time::zero());
    s.field("enabled", &C::enabled, "false: the source waits for a start_traffic action.");
    return s;
}

config::Schema<ActionConfig> action_schema() {
    using C = ActionConfig;
    config::Schema<C> s("A timed scenario action, applied at `at` before the packets of that time.");
    s.field("at", &C::at, "When.").at_least(Time::zero()).required();
    s.choice("action", &C::action,
             {{"mux_down", ActionKind::MuxDown},
              {"mux_up", ActionKind::MuxUp},
              {"link_down", ActionKind::LinkDown},
              {"link_up", ActionKind::LinkUp},
              {"freeze", ActionKind::Freeze},
              {"thaw", ActionKind::Thaw},
              {"set_dips", ActionKind::SetDips},
              {"start_traffic", ActionKind::StartTraffic},
              {"stop_traffic", ActionKind::StopTraffic},
              {"command", ActionKind::Command},
              {"vm_unhealthy", ActionKind::VmUnhealthy},
              {"vm_healthy", ActionKind::VmHealthy},
              {"spoof_redirect", ActionKind::SpoofRedirect},
              {"mux_state", ActionKind::MuxState},
              {"configure_vip", ActionKind::ConfigureVip},
              {"replica_crash", ActionKind::ReplicaCrash},
              {"replica_recover", ActionKind::ReplicaRecover},
              {"replica_freeze", ActionKind::ReplicaFreeze},
              {"replica_thaw", ActionKind::ReplicaThaw},
              {"health_report", ActionKind::HealthReport}},
             "What to do.")
        .required();
    s.field("target", &C::target,
            "link_*: port path prefixes (comma-separated); freeze/thaw: a component path; *_traffic: a source name; "
            "spoof_redirect: the client or host that forges.");
    s.field("mux", &C::mux, "Mux number (mux_down, mux_up, mux_state; command: -1 = every Mux).").range(-1, 1 << 20);
    s.field("vip", &C::vip, "VIP position (set_dips, command; spoof_redirect: the VIP whose hosts get it).")
        .range(0, 1 << 20);
    s.field("epoch", &C::epoch, "Epoch the configuration command carries (set_dips, command).")
        .range(0, std::int64_t{1} << 40);
    s.field("withdraw", &C::withdraw, "mux_down/mux_up: routers drop (restore) the Mux's routes at once; with BGP sessions, mux_down "
            "withdraws first and stops after bgp.drain_time (false: dies silently, routers notice by their timers).");
    s.list("dips", &C::dips, dip_spec_schema(), "set_dips: the new DIP list; vm_unhealthy/vm_healthy: the VMs; configure_vip (optional), health_report: the DIPs.");
    s.field("replica", &C::replica,
            "Manager replica (replica_*; configure_vip: -1 = the one the operator believes is primary).")
        .range(-1, 63);
    s.field("healthy", &C::healthy, "health_report: the DIPs' new health as their Host Agents report it.");
    return s;
}

config::Schema<TraceConfig> trace_schema() {
    using C = TraceConfig;
    config::Schema<C> s("The connection --trace draws.");
    s.field("client_node", &C::client_node, "Client node that opens it.").range(0, 98);
    s.field("connection", &C::connection, "Its number among that node's connections (0: the first).")
        .range(0, std::int64_t{1} << 40);
    s.field("records", &C::records, "Write every connection record (times, outcome, Mux, DIP) into stats.json.");
    s.field("source", &C::source,
            "Trace the connection whose outside source is this \"a.b.c.d:port\" instead (e.g. a VIP-to-VIP "
            "connection's SNAT VIP:port).");
    s.check("source", [](const C& c) -> std::optional<std::string> {
        if (c.source.empty() || parse_endpoint(c.source)) return std::nullopt;
        return fmt::format("expected \"a.b.c.d:port\", got \"{}\"", c.source);
    });
    return s;
}

std::optional<IpAddr> parse_ip(const std::string& text) {
    std::uint32_t parts[4];
    int n = 0;
    std::size_t i = 0;
    while (n < 4) {
        if (i >= text.size() || text[i] < '0' || text[i] > '9') return std::nullopt;
        std::uint32_t v = 0;
        std::size_t digits = 0;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 4) {
            v = v * 10 + static_cast<std::uint32_t>(text[i] - '0');
            ++i;
            ++digits;
        }
        if (v > 255) return std::nullopt;
        parts[n++] = v;
        if (n < 4) {
            if (i >= text.size() || text[i] != '.') return std::nullopt;
            ++i;
        }
    }
    if (i != text.size()) return std::nullopt;
    return ip(parts[0], parts[1], parts[2], parts[3]);
}

std::optional<std::pair<IpAddr, std::uint16_t>> parse_endpoint(const std::string& text) {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon + 1 >= text.size() || text.size() - colon > 6) return std::nullopt;
    const auto a = parse_ip(text.substr(0, colon));
    std::uint32_t port = 0;
    for (std::size_t i = colon + 1; i < text.size(); ++i) {
        if (text[i] < '0' || text[i] > '9') return std::nullopt;
        port = port * 10 + static_cast<std::uint32_t>(text[i] - '0');
    }
    if (!a || port == 0 || port > 65535) return std::nullopt;
    return std::make_pair(*a, static_cast<std::uint16_t>(port));
}

std::string format_ip(IpAddr a) { return fmt::format("{}.{}.{}.{}", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255); }

IpAddr vip_address(const std::vector<VipSpec>& vips, std::size_t i) {
    if (!vips[i].address.empty())
        if (auto a = parse_ip(vips[i].address)) return *a;
    return addr::vip(static_cast<std::uint32_t>(i));
}


namespace {

void check_dip(const DipSpec& d, const NetworkConfig& n, const std::string& at, config::Errors& errors) {
    const std::int64_t hosts = n.racks * n.hosts_per_rack;
    if (d.host >= hosts)
        errors.add(at + "/host", fmt::format("host {} does not exist (the network has {} hosts)", d.host, hosts));
    if (d.vm >= n.vms_per_host)
        errors.add(at + "/vm", fmt::format("VM {} does not exist (hosts have {} VMs)", d.vm, n.vms_per_host));
}

template <class S, class T>
void parse_list(const config::Json& root, const char* key, const config::Schema<S>& schema, std::vector<T>& out,
                config::Errors& errors) {
    if (!root.contains(key)) return;
    const config::Json& v = root.at(key);
    const std::string at = std::string("/") + key;
    if (!v.is_array()) {
        errors.add(at, fmt::format("expected a list, got {}", config::quote_value(v)));
        return;
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
        T item;
        schema.parse(v[i], config::child_pointer(at, i), item, errors);
        out.push_back(std::move(item));
    }
}

}  // namespace

void parse_dc_config(const config::Json& root, DcConfig& out, config::Errors& errors) {
    const std::size_t before = errors.size();
    if (root.contains("network")) network_schema().parse(root.at("network"), "/network", out.network, errors);
    parse_list(root, "vips", vip_spec_schema(), out.vips, errors);
    parse_list(root, "traffic", traffic_schema(), out.traffic, errors);
    parse_list(root, "scenario", action_schema(), out.scenario, errors);
    if (root.contains("trace")) trace_schema().parse(root.at("trace"), "/trace", out.trace, errors);
    parse_parameters(root, out.params, errors);
    parse_dynamics_parameters(root, out.dynamics, errors);
    if (root.contains("control_plane"))
        control_plane_schema().parse(root.at("control_plane"), "/control_plane", out.control_plane, errors);
    if (errors.size() != before) return;

    // Cross-checks: every message names the element it is about.
    const NetworkConfig& n = out.network;
    if (out.vips.empty()) errors.add("/vips", "expected at least one VIP");
    std::map<std::tuple<IpAddr, IpProto, std::int64_t>, std::size_t> seen;
    std::set<std::string> vip_names;
    for (std::size_t i = 0; i < out.vips.size(); ++i) {
        VipSpec& v = out.vips[i];
        const std::string at = config::child_pointer("/vips", i);
        if (v.name.empty()) v.name = fmt::format("vip{}", i);
        if (!vip_names.insert(v.name).second) errors.add(at + "/name", fmt::format("VIP name '{}' is used twice", v.name));
        if (!v.address.empty() && !parse_ip(v.address))
            errors.add(at + "/address", fmt::format("expected a dotted quad such as 100.64.0.1, got \"{}\"", v.address));
        const IpAddr a = vip_address(out.vips, i);
        if (addr::decode(a).kind != addr::Kind::Vip && !v.address.empty())
            errors.add(at + "/address", fmt::format("VIPs must lie in 100.0.0.0/8, got {}", v.address));
        auto [it, fresh] = seen.emplace(std::make_tuple(a, v.protocol, v.port), i);
        if (!fresh)
            errors.add(at, fmt::format("endpoint {}:{} is already defined by /vips/{}", format_ip(a), v.port, it->second));
        for (std::size_t d = 0; d < v.dips.size(); ++d)
            check_dip(v.dips[d], n, config::child_pointer(at + "/dips", d), errors);
        if (v.dip_hosts_count > 0) {
            const std::int64_t hosts = n.racks * n.hosts_per_rack;
            if (v.dip_hosts_first + v.dip_hosts_count > hosts)
                errors.add(at + "/dip_hosts_count",
                           fmt::format("hosts {}..{} do not all exist (the network has {} hosts)", v.dip_hosts_first,
                                       v.dip_hosts_first + v.dip_hosts_count - 1, hosts));
            if (v.dip_vm >= n.vms_per_host)
                errors.add(at + "/dip_vm", fmt::format("VM {} does not exist (hosts have {} VMs)", v.dip_vm, n.vms_per_host));
        }
        if (v.dips.empty() && v.dip_hosts_count == 0) errors.add(at + "/dips", "expected at least one DIP");
    }
    const auto nv = static_cast<std::int64_t>(out.vips.size());
    std::set<std::string> names;
    for (std::size_t i = 0; i < out.traffic.size(); ++i) {
        TrafficConfig& t = out.traffic[i];
        const std::string at = config::child_pointer("/traffic", i);
        if (t.name.empty()) t.name = fmt::format("traffic{}", i);
        if (!names.insert(t.name).second) errors.add(at + "/name", fmt::format("traffic name '{}' is used twice", t.name));
        if (t.to_vip >= nv) errors.add(at + "/to_vip", fmt::format("VIP {} does not exist ({} VIPs)", t.to_vip, nv));
        if (t.source == TrafficSource::Vip && t.from_vip >= nv)
            errors.add(at + "/from_vip", fmt::format("VIP {} does not exist ({} VIPs)", t.from_vip, nv));
        if (t.to_vip < nv && t.protocol != out.vips[static_cast<std::size_t>(t.to_vip)].protocol)
            errors.add(at + "/protocol", "differs from the protocol of the VIP it targets");
        if (t.stop < t.start) errors.add(at + "/stop", "expected stop >= start");
    }
    for (std::size_t i = 0; i < out.scenario.size(); ++i) {
        const ActionConfig& a = out.scenario[i];
        const std::string at = config::child_pointer("/scenario", i);
        const bool mux_action =
            a.action == ActionKind::MuxDown || a.action == ActionKind::MuxUp || a.action == ActionKind::MuxState;
        if (a.action == ActionKind::MuxState && !out.dynamics.bgp.sessions)
            errors.add(at + "/action", "mux_state needs BGP sessions (\"bgp\": {\"sessions\": true})");
        if (mux_action && (a.mux < 0 || a.mux >= n.muxes))
            errors.add(at + "/mux", fmt::format("expected a Mux in 0..{}, got {}", n.muxes - 1, a.mux));
        if (a.action == ActionKind::Command && a.mux >= n.muxes)
            errors.add(at + "/mux", fmt::format("expected -1 or a Mux in 0..{}, got {}", n.muxes - 1, a.mux));
        if ((a.action == ActionKind::SetDips || a.action == ActionKind::Command) && a.vip >= nv)
            errors.add(at + "/vip", fmt::format("VIP {} does not exist ({} VIPs)", a.vip, nv));
        if (a.action == ActionKind::SpoofRedirect && a.vip >= nv)
            errors.add(at + "/vip", fmt::format("VIP {} does not exist ({} VIPs)", a.vip, nv));
        if (a.action == ActionKind::SetDips || a.action == ActionKind::VmUnhealthy || a.action == ActionKind::VmHealthy) {
            if (a.dips.empty()) errors.add(at + "/dips", a.action == ActionKind::SetDips ? "expected at least one DIP" : "expected at least one VM");
            for (std::size_t d = 0; d < a.dips.size(); ++d)
                check_dip(a.dips[d], n, config::child_pointer(at + "/dips", d), errors);
        }
        if ((a.action == ActionKind::StartTraffic || a.action == ActionKind::StopTraffic) && !names.contains(a.target))
            errors.add(at + "/target", fmt::format("no traffic source is named '{}'", a.target));
        const bool needs_target = a.action == ActionKind::LinkDown || a.action == ActionKind::LinkUp ||
                                  a.action == ActionKind::Freeze || a.action == ActionKind::Thaw ||
                                  a.action == ActionKind::SpoofRedirect;
        if (needs_target && a.target.empty()) errors.add(at + "/target", "expected a path");
    }
    check_control_plane(out, errors);
    check_dynamics(out, errors);
    if (out.trace.client_node >= n.client_nodes)
        errors.add("/trace/client_node",
                   fmt::format("client node {} does not exist ({} nodes)", out.trace.client_node, n.client_nodes));
}

config::Json network_report(const DcConfig& c, std::string& text) {
    const NetworkConfig& n = c.network;
    const std::int64_t hosts = n.racks * n.hosts_per_rack;
    const std::int64_t tor_spine = n.racks * n.spines, spine_border = n.spines * n.borders,
                       internet = n.client_nodes * n.borders;
    const std::int64_t host_links = hosts + n.muxes;
    // One packet of `bytes` over one hop of a class: serialization with Ethernet framing, then the latency.
    auto hop_ps = [&](const LinkClassConfig& l, std::int64_t bytes) {
        const std::int64_t bits = (bytes + n.framing.count()) * 8;
        return bits * 1'000'000'000'000 / l.rate.bits_per_s() + l.latency.count();
    };
    // A 40-byte SYN inbound (60 bytes once wrapped by the Mux) and its 40-byte SYN-ACK by DSR, Mux and hosts in
    // different racks (the longest zero-load path).
    const std::int64_t inbound = hop_ps(n.internet_link, 40) + 2 * hop_ps(n.fabric_link, 40) + hop_ps(n.host_link, 40) +
                                 hop_ps(n.host_link, 60) + 2 * hop_ps(n.fabric_link, 60) + hop_ps(n.host_link, 60);
    const std::int64_t reply = hop_ps(n.host_link, 40) + 2 * hop_ps(n.fabric_link, 40) + hop_ps(n.internet_link, 40);
    std::int64_t dips = 0;
    for (const VipSpec& v : c.vips) dips += static_cast<std::int64_t>(v.dips.size()) + v.dip_hosts_count;
    const double up_bps = static_cast<double>(tor_spine) * static_cast<double>(n.fabric_link.rate.bits_per_s());
    config::Json j{
        {"kind", "ananta_clos"},
        {"routers", {{"tor", n.racks}, {"spine", n.spines}, {"border", n.borders}}},
        {"hosts", hosts},
        {"vms", hosts * n.vms_per_host},
        {"muxes", n.muxes},
        {"mux_racks", n.mux_racks},
        {"client_nodes", n.client_nodes},
        {"vips", c.vips.size()},
        {"dips", dips},
        {"links", {{"host", host_links}, {"tor_spine", tor_spine}, {"spine_border", spine_border},
                   {"internet", internet}, {"total", host_links + tor_spine + spine_border + internet}}},
        {"ecmp_width", {{"tor_up", n.spines}, {"spine_up", n.borders}, {"border_down", n.spines},
                        {"tor_to_mux", (n.muxes + n.mux_racks - 1) / n.mux_racks}, {"spine_to_mux_tors", n.mux_racks}}},
        {"ecmp_mode", c.params.ecmp.mode == EcmpMode::Resilient ? "resilient" : "modulo"},
        {"tor_spine_capacity_bps", up_bps},
        {"mux_pool_capacity_pps", static_cast<double>(n.muxes) * static_cast<double>(c.params.mux.cores) *
                                      static_cast<double>(c.params.mux.core_pps)},
        {"zero_load_inbound_ps", inbound},
        {"zero_load_dsr_reply_ps", reply},
        {"zero_load_setup_rtt_ps", inbound + reply}};
    text = fmt::format(
        "ananta data center: {} ToR, {} spine, {} border routers; {} hosts ({} VMs), {} Muxes on {} ToR(s), "
        "{} Internet client nodes\n"
        "links: {} host/Mux ({} {}), {} ToR-spine and {} spine-border ({} {}), {} Internet ({} {})\n"
        "ECMP ({}): ToR up over {} spines, spine up over {} borders, border down over {} spines, toward Muxes over "
        "{} Mux ToR(s) and up to {} Muxes each\n"
        "{} VIPs with {} DIPs; Mux pool capacity {:.3g} packets/s; ToR-spine capacity {:.3g} bit/s\n"
        "zero-load SYN client -> Mux -> host {:.3f} us, SYN-ACK by DSR {:.3f} us, handshake RTT {:.3f} us\n",
        n.racks, n.spines, n.borders, hosts, hosts * n.vms_per_host, n.muxes, n.mux_racks, n.client_nodes,
        host_links, loom::to_string(n.host_link.rate), loom::to_string(n.host_link.latency), tor_spine, spine_border,
        loom::to_string(n.fabric_link.rate), loom::to_string(n.fabric_link.latency), internet,
        loom::to_string(n.internet_link.rate), loom::to_string(n.internet_link.latency), j["ecmp_mode"].get<std::string>(),
        n.spines, n.borders, n.spines, n.mux_racks, (n.muxes + n.mux_racks - 1) / n.mux_racks, c.vips.size(), dips,
        j["mux_pool_capacity_pps"].get<double>(), up_bps, static_cast<double>(inbound) / 1e6,
        static_cast<double>(reply) / 1e6, static_cast<double>(inbound + reply) / 1e6);
    return j;
}

std::vector<config::FieldInfo> dc_sections() {
    std::vector<config::FieldInfo> out;
    out.push_back(config::section_info("network", network_schema()));
    config::Schema<DcConfig> lists("Lists of the Ananta model.");
    lists.list("vips", &DcConfig::vips, vip_spec_schema(), "Load-balanced endpoints and their DIPs.");
    lists.list("traffic", &DcConfig::traffic, traffic_schema(), "Traffic sources.");
    lists.list("scenario", &DcConfig::scenario, action_schema(), "Timed actions, applied in time then list order.");
    for (auto& f : lists.describe()) out.push_back(std::move(f));
    out.push_back(config::section_info("trace", trace_schema()));
    out.push_back(config::section_info("control_plane", control_plane_schema()));
    for (auto& f : parameter_sections()) out.push_back(std::move(f));
    for (auto& f : dynamics_sections()) out.push_back(std::move(f));
    return out;
}

}  // namespace loom::ananta
