#include "loom/sched/trace.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

namespace loom::sched {

namespace {

using Json = nlohmann::json;

constexpr int kLinkPid = 1;
constexpr int kTspPid = 2;
// A TSP's instructions overlap (sends on several ports at once); slices on one track must not, so overlapping
// ones go to further lanes of the same TSP: thread id = vertex id * kLanes + lane + 1.
constexpr std::int64_t kLanes = 64;

double us(Time t) { return static_cast<double>(t.count()) / 1e6; }

Json meta(const char* what, int pid, std::int64_t tid, const std::string& name) {
    Json j{{"name", what}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}};
    if (tid >= 0) j["tid"] = tid;
    return j;
}

Json slice(const std::string& name, int pid, std::int64_t tid, Time start, Time end, Json args) {
    return Json{{"name", name}, {"ph", "X"},         {"pid", pid},   {"tid", tid},
                {"ts", us(start)}, {"dur", us(end - start)}, {"args", std::move(args)}};
}

// Core cycles from an instruction's issue to the train it sends (-1: it sends none).
struct Activity {
    Time start;
    Time end;
    const Instruction* ins;
};

}  // namespace

Json trace_json(const Schedule& s, const topo::FrozenTopology& t, const topo::LinkClassTiming& links,
                const topo::ChipConfig& chip) {
    Json events = Json::array();
    events.push_back(meta("process_name", kLinkPid, -1, "links"));
    events.push_back(meta("process_name", kTspPid, -1, "TSPs"));

    // Links: every train a Send, Forward or Reduce-and-forward puts on a port (contract rules 2, 5, 7), so that
    // hand-written programs draw the same tracks as compiled ones (whose reservations are exactly these trains).
    const ClockDomain clock = chip.clock();
    struct Train {
        topo::ChannelId channel;
        Time start;
        Time end;
        const Instruction* ins;
    };
    std::vector<Train> trains;
    for (const TspProgram& p : s.programs) {
        const auto v = static_cast<topo::VertexId>(p.tsp);
        for (const Instruction& ins : p.instructions) {
            const std::optional<Time> start_at = train_start(clock, ins, chip);
            if (!start_at) continue;
            const Time start = *start_at;
            for (std::int32_t port = 0; port < 16; ++port) {
                if (!((ins.out_ports >> port) & 1u)) continue;
                const topo::ChannelId c = t.channel_at(v, port);
                if (c == topo::kNoChannel) continue;
                const Time busy = links.timing(t.channel(c).link_class).serialization(ins.count);
                trains.push_back({c, start, start + busy, &ins});
            }
        }
    }
    std::stable_sort(trains.begin(), trains.end(), [](const Train& a, const Train& b) {
        return std::tie(a.channel, a.start) < std::tie(b.channel, b.start);
    });
    topo::ChannelId named = topo::kNoChannel;
    for (const Train& tr : trains) {
        const std::int64_t tid = std::int64_t{tr.channel} + 1;
        if (tr.channel != named) {
            const topo::Channel& ch = t.channel(tr.channel);
            events.push_back(meta("thread_name", kLinkPid, tid,
                                  fmt::format("{} p{} -> {} p{} ({})", t.vertex_name(ch.src), ch.src_port,
                                              t.vertex_name(ch.dst), ch.dst_port,
                                              topo::link_class_name(ch.link_class))));
            named = tr.channel;
        }
        events.push_back(slice(fmt::format("transfer {}", tr.ins->transfer), kLinkPid, tid, tr.start, tr.end,
                               {{"transfer", tr.ins->transfer},
                                {"first_vector", tr.ins->first_vector},
                                {"vectors", tr.ins->count}}));
    }

    // TSPs: an instruction is busy from its issue until the last vector of the train it sends has left (Send,
    // Forward, Reduce-and-forward) or until its vectors' slots on the in-port's link have passed (Receive, Reduce).
    for (const TspProgram& p : s.programs) {
        const auto v = static_cast<topo::VertexId>(p.tsp);
        std::vector<Activity> acts;
        acts.reserve(p.instructions.size());
        for (const Instruction& ins : p.instructions) {
            const Time issue = issue_time(clock, ins);
            Time end = issue;
            auto serialization_on = [&](std::int32_t port) {
                const topo::ChannelId c = t.channel_at(v, port);
                if (c == topo::kNoChannel) return Time::zero();
                return links.timing(t.channel(c).link_class).serialization(ins.count);
            };
            if (const std::optional<Time> start = train_start(clock, ins, chip)) {
                for (std::int32_t port = 0; port < 16; ++port)
                    if ((ins.out_ports >> port) & 1u) end = std::max(end, *start + serialization_on(port));
            } else {
                end = issue + serialization_on(ins.in_port);
            }
            acts.push_back({issue, std::max(end, issue + Time::ps(1)), &ins});
        }
        std::stable_sort(acts.begin(), acts.end(),
                         [](const Activity& a, const Activity& b) { return a.start < b.start; });
        std::vector<Time> lane_free;  // end of the last slice on each lane
        for (const Activity& a : acts) {
            std::size_t lane = 0;
            while (lane < lane_free.size() && lane_free[lane] > a.start) ++lane;
            if (lane == lane_free.size()) {
                if (static_cast<std::int64_t>(lane) >= kLanes) {
                    lane = lane_free.size() - 1;  // past the cap, slices of the last lane may overlap
                } else {
                    lane_free.push_back(Time::zero());
                    const std::int64_t tid = std::int64_t{v} * kLanes + static_cast<std::int64_t>(lane) + 1;
                    events.push_back(meta("thread_name", kTspPid, tid,
                                          lane == 0 ? t.vertex_name(v)
                                                    : fmt::format("{} #{}", t.vertex_name(v), lane + 1)));
                }
            }
            lane_free[lane] = std::max(lane_free[lane], a.end);
            const Instruction& ins = *a.ins;
            events.push_back(slice(fmt::format("{} transfer {}", op_name(ins.op), ins.transfer), kTspPid,
                                   std::int64_t{v} * kLanes + static_cast<std::int64_t>(lane) + 1, a.start, a.end,
                                   {{"transfer", ins.transfer},
                                    {"first_vector", ins.first_vector},
                                    {"vectors", ins.count},
                                    {"cycle", ins.cycle}}));
        }
    }
    return Json{{"displayTimeUnit", "ns"}, {"traceEvents", std::move(events)}};
}

}  // namespace loom::sched
