#include "loom/ananta/fastpath_wire.hpp"

#include "loom/ananta/dc_config.hpp"

namespace loom::ananta {

namespace {

// The host of a VM address in the address plan (0 for an address that is not a VM's).
IpAddr host_of_vm(IpAddr dip) {
    const addr::Decoded d = addr::decode(dip);
    return d.kind == addr::Kind::Vm ? addr::host(d.rack, d.slot) : 0;
}

}  // namespace

bool is_redirect(const IpPacket& p) { return p.message == kFastpathRedirect && p.depth == 1; }

IpPacket redirect_packet(const FastpathRedirect& r) {
    IpPacket p;
    p.inner = r.tuple;
    p.message = kFastpathRedirect;
    p.seq = r.source.dip;
    p.ack = r.destination.dip;
    p.mss = r.destination.port;
    p.size_bytes = kFastpathRedirectBytes - kIpHeaderBytes;  // the outer header below adds its 20 bytes
    p.encapsulate(r.from, r.to);
    return p;
}

std::optional<FastpathRedirect> read_redirect(const IpPacket& p) {
    if (!is_redirect(p)) return std::nullopt;
    FastpathRedirect r;
    r.from = p.outer[0].src;
    r.to = p.outer[0].dst;
    r.tuple = p.inner;
    if (p.seq != 0) r.source = FlowTarget{p.seq, 0, host_of_vm(p.seq)};
    r.destination = FlowTarget{p.ack, p.mss, host_of_vm(p.ack)};
    return r;
}

}  // namespace loom::ananta
