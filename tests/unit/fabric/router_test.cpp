#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <utility>
#include <vector>

#include "fabric_test_util.hpp"
#include "loom/fabric/router.hpp"
#include "loom/fabric/terminal.hpp"
#include "loom/workload/traffic_trace.hpp"

using namespace loom;
using namespace loom::fabric;
using loom::fabric::testing::build_run;
using loom::fabric::testing::finish_run;
using loom::fabric::testing::small_config;

namespace {

// Messages far enough apart that no two packets ever meet: every packet sees an empty network.
workload::TrafficTrace sparse_trace(std::int64_t spacing_cycles) {
    std::vector<workload::TraceMessage> m;
    for (int i = 0; i < 180; ++i) {
        workload::TraceMessage x;
        x.time = Time::ns(spacing_cycles * i);  // 1 GHz: 1 ns per cycle
        x.src = (7 * i) % 72;
        x.dst = (13 * i + 5) % 72;
        if (x.dst == x.src) x.dst = (x.dst + 1) % 72;
        if (i % 9 == 0) x.dst = x.src ^ 1;  // the other terminal of the same router: no network hop
        x.bytes = Bytes(16 * (1 + i % 10) - (i % 3));  // 1..10 flits of 16 bytes, some partly filled
        m.push_back(x);
    }
    return workload::TrafficTrace(std::move(m));
}

struct ZeroLoad {
    int packets = 0, mismatches = 0, same_router = 0, two_global = 0, max_crossings = 0;
    int expected_same_router = 0;  // messages between the two terminals of one router (p = 2)
};

ZeroLoad check_zero_load(config::Json cfg, std::int64_t spacing_cycles = 600) {
    cfg["traffic"]["pattern"] = "trace";
    cfg["traffic"]["trace"] = "in-memory";
    const auto trace = sparse_trace(spacing_cycles);
    auto run = build_run(cfg, &trace);
    const FabricConfig& f = run.model->network().config;
    const std::int64_t pipeline = f.pipeline_cycles();
    ZeroLoad z;
    for (const auto& m : trace.messages()) z.expected_same_router += m.src / 2 == m.dst / 2;
    run.model->set_packet_observer([&](const PacketSummary& p) {
        ++z.packets;
        // hops x (router pipeline + channel latency) + serialization, with terminal channels at both ends.
        const std::int64_t channels = (p.hops - p.crossings) * f.local_latency_cycles + p.crossings * f.global_latency_cycles;
        const std::int64_t expected =
            2 * f.terminal_latency_cycles + (p.hops + 1) * pipeline + channels + (p.flits - 1);
        const std::int64_t latency = p.ejected_cycle - p.created_cycle;
        if (latency != expected || p.channel_cycles != channels || p.injected_cycle != p.created_cycle) {
            ++z.mismatches;
            UNSCOPED_INFO("packet " << p.id << " " << p.src << "->" << p.dst << " hops " << p.hops << " global "
                                    << p.crossings << " flits " << p.flits << ": latency " << latency
                                    << ", expected " << expected);
        }
        z.same_router += p.hops == 0;
        z.two_global += p.crossings == 2;
        z.max_crossings = std::max(z.max_crossings, p.crossings);
    });
    const config::Json stats = finish_run(run);
    CHECK(stats.at("status") == "complete");
    return z;
}


TEST_CASE("Zero-load latency of every packet is hops x (pipeline + channel latency) + serialization") {
    for (const char* routing : {"minimal", "valiant", "ugal_l"}) {
        INFO(routing);
        const ZeroLoad z = check_zero_load(small_config(routing));
        CHECK(z.packets == 180);
        CHECK(z.mismatches == 0);
        CHECK(z.same_router == z.expected_same_router);
        CHECK(z.same_router >= 20);
        if (std::string(routing) == "valiant") {
            CHECK(z.two_global > 100);
            CHECK(z.max_crossings == 2);
        } else {
            CHECK(z.max_crossings == 1);  // UGAL-L on empty queues routes minimally
        }
    }
}

TEST_CASE("Zero-load latency follows every pipeline stage, channel latency and speed-up setting") {
    config::Json cfg = small_config("valiant");
    cfg["fabric"]["routing_cycles"] = 1;
    cfg["fabric"]["vc_alloc_cycles"] = 2;
    cfg["fabric"]["sw_alloc_cycles"] = 0;
    cfg["fabric"]["st_cycles"] = 3;
    cfg["fabric"]["terminal_latency_cycles"] = 4;
    cfg["fabric"]["local_latency_cycles"] = 7;
    cfg["fabric"]["global_latency_cycles"] = 53;
    cfg["fabric"]["internal_speedup"] = 1.5;
    cfg["fabric"]["vc_allocator"] = "islip";
    cfg["fabric"]["sw_allocator"] = "islip";
    const ZeroLoad z = check_zero_load(cfg);
    CHECK(z.packets == 180);
    CHECK(z.mismatches == 0);
}

TEST_CASE("Zero-load latency holds when a router's next tick is beyond the router clock's 256-cycle ring") {
    // Stages of about 300 cycles: a head flit's routing and VC allocation, and a body flit's wait, end past the
    // ring of RouterClock, so those ticks wait in its overflow list and move into the ring as their cycle nears.
    config::Json cfg = small_config("minimal");
    cfg["fabric"]["routing_cycles"] = 290;
    cfg["fabric"]["vc_alloc_cycles"] = 300;
    const ZeroLoad z = check_zero_load(cfg, 4000);  // 4 hops x about 600 cycles apiece: packets never meet
    CHECK(z.packets == 180);
    CHECK(z.mismatches == 0);
}

TEST_CASE("A router has the topology ports plus one per terminal and its credits balance after a run") {
    auto run = build_run(small_config("minimal", "uniform", 0.05));
    const config::Json stats = finish_run(run);
    CHECK(stats.at("status") == "steady");
    // Quiesce by construction is not possible with Bernoulli traffic; check the accounting instead.
    CHECK(run.model->conservation_problems().empty());
    const Router& r = *run.model->routers().front();
    CHECK(r.ports() == 3 + 2 + 2);  // 3 local, 2 global, 2 terminals
    CHECK(r.peak_vc_flits() >= 1);
    CHECK(r.ticks() > 0);
}

TEST_CASE("A router pushes onto the lines in its own port records, and keeps its end of a flit line beside its due arrival") {
    auto run = build_run(small_config("minimal", "uniform", 0.05));
    const auto same_line = [](const void* a, const void* b) {
        return reinterpret_cast<std::uintptr_t>(a) / 64 == reinterpret_cast<std::uintptr_t>(b) / 64;
    };
    const auto& routers = run.model->routers();
    const topo::FrozenTopology& t = run.model->topology();
    std::int32_t channels = 0;
    for (topo::ChannelId c = 0; c < t.num_channels(); ++c) {
        const topo::Channel& ch = t.channel(c);
        const Router& a = *routers[static_cast<std::size_t>(ch.src)];
        const Router& b = *routers[static_cast<std::size_t>(ch.dst)];
        // The flits a sends on the channel are on a's port record, the credits b returns for them on b's.
        CHECK(b.input_line(ch.dst_port).reads(a.port_out(ch.src_port).flits));
        CHECK_FALSE(b.input_line(ch.dst_port).reads(a.port_out(ch.src_port).credits));
        REQUIRE(a.credit_line(ch.src_port) != nullptr);
        CHECK(a.credit_line(ch.src_port)->reads(b.port_out(ch.dst_port).credits));
        ++channels;
    }
    CHECK(channels > 0);
    for (const Router* r : routers) {
        for (std::int32_t q = 0; q < r->network_ports(); ++q) {
            if (!r->wired(q)) continue;
            // The router's end of the flits arriving on q: in one cache line with the flit line's due arrival
            // (what drain reads first), not in the record of the lines it pushes on q.
            REQUIRE(r->credit_line(q) != nullptr);
            CHECK(same_line(&r->input_line(q), r->flit_due(q)));
            CHECK(reinterpret_cast<const char*>(&r->input_line(q)) - reinterpret_cast<const char*>(r->flit_due(q)) < 16);
            CHECK_FALSE(same_line(&r->input_line(q), &r->port_out(q)));
        }
    }
    for (const Terminal* term : run.model->terminals()) {
        // The terminal's ends of the ejection line and of its credits are in its own object; the router pushes
        // both from its terminal port's record.
        const auto in_term = [&](const void* p) {
            const auto a = reinterpret_cast<std::uintptr_t>(p), t0 = reinterpret_cast<std::uintptr_t>(term);
            return a >= t0 && a < t0 + sizeof(Terminal);
        };
        CHECK(in_term(&term->ejection_line()));
        CHECK(in_term(&term->credit_line()));
        CHECK(&term->ejection_line() != &term->credit_line());
        CHECK_FALSE(same_line(&term->injection_line(), &term->ejection_line()));
    }
    for (const Router* r : routers)
        for (std::int32_t q = r->network_ports(); q < r->ports(); ++q) CHECK(r->credit_line(q) == nullptr);
}

TEST_CASE("The fabric clock ticks the terminals in their source-id order around the routers") {
    auto run = build_run(small_config("minimal", "uniform", 0.2));
    run.sim->init();  // assigns the source ids, which the clock orders the terminals by
    const RouterClock& clock = run.model->clock();
    const auto routers = static_cast<std::uint32_t>(run.model->routers().size());
    std::vector<std::pair<std::uint32_t, std::uint32_t>> by_source;  // (source id, unit)
    for (const Terminal* t : run.model->terminals()) {
        const std::uint32_t unit = RouterClock::unit_of(*t);
        // Units [first_router_unit, + routers) are the routers'.
        CHECK((unit < clock.first_router_unit() || unit >= clock.first_router_unit() + routers));
        CHECK((unit < clock.first_router_unit()) == (t->ctx().source() < clock.ctx().source()));
        by_source.emplace_back(t->ctx().source(), unit);
    }
    std::sort(by_source.begin(), by_source.end());
    for (std::size_t k = 1; k < by_source.size(); ++k) CHECK(by_source[k - 1].second < by_source[k].second);
    // Ticking from the clock, the observer still sees packets in the terminals' order within a cycle.
    std::vector<std::pair<std::int64_t, std::uint32_t>> seen;  // (ejection cycle, destination's source id)
    run.model->set_packet_observer([&](const PacketSummary& p) {
        seen.emplace_back(p.ejected_cycle, run.model->terminals()[static_cast<std::size_t>(p.dst)]->ctx().source());
    });
    sim::RunLimits limits;
    limits.end = Time::ns(2000);
    run.sim->run(limits);
    REQUIRE(seen.size() > 100);
    CHECK(std::is_sorted(seen.begin(), seen.end()));
}

TEST_CASE("Allocation in place on bit masks grants exactly what the Allocator grants") {
    // A contended run (near saturation, every routing function's VC classes) with the routers' in-place
    // separable allocators, and again with the Allocator objects: the same packets, hops and latencies.
    auto run_with = [](bool in_place, const std::string& routing) {
        config::Json cfg = small_config(routing, "uniform", 0.45);
        testing::Run r;
        r.sim = std::make_unique<sim::Simulator>(sim::SimulatorOptions{});
        config::Errors errors;
        FabricModelConfig c;
        parse(cfg, c, errors);
        c.fabric.allocate_in_place = in_place;
        r.model = build(topo::build_dragonfly(c.topology), c.fabric, c.routing, c.traffic, *r.sim, errors);
        errors.throw_if_any();
        // Unsigned: the signature wraps by design.
        std::uint64_t signature = 0;
        r.model->set_packet_observer([&signature](const PacketSummary& p) {
            signature = signature * 1'000'003 + static_cast<std::uint64_t>(p.id) * 31 +
                        static_cast<std::uint64_t>(p.ejected_cycle) * 7 + static_cast<std::uint64_t>(p.hops);
        });
        config::Json stats = finish_run(r, Time::us(8));
        return std::make_pair(stats.dump(), signature);
    };
    for (const char* routing : {"minimal", "ugal_l"}) {
        INFO(routing);
        const auto a = run_with(true, routing);
        const auto b = run_with(false, routing);
        CHECK(a.first == b.first);
        CHECK(a.second == b.second);
        CHECK(a.second != 0);
    }
}

TEST_CASE("Input VCs deeper than the flits kept in their record deliver every flit in order") {
    // Every terminal sends 10-flit packets to terminal 0 at once: the routers on the way hold many flits per VC
    // (beyond the first four, kept in the VC's record, into the pool's chunks and back), and every packet must
    // still arrive whole (a flit out of order in a VC would start or end the wrong packet).
    std::vector<workload::TraceMessage> m;
    for (int round = 0; round < 6; ++round) {
        for (int src = 1; src < 72; ++src) {
            workload::TraceMessage x;
            x.time = Time::ns(round);
            x.src = src;
            x.dst = 0;
            x.bytes = Bytes(16 * 10);
            m.push_back(x);
        }
    }
    const workload::TrafficTrace trace(std::move(m));
    config::Json cfg = small_config("minimal", "uniform", 0.0);
    cfg["traffic"]["pattern"] = "trace";
    cfg["traffic"]["trace"] = "in-memory";
    cfg["fabric"]["vc_buffer_flits"] = 12;  // deeper than the record's four, shallow enough to fill
    auto run = build_run(cfg, &trace);
    int packets = 0, whole = 0;
    run.model->set_packet_observer([&](const PacketSummary& p) {
        ++packets;
        whole += p.flits == 10 && p.dst == 0;
    });
    const config::Json stats = finish_run(run);
    CHECK(stats.at("status") == "complete");
    CHECK(packets == 6 * 71);
    CHECK(whole == packets);
    CHECK(run.model->conservation_problems().empty());
    std::int32_t peak = 0;
    for (const Router* r : run.model->routers()) {
        peak = std::max(peak, r->peak_vc_flits());
        CHECK(r->buffered_flits() == 0);
    }
    CHECK(peak > 4);
    CHECK(peak <= 12);
}

TEST_CASE("The routers' tick scratch holds no request between ticks, with allocation in place or not") {
    // The clock lends one TickScratch to every router it ticks: a request mask left set by one router's tick
    // would be read as a request by the next router's allocation.
    for (const char* allocator : {"separable_input_first", "islip"}) {
        CAPTURE(allocator);
        config::Json cfg = small_config("minimal", "uniform", 0.8);
        cfg["fabric"]["sw_allocator"] = allocator;
        cfg["fabric"]["vc_allocator"] = allocator;
        auto run = build_run(cfg);
        const config::Json stats = finish_run(run, Time::ns(3000));
        CHECK(stats.at("flit_hops").get<std::int64_t>() > 10000);
        CHECK(run.model->conservation_problems().empty());
        const TickScratch& s = run.model->clock().scratch();
        CHECK(std::all_of(std::begin(s.out_req), std::end(s.out_req), [](std::uint64_t m) { return m == 0; }));
        CHECK(std::all_of(std::begin(s.va_req), std::end(s.va_req), [](std::uint64_t m) { return m == 0; }));
        if (std::string_view(allocator) == "separable_input_first") {
            // Some router picked an input other than 0 at some point.
            CHECK(std::any_of(std::begin(s.pick_out), std::end(s.pick_out), [](std::uint8_t o) { return o != 0; }));
        }
    }
}

}  // namespace

TEST_CASE("A router reads its credit lines in batches, and the credits still balance") {
    // With 256-flit buffers at 0.3 load no output VC runs out of credits: a credit line is read once its front
    // has waited some cycles, so at any time the lines hold credits that have arrived and are not read yet, but
    // only those of the last few cycles (a line receives at most one credit per cycle).
    auto run = build_run(small_config("minimal", "uniform", 0.3));
    finish_run(run, Time::ns(3000));  // 1 GHz: cycle 3000
    const std::int64_t now = run.model->network().clock.edge_at_or_before(run.sim->now());
    std::int64_t arrived = 0, most = 0;
    for (const Router* r : run.model->routers()) {
        for (std::int32_t q = 0; q < r->network_ports(); ++q) {
            if (!r->wired(q)) continue;
            std::int64_t k = 0;
            r->credit_line(q)->scan(now, [&](std::uint32_t, std::int64_t at) {
                if (at > now) return true;
                ++k;
                return false;
            });
            arrived += k;
            most = std::max(most, k);
        }
    }
    CHECK(arrived > 100);
    CHECK(most <= Router::kCreditBatch + 24);
    CHECK(run.model->conservation_problems().empty());
    // Shallow buffers: credits run out all the time and are read as soon as they are needed.
    for (std::int32_t vcs : {3, 10}) {  // 10 VCs: more than 64 input VCs, requests by reading the VCs
        CAPTURE(vcs);
        config::Json cfg = small_config("minimal", "uniform", 0.6);
        cfg["fabric"]["vcs"] = vcs;
        cfg["fabric"]["vc_buffer_flits"] = 3;
        auto shallow = build_run(cfg);
        const config::Json stats = finish_run(shallow, Time::ns(4000));
        CHECK(stats.at("flit_hops").get<std::int64_t>() > 10000);
        CHECK(shallow.model->conservation_problems().empty());
    }
}
