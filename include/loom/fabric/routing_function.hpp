// Routing functions of the dynamically routed network behind one small plug interface, table-driven on any
// frozen topology (RoutingTables): minimal, Valiant (random intermediate group) and UGAL-L (minimal or Valiant
// by local queue occupancy), and the "routing" config section that selects one.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "loom/base/rng.hpp"
#include "loom/config/schema.hpp"
#include "loom/fabric/routing_tables.hpp"

namespace loom::fabric {

enum class RoutingKind : std::uint8_t { Minimal, Valiant, UgalLocal };
std::string_view routing_name(RoutingKind kind);  // "minimal" | "valiant" | "ugal_l"

struct RoutingConfig {
    RoutingKind function = RoutingKind::Minimal;
    // UGAL-L routes minimally when q_min * H_min <= q_nonmin * H_nonmin + threshold (q in flits, H in hops).
    // 0: no bias, as in the reference UGAL-L implementations of Dragonfly studies.
    std::int64_t ugal_threshold_flits = 0;
};

config::Schema<RoutingConfig> routing_schema();

// What a packet carries for routing. The router owns hops and crossings (it counts every hop after the
// routing function picked it); the routing function owns the rest.
struct RouteState {
    std::int32_t intermediate = -1;  // intermediate group while heading there (Valiant, UGAL), else -1
    std::uint8_t hops = 0;           // network hops taken so far
    std::uint8_t crossings = 0;      // group-crossing (global) hops taken so far
    bool decided = false;            // the source router has routed the packet
    bool nonminimal = false;         // the source chose a route through an intermediate group
};

// The virtual-channel class of the next hop of a packet in state `s` (taken before the hop is counted).
inline std::int32_t vc_class(VcClassScheme scheme, const RouteState& s) {
    return scheme == VcClassScheme::GlobalHops ? s.crossings : s.hops;
}

struct RouteQuery {
    topo::VertexId router;  // where the head flit is; never the destination router (the router ejects itself)
    topo::VertexId dest;    // the destination router
    // Per output port of `router`: flits granted toward the downstream buffers and not yet credited back
    // (UGAL-L's local queue occupancy). Size = the router's network ports.
    std::span<const std::int32_t> occupancy;
};

// The plug interface. Contract:
//  - route() is called exactly once per router a packet's head flit visits, except its destination router,
//    when the head reaches the front of its input VC; it returns a wired network output port of q.router.
//  - It may read q and the shared tables, draw from `rng` (the calling router's own stream) and change the
//    fields of `s` it owns (intermediate, decided, nonminimal); it never changes hops or crossings, and it is
//    const: one instance serves every router of a run, so it keeps no per-packet or per-router state.
//  - Routes must reach the destination within classes() VC classes under the table's VcClassScheme: the hop
//    taken from state s uses class vc_class(scheme, s), and classes never decrease along a route.
// Deadlock freedom. A hop's VC class is never lower than the previous hop's, so a channel dependency either
// goes to a higher class or stays in the same class. On a Dragonfly (GlobalHops) a class is left by every
// global hop, and inside one class a packet takes at most one local hop per group (groups are fully connected
// and every route here is minimal within a group) before its next global hop or ejection: no cycle of
// dependencies can close inside a class, so minimal routing needs 2 classes (0 before the global hop, 1 after)
// and Valiant and UGAL need 3. On other topologies (HopIndex) every hop moves to the next class, so the class
// count must cover the longest route. A config with fewer VCs than classes() is rejected at /fabric/vcs.
class RoutingFunction {
public:
    explicit RoutingFunction(const RoutingTables& tables) : tables_(tables) {}
    virtual ~RoutingFunction() = default;
    RoutingFunction(const RoutingFunction&) = delete;
    RoutingFunction& operator=(const RoutingFunction&) = delete;

    virtual RoutingKind kind() const = 0;
    // VC classes this function needs on its tables' topology.
    virtual std::int32_t classes() const = 0;
    virtual std::int32_t route(const RouteQuery& q, RouteState& s, Rng& rng) const = 0;
    // Whether route() reads q.occupancy (the routers compute it only then).
    virtual bool reads_occupancy() const { return false; }

    const RoutingTables& tables() const { return tables_; }

protected:
    // One of the ports set in `mask` (non-empty), uniformly at random (no draw when there is only one).
    static std::int32_t pick(std::uint64_t mask, Rng& rng);
    // A random group other than `group`, or -1 when there is none.
    std::int32_t random_other_group(std::int32_t group, Rng& rng) const;
    // The next hop toward the intermediate group while heading there (clearing it on arrival), else minimal.
    std::int32_t follow(const RouteQuery& q, RouteState& s, Rng& rng) const;

    const RoutingTables& tables_;
};

std::unique_ptr<RoutingFunction> make_routing_function(const RoutingConfig& config, const RoutingTables& tables);

}  // namespace loom::fabric
