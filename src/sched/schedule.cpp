#include "loom/sched/schedule.hpp"

#include <fmt/format.h>

namespace loom::sched {

const char* op_name(Op op) {
    switch (op) {
        case Op::Send: return "send";
        case Op::Forward: return "forward";
        case Op::Receive: return "receive";
        case Op::Reduce: return "reduce";
    }
    return "?";
}

Time predicted_arrival(const PredictedRun& r, std::uint32_t j, const LinkTiming& t) {
    return r.train_start + t.serialization(static_cast<std::int64_t>(r.offset) + j + 1) + t.latency();
}

void validate_instruction(const Instruction& ins, PortMask wired, std::vector<InstructionProblem>& out) {
    if (ins.cycle < 0) out.push_back({InstructionFault::NegativeCycle});
    if (ins.count < 1) out.push_back({InstructionFault::NoVectors});
    if (ins.op != Op::Send && (ins.in_port >= 16 || !((wired >> ins.in_port) & 1u)))
        out.push_back({InstructionFault::InPortNotWired, ins.in_port});
    for (std::int32_t p = 0; p < 16; ++p) {
        if (((ins.out_ports >> p) & 1u) && !((wired >> p) & 1u)) out.push_back({InstructionFault::OutPortNotWired, p});
    }
    if ((ins.op == Op::Send || ins.op == Op::Forward) && ins.out_ports == 0)
        out.push_back({InstructionFault::SendsNowhere});
    if (ins.op == Op::Receive && ins.out_ports != 0) out.push_back({InstructionFault::ReceiveSends});
}

std::string describe(const InstructionProblem& p) {
    switch (p.fault) {
        case InstructionFault::NegativeCycle: return "negative issue cycle";
        case InstructionFault::NoVectors: return "count must be at least 1";
        case InstructionFault::InPortNotWired: return fmt::format("in_port {} is not wired", p.port);
        case InstructionFault::OutPortNotWired: return fmt::format("out port {} is not wired", p.port);
        case InstructionFault::SendsNowhere: return "sends on no port";
        case InstructionFault::ReceiveSends: return "a receive sends on no port";
    }
    return "?";
}

}  // namespace loom::sched
