#include "loom/tsp/program.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "loom/topo/global_address_map.hpp"

namespace loom::tsp {
namespace {

constexpr std::int64_t kMaxU32 = std::numeric_limits<std::uint32_t>::max();

config::Schema<InstructionSpec> instruction_schema() {
    using I = InstructionSpec;
    config::Schema<I> s("one instruction, issued at core cycle `cycle` of its TSP (sched/schedule.hpp contract)");
    s.field("cycle", &I::cycle, "issue edge of the TSP's core clock").range(0, std::int64_t{1} << 50);
    s.choice("op", &I::op,
             {{"send", sched::Op::Send},
              {"forward", sched::Op::Forward},
              {"receive", sched::Op::Receive},
              {"reduce", sched::Op::Reduce}},
             "send (memory -> out ports), forward (in port -> out ports, cut-through), receive (in port -> "
             "memory), reduce (in port + memory -> memory, or -> out ports)");
    s.field("in_port", &I::in_port, "C2C port the vectors arrive on (forward, receive, reduce)").range(0, 15);
    s.field("out_ports", &I::out_ports, "C2C ports the train leaves on (send, forward, reduce-and-forward)")
        .range(0, 15);
    s.field("transfer", &I::transfer, "transfer id of the vectors").range(0, kMaxU32);
    s.field("first_vector", &I::first_vector, "index of the first vector within the transfer").range(0, kMaxU32);
    s.field("count", &I::count, "consecutive vectors (one train)").range(1, kMaxU32);
    s.field("address", &I::address, "local memory byte offset read (send, reduce) or written (receive, reduce)")
        .at_least(0);
    return s;
}

config::Schema<MemorySpec> memory_schema(const std::string& what) {
    config::Schema<MemorySpec> s(what);
    s.field("address", &MemorySpec::address, "local memory byte offset of the first vector").at_least(0);
    s.field("values", &MemorySpec::values, "one value per vector, consecutive vectors");
    return s;
}

config::Schema<TspProgramSpec> tsp_program_schema() {
    using P = TspProgramSpec;
    config::Schema<P> s("the program of one TSP: give \"tsp\" (vertex id) or \"name\"");
    s.field("tsp", &P::tsp, "vertex id of the TSP").at_least(0);
    s.field("name", &P::name, "name of the TSP, e.g. \"node0.tsp3\" or \"rack0.node1.tsp2\"");
    s.list("instructions", &P::instructions, instruction_schema(), "the instruction list (sorted by cycle, stably)");
    s.list("memory", &P::memory, memory_schema("initial memory contents"), "initial memory contents (default 0)");
    s.list("expect_memory", &P::expect_memory, memory_schema("expected final memory contents"),
           "memory contents checked at the end of a complete run");
    return s;
}

config::Schema<ExpectSpec> expect_schema() {
    using E = ExpectSpec;
    config::Schema<E> s("predicted arrivals of consecutive vectors at one TSP port");
    s.field("tsp", &E::tsp, "vertex id of the receiving TSP").at_least(0);
    s.field("name", &E::name, "name of the receiving TSP");
    s.field("port", &E::port, "receiving C2C port").range(0, 15);
    s.field("transfer", &E::transfer, "transfer id").range(0, kMaxU32);
    s.field("first_vector", &E::first_vector, "first vector of the run").range(0, kMaxU32);
    s.field("count", &E::count, "vectors in the run").range(1, kMaxU32);
    s.field("offset", &E::offset, "position of first_vector within its train (0-based)").range(0, kMaxU32);
    s.field("train_start", &E::train_start, "first bit of the train on the link").at_least(Time::zero());
    s.field("final", &E::final, "the run arrives where its transfer ends");
    return s;
}

// Resolves a {"tsp"} / {"name"} pair to a vertex id, or reports why not (returns -1).
topo::VertexId resolve_tsp(const std::optional<std::int64_t>& id, const std::optional<std::string>& name,
                           const std::map<std::string, topo::VertexId>& names, const TspSystem& system,
                           const std::string& pointer, config::Errors& errors) {
    const std::int32_t n = system.num_tsps();
    if (id.has_value() == name.has_value()) {
        errors.add(pointer, "give exactly one of \"tsp\" (vertex id) and \"name\"");
        return -1;
    }
    if (id) {
        if (*id >= n) {
            errors.add(config::child_pointer(pointer, "tsp"),
                       fmt::format("no TSP {} (the system has {}: 0..{})", *id, n, n - 1));
            return -1;
        }
        return static_cast<topo::VertexId>(*id);
    }
    auto it = names.find(*name);
    if (it == names.end()) {
        errors.add(config::child_pointer(pointer, "name"),
                   fmt::format("no TSP named '{}' (names look like '{}')", *name, system.topology().vertex_name(0)));
        return -1;
    }
    return it->second;
}

std::string wired_ports(const TspSystem& system, topo::VertexId v) {
    std::string out;
    for (std::int32_t p = 0; p < system.topology().num_ports(v); ++p)
        if (system.out_channel(v, p) != topo::kNoChannel) out += (out.empty() ? "" : ", ") + std::to_string(p);
    return out;
}

// Checks that vectors [address, address + count x vector size) lie in one TSP's memory.
bool check_range(std::int64_t address, std::int64_t count, const TspSystem& system, const std::string& pointer,
                 config::Errors& errors) {
    const std::int64_t vb = system.vector_bytes();
    const std::int64_t end = address + count * vb;
    if (end > system.chip().memory.count()) {
        const topo::GlobalAddressMap map(system.topology(), system.chip().memory);
        errors.add(pointer,
                   fmt::format("{} vectors from byte {} end at byte {}, outside the TSP's memory of {} ({} bytes; the "
                               "global memory is {} bytes over {} TSPs)",
                               count, address, end, to_string(system.chip().memory), system.chip().memory.count(),
                               map.capacity().count(), map.tsps()));
        return false;
    }
    return true;
}

}  // namespace

config::Schema<ProgramConfig> program_schema() {
    using P = ProgramConfig;
    config::Schema<P> s(
        "hand-written TSP programs: per TSP an instruction list (sched/schedule.hpp timing contract), initial and "
        "expected memory, and optional predicted arrivals");
    s.list("tsps", &P::tsps, tsp_program_schema(), "one entry per TSP that runs something");
    s.list("expect", &P::expect, expect_schema(),
           "predicted arrivals; when given, every vector hop must match one and arrive in "
           "[predicted, predicted + jitter_allowance]");
    s.field("jitter_allowance", &P::jitter_allowance, "how late after its prediction a vector may arrive")
        .at_least(Time::zero());
    return s;
}

Program resolve(const ProgramConfig& config, const TspSystem& system, const std::string& pointer,
                config::Errors& errors) {
    Program out;
    out.schedule.jitter_allowance = config.jitter_allowance;
    std::map<std::string, topo::VertexId> names;
    for (topo::VertexId v = 0; v < system.num_tsps(); ++v) names.emplace(system.topology().vertex_name(v), v);

    std::map<topo::VertexId, std::string> seen;  // TSP -> pointer of its program
    const std::string tsps_ptr = config::child_pointer(pointer, "tsps");
    for (std::size_t i = 0; i < config.tsps.size(); ++i) {
        const TspProgramSpec& spec = config.tsps[i];
        const std::string p = config::child_pointer(tsps_ptr, i);
        const topo::VertexId v = resolve_tsp(spec.tsp, spec.name, names, system, p, errors);
        if (v < 0) continue;
        const std::string tsp_name = system.topology().vertex_name(v);
        if (auto [it, fresh] = seen.emplace(v, p); !fresh) {
            errors.add(p, fmt::format("TSP {} already has a program at {}", tsp_name, it->second));
            continue;
        }
        auto port_ok = [&](std::int64_t port, const std::string& ptr) {
            if (system.out_channel(v, static_cast<std::int32_t>(port)) != topo::kNoChannel) return true;
            errors.add(ptr, fmt::format("port {} of {} is not wired (wired ports: {})", port, tsp_name,
                                        wired_ports(system, v)));
            return false;
        };

        sched::TspProgram program;
        program.tsp = static_cast<std::uint32_t>(v);
        const std::string ins_ptr = config::child_pointer(p, "instructions");
        for (std::size_t k = 0; k < spec.instructions.size(); ++k) {
            const InstructionSpec& is = spec.instructions[k];
            const std::string ip = config::child_pointer(ins_ptr, k);
            bool ok = true;
            const bool receiving = is.op != sched::Op::Send;
            if (receiving) ok = port_ok(is.in_port, config::child_pointer(ip, "in_port")) && ok;
            sched::PortMask mask = 0;
            const std::string out_ptr = config::child_pointer(ip, "out_ports");
            for (std::size_t q = 0; q < is.out_ports.size(); ++q) {
                const std::int64_t port = is.out_ports[q];
                const std::string qp = config::child_pointer(out_ptr, q);
                if (!port_ok(port, qp)) {
                    ok = false;
                    continue;
                }
                const auto bit = static_cast<sched::PortMask>(1u << port);
                if (mask & bit) {
                    errors.add(qp, fmt::format("port {} is listed twice", port));
                    ok = false;
                }
                mask = static_cast<sched::PortMask>(mask | bit);
            }
            if ((is.op == sched::Op::Send || is.op == sched::Op::Forward) && is.out_ports.empty()) {
                errors.add(out_ptr, fmt::format("a {} needs at least one out port",
                                                is.op == sched::Op::Send ? "send" : "forward"));
                ok = false;
            }
            if (is.op == sched::Op::Receive && !is.out_ports.empty()) {
                errors.add(out_ptr,
                           "a receive sends nothing: leave out_ports empty (a reduce with out ports forwards)");
                ok = false;
            }
            if (is.first_vector + is.count - 1 > kMaxU32) {
                errors.add(config::child_pointer(ip, "count"),
                           fmt::format("vectors {} .. {} exceed the vector index range", is.first_vector,
                                       is.first_vector + is.count - 1));
                ok = false;
            }
            if (is.op != sched::Op::Forward)
                ok = check_range(is.address, is.count, system, config::child_pointer(ip, "address"), errors) && ok;
            if (!ok) continue;
            sched::Instruction ins;
            ins.cycle = is.cycle;
            ins.op = is.op;
            ins.in_port = static_cast<std::uint8_t>(receiving ? is.in_port : 0);
            ins.out_ports = mask;
            ins.transfer = static_cast<std::uint32_t>(is.transfer);
            ins.first_vector = static_cast<std::uint32_t>(is.first_vector);
            ins.count = static_cast<std::uint32_t>(is.count);
            ins.address = is.address;
            program.instructions.push_back(ins);
        }
        std::stable_sort(program.instructions.begin(), program.instructions.end(),
                         [](const sched::Instruction& a, const sched::Instruction& b) { return a.cycle < b.cycle; });
        if (!program.instructions.empty()) out.schedule.programs.push_back(std::move(program));

        auto blocks = [&](const std::vector<MemorySpec>& specs, const char* key, std::vector<MemoryBlock>& into) {
            const std::string bp = config::child_pointer(p, key);
            for (std::size_t k = 0; k < specs.size(); ++k) {
                const MemorySpec& m = specs[k];
                const std::string mp = config::child_pointer(bp, k);
                if (!check_range(m.address, static_cast<std::int64_t>(m.values.size()), system,
                                 config::child_pointer(mp, "address"), errors))
                    continue;
                into.push_back({static_cast<std::uint32_t>(v), m.address, m.values});
            }
        };
        blocks(spec.memory, "memory", out.memory);
        blocks(spec.expect_memory, "expect_memory", out.expect_memory);
    }
    std::sort(out.schedule.programs.begin(), out.schedule.programs.end(),
              [](const sched::TspProgram& a, const sched::TspProgram& b) { return a.tsp < b.tsp; });

    const std::string exp_ptr = config::child_pointer(pointer, "expect");
    for (std::size_t i = 0; i < config.expect.size(); ++i) {
        const ExpectSpec& e = config.expect[i];
        const std::string p = config::child_pointer(exp_ptr, i);
        const topo::VertexId v = resolve_tsp(e.tsp, e.name, names, system, p, errors);
        if (v < 0) continue;
        const topo::ChannelId c = system.in_channel(v, static_cast<std::int32_t>(e.port));
        if (c == topo::kNoChannel) {
            errors.add(config::child_pointer(p, "port"),
                       fmt::format("port {} of {} is not wired (wired ports: {})", e.port,
                                   system.topology().vertex_name(v), wired_ports(system, v)));
            continue;
        }
        if (e.first_vector + e.count - 1 > kMaxU32) {
            errors.add(config::child_pointer(p, "count"), "vectors exceed the vector index range");
            continue;
        }
        sched::PredictedRun run;
        run.transfer = static_cast<std::uint32_t>(e.transfer);
        run.tsp = static_cast<std::uint32_t>(v);
        run.channel = static_cast<std::uint32_t>(c);
        run.first_vector = static_cast<std::uint32_t>(e.first_vector);
        run.count = static_cast<std::uint32_t>(e.count);
        run.offset = static_cast<std::uint32_t>(e.offset);
        run.train_start = e.train_start;
        run.final_destination = e.final;
        out.schedule.predicted.push_back(run);
    }
    return out;
}

}  // namespace loom::tsp
