#include "loom/sched/verifier.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <functional>
#include <limits>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "loom/base/clock_domain.hpp"
#include "loom/sched/leave_times.hpp"
#include "loom/base/link_timing.hpp"
#include "loom/base/serializer.hpp"

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
    std::uint32_t tsp = 0;          // sender
    std::uint32_t program = 0;      // sender's program and instruction, for messages
    std::uint32_t instruction = 0;  // (40 bytes a train: there is one per train and out port, millions)
};

// A consuming instruction (Forward, Receive, Reduce) at its TSP's in port; sorted by (tsp, port, program,
// instruction), each port's list is in issue order.
struct Consumer {
    std::uint32_t tsp = 0;
    std::int32_t port = 0;
    std::uint32_t program = 0;
    std::uint32_t instruction = 0;
    friend auto operator<=>(const Consumer&, const Consumer&) = default;
};

// (transfer, tsp) and a time: last writes and first consumptions, sorted and searched instead of a map.
struct TransferAt {
    std::uint32_t transfer = 0;
    std::uint32_t tsp = 0;
    Time time;
    friend auto operator<=>(const TransferAt&, const TransferAt&) = default;
};

// (transfer, tsp) and a run of vectors claimed there by a Receive or storing Reduce.
struct Claimed {
    std::uint32_t transfer = 0;
    std::uint32_t tsp = 0;
    std::uint32_t first = 0;
    std::uint32_t count = 0;
    friend auto operator<=>(const Claimed&, const Claimed&) = default;
};

class Verifier {
public:
    Verifier(const Schedule& s, const topo::FrozenTopology& t, const topo::LinkClassTiming& links,
             const topo::ChipConfig& chip, const workload::TransferSet* transfers, std::size_t max, bool closed_form)
        : s_(s), t_(t), chip_(chip), clock_(chip.clock()), edges_(clock_), transfers_(transfers), problems_(max),
          unit_(links.unit_payload) {
        for (topo::LinkClass c : topo::kAllLinkClasses) {
            timings_.push_back(links.timing(c));
            serializers_.emplace_back(timings_.back());
            zero_steps_.emplace_back(serializers_.back(), 0);  // copied per train and instruction (no division)
            even_steps_.push_back(even_step(serializers_.back()));
        }
        // avail(a) = next_edge(a + jitter, crossing) < a + jitter + ceil((crossing + 1) * period) once a + jitter
        // is past edge 0 (floor(x + y) - floor(x) <= ceil(y) between edge E - 1 < a + jitter and E + crossing).
        const i128 num = clock_.period_num(), den = clock_.period_den();
        const i128 m = chip_.crossing_cycles >= 0 && den > 0 && num > 0
                           ? ((static_cast<i128>(chip_.crossing_cycles) + 1) * num + den - 1) / den
                           : -1;
        if (closed_form && m >= 0 && m < (i128{1} << 40) && s_.jitter_allowance >= Time::zero())
            avail_margin_ = Time::ps(static_cast<std::int64_t>(m));
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
    const LinkTiming& timing(topo::ChannelId c) const { return timings_[link_class(c)]; }
    std::size_t link_class(topo::ChannelId c) const { return topo::index_of(t_.channel(c).link_class); }
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
    Time available(Time arrival) const { return available_at(edges_, arrival + s_.jitter_allowance, chip_); }
    // The per-vector serialization of a link in whole ps (S(k) = k * step for every k), or 0 if it is not whole.
    static std::int64_t even_step(const Serializer& ser) {
        const i128 n = static_cast<i128>(ser.wire_bits()) * 1'000'000'000'000LL;
        if (ser.rate() <= 0 || n % ser.rate() != 0 || n / ser.rate() > (i128{1} << 40)) return 0;
        return static_cast<std::int64_t>(n / ser.rate());
    }

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
        // Counted first so that the lists are allocated once at their size (no spare capacity, no copies), the
        // trains by channel: each is written into its channel's range and the ranges sorted one by one (a channel's
        // trains sort in cache, where one sort of the whole list moved 40-byte entries through memory).
        std::size_t n_consumers = 0;
        first_train_.assign(static_cast<std::size_t>(t_.num_channels()) + 1, 0);
        for (std::size_t p = 0; p < s_.programs.size(); ++p) {
            if (bad_program_[p]) continue;
            const TspProgram& prog = s_.programs[p];
            const auto v = static_cast<topo::VertexId>(prog.tsp);
            for (const Instruction& ins : prog.instructions) {
                if (ins.count < 1) continue;
                if (ins.op != Op::Send) ++n_consumers;
                if (!train_lead(ins, chip_)) continue;
                for (std::int32_t port = 0; port < 16; ++port) {
                    if (!((ins.out_ports >> port) & 1u) || !wired(prog.tsp, port)) continue;
                    ++first_train_[static_cast<std::size_t>(t_.channel_at(v, port)) + 1];
                }
            }
        }
        for (std::size_t c = 1; c < first_train_.size(); ++c) first_train_[c] += first_train_[c - 1];
        consumers_.reserve(n_consumers);
        trains_.resize(first_train_.back());
        std::vector<std::size_t> next(first_train_.begin(), first_train_.end() - 1);
        for (std::size_t p = 0; p < s_.programs.size(); ++p) {
            if (bad_program_[p]) continue;
            const TspProgram& prog = s_.programs[p];
            const auto v = static_cast<topo::VertexId>(prog.tsp);
            for (std::size_t i = 0; i < prog.instructions.size(); ++i) {
                const Instruction& ins = prog.instructions[i];
                if (ins.count < 1) continue;
                if (ins.op != Op::Send && wired(prog.tsp, ins.in_port))
                    consumers_.push_back({prog.tsp, ins.in_port, static_cast<std::uint32_t>(p),
                                          static_cast<std::uint32_t>(i)});
                if (!train_lead(ins, chip_)) continue;
                const auto start = train_start(ins);
                if (!start) continue;
                for (std::int32_t port = 0; port < 16; ++port) {
                    if (!((ins.out_ports >> port) & 1u) || !wired(prog.tsp, port)) continue;
                    const topo::ChannelId c = t_.channel_at(v, port);
                    trains_[next[static_cast<std::size_t>(c)]++] =
                        Train{c, *start, ins.count, ins.transfer, ins.first_vector, prog.tsp,
                              static_cast<std::uint32_t>(p), static_cast<std::uint32_t>(i)};
                }
            }
        }
        sort_consumers();
        // By (channel, start, program, instruction): a range holds one channel's trains in (program, instruction)
        // order as filled, often already in start order.
        const auto by_start = [](const Train& a, const Train& b) {
            return std::tie(a.start, a.program, a.instruction) < std::tie(b.start, b.program, b.instruction);
        };
        for (std::size_t c = 0; c + 1 < first_train_.size(); ++c) {
            const auto b = trains_.begin() + static_cast<std::ptrdiff_t>(first_train_[c]);
            const auto e = trains_.begin() + static_cast<std::ptrdiff_t>(first_train_[c + 1]);
            if (!std::is_sorted(b, e, by_start)) std::sort(b, e, by_start);
        }
    }

    // consumers_ into (tsp, port, program, instruction) order. They are filled in (program, instruction) order, so
    // when each TSP's consumers are one program's, in increasing TSP order (a schedule's are), a stable counting
    // pass by port over each TSP's range gives that order (a sort of the whole list was 2 % of the command at 576
    // TSPs); otherwise one sort.
    void sort_consumers() {
        bool ranges = true;
        for (std::size_t k = 0; k < consumers_.size() && ranges; ++k) {
            const Consumer& c = consumers_[k];
            ranges = c.port >= 0 && c.port < 16 &&
                     (k == 0 || consumers_[k - 1].tsp < c.tsp ||
                      (consumers_[k - 1].tsp == c.tsp && consumers_[k - 1].program == c.program &&
                       consumers_[k - 1].instruction < c.instruction));
        }
        if (!ranges) {
            std::sort(consumers_.begin(), consumers_.end());
            return;
        }
        std::vector<Consumer> out(consumers_.size());
        for (std::size_t b = 0; b < consumers_.size();) {
            std::size_t e = b;
            std::array<std::size_t, 17> at{};
            while (e < consumers_.size() && consumers_[e].tsp == consumers_[b].tsp)
                ++at[static_cast<std::size_t>(consumers_[e++].port) + 1];
            at[0] = b;
            for (std::size_t q = 1; q < at.size(); ++q) at[q] += at[q - 1];
            for (std::size_t k = b; k < e; ++k) out[at[static_cast<std::size_t>(consumers_[k].port)]++] = consumers_[k];
            b = e;
        }
        consumers_.swap(out);
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
        bool in_order = true;  // rs is sorted by (channel, start), as a schedule's reservations are
        for (std::size_t k = 0; k < rs.size(); ++k) {
            const Reservation& r = rs[k];
            if (r.channel >= static_cast<std::uint32_t>(t_.num_channels())) {
                problems_.add(
                    fmt::format("reservation {} is on channel {}, which is not in the topology", k, r.channel));
                continue;
            }
            // The channel's name only for a problem: formatting it per reservation was a fifth of the verifier.
            const auto name = [&] { return channel_name(static_cast<topo::ChannelId>(r.channel)); };
            if (!(r.start < r.end))
                problems_.add(
                    fmt::format("reservation {} on {} is empty: [{}, {})", k, name(), ps(r.start), ps(r.end)));
            if (k == 0) continue;
            const Reservation& q = rs[k - 1];
            if (std::tie(q.channel, q.start) > std::tie(r.channel, r.start)) {
                in_order = false;
                problems_.add(fmt::format("reservations are not sorted by (channel, start) at reservation {}", k));
            }
            if (q.channel == r.channel && q.end > r.start)
                problems_.add(fmt::format("{} double-booked at {}: reservation [{}, {}) of transfer {} overlaps "
                                          "[{}, {}) of transfer {}",
                                          name(), ps(r.start), ps(q.start), ps(q.end), q.transfer, ps(r.start),
                                          ps(r.end), r.transfer));
        }
        // Reservations and trains, both by (channel, start): they must be the same list. Sorted by (channel, start,
        // index), reservations already in (channel, start) order stay where they are: the sort (an index sort that
        // went to memory for every comparison, 3 % of the command at 576 TSPs) is needed only for a bad schedule.
        std::vector<std::size_t> order(rs.size());
        for (std::size_t k = 0; k < rs.size(); ++k) order[k] = k;
        if (!in_order) {
            std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                return std::tie(rs[a].channel, rs[a].start, a) < std::tie(rs[b].channel, rs[b].start, b);
            });
        }
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
        // The runs on channels of the topology by (channel, train start, offset, index): counted into their channel's
        // range of `order` first, then each range sorted by (start, offset, index). A channel's
        // runs are few and stay in cache while they sort, where one index sort of all of them read the runs from
        // memory at every comparison (2 % of the command at 576 TSPs).
        const auto channels = static_cast<std::size_t>(t_.num_channels());
        std::vector<std::size_t> from(channels + 1, 0);
        for (std::size_t k = 0; k < runs.size(); ++k) {
            if (runs[k].channel >= static_cast<std::uint32_t>(t_.num_channels())) {
                problems_.add(fmt::format("predicted run {} is on channel {}, which is not in the topology", k,
                                          runs[k].channel));
                continue;
            }
            ++from[runs[k].channel + 1];
        }
        for (std::size_t c = 0; c < channels; ++c) from[c + 1] += from[c];
        std::vector<std::size_t> order(from[channels]);
        {
            std::vector<std::size_t> next(from.begin(), from.end() - 1);
            for (std::size_t k = 0; k < runs.size(); ++k)
                if (runs[k].channel < static_cast<std::uint32_t>(t_.num_channels())) order[next[runs[k].channel]++] = k;
        }
        const auto by_start = [&](std::size_t a, std::size_t b) {
            return std::tie(runs[a].train_start, runs[a].offset, a) < std::tie(runs[b].train_start, runs[b].offset, b);
        };
        for (std::size_t c = 0; c < channels; ++c) {
            const auto b = order.begin() + static_cast<std::ptrdiff_t>(from[c]);
            const auto e = order.begin() + static_cast<std::ptrdiff_t>(from[c + 1]);
            if (!std::is_sorted(b, e, by_start)) std::sort(b, e, by_start);
        }
        std::vector<std::size_t>().swap(from);
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

    // Rules 3-8 at every port that receives anything, in (tsp, port) order.
    void check_consumers() {
        std::vector<std::pair<std::uint32_t, std::int32_t>> ports;
        for (const Consumer& c : consumers_)
            if (ports.empty() || ports.back() != std::make_pair(c.tsp, c.port)) ports.emplace_back(c.tsp, c.port);
        for (topo::ChannelId c = 0; c < t_.num_channels(); ++c) {
            if (first_train_[static_cast<std::size_t>(c)] == first_train_[static_cast<std::size_t>(c) + 1]) continue;
            const topo::Channel& ch = t_.channel(c);
            ports.emplace_back(static_cast<std::uint32_t>(ch.dst), ch.dst_port);
        }
        std::sort(ports.begin(), ports.end());
        ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
        std::size_t next = 0;  // first consumer of the port being checked
        for (const auto& [tsp, port] : ports) {
            while (next < consumers_.size() &&
                   std::make_pair(consumers_[next].tsp, consumers_[next].port) < std::make_pair(tsp, port))
                ++next;
            std::size_t end = next;
            while (end < consumers_.size() && consumers_[end].tsp == tsp && consumers_[end].port == port) ++end;
            check_port(tsp, port, next, end);
            next = end;
        }
    }

    void check_port(std::uint32_t tsp, std::int32_t port, std::size_t c_begin, std::size_t c_end) {
        const auto v = static_cast<topo::VertexId>(tsp);
        const topo::ChannelId in = topo::FrozenTopology::reverse(t_.channel_at(v, port));
        const std::size_t in_class = link_class(in);
        const LinkTiming& lt = timings_[in_class];
        const Serializer& in_ser = serializers_[in_class];
        const Time lat = lt.latency();
        const std::size_t t_end = first_train_[static_cast<std::size_t>(in) + 1];
        std::size_t ti = first_train_[static_cast<std::size_t>(in)];
        std::uint32_t vi = 0;  // vectors of trains_[ti] already claimed
        // Arrivals are tr.start + S(vi) + lat: S stepped along the train, restarted at each train.
        SerialStepper arrive;
        if (ti < t_end) arrive = zero_steps_[in_class];
        // Arrivals evenly spaced by in_step ps (0: not, or the closed form is off): S(k) = k * in_step.
        const std::int64_t in_step = avail_margin_ >= Time::zero() ? even_steps_[in_class] : 0;
        fifo_.clear();
        bool overflow_reported = false;
        auto where = [&] { return fmt::format("{} port {}", tsp_name(tsp), port); };
        for (std::size_t c = c_begin; c < c_end; ++c) {
            const Consumer& ref = consumers_[c];
            const Instruction& ins = s_.programs[ref.program].instructions[ref.instruction];
            const Time t_issue = issue_time(edges_, ins);
            bool forwards = false;
            // Slots t_issue + S(u - 1) on every out port (forwarding) or on the in port (storing), stepped in u.
            slots_.clear();
            slot_class_.clear();
            if (ins.op == Op::Forward || (ins.op == Op::Reduce && ins.out_ports != 0)) {
                forwards = true;
                for (std::int32_t p = 0; p < 16; ++p) {
                    if (((ins.out_ports >> p) & 1u) && wired(tsp, p))
                        slot_class_.push_back(link_class(t_.channel_at(v, p)));
                }
            } else {
                slot_class_.push_back(in_class);
            }
            for (const std::size_t cls : slot_class_) slots_.push_back(zero_steps_[cls]);
            // The closed form's slot steps: the earliest and the latest slot of vector u are t_issue + (u - 1) *
            // slot_min and t_issue + (u - 1) * slot_max when every slot link is evenly spaced (0: not).
            std::int64_t slot_min = 0;
            std::int64_t slot_max = 0;
            if (in_step > 0 && !slot_class_.empty()) {
                slot_min = std::numeric_limits<std::int64_t>::max();
                for (const std::size_t cls : slot_class_) {
                    const std::int64_t st = even_steps_[cls];
                    if (st <= 0) {
                        slot_min = 0;
                        break;
                    }
                    slot_min = std::min(slot_min, st);
                    slot_max = std::max(slot_max, st);
                }
                if (slot_min == 0 || slot_max > in_step) slot_min = slot_max = 0;
            }
            bool identity_reported = false;
            std::uint32_t late = 0;
            Time first_late_at;
            Time first_late_avail;
            std::uint32_t first_late_vector = 0;
            Time last_write;
            bool wrote = false;
            for (std::uint32_t u = 1; u <= ins.count; ++u) {
                while (ti < t_end && vi >= trains_[ti].count) {
                    ++ti;
                    vi = 0;
                    arrive = zero_steps_[in_class];
                }
                if (ti >= t_end) {
                    problems_.add(fmt::format("{}: {} waits for {} vectors that never arrive on this port", where(),
                                              instr_name(ref.program, ref.instruction), ins.count - u + 1));
                    break;
                }
                if (slot_min > 0) {
                    // Closed form over the run of n vectors left in both this train and this instruction: skips
                    // all but its last few, walked below, when that provably changes nothing.
                    const std::uint32_t skip = closed_form_skip(ins, ti, vi, u, lat, t_issue, in_step,
                                                                slot_min, slot_max);
                    if (skip > 0) {
                        vi += skip;
                        u += skip;
                        arrive = SerialStepper(in_ser, vi);
                        for (std::size_t k = 0; k < slots_.size(); ++k)
                            slots_[k] = SerialStepper(serializers_[slot_class_[k]], u - 1);
                    }
                }
                const Train& tr = trains_[ti];
                ++vi;
                arrive.next();
                const Time a = tr.start + arrive.value() + lat;
                const Time avail = available(a);
                const std::uint32_t vector = tr.first_vector + vi - 1;
                if (!identity_reported && (tr.transfer != ins.transfer || vector != ins.first_vector + u - 1)) {
                    problems_.add(fmt::format("{}: {} claims transfer {} vector {} (arrival order) where it names "
                                              "transfer {} vector {}",
                                              where(), instr_name(ref.program, ref.instruction), tr.transfer, vector,
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
                    for (SerialStepper& o : slots_) {
                        const Time slot = t_issue + o.value();
                        o.next();
                        first = std::min(first, slot);
                        last = std::max(last, slot);
                    }
                    if (slots_.empty()) first = t_issue;
                    deadline = first;
                    leave = last;
                } else {
                    // Rules 6 and 7: available by t_issue + serialization of (u - 1) vectors on the in-port's link.
                    deadline = t_issue + slots_.front().value();
                    slots_.front().next();
                    leave = std::max(avail, t_issue);
                    last_write = wrote ? std::max(last_write, leave) : leave;
                    wrote = true;
                }
                if (avail > deadline) {
                    if (late++ == 0) {
                        first_late_at = deadline;
                        first_late_avail = avail;
                        first_late_vector = vector;
                    }
                }
                // The arriving vector counts, with every earlier one that has not left yet.
                fifo_.pop_through(a);
                fifo_.push(std::max(leave, a));
                if (!overflow_reported && fifo_.size() > static_cast<std::size_t>(chip_.fifo_depth)) {
                    problems_.add(fmt::format("{}: clock-crossing FIFO overflow at {}: {} vectors held, depth {} "
                                              "(transfer {} vector {} arriving)",
                                              where(), ps(a), fifo_.size(), chip_.fifo_depth, tr.transfer, vector));
                    overflow_reported = true;
                }
            }
            if (transfers_ && wrote) writes_.push_back({ins.transfer, tsp, last_write});
            if (late > 0)
                problems_.add(fmt::format("{}: {} is late: transfer {} vector {} is available at {} but needed by {} "
                                          "({} vectors late in all)",
                                          where(), instr_name(ref.program, ref.instruction), ins.transfer,
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
                                      where(), left, tr.transfer, tr.first_vector + vi,
                                      ps(tr.start + lt.serialization(vi + 1) + lat)));
        }
    }

    // How many vectors check_port may skip at vector u of `ins`, with vi vectors of trains_[ti] claimed before it
    // (0: walk them). Of the n vectors left in both, vector j (from 0) arrives at a_j = A + j d (d = in_step, A
    // the next arrival), its earliest slot is D + j slot_min (D = t_issue + (u - 1) slot_min) and it leaves at or
    // before L + j slot_max (L = t_issue + (u - 1) slot_max; slot_max <= d), since it is not late. Skipped when:
    //  - it is the vector the instruction names (then so are all n: both go up by one);
    //  - none is late: a_j + jitter + avail_margin_ <= D + j slot_min at j = 0 and n - 1 (linear in j);
    //  - the FIFO never overflows: at a_k at most min(k, w) of the run are held (vector j leaves by a_k once
    //    (k - j) d >= L - A, so w = ceil((L - A) / d) - 1), plus the earlier vectors held past a_k
    //    (count_after), a bound that is largest at some k <= w.
    // The last w + 1 vectors are walked: the vectors skipped all leave by a_{n-1}, so the walk's pop at a_{n-1}
    // leaves the FIFO as the full walk leaves it (whatever arrives next, even a train that overlaps this one),
    // and the last vector's leave time is the instruction's last write (leave times do not decrease along a
    // run). Only the walked vectors' FIFO counts lack the skipped ones, and none of them overflows.
    std::uint32_t closed_form_skip(const Instruction& ins, std::size_t ti, std::uint32_t vi,
                                   std::uint32_t u, Time lat, Time t_issue, std::int64_t d, std::int64_t slot_min,
                                   std::int64_t slot_max) const {
        const Train& tr = trains_[ti];
        const std::uint32_t n = std::min(ins.count - u + 1, tr.count - vi);
        if (n < 4) return 0;
        if (tr.transfer != ins.transfer || tr.first_vector + vi != ins.first_vector + u - 1) return 0;
        const Time A = tr.start + Time::ps(static_cast<std::int64_t>(vi + 1) * d) + lat;
        if (A + s_.jitter_allowance <= clock_.phase()) return 0;  // before edge 0 the margin does not hold
        const Time D = t_issue + Time::ps(static_cast<std::int64_t>(u - 1) * slot_min);
        const Time L = t_issue + Time::ps(static_cast<std::int64_t>(u - 1) * slot_max);
        const Time last = Time::ps(static_cast<std::int64_t>(n - 1) * d);
        const Time slack = s_.jitter_allowance + avail_margin_;
        if (A + slack > D) return 0;
        if (A + last + slack > D + Time::ps(static_cast<std::int64_t>(n - 1) * slot_min)) return 0;
        const std::int64_t gap = (L - A).count();
        const std::int64_t w = gap > 0 ? (gap + d - 1) / d - 1 : 0;
        if (w >= static_cast<std::int64_t>(n) || w > 64) return 0;
        const auto depth = static_cast<std::size_t>(std::max(chip_.fifo_depth, 0));
        for (std::int64_t k = 0; k <= w; ++k) {
            if (fifo_.count_after(A + Time::ps(k * d)) + static_cast<std::size_t>(k) + 1 > depth) return 0;
        }
        return n - static_cast<std::uint32_t>(w + 1);
    }

    void check_transfers() {
        const workload::TransferSet& set = *transfers_;
        const std::size_t n = set.transfers.size();
        // Transfer id -> position in the set (kAbsent: no such transfer).
        const workload::TransferPositions positions(set);
        constexpr std::uint32_t kAbsent = 0xffffffffu;
        auto position = [&](std::uint32_t id) -> std::uint32_t {
            const std::size_t at = positions.find(id);
            return at == workload::TransferPositions::kAbsent ? kAbsent : static_cast<std::uint32_t>(at);
        };
        // Every destination receives every vector exactly once (Receive claims at the destination).
        std::vector<Claimed> got;
        std::vector<Time> first_send(n, Time::max());  // by position: first Send issue at its source
        // (transfer, tsp) -> first Receive or Reduce issue there
        std::vector<TransferAt> first_consume;
        for (std::size_t p = 0; p < s_.programs.size(); ++p) {
            if (bad_program_[p]) continue;
            const TspProgram& prog = s_.programs[p];
            for (const Instruction& ins : prog.instructions) {
                if (ins.op == Op::Receive || (ins.op == Op::Reduce && ins.out_ports == 0))
                    got.push_back({ins.transfer, prog.tsp, ins.first_vector, ins.count});
                if (ins.op == Op::Receive || ins.op == Op::Reduce)
                    first_consume.push_back({ins.transfer, prog.tsp, clock_.edge(ins.cycle)});
                if (ins.op == Op::Send) {
                    const std::uint32_t at = position(ins.transfer);
                    if (at != kAbsent && static_cast<std::uint32_t>(set.transfers[at].src) == prog.tsp)
                        first_send[at] = std::min(first_send[at], clock_.edge(ins.cycle));
                }
            }
        }
        std::sort(got.begin(), got.end());
        std::sort(first_consume.begin(), first_consume.end());  // the first of each (transfer, tsp) is the earliest
        std::sort(writes_.begin(), writes_.end());              // the last of each (transfer, tsp) is the latest
        auto range_of = [](const auto& list, std::uint32_t transfer, std::uint32_t tsp) {
            using T = typename std::decay_t<decltype(list)>::value_type;
            T lo{};
            lo.transfer = transfer;
            lo.tsp = tsp;
            const auto first = std::lower_bound(list.begin(), list.end(), lo, [](const T& a, const T& b) {
                return std::tie(a.transfer, a.tsp) < std::tie(b.transfer, b.tsp);
            });
            auto last = first;
            while (last != list.end() && last->transfer == transfer && last->tsp == tsp) ++last;
            return std::make_pair(first, last);
        };
        std::vector<Time> complete(n);
        for (std::size_t k = 0; k < n; ++k) {
            const workload::Transfer& x = set.transfers[k];
            const auto count = static_cast<std::uint32_t>(x.vectors(unit_));
            Time done;
            for (topo::VertexId d : x.dsts) {
                const auto dst = static_cast<std::uint32_t>(d);
                const auto [first, last] = range_of(got, x.id, dst);
                std::uint32_t next = 0;
                bool ok = true;
                for (auto it = first; it != last; ++it) {
                    ok = ok && it->first == next;
                    next = it->first + it->count;
                }
                if (!ok || next != count)
                    problems_.add(fmt::format("transfer {}: {} does not receive each of its {} vectors exactly once",
                                              x.id, tsp_name(dst), count));
                const auto [w0, w1] = range_of(writes_, x.id, dst);
                if (w0 != w1) done = std::max(done, std::prev(w1)->time);
            }
            complete[k] = done;
        }
        for (std::size_t k = 0; k < n; ++k) {
            const workload::Transfer& x = set.transfers[k];
            if (first_send[k] == Time::max()) {
                problems_.add(fmt::format("transfer {}: no Send at its source {}", x.id,
                                          tsp_name(static_cast<std::uint32_t>(x.src))));
                continue;
            }
            Time ready = x.earliest;
            for (workload::TransferId d : x.deps) {
                const std::uint32_t c = position(d);
                if (c != kAbsent) ready = std::max(ready, complete[c] + x.compute_before);
            }
            if (first_send[k] < ready)
                problems_.add(fmt::format("transfer {}: first Send issues at {} before it is ready at {} (earliest "
                                          "time, dependencies in memory, compute_before)",
                                          x.id, ps(first_send[k]), ps(ready)));
            // Ordered `after` others (sums chained into one region): every destination consumes its first vector
            // strictly after their last write anywhere, since a Reduce reads its operand from memory at issue.
            for (workload::TransferId a : x.after) {
                const std::uint32_t c = position(a);
                if (c == kAbsent) continue;
                for (topo::VertexId d : x.dsts) {
                    const auto [f, f_end] = range_of(first_consume, x.id, static_cast<std::uint32_t>(d));
                    if (f != f_end && f->time <= complete[c]) {
                        problems_.add(fmt::format("transfer {}: {} consumes its first vector at {}, not after transfer "
                                                  "{} (which it is ordered after) completes at {}",
                                                  x.id, tsp_name(static_cast<std::uint32_t>(d)), ps(f->time), a,
                                                  ps(complete[c])));
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
    ClockEdges edges_;  // clock_, for the per-vector checks
    const workload::TransferSet* transfers_;
    Problems problems_;
    Bytes unit_;
    std::vector<LinkTiming> timings_;
    std::vector<bool> bad_program_;
    std::vector<Train> trains_;
    std::vector<std::size_t> first_train_;  // by channel: first index into trains_
    std::vector<Consumer> consumers_;  // sorted: each (tsp, port)'s consumers in issue order
    std::vector<TransferAt> writes_;   // (transfer, tsp, last write of one instruction there)
    LeaveTimes fifo_;                  // check_port's FIFO, reused
    std::vector<SerialStepper> slots_;  // check_port's per-instruction slot steppers, reused
    std::vector<std::size_t> slot_class_;  // and their links' classes
    std::vector<Serializer> serializers_;   // by link class
    std::vector<SerialStepper> zero_steps_;  // by link class: S stepped from 0
    std::vector<std::int64_t> even_steps_;   // by link class: even_step()
    Time avail_margin_ = Time::ps(-1);  // avail(a) < a + jitter + this; negative: no closed form
};

}  // namespace

std::vector<std::string> verify(const Schedule& schedule, const topo::FrozenTopology& topology,
                                const topo::LinkClassTiming& links, const topo::ChipConfig& chip,
                                const workload::TransferSet* transfers, std::size_t max_problems,
                                bool closed_form) {
    Verifier v(schedule, topology, links, chip, transfers, max_problems, closed_form);
    return v.run();
}

}  // namespace loom::sched
