#include "loom/topo/link_class_timing.hpp"

#include <fmt/format.h>

namespace loom::topo {
namespace {

template <LinkClass C>
config::Schema<LinkClassParams<C>> params_schema() {
    using P = LinkClassParams<C>;
    config::Schema<P> s(fmt::format("timing of {} links", link_class_name(C)));
    s.field("lanes", &P::lanes, "lanes per link (paper: 4)").range(1, 64);
    s.field("lane_rate", &P::lane_rate,
            "rate per lane (paper: 25Gbps normally, 25.78125Gbps on some nodes, 30Gbps at most)")
        .range(Bandwidth::bps(1), Bandwidth::gbps(30));
    s.field("serdes_fec", &P::serdes_fec,
            "latency of SerDes (transmit + receive) and FEC; not published, chosen so that an in-node hop is "
            "close to the paper's 722ns")
        .at_least(Time::zero());
    s.field("clock_crossing", &P::clock_crossing,
            "latency of the clock crossing into the core clock; not published")
        .at_least(Time::zero());
    s.field("cable_length_mm", &P::cable_length_mm,
            "cable length in millimetres (paper: in-node <= 0.75 m, in-rack < 2 m; optical not published, 20 m "
            "chosen)")
        .range(0, 1'000'000);
    s.field("jitter", &P::jitter, "extra delay per vector, uniform in [0, jitter]").at_least(Time::zero());
    s.field("bit_error_rate", &P::bit_error_rate, "raw bit error rate before FEC").range(0.0, 0.5);
    s.field("fec_correctable_bits", &P::fec_correctable_bits,
            "bit errors per vector the FEC corrects (code not published; 7 as for RS(528,514))")
        .range(0, 65536);
    s.field("replay_latency", &P::replay_latency,
            "extra delay of a vector the FEC cannot correct, replayed (not published: about an in-node round trip)")
        .range(Time::zero(), kMaxInputTime);
    return s;
}

template <LinkClass C>
LinkTiming make_timing(const LinkClassParams<C>& p, const LinkClassTiming& all) {
    LinkTiming t;
    t.rate = p.lane_rate * p.lanes;
    t.unit_payload = all.unit_payload;
    t.unit_wire = all.unit_wire;
    // ceil(length_mm * ps_per_m / 1000): exact for the defaults (750 mm x 5000 ps/m = 3750 ps).
    const std::int64_t cable_ps = (p.cable_length_mm * all.propagation_per_m.count() + 999) / 1000;
    t.latency_parts = {{"serdes_fec", p.serdes_fec}, {"cable", Time::ps(cable_ps)}, {"clock_crossing", p.clock_crossing}};
    t.jitter = p.jitter;
    t.bit_error_rate = p.bit_error_rate;
    t.fec_correctable_bits = p.fec_correctable_bits;
    t.replay_latency = p.replay_latency;
    return t;
}

}  // namespace

LinkTiming LinkClassTiming::timing(LinkClass c) const {
    switch (c) {
        case LinkClass::InNode: return make_timing(in_node, *this);
        case LinkClass::InRack:
        case LinkClass::Local: return make_timing(in_rack, *this);
        case LinkClass::RackToRack:
        case LinkClass::Global: return make_timing(rack_to_rack, *this);
    }
    return make_timing(in_node, *this);
}

config::Schema<LinkClassTiming> link_class_timing_schema() {
    using L = LinkClassTiming;
    config::Schema<L> s("Timing of each link class: in_node, in_rack, rack_to_rack (a Dragonfly's local links use "
                        "in_rack, its global links rack_to_rack)");
    s.field("unit_payload", &L::unit_payload, "payload bytes per unit (paper: a 320-byte vector)")
        .range(Bytes(1), Bytes(std::int64_t{1} << 30));
    s.field("unit_wire", &L::unit_wire, "bytes on the wire per unit, framing included (paper: 328)")
        .range(Bytes(1), Bytes(std::int64_t{1} << 30));
    s.field("propagation_per_m", &L::propagation_per_m, "signal propagation delay per metre of cable (~5ns)")
        .at_least(Time::zero());
    s.section("in_node", &L::in_node, params_schema<LinkClass::InNode>(), "TSP to TSP inside a node");
    s.section("in_rack", &L::in_rack, params_schema<LinkClass::InRack>(), "node to node inside a rack");
    s.section("rack_to_rack", &L::rack_to_rack, params_schema<LinkClass::RackToRack>(),
              "between racks (and between nodes of the 264-TSP system)");
    s.check("unit_wire", [](const L& l) -> std::optional<std::string> {
        if (l.unit_wire < l.unit_payload)
            return fmt::format("must be at least unit_payload ({}), got {}", to_string(l.unit_payload),
                               to_string(l.unit_wire));
        return std::nullopt;
    });
    for (LinkClass c : {LinkClass::InNode, LinkClass::InRack, LinkClass::RackToRack}) {
        s.check(std::string(link_class_name(c)), [c](const L& l) -> std::optional<std::string> {
            if (l.timing(c).latency() < Time::ps(1))
                return std::string("link latency (serdes_fec + cable + clock_crossing) must be at least 1ps");
            return std::nullopt;
        });
    }
    return s;
}

}  // namespace loom::topo
