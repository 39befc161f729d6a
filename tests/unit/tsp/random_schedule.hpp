// A small greedy scheduler for tests: random transfers on a TSP node (direct sends, forward chains, fan-outs,
// reduce-and-forward, reduce-and-store), each placed after the previous ones following the timing contract of
// sched/schedule.hpp, with exact predictions and the expected final memory. Valid by construction (given a FIFO
// deep enough for the trains it makes), so a run of it must pass and both execution modes must agree.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "loom/base/rng.hpp"
#include "loom/tsp/program.hpp"
#include "loom/tsp/tsp_system.hpp"

namespace loom::tsp::test {

struct RandomScheduleOptions {
    int transfers = 12;
    int max_vectors = 6;
    Time spread = Time::us(2);  // transfers become ready uniformly in [0, spread]
};

inline Program random_program(const MachineConfig& machine, std::uint64_t seed, const RandomScheduleOptions& o = {}) {
    const TspSystem sys(machine, seed);
    const topo::FrozenTopology& t = sys.topology();
    const topo::ChipConfig& chip = machine.chip;
    const ClockDomain clk = chip.clock();
    const std::int64_t vb = sys.vector_bytes();
    Time jitter;
    for (topo::ChannelId c = 0; c < t.num_channels(); ++c) jitter = std::max(jitter, sys.timing(c).jitter);
    Rng rng(seed);

    Program out;
    out.schedule.jitter_allowance = jitter;
    std::vector<sched::TspProgram> programs(static_cast<std::size_t>(t.num_vertices()));
    std::vector<Time> busy(static_cast<std::size_t>(t.num_channels()));
    std::map<std::pair<topo::VertexId, std::int32_t>, std::int64_t> last_claim;
    std::vector<std::int64_t> next_address(static_cast<std::size_t>(t.num_vertices()), 0);
    auto alloc = [&](topo::VertexId v, std::int64_t n) {
        const std::int64_t a = next_address[static_cast<std::size_t>(v)];
        next_address[static_cast<std::size_t>(v)] += n * vb;
        return a;
    };
    auto random_values = [&](std::int64_t n) {
        std::vector<std::int64_t> vals;
        for (std::int64_t i = 0; i < n; ++i) vals.push_back(rng.uniform_int(-3, 9));  // zeros included
        return vals;
    };
    auto port_to = [&](topo::VertexId from, topo::VertexId to) {
        for (topo::ChannelId c : t.out_channels(from))
            if (t.channel(c).dst == to) return t.channel(c).src_port;
        return -1;
    };
    // Latest availability bound of vector i (1-based) of a train started at s on channel c: what every consumer
    // must allow for (arrival plus the jitter allowance, then the clock crossing).
    auto ready = [&](Time s, topo::ChannelId c, std::int64_t i) {
        const Time arrival = sys.timing(c).unit_arrival(s, i) + jitter;
        return clk.edge(clk.edge_at_or_after(arrival) + chip.crossing_cycles);
    };
    // Earliest start S >= lower such that S = edge(cycle + k) with cycle >= min_cycle; returns (cycle, S).
    // The first issue cycle >= min_cycle whose train (k cycles after the issue) starts at or after `lower`.
    auto place = [&](Time lower, std::int64_t k, std::int64_t min_cycle) {
        std::int64_t cycle = std::max(clk.edge_at_or_after(lower) - k, min_cycle);
        cycle = std::max<std::int64_t>(cycle, 0);
        return std::make_pair(cycle, clk.edge(cycle + k));
    };

    const std::int32_t n_tsps = t.num_vertices();
    for (int x = 0; x < o.transfers; ++x) {
        const auto id = static_cast<std::uint32_t>(x);
        const std::int64_t n = rng.uniform_int(1, o.max_vectors);
        const int kind =
            static_cast<int>(rng.uniform(5));  // 0 direct, 1 chain, 2 fan-out, 3 reduce-fwd, 4 reduce-store
        const Time earliest = Time::ps(rng.uniform_int(0, o.spread.count()));
        // A path of distinct TSPs.
        std::vector<topo::VertexId> path{static_cast<topo::VertexId>(rng.uniform(static_cast<std::uint64_t>(n_tsps)))};
        const int hops = kind == 1 ? static_cast<int>(rng.uniform_int(2, 3)) : kind == 3 ? 2 : 1;
        while (static_cast<int>(path.size()) <= hops) {
            const auto v = static_cast<topo::VertexId>(rng.uniform(static_cast<std::uint64_t>(n_tsps)));
            if (std::find(path.begin(), path.end(), v) == path.end()) path.push_back(v);
        }
        std::vector<topo::VertexId> fan;  // fan-out destinations (kind 2)
        if (kind == 2) {
            const auto want = static_cast<std::size_t>(rng.uniform_int(2, 3));
            fan.push_back(path[1]);
            while (fan.size() < want) {
                const auto v = static_cast<topo::VertexId>(rng.uniform(static_cast<std::uint64_t>(n_tsps)));
                if (v != path[0] && std::find(fan.begin(), fan.end(), v) == fan.end()) fan.push_back(v);
            }
        }
        const topo::VertexId src = path[0];
        std::vector<std::int64_t> values = random_values(n);
        const std::int64_t src_addr = alloc(src, n);
        out.memory.push_back({static_cast<std::uint32_t>(src), src_addr, values});

        // The send.
        const std::vector<topo::VertexId> firsts = kind == 2 ? fan : std::vector<topo::VertexId>{path[1]};
        Time lower = earliest;
        sched::PortMask mask = 0;
        std::vector<topo::ChannelId> chans;
        for (topo::VertexId d : firsts) {
            const std::int32_t p = port_to(src, d);
            const topo::ChannelId c = sys.out_channel(src, p);
            chans.push_back(c);
            mask = static_cast<sched::PortMask>(mask | (1u << p));
            lower = std::max(lower, busy[static_cast<std::size_t>(c)]);
        }
        auto [cycle, start] = place(lower, chip.issue_cycles, 0);
        sched::Instruction send;
        send.cycle = cycle;
        send.op = sched::Op::Send;
        send.out_ports = mask;
        send.transfer = id;
        send.count = static_cast<std::uint32_t>(n);
        send.address = src_addr;
        programs[static_cast<std::size_t>(src)].instructions.push_back(send);
        for (topo::ChannelId c : chans) busy[static_cast<std::size_t>(c)] = start + sys.timing(c).serialization(n);

        // Each arriving train: its channel and start; consumers down the path.
        struct Hop {
            topo::ChannelId channel;
            Time start;
        };
        std::vector<Hop> frontier;
        for (topo::ChannelId c : chans) frontier.push_back({c, start});
        std::size_t at = 1;  // position in `path` of the TSP the frontier reaches (chains)
        while (!frontier.empty()) {
            std::vector<Hop> next;
            for (const Hop& h : frontier) {
                const topo::Channel& ch = t.channel(h.channel);
                const topo::VertexId v = ch.dst;
                const std::int32_t in_port = ch.dst_port;
                const bool last = kind == 2 || at + 1 >= path.size();
                out.schedule.predicted.push_back({id, static_cast<std::uint32_t>(v),
                                                  static_cast<std::uint32_t>(h.channel), 0,
                                                  static_cast<std::uint32_t>(n), 0, h.start, last});
                Time need = Time::zero();  // the latest (availability - slot offset) over the vectors
                for (std::int64_t i = 1; i <= n; ++i)
                    need = std::max(need, ready(h.start, h.channel, i) - sys.timing(h.channel).serialization(i - 1));
                std::int64_t& claim = last_claim[{v, in_port}];
                sched::Instruction ins;
                ins.op = sched::Op::Receive;
                ins.in_port = static_cast<std::uint8_t>(in_port);
                ins.transfer = id;
                ins.count = static_cast<std::uint32_t>(n);
                if (last) {
                    const bool reduce = kind == 4;
                    auto [c, s] = place(need, 0, claim);
                    (void)s;
                    ins.cycle = c;
                    ins.op = reduce ? sched::Op::Reduce : sched::Op::Receive;
                    ins.address = alloc(v, n);
                    std::vector<std::int64_t> expect = values;
                    if (reduce) {
                        const std::vector<std::int64_t> local = random_values(n);
                        out.memory.push_back({static_cast<std::uint32_t>(v), ins.address, local});
                        for (std::int64_t i = 0; i < n; ++i)
                            expect[static_cast<std::size_t>(i)] += local[static_cast<std::size_t>(i)];
                    }
                    out.expect_memory.push_back({static_cast<std::uint32_t>(v), ins.address, expect});
                    claim = c;
                } else {
                    const bool reduce = kind == 3;
                    const topo::VertexId w = path[at + 1];
                    const std::int32_t p = port_to(v, w);
                    const topo::ChannelId oc = sys.out_channel(v, p);
                    const std::int64_t k = reduce ? chip.reduce_cycles : chip.forward_cycles;
                    // Rule 5: the Forward issues once every vector is available by its slot after the issue
                    // (`need`); its train starts k cycles later, on an idle link.
                    auto [c, s] = place(busy[static_cast<std::size_t>(oc)], k,
                                        std::max(claim, clk.edge_at_or_after(need)));
                    ins.cycle = c;
                    ins.op = reduce ? sched::Op::Reduce : sched::Op::Forward;
                    ins.out_ports = static_cast<sched::PortMask>(1u << p);
                    if (reduce) {
                        ins.address = alloc(v, n);
                        const std::vector<std::int64_t> local = random_values(n);
                        out.memory.push_back({static_cast<std::uint32_t>(v), ins.address, local});
                        for (std::int64_t i = 0; i < n; ++i)
                            values[static_cast<std::size_t>(i)] += local[static_cast<std::size_t>(i)];
                    }
                    busy[static_cast<std::size_t>(oc)] = s + sys.timing(oc).serialization(n);
                    next.push_back({oc, s});
                    claim = c;
                }
                programs[static_cast<std::size_t>(v)].instructions.push_back(ins);
            }
            frontier = std::move(next);
            ++at;
        }
    }
    for (topo::VertexId v = 0; v < n_tsps; ++v) {
        auto& p = programs[static_cast<std::size_t>(v)];
        if (p.instructions.empty()) continue;
        p.tsp = static_cast<std::uint32_t>(v);
        std::stable_sort(p.instructions.begin(), p.instructions.end(),
                         [](const sched::Instruction& a, const sched::Instruction& b) { return a.cycle < b.cycle; });
        out.schedule.programs.push_back(std::move(p));
    }
    return out;
}

}  // namespace loom::tsp::test
