#include "loom/fabric/router.hpp"

#include <algorithm>
#include <bit>
#include <new>

#include <fmt/format.h>

#include "loom/base/assert.hpp"
#include "loom/fabric/flit.hpp"
#include "loom/fabric/terminal.hpp"
#include "loom/sim/simulator.hpp"
#include "round_robin.hpp"

namespace loom::fabric {

namespace {
constexpr std::uint64_t bit64(std::int32_t i) { return std::uint64_t{1} << i; }
constexpr std::uint32_t bit32(std::int32_t i) { return std::uint32_t{1} << i; }
constexpr std::size_t kBlockAlign = 64;

// Lays arrays out one after another in a block: a first pass with base == nullptr sizes it.
struct Carver {
    std::byte* base = nullptr;
    std::size_t size = 0;
    template <class T>
    T* take(std::size_t n) {
        size = (size + alignof(T) - 1) / alignof(T) * alignof(T);
        T* p = base != nullptr ? reinterpret_cast<T*>(base + size) : nullptr;
        if (p != nullptr) std::uninitialized_value_construct_n(p, n);
        size += n * sizeof(T);
        return p;
    }
};
}  // namespace

void Router::BlockFree::operator()(std::byte* p) const { ::operator delete(p, std::align_val_t{kBlockAlign}); }

Router::Router(sim::Context& ctx, const FabricSetup& net, topo::VertexId vertex)
    : sim::Component(ctx),
      net_(net),
      vertex_(vertex),
      network_ports_(net.topology.num_ports(vertex)),
      ports_(network_ports_ + net.topology.vertex(vertex).terminals),
      vcs_(net.config.vcs),
      first_terminal_(net.pattern.first_terminal(vertex)),
      body_wait_(static_cast<std::uint32_t>(net.config.routing_cycles + net.config.vc_alloc_cycles)),
      routing_cycles_(static_cast<std::int32_t>(net.config.routing_cycles)),
      vc_alloc_cycles_(static_cast<std::int32_t>(net.config.vc_alloc_cycles)),
      traversal_cycles_(static_cast<std::int32_t>(net.config.sw_alloc_cycles + net.config.st_cycles)),
      credit_delay_(static_cast<std::int32_t>(net.config.credit_delay_cycles)),
      speedup_milli_(net.config.speedup_milli()),
      sw_inline_(net.config.allocate_in_place && net.config.sw_allocator == AllocatorKind::SeparableInputFirst &&
                 net.config.alloc_iterations == 1),
      va_inline_(net.config.allocate_in_place && net.config.vc_allocator == AllocatorKind::SeparableInputFirst &&
                 net.config.alloc_iterations == 1 && ports_ * vcs_ <= 64),
      wake_(ctx, "wake", this, sim::handler<&Router::on_wake>) {
    LOOM_ASSERT(ports_ <= 64, fmt::format("{}: {} ports, at most 64 are supported", path(), ports_));
    LOOM_ASSERT(net.config.vc_buffer_flits >= 1, fmt::format("{}: input buffers need at least one flit", path()));
    const auto P = static_cast<std::size_t>(ports_);
    const auto PV = P * static_cast<std::size_t>(vcs_);
    // Hot arrays first (VCs, ports, credits), the allocation scratch after them.
    auto carve = [&](Carver& c) {
        vc_ = c.take<Vc>(PV);
        in_ = c.take<PortIn>(P);
        credits_ = c.take<std::int32_t>(PV);
        sa_vcs_ = c.take<std::uint16_t>(P);
        ov_busy_ = c.take<std::uint8_t>(PV);
        vc_port_ = c.take<std::uint8_t>(PV);
        in_ptr_ = c.take<std::uint8_t>(P);
        out_ptr_ = c.take<std::uint8_t>(P);
        out_kind_ = c.take<std::uint8_t>(P);
        va_list_ = c.take<std::uint16_t>(PV);
        if (va_inline_) {
            va_in_ptr_ = c.take<std::uint8_t>(PV);
            va_out_ptr_ = c.take<std::uint8_t>(PV);
        }
        sw_lines_ = c.take<std::uint32_t>(P);  // the allocator objects' requests only
        credit_in_ = c.take<LineReader>(P);    // read in batches: after the arrays every tick reads
    };
    masks_ = PV <= 64;
    vc_mask_ = static_cast<std::uint32_t>(bit64(vcs_) - 1);
    Carver sizing;
    carve(sizing);
    block_.reset(static_cast<std::byte*>(::operator new(sizing.size, std::align_val_t{kBlockAlign})));
    Carver fill{block_.get(), 0};
    carve(fill);

    for (std::size_t iv = 0; iv < PV; ++iv) vc_port_[iv] = static_cast<std::uint8_t>(iv / static_cast<std::size_t>(vcs_));
    for (std::size_t q = 0; q < P; ++q) out_kind_[q] = static_cast<std::uint8_t>(kEjectionChannel);
    for (std::int32_t q = 0; q < network_ports_; ++q) {
        const topo::ChannelId c = net.topology.channel_at(vertex, q);
        if (c == topo::kNoChannel) continue;
        out_kind_[q] = static_cast<std::uint8_t>(topo::index_of(net.topology.channel(c).link_class));
        wired_ |= bit64(q);
    }
    for (std::int32_t q = network_ports_; q < ports_; ++q) wired_ |= bit64(q);
    depth_ = static_cast<std::uint32_t>(net.config.vc_buffer_flits);
    occupancy_ = net.routing.reads_occupancy();
    if (net.config.noisy_links()) {
        // Each channel's draws come from (seed, router path, port): the same flits see the same noise whatever
        // the construction order or partitioning. The credits this router returns beside its flits on the same
        // channel draw from their own stream.
        noisy_ = true;
        noise_.resize(2 * static_cast<std::size_t>(network_ports_));
        for (std::int32_t q = 0; q < network_ports_; ++q) {
            if (!wired(q)) continue;
            const topo::LinkClass lc = net.topology.channel(net.topology.channel_at(vertex, q)).link_class;
            const LinkTiming timing = net.config.channel_timing(lc, net.clock.period_ceil());
            const std::string name = fmt::format("{}.port{}", path(), q);
            const auto k = 2 * static_cast<std::size_t>(q);
            noise_[k] = net::LinkNoise(timing, derive(ctx.sim().seed(), name), net.config.replay_cycles(lc), net.clock);
            noise_[k + 1] =
                net::LinkNoise(timing, derive(ctx.sim().seed(), name + ".credits"), net.config.replay_cycles(lc), net.clock);
        }
    }
    for (std::int32_t c = 0; c < net.classes; ++c)
        class_vcs_[static_cast<std::size_t>(c)] = {static_cast<std::uint8_t>(net.vc_first(c)),
                                                   static_cast<std::uint8_t>(net.vc_first(c + 1))};
    any_class_ = static_cast<std::uint8_t>(net.classes);
    class_vcs_[any_class_] = {0, static_cast<std::uint8_t>(vcs_)};
    if (!va_inline_) {
        const std::int32_t n = ports_ * vcs_;
        va_ = std::make_unique<Allocator>(net.config.vc_allocator, n, n, n, net.config.alloc_iterations, vcs_);
    }
    if (!sw_inline_)
        sw_ = std::make_unique<Allocator>(net.config.sw_allocator, ports_, vcs_, ports_, net.config.alloc_iterations, vcs_);
}

Router::~Router() = default;  // the buffers' chunks go back with the pool

void Router::init() {
    // Terminal ports are never short of credits (ejection is not flow-controlled): they start with as many as
    // the buffers hold and forward() never takes one.
    std::fill_n(credits_, static_cast<std::size_t>(ports_ * vcs_), static_cast<std::int32_t>(depth_));
}

void Router::use_clock(RouterClock& clock) {
    clock_ = &clock;
    scratch_ = &clock.scratch();
}

void Router::use_links(PortOut* all, std::uint32_t first) {
    links_ = all;
    out_ = all + first;
    for (std::int32_t q = 0; q < ports_; ++q) {
        const topo::ChannelId c = q < network_ports_ ? net_.topology.channel_at(vertex_, q) : topo::kNoChannel;
        // Terminal channels are clean, at the terminal latency.
        out_[q].link.set_latency(c == topo::kNoChannel ? net_.config.terminal_latency_cycles
                                                       : net_.config.latency_cycles(net_.topology.channel(c).link_class));
    }
}

void Router::attach_input(std::int32_t port, std::uint32_t sender) {
    LOOM_ASSERT(links_ != nullptr && pool_ != nullptr && wired(port),
                fmt::format("{}: port {}'s input attached before use_links or use_pool, or unwired", path(), port));
    in_[port].flits.attach(links_[sender].flits, *pool_);
}

void Router::attach_output(std::int32_t port, std::uint32_t receiver) {
    LOOM_ASSERT(links_ != nullptr && pool_ != nullptr && port < network_ports_ && wired(port),
                fmt::format("{}: port {} has no credit line (a terminal port or unwired)", path(), port));
    credit_in_[port].attach(links_[receiver].credits, *pool_);
}

std::int32_t Router::credits(std::int32_t port, std::int32_t vc) const { return credits_[port * vcs_ + vc]; }

std::int32_t Router::buffered(std::int32_t port, std::int32_t vc) const {
    return static_cast<std::int32_t>(vc_[port * vcs_ + vc].size);
}

std::int64_t Router::buffered_flits() const {
    std::int64_t n = 0;
    for (std::int32_t i = 0; i < ports_ * vcs_; ++i) n += vc_[i].size;
    return n;
}

void Router::wake(std::int64_t cycle) {
    if (cycle >= next_tick_) return;
    next_tick_ = cycle;
    clock_->schedule(this, cycle);
}

void Router::sa_add(std::int32_t port, std::int32_t vc) {
    sa_vcs_[port] = static_cast<std::uint16_t>(sa_vcs_[port] | bit32(vc));
    sa_ports_ |= bit64(port);
    if (masks_) sa_ |= bit64(port * vcs_ + vc);
}

[[gnu::always_inline]] inline void Router::set_sa_ready(std::int32_t iv, std::int64_t ready, std::int64_t cycle) {
    vc_[iv].ready = ready;
    if (!masks_) return;
    const std::uint64_t b = bit64(iv);
    if (ready <= cycle) {
        soon_ &= ~b;
        later_ &= ~b;
    } else if (ready == cycle + 1) {
        // soon_at_ <= cycle + 1 (set in this cycle or before): if before, every bit in soon_ is ready by now.
        if (soon_at_ != ready) {
            soon_ = 0;
            soon_at_ = ready;
        }
        soon_ |= b;
        later_ &= ~b;
    } else {
        later_ |= b;
        soon_ &= ~b;
    }
}

void Router::settle_ready(std::int64_t cycle) {
    // Credits read since the last tick: the VCs that were out of them may have one again (few are).
    for (std::uint64_t m = sa_ & ~cok_; m != 0; m &= m - 1) {
        const auto iv = std::countr_zero(m);
        if (has_credit(vc_[iv].out_port * vcs_ + vc_[iv].out_vc, cycle)) cok_ |= bit64(iv);
    }
    if (soon_at_ <= cycle) soon_ = 0;
    for (std::uint64_t m = later_; m != 0; m &= m - 1) {
        const auto iv = std::countr_zero(m);
        if (vc_[iv].ready <= cycle) later_ &= ~bit64(iv);
    }
}

void Router::sa_remove(std::int32_t port, std::int32_t vc) {
    auto& m = sa_vcs_[port];
    m = static_cast<std::uint16_t>(m & ~bit32(vc));
    if (m == 0) sa_ports_ &= ~bit64(port);
    if (masks_) sa_ &= ~bit64(port * vcs_ + vc);
}

// A wake-up arrives with the first entry pushed onto an empty line, at that entry's arrival.
void Router::on_wake(std::uint32_t arg) {
    const auto port = static_cast<std::int32_t>(arg >> 1);
    if (arg & 1u) {
        on_credit_wake(port);
    } else {
        on_flit_wake(port);
    }
}

void Router::on_flit_wake(std::int32_t port) {
    const std::int64_t c = now_cycle();
    flit_lines_ |= bit64(port);
    in_[port].flit_due = static_cast<std::uint32_t>(c);
    wake(c);
}

void Router::on_credit_wake(std::int32_t port) {
    const std::int64_t c = now_cycle();
    credit_lines_ |= bit64(port);
    in_[port].credit_due = static_cast<std::uint32_t>(c);
    if (sa_ports_ != 0) wake(c);  // otherwise no flit waits for it
}

// Inline: drain calls it for every flit.
[[gnu::always_inline]] inline void Router::accept_flit(std::int32_t port, std::uint32_t arg, std::int64_t c) {
    const std::uint32_t vc = Flit::vc_of(arg);
    LOOM_DEBUG_ASSERT(vc < static_cast<std::uint32_t>(vcs_), "flit on an unknown VC");
    const std::int32_t iv = port * vcs_ + static_cast<std::int32_t>(vc);
    Vc& x = vc_[iv];
    const std::uint64_t e = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(c)) << 32) | arg;
    if (x.size < kInline) {
        x.slot[x.size] = e;
    } else {
        pool_->push_back(x.front, x.back, x.size - kInline, e);
    }
    ++x.size;
    if (static_cast<std::int32_t>(x.size) > peak_vc_flits_) peak_vc_flits_ = static_cast<std::int32_t>(x.size);
    if (x.size != 1) return;  // the front flit is older
    if (x.state == VcState::Idle) {
        LOOM_DEBUG_ASSERT(Flit::is_head(arg), "body flit into an idle VC");
        // route() reads the packet's record later in this tick (R = 0) or a few cycles on: start fetching it.
        FlitLink::prefetch_record(*pool_, Flit::packet_of(arg));
        x.state = VcState::Routing;
        x.ready = c + routing_cycles_;
        va_list_[va_count_++] = static_cast<std::uint16_t>(iv);
    } else {
        LOOM_DEBUG_ASSERT(x.state == VcState::Active, "flit into a VC that is routing an empty buffer");
        set_sa_ready(iv, c + body_wait_, c);  // a body flit (the head left)
        sa_add(port, static_cast<std::int32_t>(vc));
    }
}

void Router::drain(std::int64_t c) {
    // Each line's front arrival is kept in PortIn (flit_due / credit_due), so lines with nothing due are not
    // touched: the front of a FIFO only changes when its reader pops.
    std::int64_t accepted = 0, accepted_cycles = 0;  // buffer writes, counted once per drain
    RingPool& pool = *pool_;
    for (std::uint64_t m = flit_lines_; m != 0; m &= m - 1) {
        const auto p = static_cast<std::int32_t>(std::countr_zero(m));
        PortIn& ps = in_[p];
        std::int32_t wait = cycles_until(ps.flit_due, c);
        if (wait > 0) continue;
        for (;;) {
            const std::int64_t a = c + wait;
            std::uint64_t next;
            accept_flit(p, ps.flits.pop(pool, next), a);
            ++accepted;
            accepted_cycles += a;
            if (!LineReader::is_entry(next)) {
                flit_lines_ &= ~bit64(p);
                break;
            }
            ps.flit_due = LineReader::arrival32(next);
            wait = cycles_until(ps.flit_due, c);
            if (wait > 0) break;
        }
    }
    FabricCounters& t = counters_;
    t.buffer_in += accepted;
    t.buffer_in_cycles += accepted_cycles;
    // Every arrived credit at every tick when UGAL-L reads the outputs' queues (route()); otherwise at the first
    // tick kCreditBatch cycles after the last such read (so that a line holds about kCreditBatch cycles of
    // credits more than those in flight), and a line whose output VC's count is zero (has_credit).
    if (occupancy_ || c - credits_read_ >= kCreditBatch) {
        credits_read_ = c;
        for (std::uint64_t m = credit_lines_; m != 0; m &= m - 1) read_credits(std::countr_zero(m), c);
    }
}

// Credits are read lazily: a count in credits_ may be short of the credits that have arrived on the port's line
// by now (never above it), and every decision reads it only as "is it > 0"; so a count of zero reads the line
// first (read_credits), and the decision is the one the count with every arrived credit read would give. A
// 256-flit buffer at half load rarely runs out, so the lines are read in batches (drain), a chunk once for
// several credits instead of once for each. Reading moves no model result; it decides when the line is empty at
// a push (its wake-ups).
void Router::read_credits(std::int32_t p, std::int64_t c) {
    if (!(credit_lines_ & bit64(p))) return;
    PortIn& ps = in_[p];
    if (cycles_until(ps.credit_due, c) > 0) return;
    LineReader& line = credit_in_[p];
    RingPool& pool = *pool_;
    std::int32_t* credits = credits_ + p * vcs_;
    for (;;) {
        std::uint64_t next;
        ++credits[line.pop(pool, next)];
        if (!LineReader::is_entry(next)) {
            credit_lines_ &= ~bit64(p);
            return;
        }
        ps.credit_due = LineReader::arrival32(next);
        if (cycles_until(ps.credit_due, c) > 0) return;
    }
}

bool Router::has_credit(std::int32_t ov, std::int64_t c) {
    if (credits_[ov] > 0) return true;
    read_credits(vc_port_[ov], c);  // output VCs are numbered as the input VCs
    return credits_[ov] > 0;
}

// Routing a head flit also moves its packet's record, once updated, from the line it came in on
// (this router's to read, update and release from the head's arrival on) into a chunk of the line it will
// leave on, while the record's line is in cache; the head's entry in the buffer names the new slot, which the
// receiver reads once the head has arrived there.
void Router::route(std::int32_t iv) {
    Vc& x = vc_[iv];
    std::uint64_t& entry = x.slot[0];
    const std::uint32_t arg = static_cast<std::uint32_t>(entry);
    FabricRecord& packet = FlitLink::record(*pool_, Flit::packet_of(arg));
    FabricPacket& p = packet.payload;
    std::int32_t port = 0, cls = 0;
    if (p.dest_router == vertex_) {
        port = network_ports_ + static_cast<std::int32_t>(packet.dst) - first_terminal_;
    } else {
        // UGAL-L's queue per output: the credits its VCs are short of (taken by flits sent, not yet returned).
        std::array<std::int32_t, 64> used;
        if (occupancy_) {
            for (std::int32_t q = 0; q < network_ports_; ++q) {
                std::int32_t n = 0;
                for (std::int32_t v = 0; v < vcs_; ++v) n += static_cast<std::int32_t>(depth_) - credits_[q * vcs_ + v];
                used[static_cast<std::size_t>(q)] = n;
            }
        }
        const RouteQuery q{vertex_, p.dest_router,
                           std::span<const std::int32_t>(used.data(), occupancy_ ? static_cast<std::size_t>(network_ports_) : 0)};
        port = net_.routing.route(q, p.route, ctx().rng());
        LOOM_DEBUG_ASSERT(port >= 0 && port < network_ports_ && wired(port), "routing chose an unwired port");
        cls = vc_class(net_.tables.scheme(), p.route);
        LOOM_ASSERT(cls < net_.classes, fmt::format("{}: a route needs VC class {}, {} exist", path(), cls, net_.classes));
        ++p.route.hops;
        if (net_.tables.crosses(vertex_, port)) ++p.route.crossings;
        p.channel_cycles += out_[port].link.latency();
    }
    x.out_port = static_cast<std::uint8_t>(port);
    x.cls = p.dest_router == vertex_ ? any_class_ : static_cast<std::uint8_t>(cls);  // ejection takes any VC
    x.state = VcState::VcAlloc;
    const std::uint32_t handle = FlitLink::push_record(*pool_, packet);
    FlitLink::release_record(*pool_, Flit::packet_of(arg));
    entry = (entry & ~std::uint64_t{0xffffffff}) | Flit::with_packet(arg, handle);
}

// Inline: both VC allocators call it for every grant (a call saved and restored six registers).
[[gnu::always_inline]] inline void Router::grant_vc(std::int32_t iv, std::int32_t ov, std::int64_t cycle) {
    Vc& x = vc_[iv];
    const std::int32_t port = vc_port_[iv], vc = iv - port * vcs_;
    ov_busy_[ov] = 1;
    if (masks_) cok_ = has_credit(ov, cycle) ? cok_ | bit64(iv) : cok_ & ~bit64(iv);
    x.out_vc = static_cast<std::uint8_t>(ov - x.out_port * vcs_);
    x.state = VcState::Active;
    set_sa_ready(iv, cycle + vc_alloc_cycles_, cycle);
    if (!sw_inline_) sw_->set_output(port, vc, x.out_port);
    sa_add(port, vc);
}

void Router::vc_allocate(std::int64_t cycle) {
    if (va_inline_) {
        vc_allocate_inline(cycle);
        return;
    }
    Allocator& va = *va_;
    va.clear();
    for (std::int32_t iv : va_list()) {
        Vc& x = vc_[iv];
        if (x.ready > cycle) continue;
        if (x.state == VcState::Routing) route(iv);
        for (std::int32_t ov = cand_first(x), end = cand_end(x); ov < end; ++ov)
            if (!ov_busy_[ov]) va.request(iv, ov, ov);
    }
    if (va.empty()) return;
    va.allocate();
    for (std::int32_t iv : va.granted()) grant_vc(iv, va.output_of(iv), cycle);
    va_erase_active();
}

// Separable input-first VC allocation with one iteration on bit masks (Allocator's rules, in place; at most 64
// input and output VCs): each input VC picks the first free candidate output VC at or after its pointer, each
// output VC grants the picking input first at or after its pointer, and both pointers move past the match.
void Router::vc_allocate_inline(std::int64_t cycle) {
    TickScratch& sc = *scratch_;
    const auto n = ports_ * vcs_;
    std::uint64_t touched = 0;
    bool any = false;
    for (std::int32_t iv : va_list()) {
        Vc& x = vc_[iv];
        if (x.ready > cycle) continue;
        if (x.state == VcState::Routing) route(iv);
        std::uint64_t lines = 0;
        for (std::int32_t ov = cand_first(x), end = cand_end(x); ov < end; ++ov)
            if (!ov_busy_[ov]) lines |= bit64(ov);
        if (lines == 0) continue;
        any = true;
        const std::int32_t k = first_from(lines, va_in_ptr_[iv]);
        sc.va_pick[iv] = static_cast<std::uint8_t>(k);
        sc.va_req[k] |= bit64(iv);
        touched |= bit64(k);
    }
    if (!any) return;
    std::uint64_t granted = 0;
    for (std::uint64_t t = touched; t != 0; t &= t - 1) {
        const auto ov = static_cast<std::int32_t>(std::countr_zero(t));
        const std::int32_t iv = first_from(sc.va_req[ov], va_out_ptr_[ov]);
        sc.va_req[ov] = 0;
        granted |= bit64(iv);
        va_in_ptr_[iv] = static_cast<std::uint8_t>(ov + 1 == n ? 0 : ov + 1);
        va_out_ptr_[ov] = static_cast<std::uint8_t>(iv + 1 == n ? 0 : iv + 1);
    }
    for (std::uint64_t g = granted; g != 0; g &= g - 1) {
        const auto iv = static_cast<std::int32_t>(std::countr_zero(g));
        grant_vc(iv, sc.va_pick[iv], cycle);
    }
    va_erase_active();
}

// Drops the VCs that became Active from the list, keeping the others' order.
void Router::va_erase_active() {
    std::uint32_t n = 0;
    for (std::uint32_t k = 0; k < va_count_; ++k)
        if (vc_[va_list_[k]].state != VcState::Active) va_list_[n++] = va_list_[k];
    va_count_ = static_cast<std::uint16_t>(n);
}


// One round. `dirty`: the input ports whose requests must be (re)computed: every port with Active VCs in the
// first round, then only the inputs granted in the round before. An input that was not granted keeps its
// requests, and with one iteration of the separable allocator its pick too: its VCs' ready cycles, states and
// input pointer did not change, and only its own grants take credits of the output VCs it holds.
// The VCs of input `p` Active with a buffered flit, ready by `cycle` and holding a credit, by reading them.
std::uint32_t Router::scan_requests(std::int32_t p, std::int64_t cycle) {
    std::uint32_t lines = 0;
    const Vc* v = vc_ + p * vcs_;
    for (std::uint32_t vm = sa_vcs_[p]; vm != 0; vm &= vm - 1) {
        const auto vc = static_cast<std::int32_t>(std::countr_zero(vm));
        if (v[vc].ready <= cycle && has_credit(v[vc].out_port * vcs_ + v[vc].out_vc, cycle)) lines |= bit32(vc);
    }
    return lines;
}

std::uint64_t Router::switch_allocate(std::int64_t cycle, std::uint64_t dirty) {
    TickScratch& sc = *scratch_;
    // Every input VC's request at once (masks_), else each input's by reading its VCs.
    const std::uint64_t req = sa_ & cok_ & ~(soon_ | later_);
    if (masks_ && sw_inline_) {
        // Only the inputs with requests are visited (on the reference about 0.75 dirty inputs per flit-hop have
        // none): the requesting VCs of the dirty inputs, an input's VCs taken off together. Every input with a
        // bit in req is in sa_ports_, so the first round (dirty == sa_ports_) takes req whole.
        std::uint64_t r = req;
        if (dirty != sa_ports_) {
            std::uint64_t vcs = 0;
            for (std::uint64_t pm = dirty; pm != 0; pm &= pm - 1)
                vcs |= std::uint64_t{vc_mask_} << (std::countr_zero(pm) * vcs_);
            r &= vcs;
        }
        sw_req_ &= ~dirty;
        while (r != 0) {
            const std::int32_t p = vc_port_[std::countr_zero(r)];
            const std::int32_t base = p * vcs_;
            const auto lines = static_cast<std::uint32_t>(r >> base) & vc_mask_;
            LOOM_DEBUG_ASSERT(lines == scan_requests(p, cycle),
                              "switch allocation's request masks disagree with the VCs' state");
            r &= ~(std::uint64_t{vc_mask_} << base);
            sw_req_ |= bit64(p);
            // Separable input-first, one iteration (Allocator's rules, in place): the input picks its first
            // requesting VC at or after its pointer and asks for that VC's output.
            const std::int32_t k = first_from(lines, in_ptr_[p]);
            sc.pick[p] = static_cast<std::uint8_t>(k);
            sc.pick_out[p] = vc_[base + k].out_port;
        }
    } else {
        switch_requests(cycle, dirty, req);
    }
    if (sw_req_ == 0) return 0;
    return switch_grant(cycle);
}

// The requests of the dirty inputs, each by its slice of `req` (masks_) or by reading its VCs, for the allocator
// objects or without masks.
void Router::switch_requests(std::int64_t cycle, std::uint64_t dirty, std::uint64_t req) {
    TickScratch& sc = *scratch_;
    for (std::uint64_t pm = dirty; pm != 0; pm &= pm - 1) {
        const auto p = static_cast<std::int32_t>(std::countr_zero(pm));
        std::uint32_t lines = 0;
        if (masks_) {
            lines = static_cast<std::uint32_t>(req >> (p * vcs_)) & vc_mask_;
            LOOM_DEBUG_ASSERT(lines == scan_requests(p, cycle),
                              "switch allocation's request masks disagree with the VCs' state");
        } else if ((sa_ports_ >> p) & 1) {
            lines = scan_requests(p, cycle);
        }
        if (lines == 0) {
            sw_req_ &= ~bit64(p);
            continue;
        }
        sw_req_ |= bit64(p);
        sw_lines_[p] = lines;
        if (sw_inline_) {
            // Separable input-first, one iteration (Allocator's rules, in place): the input picks its first
            // requesting VC at or after its pointer and asks for that VC's output.
            const std::int32_t k = first_from(lines, in_ptr_[p]);
            sc.pick[p] = static_cast<std::uint8_t>(k);
            sc.pick_out[p] = static_cast<std::uint8_t>(v_out_port(p, k));
        }
    }
}

[[gnu::always_inline]] inline std::uint64_t Router::switch_grant(std::int64_t cycle) {
    TickScratch& sc = *scratch_;
    std::uint64_t granted = 0;
    if (sw_inline_) {
        std::uint64_t touched = 0;
        for (std::uint64_t pm = sw_req_; pm != 0; pm &= pm - 1) {
            const auto p = static_cast<std::int32_t>(std::countr_zero(pm));
            const std::int32_t o = sc.pick_out[p];
            sc.out_req[o] |= bit64(p);
            touched |= bit64(o);
        }
        // Each output grants the picking input first at or after its pointer; both pointers move past the match.
        for (std::uint64_t t = touched; t != 0; t &= t - 1) {
            const auto o = static_cast<std::int32_t>(std::countr_zero(t));
            const std::int32_t i = first_from(sc.out_req[o], out_ptr_[o]);
            sc.out_req[o] = 0;
            granted |= bit64(i);
            const std::int32_t line = sc.pick[i];
            in_ptr_[i] = static_cast<std::uint8_t>(line + 1 == vcs_ ? 0 : line + 1);
            out_ptr_[o] = static_cast<std::uint8_t>(i + 1 == ports_ ? 0 : i + 1);
        }
    } else {
        granted = sw_->allocate_lines(sw_lines_, sw_req_);
        for (std::uint64_t g = granted; g != 0; g &= g - 1) {
            const auto p = static_cast<std::int32_t>(std::countr_zero(g));
            sc.pick[p] = static_cast<std::uint8_t>(sw_->line_of(p));
            sc.pick_out[p] = static_cast<std::uint8_t>(sw_->output_of(p));
        }
    }
    // Grants are forwarded in ascending input order (the order of the wake-ups they send).
    std::int64_t n = 0;
    for (std::uint64_t g = granted; g != 0; g &= g - 1, ++n) {
        const auto p = static_cast<std::int32_t>(std::countr_zero(g));
        forward(p, sc.pick[p], sc.pick_out[p], cycle);
    }
    FabricCounters& t = counters_;
    t.buffer_out += n;
    t.buffer_out_cycles += n * cycle;
    t.flit_hops += n;
    return granted;
}

// The noise of the flit's channel and of the credit's (the input's channel); terminal channels are clean. Each
// draws from its own stream, so computing both before either push changes no draw.
[[gnu::noinline, gnu::cold]] Router::Arrivals Router::send_noisy(std::int32_t port, std::int32_t out_port,
                                                                 std::int64_t cycle) {
    net::LinkNoise* flit_noise =
        out_port < network_ports_ ? &noise_[2 * static_cast<std::size_t>(out_port)] : nullptr;
    net::LinkNoise* credit_noise = port < network_ports_ ? &noise_[2 * static_cast<std::size_t>(port) + 1] : nullptr;
    const std::int64_t arrive = out_[out_port].link.send(cycle + traversal_cycles_, counters_.flit_noise, flit_noise);
    return {arrive, out_[port].link.signal(cycle + credit_delay_, counters_.credit_noise, credit_noise)};
}

inline Time Router::delay_to(std::int64_t cycle) const {
    return Time::ps(net_.clock.edge(cycle).count() - clock_->tick_ps());
}

// Inline: switch_allocate calls it for every grant.
[[gnu::always_inline]] inline void Router::forward(std::int32_t port, std::int32_t vc, std::int32_t out_port,
                                                    std::int64_t cycle) {
    Vc& x = vc_[port * vcs_ + vc];
    const std::uint32_t arg = static_cast<std::uint32_t>(x.slot[0]);  // a head names its record's new slot
    static_assert(kInline == 4);
    x.slot[0] = x.slot[1];
    x.slot[1] = x.slot[2];
    x.slot[2] = x.slot[3];
    if (--x.size >= kInline) {
        // The ring's front moves into the record.
        x.slot[kInline - 1] = *x.front;
        pool_->pop_front(x.front, x.back, x.size - kInline);
    }
    PortOut& out = out_[out_port];
    const std::int32_t ov = out_port * vcs_ + x.out_vc;
    if (out_port < network_ports_) {
        if (--credits_[ov] == 0 && !has_credit(ov, cycle) && masks_) cok_ &= ~bit64(port * vcs_ + vc);
    }
    // The flit's arrival on its output channel, and its credit's on the input's channel (the credits ride beside
    // the flits this router sends back on it); the noisy case out of line, so a clean run tests one flag.
    Arrivals at;  // returned by value: out-parameters would keep both in memory on the clean path
    if (noisy_) [[unlikely]] {
        at = send_noisy(port, out_port, cycle);
    } else {
        at.flit = out.link.send(cycle + traversal_cycles_, counters_.flit_noise);
        at.credit = out_[port].link.signal(cycle + credit_delay_, counters_.credit_noise);
    }
    const std::int64_t arrive = at.flit, credit_at = at.credit;
    // The wake-up delays (edge conversions) only for a push onto an empty line.
    out.flits.push_lazy(*pool_, wake_, arrive, Flit::with_vc(arg, x.out_vc), [&] { return delay_to(arrive); });
    out_[port].credits.push_lazy(*pool_, wake_, credit_at, static_cast<std::uint32_t>(vc),
                                 [&] { return delay_to(credit_at); });
    ++counters_.channel_flits[out_kind_[out_port]];  // the other per-flit counters: switch_allocate, once a round

    if (Flit::is_tail(arg)) {
        ov_busy_[ov] = 0;
        sa_remove(port, vc);
        if (x.size > 0) {
            // The next packet's head is at the front: it is routed from the next cycle on.
            const auto arrived = static_cast<std::uint32_t>(x.slot[0] >> 32);
            const std::int64_t a = cycle - static_cast<std::uint32_t>(static_cast<std::uint32_t>(cycle) - arrived);
            x.state = VcState::Routing;
            x.ready = std::max(a + routing_cycles_, cycle + 1);
            va_list_[va_count_++] = static_cast<std::uint16_t>(port * vcs_ + vc);
        } else {
            x.state = VcState::Idle;
        }
    } else if (x.size == 0) {
        sa_remove(port, vc);
    } else {
        // The next body flit is at the front: it may take part from R + V cycles after its arrival.
        const auto arrived = static_cast<std::uint32_t>(x.slot[0] >> 32);
        const std::int64_t a = cycle - static_cast<std::uint32_t>(static_cast<std::uint32_t>(cycle) - arrived);
        set_sa_ready(port * vcs_ + vc, a + body_wait_, cycle);
    }
}

void Router::on_tick(std::int64_t c) {
    next_tick_ = kNever;
    ++ticks_;
    drain(c);
    if (va_count_ != 0) vc_allocate(c);
    // FabricConfig::rounds_at(c), with the speed-up converted once.
    const auto rounds = static_cast<std::int32_t>((c + 1) * speedup_milli_ / 1000 - c * speedup_milli_ / 1000);
    sw_req_ = 0;
    if (masks_) settle_ready(c);
    for (std::uint64_t r = 0, dirty = sa_ports_; r < static_cast<std::uint64_t>(rounds) && sa_ports_ != 0; ++r) {
        dirty = switch_allocate(c, dirty);
        if (dirty == 0) break;
    }

    // The next cycle in which something can progress.
    std::int64_t next = kNever;
    for (std::int32_t iv : va_list()) {
        const Vc& x = vc_[iv];
        if (x.ready > c) {
            next = std::min(next, x.ready);
        } else if (x.state == VcState::Routing) {
            next = c + 1;
        } else {
            for (std::int32_t ov = cand_first(x), end = cand_end(x); ov < end; ++ov) {
                if (!ov_busy_[ov]) {
                    next = c + 1;  // lost VC allocation: try again
                    break;
                }
            }
            // All candidates busy: the tail that frees one passes switch allocation here, which reschedules.
        }
    }
    for (std::uint64_t pm = sa_ports_; pm != 0 && next > c + 1; pm &= pm - 1) {
        const auto p = static_cast<std::int32_t>(std::countr_zero(pm));
        for (std::uint32_t vm = sa_vcs_[p]; vm != 0; vm &= vm - 1) {
            const Vc& x = vc_[p * vcs_ + std::countr_zero(vm)];
            if (has_credit(x.out_port * vcs_ + x.out_vc, c)) {
                next = std::min(next, std::max(x.ready, c + 1));
            } else if (credit_lines_ & bit64(x.out_port)) {
                next = std::min(next, c + cycles_until(in_[x.out_port].credit_due, c));  // a credit is coming
            }
            // else: the credit line is empty, and the next credit's push sends a wake-up.
        }
    }
    for (std::uint64_t m = flit_lines_; m != 0 && next > c + 1; m &= m - 1)
        next = std::min(next, c + cycles_until(in_[std::countr_zero(m)].flit_due, c));
    if (next != kNever) wake(next);
}

RouterClock::RouterClock(sim::Context& ctx, const FabricSetup& net)
    : sim::Component(ctx), net_(net), tick_(ctx, this, sim::handler<&RouterClock::on_tick>, sim::Phase::Clock) {}

void RouterClock::set_units(std::vector<Router*> routers, std::vector<Terminal*> terminals) {
    routers_ = std::move(routers);
    terminals_ = std::move(terminals);
}

void RouterClock::init() {
    // The terminals in source-id order, those before the clock's first.
    std::sort(terminals_.begin(), terminals_.end(),
              [](const Terminal* a, const Terminal* b) { return a->ctx().source() < b->ctx().source(); });
    const auto before = static_cast<std::size_t>(std::count_if(
        terminals_.begin(), terminals_.end(), [&](const Terminal* t) { return t->ctx().source() < ctx().source(); }));
    first_router_ = static_cast<std::uint32_t>(before);
    for (std::size_t j = 0; j < terminals_.size(); ++j)
        terminals_[j]->clock_unit_ = static_cast<std::uint32_t>(j < before ? j : j + routers_.size());
    const std::size_t units = routers_.size() + terminals_.size();
    LOOM_ASSERT(units < (std::size_t{1} << 32), "the fabric clock ticks at most 2^32 routers and terminals");
    words_ = (units + 63) / 64;
    ring_.assign(static_cast<std::size_t>(kRing) * words_, 0);
}

std::uint32_t RouterClock::unit_of(const Terminal& t) { return t.clock_unit_; }

void RouterClock::schedule(Terminal* t, std::int64_t cycle) { schedule_unit(t->clock_unit_, cycle); }

void RouterClock::schedule_far(std::uint32_t unit, std::int64_t cycle) {
    far_.emplace_back(cycle, unit);
    far_min_ = std::min(far_min_, cycle);
}

void RouterClock::arm(std::int64_t cycle) {
    armed_ = cycle;
    tick_.arm_at(Time::ps(net_.clock.edge(cycle).count()));
}

// Ticks unit `unit` if it is still due at `cycle` (its schedule did not move).
inline void RouterClock::tick_unit(std::uint32_t unit, std::int64_t cycle) {
    const std::uint32_t r = unit - first_router_;
    if (r < routers_.size()) {
        Router* router = routers_[r];
        if (router->next_tick_ == cycle) router->on_tick(cycle);
    } else {
        Terminal* t = terminals_[unit < first_router_ ? unit : unit - routers_.size()];
        if (t->next_tick_ == cycle) t->on_tick(cycle);
    }
}

std::int64_t RouterClock::next_in_ring(std::int64_t from) const {
    constexpr std::size_t kWords = kRing / 64;
    const auto s = static_cast<std::size_t>(from & (kRing - 1));
    // The words from s's on, the first masked below s, then s's word again for the bits below s (wrapped).
    for (std::size_t k = 0; k <= kWords; ++k) {
        const std::size_t w = (s / 64 + k) % kWords;
        std::uint64_t m = busy_[w];
        if (k == 0) m &= ~std::uint64_t{0} << (s & 63);
        if (k == kWords) m &= (std::uint64_t{1} << (s & 63)) - 1;
        if (m == 0) continue;
        const auto b = static_cast<std::int64_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(m)));
        return from + ((b - static_cast<std::int64_t>(s)) & (kRing - 1));
    }
    return kNever;
}

void RouterClock::on_tick() {
    const std::int64_t c = armed_;
    LOOM_DEBUG_ASSERT(net_.clock.edge(c).count() == ctx().now_ps(), "the fabric clock fired off its cycle's edge");
    tick_ps_ = ctx().now_ps();
    armed_ = kNever;
    ticking_ = true;
    ++fired_;
    last_ = c;
    if (far_min_ < c + kRing) {
        // Entries now within the ring's reach move into it.
        std::int64_t rest = kNever;
        std::erase_if(far_, [&](const std::pair<std::int64_t, std::uint32_t>& e) {
            if (e.first >= c + kRing) {
                rest = std::min(rest, e.first);
                return false;
            }
            mark(e.first, e.second);
            return true;
        });
        far_min_ = rest;
    }
    const auto b = static_cast<std::size_t>(c & (kRing - 1));
    std::uint64_t* due = ring_.data() + b * words_;
    // A tick schedules its router or terminal at a later cycle, never at c; the words are read again until none
    // is set all the same. A unit whose bit is set but whose schedule moved (an earlier tick scheduled a later
    // one) is skipped.
    for (bool again = true; again;) {
        again = false;
        for (std::size_t w = 0; w < words_; ++w) {
            std::uint64_t m = due[w];
            if (m == 0) continue;
            due[w] = 0;
            again = true;
            for (; m != 0; m &= m - 1)
                tick_unit(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(m))), c);
        }
    }
    busy_[b >> 6] &= ~(std::uint64_t{1} << (b & 63));
    ticking_ = false;
    const std::int64_t next = std::min(next_in_ring(c + 1), far_min_);
    if (next != kNever) {
        armed_ = next;
        tick_.arm_at(Time::ps(net_.clock.edge(next).count()));
    }
}

}  // namespace loom::fabric
