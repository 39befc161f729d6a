#include "loom/tsp/tsp_chip.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>

#include <fmt/format.h>

#include "loom/base/assert.hpp"
#include "loom/base/error.hpp"
#include "loom/base/serializer.hpp"
#include "wrapping.hpp"

namespace loom::tsp {
namespace {

// The value at `offset` of sparse values (0 if absent).
std::int64_t value_at(const SparseValues& values, std::uint32_t offset) {
    auto it =
        std::lower_bound(values.begin(), values.end(), offset,
                         [](const std::pair<std::uint32_t, std::int64_t>& e, std::uint32_t o) { return e.first < o; });
    return it != values.end() && it->first == offset ? it->second : 0;
}

// Entries of `values` with offsets in [from, from + count), shifted to start at 0, into `out`.
void slice(const SparseValues& values, std::int64_t from, std::int64_t count, SparseValues& out) {
    out.clear();
    auto it =
        std::lower_bound(values.begin(), values.end(), static_cast<std::uint32_t>(from),
                         [](const std::pair<std::uint32_t, std::int64_t>& e, std::uint32_t o) { return e.first < o; });
    for (; it != values.end() && static_cast<std::int64_t>(it->first) < from + count; ++it)
        out.emplace_back(static_cast<std::uint32_t>(it->first - from), it->second);
}

}  // namespace

const char* to_string(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::DoubleBooked:
            return "double_booked";
        case ErrorKind::Overflow:
            return "fifo_overflow";
        case ErrorKind::Unexpected:
            return "unexpected_vector";
        case ErrorKind::Late:
            return "late_vector";
        case ErrorKind::Mispredicted:
            return "mispredicted_arrival";
        case ErrorKind::Missing:
            return "missing_vectors";
    }
    return "?";
}

bool ScheduleError::operator<(const ScheduleError& o) const {
    return std::tie(time, tsp, port, transfer, vector, kind, message) <
           std::tie(o.time, o.tsp, o.port, o.transfer, o.vector, o.kind, o.message);
}

bool ArrivalRecord::operator<(const ArrivalRecord& o) const {
    return std::tie(tsp, port, arrival, transfer, vector) < std::tie(o.tsp, o.port, o.arrival, o.transfer, o.vector);
}

// The chip's first bytes, which hold what a run's arrival reads (see the members' order).
constexpr std::size_t kChipHotBytes = 9 * 64;

// ---- construction ---------------------------------------------------------------------------------------------

TspChip::TspChip(sim::Context& ctx, const TspSystem& system, topo::VertexId vertex,
                 const ExecutorConfig& config, ChipProgram program)
    : sim::Component(ctx),
      system_(system),
      config_(config),
      fifo_depth_(system.chip().fifo_depth),
      jitter_allowance_(program.jitter_allowance),
      check_predictions_(program.check_predictions),
      vector_bytes_(system.vector_bytes()),
      edges_(system.chip().clock()),
      action_timer_(ctx, this, sim::handler<&TspChip::on_action>),
      vertex_(vertex),
      clock_(system.chip().clock()),
      crossing_cycles_(system.chip().crossing_cycles),
      emission_timer_(ctx, this, sim::handler<&TspChip::on_emission>),
      stop_timer_(ctx, this, sim::handler<&TspChip::on_stop>, sim::Phase::Report) {
    const topo::FrozenTopology& t = system.topology();
    const std::int32_t ports = t.num_ports(vertex);
    {
        const LinkTiming first = system.links().timing(topo::kAllLinkClasses[0]);
        const Serializer pace(first.unit_wire.bits(), first.rate.bits_per_s());
        bool same = true;
        for (topo::LinkClass c : topo::kAllLinkClasses) {
            const LinkTiming lt = system.links().timing(c);
            same = same && Serializer(lt.unit_wire.bits(), lt.rate.bits_per_s()).same_pace(pace);
        }
        if (same) origin_pace_ = pace;
    }
    if (ports > static_cast<std::int32_t>(WireArg::kMaxPorts))
        throw InputError(fmt::format("{}: {} ports, at most {} are supported", path(), ports, WireArg::kMaxPorts));
    in_index_.assign(static_cast<std::size_t>(ports), -1);
    out_index_.assign(static_cast<std::size_t>(ports), -1);
    for (std::int32_t p = 0; p < ports; ++p) {
        const topo::ChannelId c_out = system.out_channel(vertex, p);
        if (c_out == topo::kNoChannel) continue;
        const topo::ChannelId c_in = topo::FrozenTopology::reverse(c_out);

        in_index_[static_cast<std::size_t>(p)] = static_cast<std::int32_t>(ins_.size());
        InPortState ip;
        ip.port = p;
        ip.channel = c_in;
        ip.timing = &system.timing(c_in);
        ip.serial = Serializer(system.timing(c_in));
        ip.arrivals = UnitArrivals(in_views_.emplace_back(system.timing(c_in), system.stream(c_in)), system.timing(c_in));
        ins_.push_back(std::move(ip));
        in_ports_.emplace_back(ctx, fmt::format("port{}.in", p), this, sim::handler<&TspChip::on_arrival>);

        out_index_[static_cast<std::size_t>(p)] = static_cast<std::int32_t>(outs_.size());
        OutPortState op;
        op.port = p;
        op.channel = c_out;
        op.link = &links_.emplace_back(ctx, fmt::format("port{}.out", p), system.timing(c_out), system.stream(c_out));
        op.serial = Serializer(system.timing(c_out));
        op.arrivals = UnitArrivals(op.tx(), system.timing(c_out));
        op.jitter = system.timing(c_out).jitter > Time::zero();
        op.peer_port = t.channel(c_out).dst_port;
        outs_.push_back(std::move(op));
    }

    // The program, in issue order: sorted by cycle, ties in list order.
    std::stable_sort(program.instructions.begin(), program.instructions.end(),
                     [](const sched::Instruction& a, const sched::Instruction& b) { return a.cycle < b.cycle; });
    const topo::ChipConfig& chip = system.chip();
    std::vector<std::int64_t> claimed(ins_.size(), 0);
    sched::PortMask wired = 0;  // ports with a channel both ways
    for (std::int32_t p = 0; p < ports && p < 16; ++p)
        if (in_index_[static_cast<std::size_t>(p)] >= 0) wired = static_cast<sched::PortMask>(wired | (1u << p));
    std::vector<sched::InstructionProblem> problems;
    instrs_.reserve(program.instructions.size());
    actions_.reserve(program.instructions.size());
    for (const sched::Instruction& ins : program.instructions) {
        const auto order = static_cast<std::uint32_t>(instrs_.size());
        auto fail = [&](const std::string& what) {
            throw InputError(fmt::format("{}: instruction {} ({} at cycle {}): {}", path(), order,
                                         sched::op_name(ins.op), ins.cycle, what));
        };
        problems.clear();
        sched::validate_instruction(ins, wired, problems);
        if (!problems.empty()) fail(sched::describe(problems.front()));
        if (ins.address < 0) fail(fmt::format("negative address {}", ins.address));
        const bool touches_memory = ins.op != sched::Op::Forward;
        if (touches_memory && ins.address + static_cast<std::int64_t>(ins.count) * vector_bytes_ > chip.memory.count())
            fail(fmt::format("vectors at {} .. +{} x {} bytes are outside the TSP's memory of {}", ins.address,
                             ins.count, vector_bytes_, to_string(chip.memory)));
        InstrState I;
        I.ins = ins;
        I.order = order;
        I.issue = sched::issue_time(edges_, ins);
        const bool receiving = ins.op != sched::Op::Send;
        if (receiving) I.in = static_cast<std::int8_t>(in_index_[ins.in_port]);
        Time action;  // when it acts (see the class comment)
        switch (ins.op) {
            case sched::Op::Send:
                action = *sched::train_start(clock_, ins, chip);
                break;
            case sched::Op::Forward:
                action = forward_train_start(ins);
                break;
            case sched::Op::Reduce:
                action = forwards(ins) ? forward_train_start(ins) : I.issue;
                break;
            case sched::Op::Receive:
                action = I.issue;
                break;
        }
        if (receiving) {
            auto& c = claimed[static_cast<std::size_t>(I.in)];
            const std::int64_t first_slot = ins.address / vector_bytes_;
            const bool storing = stores(ins);
            ins_[static_cast<std::size_t>(I.in)].claims.push_back(
                {order, ins.count, c,
                 storing && first_slot <= std::numeric_limits<std::int32_t>::max() ? static_cast<std::int32_t>(first_slot)
                                                                                  : -1,
                 storing ? sched::PortMask{0} : ins.out_ports});
            c += ins.count;
        }
        instrs_.push_back(std::move(I));
        const std::int64_t first_slot = ins.address / vector_bytes_;
        const bool reads = ins.op == sched::Op::Send || ins.op == sched::Op::Reduce;
        actions_.push_back({action, order, ins.out_ports,
                            reads && first_slot <= std::numeric_limits<std::int32_t>::max()
                                ? static_cast<std::int32_t>(first_slot)
                                : -1});
    }
    std::size_t storing = 0;
    for (const InstrState& I : instrs_) storing += stores(I.ins) ? 1 : 0;
    deliveries_.reserve(storing);
    std::stable_sort(actions_.begin(), actions_.end(), [](const Action& a, const Action& b) { return a.time < b.time; });

    // Writes are kept until they land and applied in key order (apply_deferred): the memory holds no versions.
    auto seed = [&](std::int64_t slot, std::int64_t value) {
        if (slot < 0 || slot * vector_bytes_ >= chip.memory.count())
            throw InputError(fmt::format("{}: initial memory slot {} is outside the TSP's memory", path(), slot));
        memory_.init(slot, value);
    };
    for (const auto& [slot, value] : program.memory) seed(slot, value);
    std::vector<std::int64_t> values;
    for (const DataCheck::Region& r : program.seeded) {
        if (r.count <= 0) continue;
        if (r.first < 0 || (r.first + r.count - 1) * vector_bytes_ >= chip.memory.count()) {
            for (std::int64_t k = 0; k < r.count; ++k)  // throws naming the first slot outside
                seed(r.first + k, program.data_check->initial_value(r.tsp, r.first + k));
        }
        values.resize(static_cast<std::size_t>(r.count));
        program.data_check->initial_values(r.tsp, r.first, r.count, values.data());
        memory_.init_range(r.first, values.data(), r.count);
    }
    for (const sched::PredictedRun& run : program.predicted) {
        if (run.channel >= static_cast<std::uint32_t>(t.num_channels()) ||
            t.channel(static_cast<topo::ChannelId>(run.channel)).dst != vertex)
            throw InputError(fmt::format("{}: predicted run of transfer {} on channel {} does not arrive here", path(),
                                         run.transfer, run.channel));
        const topo::Channel& ch = t.channel(static_cast<topo::ChannelId>(run.channel));
        ins_[static_cast<std::size_t>(in_index_[static_cast<std::size_t>(ch.dst_port)])].predictions.add(
            run, system.timing(static_cast<topo::ChannelId>(run.channel)));
    }
    for (InPortState& ip : ins_) ip.predictions.freeze();
    for (std::size_t i = 0; i < ins_.size(); ++i) {
        in_ports_[i].chip = this;
        in_ports_[i].state = &ins_[i];
        ctx.sim().set_slot_prefetch(in_ports_[i].slot(), &TspChip::prefetch_arrival);
    }
    static_assert(std::is_standard_layout_v<ActionTimer> && sizeof(ActionTimer) == kActionLines * 64);
    static_assert(sizeof(InstrState) == 64 && WireArg::kMaxPorts <= 127);
    static_assert(sizeof(ArrivalPort) == 128, "the kernel prefetches a slot object's first two lines");
    static_assert(sizeof(Claim) == 24);
    action_timer_.chip = this;
    ctx.sim().set_slot_prefetch(action_timer_.timer.slot(), &TspChip::prefetch_action);
}

void TspChip::init() {
    for (std::size_t i = 0; i < ins_.size(); ++i) note_next(i);
    if (!actions_.empty()) action_timer_.timer.arm_at(actions_[0].time);
    note_action();
}

sim::OutPort* TspChip::out_port(std::int32_t port) {
    if (port < 0 || port >= static_cast<std::int32_t>(out_index_.size()) ||
        out_index_[static_cast<std::size_t>(port)] < 0)
        return nullptr;
    return &outs_[static_cast<std::size_t>(out_index_[static_cast<std::size_t>(port)])].link->wire();
}

sim::InPort* TspChip::in_port(std::int32_t port) {
    if (port < 0 || port >= static_cast<std::int32_t>(in_index_.size()) ||
        in_index_[static_cast<std::size_t>(port)] < 0)
        return nullptr;
    return &in_ports_[static_cast<std::size_t>(in_index_[static_cast<std::size_t>(port)])];
}

WireStore* TspChip::out_store(std::int32_t port) {
    if (port < 0 || port >= static_cast<std::int32_t>(out_index_.size()) || out_index_[static_cast<std::size_t>(port)] < 0)
        return nullptr;
    return &outs_[static_cast<std::size_t>(out_index_[static_cast<std::size_t>(port)])].link->store();
}

void TspChip::attach_in_store(std::int32_t port, WireStore& store) {
    const auto i = static_cast<std::size_t>(in_index_[static_cast<std::size_t>(port)]);
    ins_[i].store = &store;
    in_ports_[i].store = &store;
}

std::uint64_t TspChip::runs_sent() const {
    std::uint64_t n = 0;
    for (const OutPortState& op : outs_) n += op.link->store().pushed();
    return n;
}

// ---- timing helpers -------------------------------------------------------------------------------------------

bool TspChip::forwards(const sched::Instruction& ins) {
    return ins.op == sched::Op::Forward || (ins.op == sched::Op::Reduce && ins.out_ports != 0);
}

bool TspChip::stores(const sched::Instruction& ins) {
    return ins.op == sched::Op::Receive || (ins.op == sched::Op::Reduce && ins.out_ports == 0);
}

Time TspChip::available(Time arrival) const { return sched::available_at(edges_, arrival, system_.chip()); }

// ---- forward timing (schedule.hpp rules 5 and 7) ---------------------------------------------------------------

Time TspChip::forward_train_start(const sched::Instruction& ins) const {
    return *sched::train_start(clock_, ins, system_.chip());
}

TspChip::ForwardDeadlines::ForwardDeadlines(const TspChip& chip, const InstrState& I, std::int64_t pos)
    : issue_(I.issue) {
    chip.for_each_out(I.ins, [&](std::int32_t o) {
        slot_[n_++] = SerialStepper(chip.outs_[static_cast<std::size_t>(o)].serial, pos - 1);
    });
    update();
}

void TspChip::ForwardDeadlines::next_all() {
    for (std::size_t o = 0; o < n_; ++o) slot_[o].next();
    update();
}

void TspChip::ForwardDeadlines::update() {
    need_ = Time::max();
    leave_ = Time::zero();
    for (std::size_t o = 0; o < n_; ++o) {
        const Time at = issue_ + slot_[o].value();
        need_ = std::min(need_, at);
        leave_ = std::max(leave_, at);
    }
}

std::string TspChip::where(Time t, std::int32_t port) const {
    return fmt::format("schedule error at {} port {}, t={} ps (core cycle {}): ", path(), port, t.count(),
                       clock_.edge_at_or_before(t));
}

void TspChip::report(Time t, std::int32_t port, std::uint32_t transfer, std::uint32_t vector, ErrorKind kind,
                     const std::string& what) {
    // After the first few the run is stopping anyway; later errors are consequences.
    if (errors_.size() < 64) errors_.push_back({t, vertex_, port, transfer, vector, kind, where(t, port) + what});
    // Stop once simulated time has passed the error: every error at or before it has been found by then (each
    // is found no later than its own time), so the earliest one reported is the same in both modes.
    const Time at = std::max(t, now());
    if (!stop_timer_.armed() || at < stop_timer_.expiry()) stop_timer_.arm_at(at);
}

void TspChip::on_stop() { ctx().sim().stop(); }

// ---- instructions ---------------------------------------------------------------------------------------------

void TspChip::on_action() {
    const Time t = now();
    while (next_action_ < actions_.size() && actions_[next_action_].time <= t) {
        const Action& a = actions_[next_action_++];
        act(instrs_[a.instr], a.time);
    }
    if (next_action_ < actions_.size()) action_timer_.timer.arm_at(actions_[next_action_].time);
    note_action();
}

void TspChip::note_action() {
    std::array<const void*, kActionNext>& n = action_timer_.next;
    n.fill(nullptr);
    if (next_action_ >= actions_.size()) return;
    const Action& a = actions_[next_action_];
    // Addresses only: the instruction itself is not read here (it is evicted again before it acts).
    const auto* I = reinterpret_cast<const char*>(&instrs_[a.instr]);
    std::size_t k = 0;
    n[k++] = &a;
    n[k++] = I;  // one line (InstrState is line-aligned)
    if (a.slot0 >= 0) {  // the operand's first settled values and its page's cell bits
        const TimedMemory::SlotLines m = memory_.lines_of(a.slot0);
        if (m.value != nullptr) {
            n[k++] = m.value;
            n[k++] = static_cast<const char*>(m.value) + 64;
            n[k++] = m.cells;
        }
    }
    for (unsigned mask = a.out_ports; mask != 0 && k + 2 <= n.size(); mask &= mask - 1) {
        const OutPortState& op = outs_[static_cast<std::size_t>(out_index_[static_cast<std::size_t>(std::countr_zero(mask))])];
        n[k++] = &op;
        n[k++] = op.link;  // its train state (the link's first line)
    }
}

void TspChip::prefetch_action(const void* obj, const sim::Event&) {
    const auto* a = reinterpret_cast<const ActionTimer*>(static_cast<const sim::Timer*>(obj));
    const char* chip = reinterpret_cast<const char*>(a->chip);
    for (std::size_t b = 0; b < kChipHotBytes; b += 64) __builtin_prefetch(chip + b);
    // The action list's line and the op counts, around the timer; the memory's directory.
    __builtin_prefetch(&a->chip->next_action_);
    __builtin_prefetch(&a->chip->op_counts_);
    __builtin_prefetch(&a->chip->memory_);
    for (const void* p : a->next)
        if (p != nullptr) __builtin_prefetch(p);
}

void TspChip::open_trains(InstrState& I, Time action) {
    const std::int64_t count = I.ins.count;
    std::vector<OutTrain>& trains = state(I).trains;
    for_each_out(I.ins, [&](std::int32_t o) {
        OutPortState& op = outs_[static_cast<std::size_t>(o)];
        OutTrain ot;
        ot.out = o;
        ot.floor = op.tx().last_arrival();
        // A collision on the queueless link is a schedule error; the train queues behind (the run stops at it).
        const net::Transmission tr = op.tx().open_train(action, count, [&](Time busy_until) {
            report(action, op.port, I.ins.transfer, I.ins.first_vector, ErrorKind::DoubleBooked,
                   fmt::format(
                       "link {} double-booked: instruction {} ({} at cycle {}) starts transfer {} vectors {}..{} "
                       "at {} ps but the link is busy until {} ps",
                       system_.channel_name(op.channel), I.order, sched::op_name(I.ins.op), I.ins.cycle, I.ins.transfer,
                       I.ins.first_vector, I.ins.first_vector + I.ins.count - 1, action.count(), busy_until.count()));
        });
        ot.start = tr.start;
        ot.first_index = tr.index + 1 - static_cast<std::uint64_t>(count);
        ot.next = 1;
        ++op.trains;
        totals_.vectors_sent += count;
        trains.push_back(ot);
    });
}

void TspChip::act(InstrState& I, Time action) {
    ++totals_.instructions;
    ++op_counts_[static_cast<std::size_t>(I.ins.op)];
    const Time t = now();
    const std::int64_t slot0 = I.ins.address / vector_bytes_;
    switch (I.ins.op) {
        case sched::Op::Send: {
            Live& live = state(I);
            apply_deferred({action, I.order});
            take_spare(live.operand);
            memory_.read_range(slot0, I.ins.count, {action, I.order}, t, live.operand);
            open_trains(I, action);
            for (std::uint32_t k = 0; k < live.trains.size(); ++k) {
                OutTrain& ot = live.trains[k];
                if (config_.mode == ExecutionMode::Train) {
                    const OutPortState& op = outs_[static_cast<std::size_t>(ot.out)];
                    VectorRun src;
                    src.transfer = I.ins.transfer;
                    src.first_vector = I.ins.first_vector;
                    src.count = I.ins.count;
                    src.origin_channel = op.channel;
                    src.origin_start = ot.start;
                    src.origin_position = 1;
                    // The last train's run takes the operand's buffer: the Send reads it no more.
                    emit(ot, src, I.ins.count, live.operand, k + 1 == live.trains.size() ? &live.operand : nullptr);
                } else {
                    emissions_.push_back({ot.start, I.order, k});
                    std::push_heap(emissions_.begin(), emissions_.end(), std::greater<>());
                }
            }
            if (config_.mode == ExecutionMode::Train) {
                drop_live(I);  // every vector is on its way
            } else if (!emissions_.empty() &&
                       (!emission_timer_.armed() || emissions_.front().time < emission_timer_.expiry())) {
                emission_timer_.arm_at(emissions_.front().time);
            }
            break;
        }
        case sched::Op::Forward:
            open_trains(I, action);
            break;
        case sched::Op::Reduce:
            apply_deferred({action, I.order});
            take_spare(state(I).operand);
            memory_.read_range(slot0, I.ins.count, {action, I.order}, t, I.live->operand);
            if (forwards(I.ins)) open_trains(I, action);
            break;
        case sched::Op::Receive:
            break;
    }
    I.acted = true;
    if (I.live) {
        for (Pending& part : I.live->pending) {
            consume(I, part);
            give_spare(part.values);
        }
        I.live->pending.clear();  // its capacity stays with the block (a spare one keeps it for the next)
    }
    release_if_done(I);
}

void TspChip::release_if_done(InstrState& I) {
    if (I.ins.op != sched::Op::Send && I.consumed == I.ins.count) drop_live(I);
}

TspChip::Live& TspChip::state(InstrState& I) {
    if (!I.live) {
        if (spare_live_.empty()) {
            I.live = std::make_unique<Live>();
        } else {
            I.live = std::move(spare_live_.back());
            spare_live_.pop_back();
        }
    }
    return *I.live;
}

void TspChip::take_spare(SparseValues& v) {
    if (v.capacity() != 0 || spare_values_.empty()) return;
    v.swap(spare_values_.back());
    spare_values_.pop_back();
}

void TspChip::give_spare(SparseValues& v) {
    if (v.capacity() != 0 && v.capacity() <= kSpareEntries && spare_values_.size() < kSpareBuffers) {
        v.clear();
        spare_values_.push_back(std::move(v));
    }
    SparseValues().swap(v);
}

void TspChip::drop_live(InstrState& I) {
    if (!I.live) return;
    if (spare_live_.size() >= kSpareLive) {
        I.live.reset();
        return;
    }
    Live& live = *I.live;
    live.trains.clear();
    // The operand's buffer goes to the spare values (bounded there), not with the block: 10,440 chips keeping up to
    // kSpareLive of them added about 18 MiB to the run's peak.
    give_spare(live.operand);
    live.pending.clear();
    spare_live_.push_back(std::move(I.live));
}

void TspChip::on_emission() {
    const Time t = now();
    while (!emissions_.empty() && emissions_.front().time <= t) {
        std::pop_heap(emissions_.begin(), emissions_.end(), std::greater<>());
        const Emission e = emissions_.back();
        emissions_.pop_back();
        InstrState& I = instrs_[e.instr];
        Live& live = *I.live;
        OutTrain& ot = live.trains[e.train];
        const OutPortState& op = outs_[static_cast<std::size_t>(ot.out)];
        const std::int64_t k = ot.next;
        VectorRun src;
        src.transfer = I.ins.transfer;
        src.first_vector = I.ins.first_vector + static_cast<std::uint32_t>(k - 1);
        src.count = 1;
        src.origin_channel = op.channel;
        src.origin_start = ot.start;
        src.origin_position = k;
        scratch_.clear();
        const std::int64_t v = value_at(live.operand, static_cast<std::uint32_t>(k - 1));
        if (v != 0) scratch_.emplace_back(0, v);
        emit(ot, src, 1, scratch_);
        if (ot.next <= static_cast<std::int64_t>(I.ins.count)) {
            emissions_.push_back({ot.start + op.tx().timing().serialization(ot.next - 1), e.instr, e.train});
            std::push_heap(emissions_.begin(), emissions_.end(), std::greater<>());
        } else if (std::all_of(live.trains.begin(), live.trains.end(), [&](const OutTrain& x) {
                       return x.next > static_cast<std::int64_t>(I.ins.count);
                   })) {
            drop_live(I);  // its last vector is on its way on every port
        }
    }
    if (!emissions_.empty()) emission_timer_.arm_at(emissions_.front().time);
}

// ---- vectors on the wire --------------------------------------------------------------------------------------

void TspChip::emit(OutTrain& ot, const VectorRun& src, std::uint32_t m, const SparseValues& values,
                   SparseValues* take) {
    OutPortState& op = outs_[static_cast<std::size_t>(ot.out)];
    const bool jitter = op.jitter;
    // Unit k of the train: op.tx().unit_arrival(ot.start, k, ot.first_index, floor).
    auto unit_arrival = [&](std::int64_t k, Time floor) {
        return op.arrivals.arrival_after(ot.start + op.serial(k), ot.first_index + static_cast<std::uint64_t>(k - 1),
                                         floor);
    };
    auto post = [&](const VectorRun& r, Time arrival, const SparseValues* vals, std::uint32_t from, std::uint32_t n) {
        std::uint32_t h = 0;
        WireEntry& e = op.link->push(h);
        LOOM_ASSERT(h <= WireArg::kHandleMask, fmt::format("{}: more than {} runs on a link", path(), WireArg::kHandleMask));
        e.run = r;
        e.values.clear();
        if (vals && !vals->empty()) {
            if (take != nullptr && vals == take && from == 0 && n >= m) {
                e.values.swap(*take);  // the whole run's values move with it
            } else {
                if (e.values.capacity() == 0) take_spare(e.values);
                if (from == 0 && n >= m) {
                    e.values = *vals;
                } else {
                    slice(*vals, from, n, e.values);
                }
            }
        }
        op.link->post(WireArg::encode(op.peer_port, h), arrival, now());
    };
    VectorRun r;
    r.transfer = src.transfer;
    r.channel = op.channel;
    r.train_start = ot.start;
    r.first_index = ot.first_index;
    r.origin_channel = src.origin_channel;
    r.origin_start = src.origin_start;
    if (config_.mode == ExecutionMode::Train) {
        r.first_vector = src.first_vector;
        r.count = m;
        r.position = ot.next;
        r.floor = ot.floor;
        r.origin_position = src.origin_position;
        const Time first = unit_arrival(ot.next, ot.floor);
        Time last = first;
        if (!jitter) {
            last = unit_arrival(ot.next + m - 1, ot.floor);
        } else {
            SerialStepper sent(op.serial, ot.next + 1);
            for (std::int64_t k = ot.next + 1; k < ot.next + m; ++k) {
                last = op.arrivals.arrival_after(ot.start + sent.value(),
                                                 ot.first_index + static_cast<std::uint64_t>(k - 1), last);
                sent.next();
            }
        }
        ot.floor = last;
        ot.next += m;
        post(r, first, &values, 0, m);  // the only post of the call: `take` may be moved from
    } else {
        for (std::uint32_t k = 0; k < m; ++k) {
            r.first_vector = src.first_vector + k;
            r.count = 1;
            r.position = ot.next;
            r.floor = ot.floor;
            r.origin_position = src.origin_position + k;
            const Time arrival = unit_arrival(ot.next, ot.floor);
            ot.floor = arrival;
            ++ot.next;
            post(r, arrival, &values, k, 1);  // m == 1 only when called with `take`: a whole run
        }
    }
}

void TspChip::prefetch_arrival(const void* obj, const sim::Event& e) {
    const auto* p = static_cast<const ArrivalPort*>(static_cast<const sim::InPort*>(obj));
    const char* state = reinterpret_cast<const char*>(p->state);
    if (state == nullptr) return;
    for (std::size_t b = 0; b < 4 * 64; b += 64) __builtin_prefetch(state + b);  // its hot lines
    // The chip's: its members up to the clock's constants (edges_) come first.
    const char* chip = reinterpret_cast<const char*>(p->chip);
    for (std::size_t b = 0; b < kChipHotBytes; b += 64) __builtin_prefetch(chip + b);
    for (const void* a : p->next)
        if (a != nullptr) __builtin_prefetch(a);
#if !LOOM_OWNERSHIP_CHECKS
    // The run's entry in the sender's store, read first by on_arrival (a build with ownership checks would
    // throw: this runs in another component's event). A stale guess may name a released or absent slot.
    WireStore* store = p->store;
    const std::uint32_t h = e.arg & WireArg::kHandleMask;
    if (store != nullptr && h < store->capacity()) {
        const char* entry = reinterpret_cast<const char*>(&store->at(h));
        __builtin_prefetch(entry);
        __builtin_prefetch(entry + sizeof(WireEntry) - 1);
    }
#else
    (void)e;
#endif
}

void TspChip::note_next(std::size_t in) {
    const InPortState& ip = ins_[in];
    ArrivalPort& p = in_ports_[in];
    p.next.fill(nullptr);
    if (ip.cursor < ip.claims.size()) {
        const Claim& cl = ip.claims[ip.cursor];
        const InstrState& I = instrs_[cl.instr];
        p.next[0] = &cl;
        p.next[1] = &I;
        if (cl.out_ports != 0) {
            const OutPortState& op =
                outs_[static_cast<std::size_t>(out_index_[static_cast<std::size_t>(std::countr_zero(cl.out_ports))])];
            p.next[2] = &op;
            p.next[5] = op.link;
        } else if (cl.slot0 >= 0) {
            p.next[2] = memory_.lines_of(cl.slot0 + (ip.arrived - cl.start)).cells;
        }
    }
    p.next[3] = ip.predictions.next_entry();
    p.next[4] = ip.fifo.storage();
}

void TspChip::on_arrival(std::uint32_t arg) {
    const std::int32_t port = WireArg::port_of(arg);
    InPortState& ip = ins_[static_cast<std::size_t>(in_index_[static_cast<std::size_t>(port)])];
    const std::uint32_t h = arg & WireArg::kHandleMask;
    WireEntry& e = ip.store->at(h);
    const VectorRun run = e.run;
    // Take the values and leave the slot without a buffer: a slot keeping its capacity would hold memory for
    // every run ever in flight on the link at once. The buffer read before is kept for a run this chip posts.
    give_spare(arrived_values_);
    arrived_values_ = std::move(e.values);
    SparseValues().swap(e.values);
    ip.store->release(h);
    LOOM_DEBUG_ASSERT(system_.topology().channel(run.channel).dst_port == port, "a run arrived on another port");
    accept(ip, run, arrived_values_);
    note_next(static_cast<std::size_t>(&ip - ins_.data()));
}

void TspChip::accept(InPortState& ip, const VectorRun& run, SparseValues& values) {
    Time floor = run.floor;
    // Units position, position + 1, ... of the run's train: their last bits leave at train_start + ser(position + j).
    SerialStepper sent(ip.serial, run.position);
    auto next_arrival = [&](std::int64_t k) {
        const Time t = ip.arrivals.arrival_after(run.train_start + sent.value(),
                                             run.first_index + static_cast<std::uint64_t>(run.position + k - 1), floor);
        sent.next();
        floor = t;
        return t;
    };
    std::uint32_t j = 0;
    while (j < run.count) {
        if (ip.cursor >= ip.claims.size()) {
            const Time t = next_arrival(j);
            ++totals_.vector_hops;
            totals_.last_arrival = std::max(totals_.last_arrival, t);
            report(t, ip.port, run.transfer, run.first_vector + j, ErrorKind::Unexpected,
                   fmt::format("vector arrived where none is expected: transfer {} vector {} after the port's {} "
                               "expected vectors",
                               run.transfer, run.first_vector + j, ip.arrived));
            return;
        }
        const Claim& cl = ip.claims[ip.cursor];
        InstrState& I = instrs_[cl.instr];
        const auto m =
            static_cast<std::uint32_t>(std::min<std::int64_t>(run.count - j, cl.start + cl.count - ip.arrived));
        Pending& part = part_;  // reused: no allocation unless the part has to wait for its instruction
        part.run = run;
        part.run.first_vector = run.first_vector + j;
        part.run.count = m;
        part.run.position = run.position + j;
        part.run.floor = floor;
        part.run.origin_position = run.origin_position + j;

        // When each vector is needed: its first slot on the out ports (Forward, Reduce-and-forward) or the
        // issue plus the in-link's serialization of the vectors before it (Receive, storing Reduce).
        const std::int64_t pos0 = ip.arrived - cl.start + 1;
        const bool fwd = forwards(I.ins);
        // Only the one the instruction uses is made (each is a division or more per part).
        std::optional<ForwardDeadlines> forward;
        SerialStepper receive_slot;
        if (fwd)
            forward.emplace(*this, I, pos0);
        else
            receive_slot = SerialStepper(ip.serial, pos0 - 1);
        const bool final_hop = stores(I.ins);
        SerialStepper origin;
        if (final_hop) {
            // The stepper needs the origin link's unit size and rate only (not its latency parts).
            if (origin_pace_) {
                origin = SerialStepper(*origin_pace_, run.origin_position + j - 1);
            } else {
                const LinkTiming& ot = system_.timing(run.origin_channel);
                origin = SerialStepper(Serializer(ot.unit_wire.bits(), ot.rate.bits_per_s()), run.origin_position + j - 1);
            }
        }

        // The part in bulk when it is the instruction's next vectors (then none is unexpected: the transfer and
        // both numberings step together) and, when predictions are checked, all of them are predicted in one
        // entry of the index: the counters, the deliveries and the latency histogram are updated once for the
        // part, the predictions stepped without a lookup. Any other part goes one vector at a time (check_vector).
        Time pred_base;
        SerialStepper pred;
        const std::uint32_t vec0 = run.first_vector + j;
        if (config_.bulk_checks && run.transfer == I.ins.transfer &&
            vec0 == I.ins.first_vector + static_cast<std::uint32_t>(pos0 - 1) &&
            (!check_predictions_ || ip.predictions.take_span(run.transfer, vec0, m, pred_base, pred))) {
            accept_bulk(ip, I, run, j, m, next_arrival, forward, receive_slot, origin, pred_base, pred, fwd,
                        final_hop);
        } else {
            for (std::uint32_t v = 0; v < m; ++v) {
                const std::int64_t k = j + v;
                const Time t = next_arrival(k);
                Time need, last;
                if (fwd) {
                    need = forward->need();
                    last = forward->leave();
                    forward->next();
                } else {
                    need = I.issue + receive_slot.value();  // rule 6
                    receive_slot.next();
                }
                check_vector(ip, I, ip.arrived - cl.start + 1, run, k, t, need, last, fwd, final_hop);
                if (final_hop) {
                    latency_.record((t - (run.origin_start + origin.value())).count());
                    origin.next();
                }
                ++ip.arrived;
            }
        }
        I.claimed += m;
        if (ip.arrived == cl.start + cl.count) ++ip.cursor;
        if (j == 0 && m == run.count) {
            part.values.swap(values);  // the whole run: its buffer rather than a copy (the run's offsets are < m)
        } else {
            if (part.values.capacity() == 0) take_spare(part.values);
            slice(values, j, m, part.values);
        }
        if (I.acted) {
            consume(I, part);
            release_if_done(I);
        } else {
            state(I).pending.push_back(std::move(part));
            part.values.clear();
        }
        j += m;
    }
}

// The per-vector check's reports, out of line: they are rare, and their formatting kept the hot path's registers
// spilled.
void TspChip::report_unexpected(const InPortState& ip, const InstrState& I, const VectorRun& run, std::uint32_t vec,
                                std::uint32_t want, Time t) {
    report(t, ip.port, run.transfer, vec, ErrorKind::Unexpected,
           fmt::format("vector arrived where none is expected: transfer {} vector {} came where instruction {} "
                       "({} at cycle {}) expects transfer {} vector {}",
                       run.transfer, vec, I.order, sched::op_name(I.ins.op), I.ins.cycle, I.ins.transfer, want));
}

void TspChip::report_late(const InPortState& ip, const InstrState& I, const VectorRun& run, std::uint32_t vec, Time t,
                          Time avail, Time need) {
    report(avail, ip.port, run.transfer, vec, ErrorKind::Late,
           fmt::format("late vector: transfer {} vector {} arrived at {} ps, available at {} ps, but instruction {} "
                       "({} at cycle {}) needed it at {} ps (core cycle {})",
                       run.transfer, vec, t.count(), avail.count(), I.order, sched::op_name(I.ins.op), I.ins.cycle,
                       need.count(), clock_.edge_at_or_before(need)));
}

void TspChip::report_overflow(const InPortState& ip, const VectorRun& run, std::uint32_t vec, Time t) {
    report(t, ip.port, run.transfer, vec, ErrorKind::Overflow,
           fmt::format("FIFO overflow: transfer {} vector {} arrived with {} vectors queued (fifo_depth {})",
                       run.transfer, vec, ip.fifo.size(), fifo_depth_));
}

void TspChip::report_mispredicted(const InPortState& ip, const VectorRun& run, std::uint32_t vec, Time t,
                                  const std::optional<Time>& p) {
    if (!p) {
        report(t, ip.port, run.transfer, vec, ErrorKind::Mispredicted,
               fmt::format("transfer {} vector {} arrived on link {} with no predicted arrival", run.transfer, vec,
                           system_.channel_name(ip.channel)));
    } else {
        report(t, ip.port, run.transfer, vec, ErrorKind::Mispredicted,
               fmt::format("transfer {} vector {} arrived on link {} at {} ps, outside its predicted window "
                           "[{}, {}] ps",
                           run.transfer, vec, system_.channel_name(ip.channel), t.count(), p->count(),
                           (*p + jitter_allowance_).count()));
    }
}

void TspChip::record_arrival(const InPortState& ip, const VectorRun& run, std::int64_t k, std::uint32_t vec, Time t) {
    const std::uint64_t index = run.first_index + static_cast<std::uint64_t>(run.position + k - 1);
    arrivals_.push_back({vertex_, ip.port, run.transfer, vec, t, ip.arrivals.view().outcome(index)});
}

inline void TspChip::check_vector(InPortState& ip, InstrState& I, std::int64_t pos, const VectorRun& run,
                                  std::int64_t k, Time t, Time need, Time last_slot, bool fwd, bool final_hop) {
    const std::uint32_t vec = run.first_vector + static_cast<std::uint32_t>(k);
    const std::uint32_t want = I.ins.first_vector + static_cast<std::uint32_t>(pos - 1);
    if (run.transfer != I.ins.transfer || vec != want) [[unlikely]]
        report_unexpected(ip, I, run, vec, want, t);
    const Time avail = available(t);
    // It leaves the FIFO at its last slot (forwarding) or when consumed (written to memory).
    Time leave = fwd ? last_slot : std::max(avail, I.issue);
    if (avail > need) [[unlikely]]
        report_late(ip, I, run, vec, t, avail, need);
    // The clock-crossing FIFO holds the vector from its arrival until it leaves: [t, leave).
    leave = std::max(leave, t);
    auto& fifo = ip.fifo;
    fifo.pop_through(t);
    if (static_cast<std::int64_t>(fifo.size()) + 1 > fifo_depth_) [[unlikely]]
        report_overflow(ip, run, vec, t);
    fifo.push(leave);

    if (check_predictions_) {
        ++totals_.predictions_checked;
        const std::optional<Time> p = ip.predictions.expect(run.transfer, vec);
        if (!p) [[unlikely]] {
            report_mispredicted(ip, run, vec, t, p);
        } else {
            const Time err = t > *p ? t - *p : *p - t;
            totals_.max_prediction_error = std::max(totals_.max_prediction_error, err);
            if (t < *p || t > *p + jitter_allowance_) [[unlikely]]
                report_mispredicted(ip, run, vec, t, p);
        }
    }

    ++totals_.vector_hops;
    totals_.last_arrival = std::max(totals_.last_arrival, t);
    if (config_.record_limit > 0 && static_cast<std::int64_t>(arrivals_.size()) <= config_.record_limit) [[unlikely]]
        record_arrival(ip, run, k, vec, t);
    if (final_hop) {
        ++totals_.vectors_delivered;
        totals_.last_delivery = std::max(totals_.last_delivery, t);
        if (deliveries_.empty() || deliveries_.back().first != run.transfer) deliveries_.emplace_back(run.transfer, t);
        deliveries_.back().second = std::max(deliveries_.back().second, t);
    }
}

// check_vector for vectors j .. j + m - 1 of `run`, known to be the instruction's next ones and (when predictions
// are checked) predicted by base + pred stepped: the same checks in the same order per vector, with the same
// reports; what only sums or takes a maximum (the counters, the deliveries, the latency histogram, whose equal
// latencies are recorded as one sample repeated) is updated once for the part.
template <class NextArrival>
inline void TspChip::accept_bulk(InPortState& ip, InstrState& I, const VectorRun& run, std::uint32_t j,
                                 std::uint32_t m, NextArrival& next_arrival, std::optional<ForwardDeadlines>& forward,
                                 SerialStepper& receive_slot, SerialStepper& origin, Time pred_base,
                                 SerialStepper& pred, bool fwd, bool final_hop) {
    auto& fifo = ip.fifo;
    Time tmax = Time::ps(std::numeric_limits<std::int64_t>::min());
    Time max_err = totals_.max_prediction_error;
    std::int64_t lat_value = 0, lat_count = 0;  // the latencies not yet recorded: lat_count times lat_value
    for (std::uint32_t v = 0; v < m; ++v) {
        const std::int64_t k = j + v;
        const Time t = next_arrival(k);
        Time need, leave;
        const Time avail = available(t);
        if (fwd) {
            need = forward->need();
            leave = forward->leave();  // it leaves the FIFO at its last slot
            forward->next();
        } else {
            need = I.issue + receive_slot.value();  // rule 6
            receive_slot.next();
            leave = std::max(avail, I.issue);  // or when consumed (written to memory)
        }
        const std::uint32_t vec = run.first_vector + static_cast<std::uint32_t>(k);
        if (avail > need) [[unlikely]]
            report_late(ip, I, run, vec, t, avail, need);
        leave = std::max(leave, t);
        fifo.pop_through(t);
        if (static_cast<std::int64_t>(fifo.size()) + 1 > fifo_depth_) [[unlikely]]
            report_overflow(ip, run, vec, t);
        fifo.push(leave);
        if (check_predictions_) {
            const Time p = pred_base + pred.value();
            pred.next();
            max_err = std::max(max_err, t > p ? t - p : p - t);
            if (t < p || t > p + jitter_allowance_) [[unlikely]]
                report_mispredicted(ip, run, vec, t, std::optional<Time>(p));
        }
        tmax = std::max(tmax, t);
        if (config_.record_limit > 0 && static_cast<std::int64_t>(arrivals_.size()) <= config_.record_limit)
            [[unlikely]]
            record_arrival(ip, run, k, vec, t);
        if (final_hop) {
            const std::int64_t lat = (t - (run.origin_start + origin.value())).count();
            origin.next();
            if (lat != lat_value) {
                latency_.record_n(lat_value, lat_count);
                lat_value = lat;
                lat_count = 0;
            }
            ++lat_count;
        }
    }
    ip.arrived += m;
    totals_.vector_hops += m;
    totals_.last_arrival = std::max(totals_.last_arrival, tmax);
    if (check_predictions_) {
        totals_.predictions_checked += m;
        totals_.max_prediction_error = max_err;
    }
    if (final_hop) {
        latency_.record_n(lat_value, lat_count);
        totals_.vectors_delivered += m;
        totals_.last_delivery = std::max(totals_.last_delivery, tmax);
        if (deliveries_.empty() || deliveries_.back().first != run.transfer) deliveries_.emplace_back(run.transfer, tmax);
        deliveries_.back().second = std::max(deliveries_.back().second, tmax);
    }
}

void TspChip::consume(InstrState& I, Pending& part) {
    const std::int64_t m = part.run.count;
    const std::int64_t p0 = I.consumed;  // offset of the part's first vector within the instruction
    const bool reduce = I.ins.op == sched::Op::Reduce;
    if (stores(I.ins)) {
        const std::int64_t slot0 = I.ins.address / vector_bytes_ + p0;
        bool operand_zero = true;
        if (reduce) {
            slice(I.live->operand, p0, m, scratch_out_);
            operand_zero = scratch_out_.empty();
        }
        // Zeros written over memory that was never touched change nothing: skip the per-vector work.
        if (!(part.values.empty() && operand_zero && memory_.untouched(slot0, m))) {
            // Vector k lands at max(available, issue), key (that, program index): kept until a read or the end
            // of the run reaches it.
            const InPortState& ip = ins_[static_cast<std::size_t>(I.in)];
            std::uint32_t at;
            if (!deferred_free_.empty()) {
                at = deferred_free_.back();
                deferred_free_.pop_back();
            } else {
                at = static_cast<std::uint32_t>(deferred_parts_.size());
                deferred_parts_.emplace_back();
            }
            Deferred& d = deferred_parts_[at];
            add_deferred_range(slot0, m);
            d.key.order = I.order;
            d.k = 0;
            d.position = part.run.position <= std::numeric_limits<std::uint32_t>::max()
                             ? static_cast<std::uint32_t>(part.run.position)
                             : 0;
            d.in = &ip;
            d.issue = I.issue;
            d.slot0 = slot0;
            d.train_start = part.run.train_start;
            d.index0 = part.run.first_index + static_cast<std::uint64_t>(part.run.position - 1);
            d.floor = part.run.floor;
            d.sent = SerialStepper(ip.serial, part.run.position);
            d.values.assign(static_cast<std::size_t>(m), 0);
            for (const auto& [k, v] : part.values) d.values[k] = v;
            if (reduce)
                for (const auto& [k, v] : scratch_out_) d.values[k] = add_wrapping(d.values[k], v);
            memory_.touch_nonzero(slot0, d.values);
            step(d);
            deferred_.push_back({d.key.time, d.key.order, at});
            std::push_heap(deferred_.begin(), deferred_.end(), std::greater<>());
        }
        if (reduce) vectors_reduced_ += m;
    } else {
        const SparseValues* out = &part.values;
        if (reduce) {
            // Sum of two sparse lists.
            slice(I.live->operand, p0, m, scratch_);
            scratch_out_.clear();
            std::size_t a = 0, b = 0;
            while (a < part.values.size() || b < scratch_.size()) {
                if (b == scratch_.size() || (a < part.values.size() && part.values[a].first < scratch_[b].first)) {
                    scratch_out_.push_back(part.values[a++]);
                } else if (a == part.values.size() || scratch_[b].first < part.values[a].first) {
                    scratch_out_.push_back(scratch_[b++]);
                } else {
                    const std::int64_t s = add_wrapping(part.values[a].second, scratch_[b].second);
                    if (s != 0) scratch_out_.emplace_back(part.values[a].first, s);
                    ++a;
                    ++b;
                }
            }
            out = &scratch_out_;
            vectors_reduced_ += m;
        } else {
            vectors_forwarded_ += m;
        }
        // The last train's run takes the part's buffer when the values go on unchanged (a Forward).
        std::vector<OutTrain>& trains = I.live->trains;
        for (std::size_t x = 0; x < trains.size(); ++x)
            emit(trains[x], part.run, static_cast<std::uint32_t>(m), *out,
                 !reduce && x + 1 == trains.size() ? &part.values : nullptr);
    }
    I.consumed += part.run.count;
}

void TspChip::add_deferred_range(std::int64_t slot0, std::int64_t count) {
    const auto at = std::lower_bound(deferred_ranges_.begin(), deferred_ranges_.end(), std::make_pair(slot0, count));
    // Sorted by first slot: while none overlap, a range can overlap only its neighbours.
    if (at != deferred_ranges_.end() && at->first < slot0 + count) deferred_overlap_ = true;
    if (at != deferred_ranges_.begin() && std::prev(at)->first + std::prev(at)->second > slot0)
        deferred_overlap_ = true;
    deferred_ranges_.insert(at, {slot0, count});
}

void TspChip::drop_deferred_range(std::int64_t slot0, std::int64_t count) {
    const auto at = std::lower_bound(deferred_ranges_.begin(), deferred_ranges_.end(), std::make_pair(slot0, count));
    LOOM_DEBUG_ASSERT(at != deferred_ranges_.end() && *at == std::make_pair(slot0, count), "a deferred part's range");
    deferred_ranges_.erase(at);
    if (deferred_ranges_.empty()) deferred_overlap_ = false;
}

inline void TspChip::step(Deferred& d) {
    const Time t = d.in->arrivals.arrival_after(d.train_start + d.sent.value(), d.index0 + d.k, d.floor);
    d.sent.next();
    d.floor = t;
    d.key.time = std::max(available(t), d.issue);
}

bool TspChip::skip_to_key(Deferred& d, AccessKey before) const {
    const InPortState& ip = *d.in;
    if (!ip.arrivals.plain() || d.position == 0) return false;
    const auto n = static_cast<std::int64_t>(d.values.size());
    const std::int64_t k = d.k;
    // Vector j > k arrives at max(its last bit's leaving + latency, d.floor) (the arrival of vector k; those in
    // between are at most that), as step() would find.
    auto key_of = [&](std::int64_t j, Time& t) {
        t = ip.arrivals.arrival_after(d.train_start + ip.serial(d.position + j), d.index0 + static_cast<std::uint64_t>(j),
                                      d.floor);
        return AccessKey{std::max(available(t), d.issue), d.key.order};
    };
    // The guess: a key time is before `before` when at most `last`; available(t) <= last when t is at most the
    // edge crossing_cycles before the last edge at or before `last`; the last unit whose last bit leaves by then,
    // less the link's latency, is found from S(u) <= D <=> u * wire_bits * 10^12 <= D * rate.
    const Time last = d.key.order < before.order ? before.time : before.time - Time::ps(1);
    std::int64_t k1 = k + 1;
    const std::int64_t e = edges_.edge_at_or_after(last + Time::ps(1)) - 1 - crossing_cycles_;
    if (e >= 0) {
        const i128 slack = (edges_.edge(e) - d.train_start - ip.serial.latency()).count();
        if (slack >= 0) {
            // In 64 bits when the product fits (slack below about 10^8 ps at 10^11 bit/s), else in 128.
            const auto rate = static_cast<std::uint64_t>(ip.serial.rate());
            const i128 per_unit = static_cast<i128>(ip.serial.wire_bits()) * 1'000'000'000'000LL;
            const i128 units =
                rate > 0 && slack <= static_cast<i128>(std::numeric_limits<std::uint64_t>::max() / rate) &&
                        per_unit <= static_cast<i128>(std::numeric_limits<std::uint64_t>::max())
                    ? static_cast<i128>(static_cast<std::uint64_t>(slack) * rate / static_cast<std::uint64_t>(per_unit))
                    : slack * ip.serial.rate() / per_unit;
            k1 = static_cast<std::int64_t>(std::clamp<i128>(units - d.position + 1, k + 1, n));
        }
    }
    // Checked exactly: keys never decrease within a part, so vector k1 is the first whose key is not before
    // `before` when vector k1 - 1's is (vector k's is known to be) and k1's is not.
    Time t;
    if (k1 > k + 1 && !(key_of(k1 - 1, t) < before)) return false;
    if (k1 == n) {
        d.k = static_cast<std::uint32_t>(n);
        return true;
    }
    const AccessKey key = key_of(k1, t);
    if (key < before) return false;
    d.k = static_cast<std::uint32_t>(k1);
    d.key = key;
    d.floor = t;
    d.sent = SerialStepper(ip.serial, d.position + k1 + 1);
    return true;
}

void TspChip::apply_deferred(AccessKey before) {
    while (!deferred_.empty() && deferred_.front().key() < before) {
        // The earliest part is worked on in place at the heap's top; the earliest of the others is the smaller
        // of the top's two children.
        const std::size_t n = deferred_.size();
        Deferred& d = deferred_parts_[deferred_.front().part];
        AccessKey other{Time::max(), std::numeric_limits<std::uint32_t>::max()};
        if (n > 1) other = deferred_[1].key();
        if (n > 2 && deferred_[2].key() < other) other = deferred_[2].key();
        // Its vectors in order while they come before `before` and, when two parts in flight write one slot, before
        // every other part's next vector (two parts with equal keys belong to one instruction and write different
        // slots). While no two do, the part goes on to `before` at once: writes to different slots commute, so the
        // memory ends the same, with one heap step per part and call instead of one per vector where the parts
        // arriving on several ports interleave.
        if (deferred_overlap_) {
            for (;;) {
                memory_.apply(d.slot0 + d.k, d.values[d.k]);
                if (++d.k == d.values.size()) break;
                step(d);
                if (!(d.key < before) || other < d.key) break;
            }
        } else if (before.time == Time::max()) {
            // The end of the run: every vector lands, in one pass and without timing each.
            const std::size_t k = d.k;
            memory_.apply_range(d.slot0 + static_cast<std::int64_t>(k), d.values.data() + k,
                                static_cast<std::int64_t>(d.values.size() - k));
            d.k = static_cast<std::uint32_t>(d.values.size());
        } else {
            // The vectors before `before`, counted by their keys (found directly on a plain link), then written in
            // one pass.
            const std::size_t k0 = d.k;
            if (!(config_.bulk_checks && skip_to_key(d, before))) {
                for (;;) {
                    if (++d.k == d.values.size()) break;
                    step(d);
                    if (!(d.key < before)) break;
                }
            }
            memory_.apply_range(d.slot0 + static_cast<std::int64_t>(k0), d.values.data() + k0,
                                static_cast<std::int64_t>(d.k - k0));
        }
        if (d.k == d.values.size()) {
            drop_deferred_range(d.slot0, static_cast<std::int64_t>(d.values.size()));
            deferred_free_.push_back(deferred_.front().part);
            std::pop_heap(deferred_.begin(), deferred_.end(), std::greater<>());
            deferred_.pop_back();
        } else {
            // The top's key grew: sift it down.
            DeferredRef top = deferred_.front();
            top.time = d.key.time;
            top.order = d.key.order;
            std::size_t i = 0;
            for (;;) {
                std::size_t c = 2 * i + 1;
                if (c >= n) break;
                if (c + 1 < n && deferred_[c + 1].key() < deferred_[c].key()) ++c;
                if (!(deferred_[c].key() < top.key())) break;
                deferred_[i] = deferred_[c];
                i = c;
            }
            deferred_[i] = top;
        }
    }
}

void TspChip::finish() {
    // Every write lands by the end of the run: the final memory is read after this (data check, statistics).
    apply_deferred({Time::max(), std::numeric_limits<std::uint32_t>::max()});
    // Every part has landed: the slab's values (kept for reuse while running) go before the model's end-of-run
    // work, which is the command's peak at 10,440 TSPs.
    std::vector<DeferredRef>().swap(deferred_);
    std::vector<Deferred>().swap(deferred_parts_);
    std::vector<std::uint32_t>().swap(deferred_free_);
    std::vector<std::pair<std::int64_t, std::int64_t>>().swap(deferred_ranges_);
    std::vector<SparseValues>().swap(spare_values_);
    std::vector<std::unique_ptr<Live>>().swap(spare_live_);
}

// ---- end of run -----------------------------------------------------------------------------------------------

std::vector<sched::Instruction> TspChip::program() const {
    std::vector<sched::Instruction> out;
    out.reserve(instrs_.size());
    for (const InstrState& I : instrs_) out.push_back(I.ins);
    return out;
}

void TspChip::release_run_state() {
    std::vector<InstrState>().swap(instrs_);
    std::vector<Action>().swap(actions_);
    next_action_ = 0;
    std::vector<Emission>().swap(emissions_);
    std::vector<DeferredRef>().swap(deferred_);
    std::vector<Deferred>().swap(deferred_parts_);
    std::vector<std::uint32_t>().swap(deferred_free_);
    std::vector<std::pair<std::int64_t, std::int64_t>>().swap(deferred_ranges_);
    for (InPortState& ip : ins_) {
        std::vector<Claim>().swap(ip.claims);
        ip.cursor = 0;
        ip.fifo.release();
        ip.predictions = PredictionIndex();
    }
    // write_stats lists the final contents of a memory of at most 256 cells.
    if (memory_.cells() > 256) memory_ = TimedMemory();
    SparseValues().swap(arrived_values_);
    std::vector<SparseValues>().swap(spare_values_);
    std::vector<std::unique_ptr<Live>>().swap(spare_live_);
    part_ = Pending();
    SparseValues().swap(scratch_);
    SparseValues().swap(scratch_out_);
}

void TspChip::release_merged() {
    latency_ = stats::Histogram();
    std::vector<std::pair<std::uint32_t, Time>>().swap(deliveries_);
}

void TspChip::check_complete(std::vector<ScheduleError>& out) const {
    for (const InstrState& I : instrs_) {
        if (I.ins.op == sched::Op::Send || I.claimed >= I.ins.count) continue;
        const InPortState& ip = ins_[static_cast<std::size_t>(I.in)];
        const std::int64_t pos = I.claimed + 1;
        const Time need =
            forwards(I.ins) ? ForwardDeadlines(*this, I, pos).need() : I.issue + ip.timing->serialization(pos - 1);
        const auto vec = I.ins.first_vector + static_cast<std::uint32_t>(I.claimed);
        out.push_back({need, vertex_, ip.port, I.ins.transfer, vec, ErrorKind::Missing,
                       where(need, ip.port) +
                           fmt::format("vectors never arrived: instruction {} ({} at cycle {}) expected {} vectors of "
                                       "transfer {} from vector {}; {} arrived",
                                       I.order, sched::op_name(I.ins.op), I.ins.cycle, I.ins.count, I.ins.transfer,
                                       I.ins.first_vector, I.claimed)});
    }
    for (const InPortState& ip : ins_) {
        for (const PredictionIndex::Missing& m : ip.predictions.missing()) {
            out.push_back({m.predicted, vertex_, ip.port, m.transfer, m.first_vector, ErrorKind::Missing,
                           where(m.predicted, ip.port) +
                               fmt::format("predicted vectors never arrived: {} vectors of transfer {} from vector {} "
                                           "on link {}",
                                           m.count, m.transfer, m.first_vector, system_.channel_name(ip.channel))});
        }
    }
}

std::vector<TspChip::LinkUse> TspChip::link_use() const {
    std::vector<LinkUse> out;
    out.reserve(outs_.size());
    for (const OutPortState& op : outs_)
        out.push_back({op.channel, static_cast<std::int64_t>(op.tx().units_sent()), op.tx().busy_time(),
                       static_cast<std::int64_t>(op.tx().corrected()), static_cast<std::int64_t>(op.tx().uncorrectable())});
    return out;
}

void TspChip::write_stats(stats::Group& group, Time span) const {
    group.counter("instructions").set(totals_.instructions);
    group.set("ops", stats::Json{{"send", op_counts_[0]},
                                 {"forward", op_counts_[1]},
                                 {"receive", op_counts_[2]},
                                 {"reduce", op_counts_[3]}});
    group.counter("vectors_sent").set(totals_.vectors_sent);
    group.counter("vector_hops").set(totals_.vector_hops);
    group.counter("vectors_delivered").set(totals_.vectors_delivered);
    group.counter("vectors_forwarded").set(vectors_forwarded_);
    group.counter("vectors_reduced").set(vectors_reduced_);
    // The ports' figures as numbers and names now, their JSON when the document is made (Group::set_deferred): at
    // 10,440 TSPs the port tables are 1.25M leaves, which the group and the document each held a copy of.
    // The names of a chip's ports go into one string (`names`), a row holding where its two are: two strings a row
    // cost about 100 bytes with their heap blocks, at 345k rows at 10,440 TSPs.
    struct PortRow {
        int port;
        std::uint32_t names_at, link_size, peer_size;  // link, then peer, from names_at in `names`
        std::string_view link_class;
        std::uint64_t vectors_out;  // the types the JSON had (unsigned counts from the transmitter)
        std::int64_t vectors_in, trains, busy_ps;
        double utilization;
        std::uint64_t corrected, uncorrectable;
    };
    std::vector<PortRow> rows;
    std::string names;
    const topo::FrozenTopology& t = system_.topology();
    std::size_t used = 0;
    for (std::size_t i = 0; i < outs_.size(); ++i)
        used += outs_[i].tx().units_sent() > 0 || ins_[i].arrived > 0 ? 1 : 0;
    rows.reserve(used);
    // A link's name is its source's path and port (TspSystem::channel_name): the source, this chip, is named once.
    std::string src_path;
    topo::VertexId src_named = -1;
    for (std::size_t i = 0; i < outs_.size(); ++i) {
        const OutPortState& op = outs_[i];
        const InPortState& ip = ins_[i];
        if (op.tx().units_sent() == 0 && ip.arrived == 0) continue;
        const topo::Channel& ch = t.channel(op.channel);
        const Time busy = op.tx().busy_time();
        if (src_named != ch.src || src_path.empty()) {
            src_path = system_.tsp_path(ch.src);
            src_named = ch.src;
        }
        const std::string link = TspSystem::port_name(src_path, ch.src_port), peer = system_.tsp_path(ch.dst);
        rows.push_back(
            {op.port, static_cast<std::uint32_t>(names.size()), static_cast<std::uint32_t>(link.size()),
             static_cast<std::uint32_t>(peer.size()), topo::link_class_name(ch.link_class), op.tx().units_sent(),
             ip.arrived, op.trains, busy.count(),
             span > Time::zero() ? static_cast<double>(busy.count()) / static_cast<double>(span.count()) : 0.0,
             op.tx().corrected(), op.tx().uncorrectable()});
        names += link;
        names += peer;
    }
    names.shrink_to_fit();
    group.set_deferred("ports", [rows = std::move(rows), names = std::move(names)] {
        // Each row's object is filled in key order with end hints: the initializer-list form built each member
        // as a two-element array first and then moved it into the map (about 15k instructions a row).
        stats::Json ports = stats::Json::object();
        auto& table = ports.get_ref<stats::Json::object_t&>();
        for (const PortRow& r : rows) {
            stats::Json row = stats::Json::object();
            auto& o = row.get_ref<stats::Json::object_t&>();
            o.emplace_hint(o.end(), "busy_ps", r.busy_ps);
            o.emplace_hint(o.end(), "class", std::string(r.link_class));
            o.emplace_hint(o.end(), "corrected", r.corrected);
            o.emplace_hint(o.end(), "link", names.substr(r.names_at, r.link_size));
            o.emplace_hint(o.end(), "peer", names.substr(r.names_at + r.link_size, r.peer_size));
            o.emplace_hint(o.end(), "trains", r.trains);
            o.emplace_hint(o.end(), "uncorrectable", r.uncorrectable);
            o.emplace_hint(o.end(), "utilization", r.utilization);
            o.emplace_hint(o.end(), "vectors_in", r.vectors_in);
            o.emplace_hint(o.end(), "vectors_out", r.vectors_out);
            table.insert_or_assign(fmt::format("port{}", r.port), std::move(row));
        }
        return ports;
    });
    // Final memory contents of small runs, so data flow can be read off the report.
    if (memory_.cells() > 0 && memory_.cells() <= 256) {
        stats::Json mem = stats::Json::array();
        for (const auto& [slot, value] : memory_.final_contents())
            mem.push_back(stats::Json::array({slot * vector_bytes_, value}));
        group.set("memory", mem);
    }
}

}  // namespace loom::tsp
