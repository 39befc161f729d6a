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

}  // namespace loom::sched
