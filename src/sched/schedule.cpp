#include "loom/sched/schedule.hpp"

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

}  // namespace loom::sched
