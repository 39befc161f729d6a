#include "loom/sched/verifier.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <tuple>

#include <fmt/format.h>

#include "loom/base/clock_domain.hpp"
#include "loom/base/link_timing.hpp"

namespace loom::sched {
namespace {

class Problems {
public:
    explicit Problems(std::size_t max) : max_(max) {}
    void add(std::string m) {
        if (list_.size() < max_) {
            list_.push_back(std::move(m));
        } else {
            ++dropped_;
        }
    }
    std::vector<std::string> take() {
        if (dropped_ > 0) list_.push_back(fmt::format("... and {} more problems", dropped_));
        return std::move(list_);
    }

private:
    std::size_t max_;
    std::size_t dropped_ = 0;
    std::vector<std::string> list_;
};

std::string ps(Time t) { return fmt::format("{}ps", t.count()); }

// A train as the instructions send it.
struct Train {
    topo::ChannelId channel = 0;
    Time start;
    std::uint32_t count = 1;
    std::uint32_t transfer = 0;
    std::uint32_t first_vector = 0;
    std::uint32_t tsp = 0;     // sender
    std::size_t program = 0;   // sender's program and instruction, for messages
    std::size_t instruction = 0;
};

struct Ref {
    std::size_t program;
    std::size_t instruction;
};

class Verifier {
public:
    Verifier(const Schedule& s, const topo::FrozenTopology& t, const topo::LinkClassTiming& links,
             const topo::ChipConfig& chip, const workload::TransferSet* transfers, std::size_t max)
        : s_(s), t_(t), chip_(chip), clock_(chip.clock()), transfers_(transfers), problems_(max),
          unit_(links.unit_payload) {
        for (topo::LinkClass c : topo::kAllLinkClasses) timings_.push_back(links.timing(c));
    }

    std::vector<std::string> run() {
        check_programs();
        collect_trains();
        check_channels();
        check_reservations();
        check_predictions();
        check_consumers();
        if (transfers_) check_transfers();
        return problems_.take();
    }

private:
    const LinkTiming& timing(topo::ChannelId c) const {
        return timings_[topo::index_of(t_.channel(c).link_class)];
    }
    std::string channel_name(topo::ChannelId c) const {
        const topo::Channel& ch = t_.channel(c);
        return fmt::format("channel {} ({} port {} -> {} port {})", c, t_.vertex_name(ch.src), ch.src_port,
                           t_.vertex_name(ch.dst), ch.dst_port);
    }
    std::string tsp_name(std::uint32_t v) const {
        return fmt::format("TSP {} ({})", v, t_.vertex_name(static_cast<topo::VertexId>(v)));
    }
    std::string instr_name(std::size_t p, std::size_t i) const {
        const TspProgram& prog = s_.programs[p];
        const Instruction& ins = prog.instructions[i];
        return fmt::format("{} {} #{} (cycle {}, transfer {}, vectors {}..{})", tsp_name(prog.tsp), op_name(ins.op), i,
                           ins.cycle, ins.transfer, ins.first_vector, ins.first_vector + ins.count - 1);
    }
    bool wired(std::uint32_t v, std::int32_t port) const {
        const auto vv = static_cast<topo::VertexId>(v);
        return port >= 0 && port < t_.num_ports(vv) && t_.channel_at(vv, port) != topo::kNoChannel;
    }
    // Time a train sent by this instruction starts, or nullopt if it sends none.
    std::optional<Time> train_start(const Instruction& ins) const { return sched::train_start(clock_, ins, chip_); }
    Time available(Time arrival) const { return available_at(clock_, arrival + s_.jitter_allowance, chip_); }

    void check_programs() {
        const auto V = static_cast<std::uint32_t>(t_.num_vertices());
        for (std::size_t p = 0; p < s_.programs.size(); ++p) {
            const TspProgram& prog = s_.programs[p];
            if (prog.tsp >= V) {
                problems_.add(fmt::format("program {} is for TSP {}, which is not in the topology", p, prog.tsp));
                bad_program_.push_back(true);
                continue;
            }
            bad_program_.push_back(false);
            if (p > 0 && s_.programs[p - 1].tsp >= prog.tsp)
                problems_.add(fmt::format("programs are not sorted by TSP (or repeat one) at {}", tsp_name(prog.tsp)));
            PortMask wired_ports = 0;
            for (std::int32_t port = 0; port < 16; ++port)
                if (wired(prog.tsp, port)) wired_ports = static_cast<PortMask>(wired_ports | (1u << port));
            std::vector<InstructionProblem> faults;
            for (std::size_t i = 0; i < prog.instructions.size(); ++i) {
                const Instruction& ins = prog.instructions[i];
                if (i > 0 && prog.instructions[i - 1].cycle > ins.cycle)
                    problems_.add(fmt::format("{}: instructions are not sorted by cycle", instr_name(p, i)));
                faults.clear();
                validate_instruction(ins, wired_ports, faults);
                for (const InstructionProblem& f : faults)
                    problems_.add(fmt::format("{}: {}", instr_name(p, i), describe(f)));
            }
        }
    }

    void collect_trains() {
        for (std::size_t p = 0; p < s_.programs.size(); ++p) {
            if (bad_program_[p]) continue;
            const TspProgram& prog = s_.programs[p];
            const auto v = static_cast<topo::VertexId>(prog.tsp);
            for (std::size_t i = 0; i < prog.instructions.size(); ++i) {
                const Instruction& ins = prog.instructions[i];
                if (ins.count < 1) continue;
                if (ins.op != Op::Send && wired(prog.tsp, ins.in_port)) {
                    consumers_[{prog.tsp, ins.in_port}].push_back({p, i});
                }
                const auto start = train_start(ins);
                if (!start) continue;
                for (std::int32_t port = 0; port < 16; ++port) {
                    if (!((ins.out_ports >> port) & 1u) || !wired(prog.tsp, port)) continue;
                    trains_.push_back({t_.channel_at(v, port), *start, ins.count, ins.transfer, ins.first_vector,
                                       prog.tsp, p, i});
                }
            }
        }
        std::sort(trains_.begin(), trains_.end(), [](const Train& a, const Train& b) {
            return std::tie(a.channel, a.start, a.program, a.instruction) <
                   std::tie(b.channel, b.start, b.program, b.instruction);
        });
        first_train_.assign(static_cast<std::size_t>(t_.num_channels()) + 1, 0);
        for (const Train& tr : trains_) ++first_train_[static_cast<std::size_t>(tr.channel) + 1];
        for (std::size_t c = 1; c < first_train_.size(); ++c) first_train_[c] += first_train_[c - 1];
    }

    // Rule 2: a port's link must be idle when a train starts on it.
    void check_channels() {
        for (std::size_t k = 1; k < trains_.size(); ++k) {
            const Train& a = trains_[k - 1];
            const Train& b = trains_[k];
            if (a.channel != b.channel) continue;
            const Time end = a.start + timing(a.channel).serialization(a.count);
            if (end > b.start)
                problems_.add(fmt::format(
                    "{} double-booked at {}: transfer {} vectors {}..{} (sent by {}) occupies it until {}, "
                    "transfer {} vectors {}..{} (sent by {}) starts at {}",
                    channel_name(a.channel), ps(b.start), a.transfer, a.first_vector, a.first_vector + a.count - 1,
                    tsp_name(a.tsp), ps(end), b.transfer, b.first_vector, b.first_vector + b.count - 1, tsp_name(b.tsp),
                    ps(b.start)));
        }
    }

    void check_reservations() {
        const auto& rs = s_.reservations;
        for (std::size_t k = 0; k < rs.size(); ++k) {
            const Reservation& r = rs[k];
            if (r.channel >= static_cast<std::uint32_t>(t_.num_channels())) {
                problems_.add(
                    fmt::format("reservation {} is on channel {}, which is not in the topology", k, r.channel));
                continue;
            }
            const std::string name = channel_name(static_cast<topo::ChannelId>(r.channel));
            if (!(r.start < r.end))
                problems_.add(fmt::format("reservation {} on {} is empty: [{}, {})", k, name, ps(r.start), ps(r.end)));
            if (k == 0) continue;
            const Reservation& q = rs[k - 1];
            if (std::tie(q.channel, q.start) > std::tie(r.channel, r.start))
                problems_.add(fmt::format("reservations are not sorted by (channel, start) at reservation {}", k));
            if (q.channel == r.channel && q.end > r.start)
                problems_.add(fmt::format("{} double-booked at {}: reservation [{}, {}) of transfer {} overlaps "
                                          "[{}, {}) of transfer {}",
                                          name, ps(r.start), ps(q.start), ps(q.end), q.transfer, ps(r.start),
                                          ps(r.end), r.transfer));
        }
        // Reservations and trains, both by (channel, start): they must be the same list.
        std::vector<std::size_t> order(rs.size());
        for (std::size_t k = 0; k < rs.size(); ++k) order[k] = k;
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return std::tie(rs[a].channel, rs[a].start, a) < std::tie(rs[b].channel, rs[b].start, b);
        });
        std::size_t i = 0;
        std::size_t j = 0;
        while (i < trains_.size() || j < order.size()) {
            const Train* tr = i < trains_.size() ? &trains_[i] : nullptr;
            const Reservation* r = j < order.size() ? &rs[order[j]] : nullptr;
            if (r && r->channel >= static_cast<std::uint32_t>(t_.num_channels())) {
                ++j;
                continue;
            }
            const bool take_train =
                tr && (!r || std::make_tuple(static_cast<std::uint32_t>(tr->channel), tr->start) <
                                 std::make_tuple(r->channel, r->start));
            const bool take_res =
                r && (!tr || std::make_tuple(r->channel, r->start) <
                                 std::make_tuple(static_cast<std::uint32_t>(tr->channel), tr->start));
            if (take_train) {
                problems_.add(fmt::format("{}: the train of transfer {} vectors {}..{} sent by {} at {} has no "
                                          "reservation",
                                          channel_name(tr->channel), tr->transfer, tr->first_vector,
                                          tr->first_vector + tr->count - 1, tsp_name(tr->tsp), ps(tr->start)));
                ++i;
            } else if (take_res) {
                problems_.add(fmt::format("{}: reservation [{}, {}) of transfer {} matches no instruction's train",
                                          channel_name(static_cast<topo::ChannelId>(r->channel)), ps(r->start),
                                          ps(r->end), r->transfer));
                ++j;
            } else {
                const Time end = tr->start + timing(tr->channel).serialization(tr->count);
                if (r->end != end || r->transfer != tr->transfer || r->first_vector != tr->first_vector ||
                    r->count != tr->count)
                    problems_.add(fmt::format(
                        "{}: reservation [{}, {}) transfer {} vectors {}+{} differs from the train {} sends: "
                        "[{}, {}) transfer {} vectors {}+{}",
                        channel_name(tr->channel), ps(r->start), ps(r->end), r->transfer, r->first_vector, r->count,
                        tsp_name(tr->tsp), ps(tr->start), ps(end), tr->transfer, tr->first_vector, tr->count));
                ++i;
                ++j;
            }
        }
    }

    void check_predictions() {
        const auto& runs = s_.predicted;
        std::vector<std::size_t> order;
        for (std::size_t k = 0; k < runs.size(); ++k) {
            if (runs[k].channel >= static_cast<std::uint32_t>(t_.num_channels())) {
                problems_.add(fmt::format("predicted run {} is on channel {}, which is not in the topology", k,
                                          runs[k].channel));
                continue;
            }
            order.push_back(k);
        }
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return std::tie(runs[a].channel, runs[a].train_start, runs[a].offset, a) <
                   std::tie(runs[b].channel, runs[b].train_start, runs[b].offset, b);
        });
        Time makespan;
        for (std::size_t k : order) {
            const PredictedRun& r = runs[k];
            if (r.final_destination) {
                const LinkTiming& lt = timing(static_cast<topo::ChannelId>(r.channel));
                makespan = std::max(makespan, r.train_start + lt.serialization(r.offset + r.count) + lt.latency());
            }
        }
        if (makespan != s_.makespan)
            problems_.add(fmt::format("makespan is {} but the last predicted arrival at a final destination is at {}",
                                      ps(s_.makespan), ps(makespan)));
        // Walk trains and runs together by (channel, train start): the runs of a train must tile it.
        std::size_t j = 0;
        for (std::size_t i = 0; i < trains_.size(); ++i) {
            const Train& tr = trains_[i];
            const auto key = std::make_tuple(static_cast<std::uint32_t>(tr.channel), tr.start);
            while (j < order.size() && std::make_tuple(runs[order[j]].channel, runs[order[j]].train_start) < key) {
                const PredictedRun& r = runs[order[j]];
                problems_.add(fmt::format("{}: predicted run of transfer {} vectors {}+{} for a train at {} that no "
                                          "instruction sends",
                                          channel_name(static_cast<topo::ChannelId>(r.channel)), r.transfer,
                                          r.first_vector, r.count, ps(r.train_start)));
                ++j;
            }
            const topo::VertexId dst = t_.channel(tr.channel).dst;
            std::uint32_t covered = 0;
            bool ok = true;
            while (j < order.size() && std::make_tuple(runs[order[j]].channel, runs[order[j]].train_start) == key) {
                const PredictedRun& r = runs[order[j]];
                ok = ok && r.offset == covered && r.transfer == tr.transfer &&
                     r.first_vector == tr.first_vector + r.offset && r.tsp == static_cast<std::uint32_t>(dst) &&
                     r.count >= 1;
                covered = r.offset + r.count;
                ++j;
                // Two trains on one channel at one time are already a double-booking: predictions follow the first.
                if (i + 1 < trains_.size() && trains_[i + 1].channel == tr.channel && trains_[i + 1].start == tr.start)
                    break;
            }
            if (!ok || covered != tr.count)
                problems_.add(fmt::format("{}: the predicted arrivals of the train of transfer {} vectors {}..{} "
                                          "sent at {} by {} do not match it (runs cover {} of {} vectors in order)",
                                          channel_name(tr.channel), tr.transfer, tr.first_vector,
                                          tr.first_vector + tr.count - 1, ps(tr.start), tsp_name(tr.tsp),
                                          ok ? covered : 0u, tr.count));
        }
        for (; j < order.size(); ++j) {
            const PredictedRun& r = runs[order[j]];
            problems_.add(fmt::format("{}: predicted run of transfer {} vectors {}+{} for a train at {} that no "
                                      "instruction sends",
                                      channel_name(static_cast<topo::ChannelId>(r.channel)), r.transfer, r.first_vector,
                                      r.count, ps(r.train_start)));
        }
    }

    // Rules 3-8 at every port that receives anything.
    void check_consumers() {
        std::map<std::pair<std::uint32_t, std::int32_t>, bool> ports;
        for (const auto& [key, list] : consumers_) ports[key] = true;
        for (topo::ChannelId c = 0; c < t_.num_channels(); ++c) {
            if (first_train_[static_cast<std::size_t>(c)] == first_train_[static_cast<std::size_t>(c) + 1]) continue;
            const topo::Channel& ch = t_.channel(c);
            ports[{static_cast<std::uint32_t>(ch.dst), ch.dst_port}] = true;
        }
        for (const auto& [key, unused] : ports) {
            (void)unused;
            check_port(key.first, key.second);
        }
    }

    void check_port(std::uint32_t tsp, std::int32_t port) {
        const auto v = static_cast<topo::VertexId>(tsp);
        const topo::ChannelId in = topo::FrozenTopology::reverse(t_.channel_at(v, port));
        const LinkTiming& lt = timing(in);
        const Time lat = lt.latency();
        const std::size_t t_end = first_train_[static_cast<std::size_t>(in) + 1];
        std::size_t ti = first_train_[static_cast<std::size_t>(in)];
        std::uint32_t vi = 0;  // vectors of trains_[ti] already claimed
        static const std::vector<Ref> kNone;
        const auto found = consumers_.find({tsp, port});
        const std::vector<Ref>& consumers = found == consumers_.end() ? kNone : found->second;
        std::priority_queue<Time, std::vector<Time>, std::greater<>> fifo;  // leave times of resident vectors
        bool overflow_reported = false;
        const std::string where = fmt::format("{} port {}", tsp_name(tsp), port);
        for (const Ref& ref : consumers) {
            const Instruction& ins = s_.programs[ref.program].instructions[ref.instruction];
            const Time t_issue = issue_time(clock_, ins);
            bool forwards = false;
            std::vector<const LinkTiming*> outs;
            if (ins.op == Op::Forward || (ins.op == Op::Reduce && ins.out_ports != 0)) {
                forwards = true;
                for (std::int32_t p = 0; p < 16; ++p) {
                    if (((ins.out_ports >> p) & 1u) && wired(tsp, p)) outs.push_back(&timing(t_.channel_at(v, p)));
                }
            }
            bool identity_reported = false;
            std::uint32_t late = 0;
            Time first_late_at;
            Time first_late_avail;
            std::uint32_t first_late_vector = 0;
            for (std::uint32_t u = 1; u <= ins.count; ++u) {
                while (ti < t_end && vi >= trains_[ti].count) {
                    ++ti;
                    vi = 0;
                }
                if (ti >= t_end) {
                    problems_.add(fmt::format("{}: {} waits for {} vectors that never arrive on this port", where,
                                              instr_name(ref.program, ref.instruction), ins.count - u + 1));
                    break;
                }
                const Train& tr = trains_[ti];
                ++vi;
                const Time a = tr.start + lt.serialization(vi) + lat;
                const Time avail = available(a);
                const std::uint32_t vector = tr.first_vector + vi - 1;
                if (!identity_reported && (tr.transfer != ins.transfer || vector != ins.first_vector + u - 1)) {
                    problems_.add(fmt::format("{}: {} claims transfer {} vector {} (arrival order) where it names "
                                              "transfer {} vector {}",
                                              where, instr_name(ref.program, ref.instruction), tr.transfer, vector,
                                              ins.transfer, ins.first_vector + u - 1));
                    identity_reported = true;
                }
                Time deadline;
                Time leave;
                if (forwards) {
                    // Rule 5: available by its slot after the issue on the first port to reach it; out of the
                    // FIFO once its slot has come on every port. The train itself starts forward_cycles later.
                    Time first = Time::max();
                    Time last = t_issue;
                    for (const LinkTiming* o : outs) {
                        first = std::min(first, forward_slot(t_issue, *o, u));
                        last = std::max(last, forward_slot(t_issue, *o, u));
                    }
                    if (outs.empty()) first = t_issue;
                    deadline = first;
                    leave = last;
                } else {
                    // Rules 6 and 7: available by t_issue + serialization of (u - 1) vectors on the in-port's link.
                    deadline = forward_slot(t_issue, lt, u);
                    leave = std::max(avail, t_issue);
                    if (transfers_) note_write(ins.transfer, tsp, leave);
                }
                if (avail > deadline) {
                    if (late++ == 0) {
                        first_late_at = deadline;
                        first_late_avail = avail;
                        first_late_vector = vector;
                    }
                }
                // The arriving vector counts, with every earlier one that has not left yet.
                while (!fifo.empty() && fifo.top() <= a) fifo.pop();
                fifo.push(std::max(leave, a));
                if (!overflow_reported && fifo.size() > static_cast<std::size_t>(chip_.fifo_depth)) {
                    problems_.add(fmt::format("{}: clock-crossing FIFO overflow at {}: {} vectors held, depth {} "
                                              "(transfer {} vector {} arriving)",
                                              where, ps(a), fifo.size(), chip_.fifo_depth, tr.transfer, vector));
                    overflow_reported = true;
                }
            }
            if (late > 0)
                problems_.add(fmt::format("{}: {} is late: transfer {} vector {} is available at {} but needed by {} "
                                          "({} vectors late in all)",
                                          where, instr_name(ref.program, ref.instruction), ins.transfer,
                                          first_late_vector, ps(first_late_avail), ps(first_late_at), late));
        }
        while (ti < t_end && vi >= trains_[ti].count) {
            ++ti;
            vi = 0;
        }
        if (ti < t_end) {
            std::uint32_t left = trains_[ti].count - vi;
            for (std::size_t k = ti + 1; k < t_end; ++k) left += trains_[k].count;
            const Train& tr = trains_[ti];
            problems_.add(fmt::format("{}: {} vectors arrive where no instruction expects them, the first transfer {} "
                                      "vector {} at {}",
                                      where, left, tr.transfer, tr.first_vector + vi,
                                      ps(tr.start + lt.serialization(vi + 1) + lat)));
        }
    }

    void note_write(std::uint32_t transfer, std::uint32_t tsp, Time t) {
        Time& w = writes_[{transfer, tsp}];
        w = std::max(w, t);
    }

    void check_transfers() {
        const workload::TransferSet& set = *transfers_;
        // Every destination receives every vector exactly once (Receive claims at the destination).
        std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::pair<std::uint32_t, std::uint32_t>>> got;
        std::map<std::uint32_t, Time> first_send;  // transfer -> first Send issue at its source
        // (transfer, tsp) -> first Receive or Reduce issue there
        std::map<std::pair<std::uint32_t, std::uint32_t>, Time> first_consume;
        std::map<std::uint32_t, topo::VertexId> source;
        for (const workload::Transfer& x : set.transfers) source[x.id] = x.src;
        for (std::size_t p = 0; p < s_.programs.size(); ++p) {
            if (bad_program_[p]) continue;
            const TspProgram& prog = s_.programs[p];
            for (const Instruction& ins : prog.instructions) {
                if (ins.op == Op::Receive || (ins.op == Op::Reduce && ins.out_ports == 0))
                    got[{ins.transfer, prog.tsp}].emplace_back(ins.first_vector, ins.count);
                if (ins.op == Op::Receive || ins.op == Op::Reduce) {
                    const Time t = clock_.edge(ins.cycle);
                    auto [it, inserted] = first_consume.emplace(std::make_pair(ins.transfer, prog.tsp), t);
                    if (!inserted) it->second = std::min(it->second, t);
                }
                auto src = source.find(ins.transfer);
                if (ins.op == Op::Send && src != source.end() && static_cast<std::uint32_t>(src->second) == prog.tsp) {
                    const Time t = clock_.edge(ins.cycle);
                    auto [it, inserted] = first_send.emplace(ins.transfer, t);
                    if (!inserted) it->second = std::min(it->second, t);
                }
            }
        }
        std::map<std::uint32_t, Time> complete;
        for (const workload::Transfer& x : set.transfers) {
            const auto n = static_cast<std::uint32_t>(x.vectors(unit_));
            Time done;
            for (topo::VertexId d : x.dsts) {
                auto& runs = got[{x.id, static_cast<std::uint32_t>(d)}];
                std::sort(runs.begin(), runs.end());
                std::uint32_t next = 0;
                bool ok = true;
                for (const auto& [first, count] : runs) {
                    ok = ok && first == next;
                    next = first + count;
                }
                if (!ok || next != n)
                    problems_.add(fmt::format("transfer {}: {} does not receive each of its {} vectors exactly once",
                                              x.id, tsp_name(static_cast<std::uint32_t>(d)), n));
                done = std::max(done, writes_[{x.id, static_cast<std::uint32_t>(d)}]);
            }
            complete[x.id] = done;
        }
        for (const workload::Transfer& x : set.transfers) {
            auto it = first_send.find(x.id);
            if (it == first_send.end()) {
                problems_.add(fmt::format("transfer {}: no Send at its source {}", x.id,
                                          tsp_name(static_cast<std::uint32_t>(x.src))));
                continue;
            }
            Time ready = x.earliest;
            for (workload::TransferId d : x.deps) {
                auto c = complete.find(d);
                if (c != complete.end()) ready = std::max(ready, c->second + x.compute_before);
            }
            if (it->second < ready)
                problems_.add(fmt::format("transfer {}: first Send issues at {} before it is ready at {} (earliest "
                                          "time, dependencies in memory, compute_before)",
                                          x.id, ps(it->second), ps(ready)));
            // Ordered `after` others (sums chained into one region): every destination consumes its first vector
            // strictly after their last write anywhere, since a Reduce reads its operand from memory at issue.
            for (workload::TransferId a : x.after) {
                const auto c = complete.find(a);
                if (c == complete.end()) continue;
                for (topo::VertexId d : x.dsts) {
                    const auto f = first_consume.find({x.id, static_cast<std::uint32_t>(d)});
                    if (f != first_consume.end() && f->second <= c->second) {
                        problems_.add(fmt::format("transfer {}: {} consumes its first vector at {}, not after transfer "
                                                  "{} (which it is ordered after) completes at {}",
                                                  x.id, tsp_name(static_cast<std::uint32_t>(d)), ps(f->second), a,
                                                  ps(c->second)));
                        break;
                    }
                }
            }
        }
    }

    const Schedule& s_;
    const topo::FrozenTopology& t_;
    const topo::ChipConfig& chip_;
    ClockDomain clock_;
    const workload::TransferSet* transfers_;
    Problems problems_;
    Bytes unit_;
    std::vector<LinkTiming> timings_;
    std::vector<bool> bad_program_;
    std::vector<Train> trains_;
    std::vector<std::size_t> first_train_;  // by channel: first index into trains_
    std::map<std::pair<std::uint32_t, std::int32_t>, std::vector<Ref>> consumers_;  // (tsp, port) -> issue order
    std::map<std::pair<std::uint32_t, std::uint32_t>, Time> writes_;               // (transfer, tsp) -> last write
};

}  // namespace

std::vector<std::string> verify(const Schedule& schedule, const topo::FrozenTopology& topology,
                                const topo::LinkClassTiming& links, const topo::ChipConfig& chip,
                                const workload::TransferSet* transfers, std::size_t max_problems) {
    Verifier v(schedule, topology, links, chip, transfers, max_problems);
    return v.run();
}

}  // namespace loom::sched
