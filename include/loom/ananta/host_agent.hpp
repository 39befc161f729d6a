// The Host Agent's logic as a pure state machine: packets from the network (IP-in-IP from a Mux) are
// decapsulated and NATed (VIP, port) -> (DIP, port) for a local VM; the VM's replies are reverse-NATed and
// sent straight to the router (direct server return), never through a Mux; outbound connections are
// source-NATed to the VIP with ports asked for on the first packet (which is held until they arrive).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>
#include <optional>
#include <variant>
#include <vector>

#include "loom/ananta/chunked_vector.hpp"
#include "loom/ananta/drop_reason.hpp"
#include "loom/ananta/epoch.hpp"
#include "loom/ananta/fastpath.hpp"
#include "loom/ananta/ip_packet.hpp"
#include "loom/ananta/mux.hpp"
#include "loom/ananta/snat_port_source.hpp"
#include "loom/ananta/tuple_index.hpp"
#include "loom/base/prefetch.hpp"
#include "loom/base/units.hpp"
#include "loom/config/schema.hpp"

namespace loom::ananta {

// The "host_agent" config section.
struct HostAgentConfig {
    // Published: TCP MSS clamped to 1440 bytes so that a full segment plus IP-in-IP fits a 1500-byte MTU.
    std::int64_t mss_clamp = 1440;
    // Not published: NAT state idle for 240 s is removed.
    Time flow_idle_timeout = Time::s(240);
    std::int64_t mtu = kDefaultMtu;
};
config::Schema<HostAgentConfig> host_agent_schema();

// Configuration commands (each with the issuer's epoch).
struct AddVm {
    Epoch epoch = 0;
    IpAddr dip = 0;
};
struct SetNatRule {  // inbound: (endpoint) reaching local `dip` goes to (dip, dip_port)
    Epoch epoch = 0;
    Endpoint endpoint;
    IpAddr dip = 0;
    std::uint16_t dip_port = 0;
    bool remove = false;
};
struct SetSnatVip {  // outbound connections of `dip` are source-NATed to `vip`
    Epoch epoch = 0;
    IpAddr dip = 0;
    IpAddr vip = 0;
};
using HostCommand = std::variant<AddVm, SetNatRule, SetSnatVip, SnatGrant>;

struct SnatRequest {
    IpAddr dip = 0;
    IpAddr vip = 0;
    bool operator==(const SnatRequest&) const = default;
};
struct HostDelivery {  // to the local VM `dip`
    IpPacket packet;
    IpAddr dip = 0;
    // The NAT binding the packet came through (kNoBinding: none) and the server slot its last delivery reached
    // (kNoServerHint: none yet), kept in the binding's line for the receiver (HostAgent::set_server_hint). A hint
    // only: the receiver checks it against its own state before using it.
    static constexpr std::uint32_t kNoBinding = 0xffff'ffffU;
    static constexpr std::uint16_t kNoServerHint = 0xffff;
    std::uint32_t binding = kNoBinding;
    std::uint16_t server_hint = kNoServerHint;
};
struct HostDrop {
    IpPacket packet;
    DropReason reason = DropReason::NoRoute;
};

// What one handle() call produced; the caller clears it between calls.
struct HostOutput {
    std::vector<HostDelivery> to_vm;
    // Source VIP, destination the remote end; not encapsulated, except a Fastpath connection's packets, which
    // are wrapped host -> peer DIP (the network routes on the outer header).
    std::vector<IpPacket> to_router;
    std::vector<HostDrop> drops;
    std::vector<SnatRequest> snat_requests;
    std::vector<CommandRejected> rejected;
    void clear() {
        to_vm.clear();
        to_router.clear();
        drops.clear();
        snat_requests.clear();
        rejected.clear();
    }
};

struct HostCounters {
    std::uint64_t from_network = 0;
    std::uint64_t from_vm = 0;
    std::uint64_t delivered = 0;
    std::uint64_t to_router = 0;
    std::uint64_t held = 0;  // packets held for SNAT ports
    std::uint64_t mss_clamped = 0;
    std::uint64_t commands_rejected = 0;
    std::uint64_t fastpath_sent = 0;  // packets sent host to host
    std::uint64_t redirects_accepted = 0;
    std::uint64_t redirects_refused = 0;  // not from an Ananta address, or not naming this host
    std::array<std::uint64_t, kDropReasonCount> drops{};
};

// NAT state is a binding between the outside view of a VM-bound flow (peer -> VIP:port) and its inside view
// (peer -> DIP:port), for inbound and SNAT connections alike; a binding idle for flow_idle_timeout is gone
// (live at last + timeout - 1ps). At most one SNAT request per DIP is outstanding; new connections of that
// DIP are held until the grant arrives. A grant's ports are reused for different remote endpoints (the
// 5-tuple stays unique). TCP non-SYN packets for an unknown inbound flow are NoFlow drops (a wrong DIP).
class HostAgent {
public:
    HostAgent(const HostAgentConfig& config, IpAddr self, const FastpathConfig& fastpath = {});

    void handle(const HostCommand& command, Time now, HostOutput& out);
    void from_network(const IpPacket& packet, Time now, HostOutput& out);
    // Prefetches the NAT binding from_network is likely to read for a packet whose outside tuple is `outside`.
    void prefetch_inbound(const FiveTuple& outside) const {
        const std::uint32_t i = inbound_.guess(outside);
        if (i < pool_.size()) prefetch_object(pool_[i]);
    }
    void from_vm(const IpPacket& packet, Time now, HostOutput& out);
    // Remembers in binding `binding` (a HostDelivery's) the server slot its packet reached, handed out with the
    // binding's next delivery; slots from kNoServerHint up are not remembered. Only a hint (see HostDelivery).
    void set_server_hint(std::uint32_t binding, std::uint32_t slot) {
        if (binding < pool_.size() && pool_[binding].dip != 0)
            pool_[binding].server_hint = slot < HostDelivery::kNoServerHint ? static_cast<std::uint16_t>(slot)
                                                                            : HostDelivery::kNoServerHint;
    }
    void expire(Time now);
    // Fastpath: redirects are accepted only from these addresses (the Muxes' and the manager's).
    void set_ananta_addresses(std::vector<IpAddr> addresses) { fastpath_.set_ananta_addresses(std::move(addresses)); }
    // A Fastpath redirect; false when refused.
    bool handle_redirect(const FastpathRedirect& redirect, Time now);

    IpAddr address() const { return self_; }
    const HostCounters& counters() const { return counters_; }
    std::size_t bindings() const { return inbound_.size(); }
    // Bytes the NAT bindings take (pool and both indexes).
    std::size_t binding_bytes() const {
        return pool_.bytes() + free_.capacity() * sizeof(std::uint32_t) + inbound_.bytes() +
               outbound_.bytes();
    }
    std::size_t held(IpAddr dip) const;
    bool request_outstanding(IpAddr dip) const { return outstanding_.contains(dip); }
    Epoch epoch() const { return epochs_.highest(); }
    // SNAT ranges held (host_agent_snat.cpp): the last packet time of any NAT binding on one of `g`'s ports
    // (nothing when none has one), and giving `g` back (the range and the bindings on its ports are removed;
    // false when it was not held).
    std::optional<Time> snat_last_use(const SnatGrant& g) const;
    bool return_snat(const SnatGrant& g);

private:
    // The inside view differs from the outside one only in its destination (peer -> DIP:port), so a binding
    // stores that; bindings live in a pool indexed by outside tuple and by inside reply tuple.
    struct Binding {
        FiveTuple outside;  // peer -> VIP:port
        IpAddr dip = 0;     // 0: a free pool entry
        std::uint16_t dip_port = 0;
        std::uint16_t server_hint = HostDelivery::kNoServerHint;  // see HostDelivery
        Time last_seen;
        FiveTuple inside() const { return FiveTuple{outside.src, dip, outside.src_port, dip_port, outside.proto}; }
        // The inside reply (DIP -> peer), the key of the outbound index.
        FiveTuple reply() const { return FiveTuple{dip, outside.src, dip_port, outside.src_port, outside.proto}; }
    };
    static_assert(sizeof(FiveTuple) == 16);  // so that a Binding is 32 bytes: two per line, never straddling
    struct NatKey {
        Endpoint endpoint;
        IpAddr dip = 0;
        auto operator<=>(const NatKey&) const = default;
    };
    void apply(const AddVm& c, Time now, HostOutput& out);
    void apply(const SetNatRule& c, Time now, HostOutput& out);
    void apply(const SetSnatVip& c, Time now, HostOutput& out);
    void apply(const SnatGrant& c, Time now, HostOutput& out);
    void outbound(const IpPacket& packet, Time now, HostOutput& out);
    void drop(const IpPacket& p, DropReason r, HostOutput& out);
    void clamp(IpPacket& p);
    std::uint32_t bind(const FiveTuple& outside, const FiveTuple& inside, Time now);  // returns its position
    void unbind(const FiveTuple& outside);
    // The position of the live binding of a VM-bound outside tuple, or TupleIndex::kNone (an expired one is
    // removed).
    std::uint32_t find_inbound_at(const FiveTuple& outside, Time now);
    // The live binding of a VM-bound outside tuple, or nullptr (an expired one is removed).
    Binding* find_inbound(const FiveTuple& outside, Time now) {
        const std::uint32_t i = find_inbound_at(outside, now);
        return i == TupleIndex::kNone ? nullptr : &pool_[i];
    }
    bool try_snat(IpPacket& p, IpAddr vip, Time now);
    void send_to_router(IpPacket p, Time now, HostOutput& out);

    // Hot: what every packet reads, first and side by side (a host's lines are cold at each of its packets).
    HostAgentConfig config_;
    IpAddr self_;
    HostCounters counters_;
    std::set<IpAddr> vms_;
    TupleIndex inbound_;   // outside (peer -> VIP) -> binding
    TupleIndex outbound_;  // inside reply (DIP -> peer) -> binding
    // Not published: 16 bindings (512 bytes) per chunk; a host holds tens of connections.
    ChunkedVector<Binding, 16> pool_;
    EpochGuard epochs_;
    std::map<NatKey, std::uint16_t> nat_;
    std::map<IpAddr, IpAddr> snat_vip_;                     // dip -> vip
    std::map<IpAddr, std::vector<SnatGrant>> grants_;       // dip -> port ranges held
    std::set<IpAddr> outstanding_;                          // DIPs with a SNAT request in flight
    std::map<IpAddr, std::vector<IpPacket>> held_;          // dip -> packets waiting for ports
    std::vector<std::uint32_t> free_;
    auto outside_of() const {
        return [this](std::uint32_t i) -> const FiveTuple& { return pool_[i].outside; };
    }
    auto reply_of() const {
        return [this](std::uint32_t i) { return pool_[i].reply(); };
    }
    HostFastpath fastpath_;
};

}  // namespace loom::ananta
