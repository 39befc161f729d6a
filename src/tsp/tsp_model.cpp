#include "loom/tsp/tsp_model.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "loom/base/error.hpp"
#include "loom/sched/scheduler.hpp"
#include "loom/sched/scheduler_config.hpp"
#include "loom/sched/trace.hpp"
#include "loom/sched/verifier.hpp"
#include "loom/topo/global_address_map.hpp"
#include "loom/topo/tsp_topology.hpp"
#include "loom/stats/group.hpp"
#include "loom/tsp/tsp_stats.hpp"
#include "loom/workload/collective.hpp"
#include "loom/workload/transfer.hpp"

namespace loom::tsp {
namespace {

// Hands the heap's free pages back to the system between phases: the compile frees its working structures in
// many small blocks, and without this the next phase's large arrays are mapped on top of them (at 10,440 TSPs
// the peak was the compile's freed heap plus the verifier's tables). Only glibc has malloc_trim.
void return_free_memory() {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

// Times per transfer id, sorted by id with one entry per id: flat, 16 bytes an entry, where a std::map node costs
// about 64 with the allocator's header (over a million transfers at 10,440 TSPs, at the end-of-run peak).
using TransferTimes = std::vector<std::pair<std::uint32_t, Time>>;

// Sorts `v` by id and folds entries of one id into one with `pick(kept, other)` (commutative: min or max).
// Transfer ids count up from 0, so when they are dense enough the entries are folded into a table indexed by id
// and read back in id order, in linear time: the sort was about a fifth of write_stats' instructions.
template <class Pick>
void sort_and_fold(TransferTimes& v, Pick pick) {
    if (v.empty()) return;
    std::uint32_t hi = 0;
    for (const auto& e : v) hi = std::max(hi, e.first);
    if (hi <= 4 * v.size() + 4096) {
        std::vector<Time> at(static_cast<std::size_t>(hi) + 1);
        std::vector<std::uint8_t> seen(static_cast<std::size_t>(hi) + 1, 0);
        for (const auto& [id, t] : v) {
            if (seen[id] != 0) {
                at[id] = pick(at[id], t);
            } else {
                seen[id] = 1;
                at[id] = t;
            }
        }
        std::size_t out = 0;
        for (std::uint32_t id = 0; id <= hi; ++id)
            if (seen[id] != 0) v[out++] = {id, at[id]};
        v.resize(out);
        return;
    }
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::size_t out = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (out > 0 && v[out - 1].first == v[i].first)
            v[out - 1].second = pick(v[out - 1].second, v[i].second);
        else
            v[out++] = v[i];
    }
    v.resize(out);
}

// The time of transfer `id` in `v` (sorted by sort_and_fold), or nullptr.
const Time* find_time(const TransferTimes& v, std::uint32_t id) {
    const auto it =
        std::lower_bound(v.begin(), v.end(), id, [](const auto& e, std::uint32_t k) { return e.first < k; });
    return it != v.end() && it->first == id ? &it->second : nullptr;
}

// find_time() by a table indexed by id when the ids are dense enough (transfer ids count up from 0): the latency
// loop looks up every dependency of every transfer, a binary search each over a table of a million at 10,440 TSPs.
class TimeLookup {
public:
    explicit TimeLookup(const TransferTimes& v) : v_(v) {
        if (v.empty() || v.back().first > 4 * v.size() + 4096) return;
        at_.assign(static_cast<std::size_t>(v.back().first) + 1, -1);
        for (std::size_t i = 0; i < v.size(); ++i) at_[v[i].first] = static_cast<std::int32_t>(i);
    }
    const Time* find(std::uint32_t id) const {
        if (at_.empty()) return find_time(v_, id);
        return id < at_.size() && at_[id] >= 0 ? &v_[static_cast<std::size_t>(at_[id])].second : nullptr;
    }

private:
    const TransferTimes& v_;
    std::vector<std::int32_t> at_;  // by id: index into v_, -1 if absent
};

const char* fec_name(net::FecOutcome f) {
    switch (f) {
        case net::FecOutcome::Clean:
            return "clean";
        case net::FecOutcome::Corrected:
            return "corrected";
        case net::FecOutcome::Uncorrectable:
            return "uncorrectable";
    }
    return "?";
}

double ratio(Time a, Time b) {
    return b > Time::zero() ? static_cast<double>(a.count()) / static_cast<double>(b.count()) : 0.0;
}

}  // namespace

TspModel::TspModel(sim::Simulator& sim, std::unique_ptr<TspSystem> system,
                   ExecutorConfig executor, Program program, std::vector<TspChip*> chips, bool recording)
    : sim_(sim),
      system_(std::move(system)),
      executor_(executor),
      program_(std::move(program)),
      chips_(std::move(chips)),
      recording_(recording) {
    add_probes();
}

std::int64_t TspModel::vector_hops() const {
    std::int64_t n = 0;
    for (const TspChip* c : chips_) n += c->totals().vector_hops;
    return n;
}

std::uint64_t TspModel::runs_sent() const {
    std::uint64_t n = 0;
    for (const TspChip* c : chips_) n += c->runs_sent();
    return n;
}

std::string TspModel::perf_fields() const {
    std::string out = fmt::format(" mode={} tsps={} vector_hops={} runs={}", to_string(executor_.mode),
                                  chips_.size(), vector_hops(), runs_sent());
    if (program_.from_workload)
        out += program_.verified ? fmt::format(" verify_s={:.3f}", program_.verify_wall_s) : " verify=off";
    return out;
}

void TspModel::finish() {
    std::vector<ScheduleError> errors;
    for (const TspChip* c : chips_) errors.insert(errors.end(), c->errors().begin(), c->errors().end());
    // Nothing pending: every instruction acted and every vector landed, so completeness can be judged.
    // A train's arrivals are known when it starts, so the last event can come before the last arrival: a vector
    // that lands after end_time has not arrived within the simulated time either.
    Time last_arrival = Time::zero();
    for (const TspChip* c : chips_) last_arrival = std::max(last_arrival, c->totals().last_delivery);
    const bool late_past_end = last_arrival > sim_.run_end();
    const bool complete = sim_.pending() == 0 && !late_past_end;
    if (errors.empty() && complete) {
        for (const TspChip* c : chips_) c->check_complete(errors);
    }
    std::string data_error;
    if (errors.empty() && complete) {
        const std::int64_t vb = system_->vector_bytes();
        for (const MemoryBlock& b : program_.expect_memory) {
            const TspChip& chip = *chips_[b.tsp];
            for (std::size_t k = 0; k < b.values.size() && data_error.empty(); ++k) {
                const std::int64_t address = b.address + static_cast<std::int64_t>(k) * vb;
                const std::int64_t got = chip.memory().final_value(address / vb);
                if (got != b.values[k])
                    data_error = fmt::format("data error at {} address {}: expected {}, got {}", chip.path(), address,
                                             b.values[k], got);
            }
            if (!data_error.empty()) break;
        }
        if (program_.data_check && data_error.empty()) {
            const DataCheck& dc = *program_.data_check;
            std::vector<std::int64_t> got_range;
            for (const DataCheck::Expect& e : dc.expected) {
                const TspChip& chip = *chips_[e.region.tsp];
                if (e.source == DataCheck::Source::Pool && e.pool >= 0 &&
                    e.pool + e.region.count <= static_cast<std::int64_t>(dc.pool.size())) {
                    // The common case (a reduction's sums) by ranges: the final values read a page at a time and
                    // compared with the pool's; the first mismatch is reported as below.
                    got_range.resize(static_cast<std::size_t>(e.region.count));
                    chip.memory().final_range(e.region.first, e.region.count, got_range.data());
                    const std::int64_t* want = dc.pool.data() + e.pool;
                    const auto at = std::mismatch(got_range.begin(), got_range.end(), want);
                    if (at.first != got_range.end()) {
                        const auto k = static_cast<std::int64_t>(at.first - got_range.begin());
                        data_error = fmt::format("data error at {} address {}: expected {}, got {}", chip.path(),
                                                 (e.region.first + k) * vb, *at.second, *at.first);
                        break;
                    }
                    continue;
                }
                for (std::int64_t k = 0; k < e.region.count; ++k) {
                    std::int64_t want = 0;
                    if (!dc.expected_value(e, k, want)) continue;
                    const std::int64_t got = chip.memory().final_value(e.region.first + k);
                    if (got != want) {
                        data_error = fmt::format("data error at {} address {}: expected {}, got {}", chip.path(),
                                                 (e.region.first + k) * vb, want, got);
                        break;
                    }
                }
                if (!data_error.empty()) break;
            }
        }
    }
    // Nothing reads the chips' instructions, memory or predictions any more: their memory goes back before the
    // statistics are built. The schedule takes its programs back from the chips (build() handed them over) for the
    // statistics and the trace.
    program_.schedule.programs.clear();
    for (std::size_t v = 0; v < chips_.size(); ++v) {
        std::vector<sched::Instruction> instructions = chips_[v]->program();
        if (!instructions.empty())
            program_.schedule.programs.push_back({static_cast<std::uint32_t>(v), std::move(instructions)});
        chips_[v]->release_run_state();
    }
    // No trim here (nor after the merge in write_stats): the end of the run is the command's peak, and the
    // statistics reuse the freed run state's heap blocks without raising it. Trimming that heap cost one
    // madvise, and so one TLB shoot-down, per free block: 4 s of system time at 10,440 TSPs for no lower peak.
    write_stats(complete);
    if (!complete && errors.empty()) {
        // Cut short (end_time): a partial makespan would pass for a result, so the run fails and says how much is
        // missing. Every vector hop is claimed by one receiving instruction.
        std::int64_t expected = 0;
        for (const sched::TspProgram& p : program_.schedule.programs)
            for (const sched::Instruction& ins : p.instructions)
                if (ins.op != sched::Op::Send) expected += ins.count;
        if (late_past_end && sim_.pending() == 0)
            throw ModelError(fmt::format("run cut short at {} (end_time): the last vector arrives at {}, after it; "
                                         "no makespan or efficiency",
                                         to_string(sim_.run_end()), to_string(last_arrival)));
        if (expected > 0)
            throw ModelError(fmt::format("run cut short at {} (end_time): {} of {} vector arrivals had not happened; "
                                         "no makespan or efficiency",
                                         to_string(sim_.now()), expected - vector_hops(), expected));
    }
    if (!errors.empty()) {
        const auto first = std::min_element(errors.begin(), errors.end());
        throw ModelError(first->message);
    }
    if (!data_error.empty()) throw ModelError(data_error);
}

std::optional<std::string> TspModel::trace() const {
    return sched::trace_json(program_.schedule, system_->topology(), system_->links(), system_->chip()).dump();
}

void TspModel::write_stats(bool complete) {
    stats::Group& g = sim_.stats().group("tsp");
    const topo::FrozenTopology& t = system_->topology();

    ChipTotals sum;
    Time span, last_delivery, max_error;
    std::int64_t checked = 0;
    stats::Histogram latency;
    for (const TspChip* c : chips_) {
        const ChipTotals& x = c->totals();
        sum.instructions += x.instructions;
        sum.vectors_sent += x.vectors_sent;
        sum.vector_hops += x.vector_hops;
        sum.vectors_delivered += x.vectors_delivered;
        span = std::max(span, x.last_arrival);
        last_delivery = std::max(last_delivery, x.last_delivery);
        max_error = std::max(max_error, x.max_prediction_error);
        checked += x.predictions_checked;
        latency.merge(c->latency());
    }
    g.counter("tsps").set(t.num_vertices());
    g.counter("compute_tsps").set(t.num_compute_vertices());
    std::int64_t active = 0;
    for (const TspChip* c : chips_) active += c->active() ? 1 : 0;
    g.counter("active_tsps").set(active);
    g.counter("instructions").set(sum.instructions);
    g.counter("vectors_sent").set(sum.vectors_sent);
    g.counter("vector_hops").set(sum.vector_hops);
    g.counter("vectors_delivered").set(sum.vectors_delivered);
    g.set("complete", complete);
    g.set("makespan_ps", last_delivery.count());
    g.set("makespan_ns", last_delivery.to_ns());
    g.set("makespan_cycles", system_->chip().clock().edge_at_or_after(last_delivery));

    // Per transfer: from the issue of its first Send to its last vector's arrival at a final destination.
    // Both tables are freed before the chips' statistics are written (the end of the run is the command's peak).
    {
        const ClockDomain clock = system_->chip().clock();
        std::size_t sends = 0;
        for (const sched::TspProgram& p : program_.schedule.programs)
            for (const sched::Instruction& ins : p.instructions) sends += ins.op == sched::Op::Send ? 1 : 0;
        TransferTimes first_send;
        first_send.reserve(sends);
        for (const sched::TspProgram& p : program_.schedule.programs)
            for (const sched::Instruction& ins : p.instructions)
                if (ins.op == sched::Op::Send) first_send.emplace_back(ins.transfer, sched::issue_time(clock, ins));
        sort_and_fold(first_send, [](Time a, Time b) { return std::min(a, b); });
        std::size_t delivered = 0;
        for (const TspChip* c : chips_) delivered += c->deliveries().size();
        TransferTimes done;
        done.reserve(delivered);
        for (TspChip* c : chips_) {
            for (const auto& [id, t_done] : c->deliveries()) done.emplace_back(id, t_done);
            c->release_merged();  // latency and deliveries are merged above
        }
        sort_and_fold(done, [](Time a, Time b) { return std::max(a, b); });
        // Time in network: from the first Send's issue. Latency: from the instant the transfer may start,
        // max(earliest, dependencies complete + compute_before) (paced_by, an order of the schedule only, left out),
        // as the dynamic network's comparison measures it; a hand-written program has no such instant.
        stats::Histogram network_time;
        {
            const TimeLookup issue_of(first_send);
            for (const auto& [id, t_done] : done) {
                if (const Time* issued = issue_of.find(id)) network_time.record((t_done - *issued).count());
            }
        }
        stats::Histogram transfer_latency = network_time;
        if (!program_.readiness.empty()) {
            transfer_latency = stats::Histogram();
            const TimeLookup done_of(done);
            for (const Program::Readiness& r : program_.readiness) {
                const Time* finished = done_of.find(r.transfer);
                if (finished == nullptr) continue;
                Time ready = r.earliest;
                for (std::uint64_t k = r.first_dep; k < r.first_dep + r.dep_count; ++k) {
                    if (const Time* dep = done_of.find(program_.readiness_deps[k]))
                        ready = std::max(ready, *dep + r.compute_before);
                }
                transfer_latency.record((*finished - ready).count());
            }
        }
        g.counter("transfers").set(static_cast<std::int64_t>(first_send.size()));
        g.set("transfer_latency", transfer_latency.to_json("ps"));
        g.set("transfer_network_time", network_time.to_json("ps"));
    }

    // Bandwidth per TSP over the makespan: payload bytes leaving and arriving on its links (forwarded vectors
    // count at every TSP they pass), mean over active TSPs and the largest.
    {
        const double secs = static_cast<double>(last_delivery.count()) * 1e-12;
        const double unit = static_cast<double>(system_->links().unit_payload.count());
        double sent_sum = 0, sent_max = 0, recv_sum = 0, recv_max = 0;
        std::int64_t n = 0;
        for (const TspChip* c : chips_) {
            if (!c->active() || secs <= 0) continue;
            const double sent = static_cast<double>(c->totals().vectors_sent) * unit / secs;
            const double recv = static_cast<double>(c->totals().vector_hops) * unit / secs;
            sent_sum += sent;
            recv_sum += recv;
            sent_max = std::max(sent_max, sent);
            recv_max = std::max(recv_max, recv);
            ++n;
        }
        const double dn = n > 0 ? static_cast<double>(n) : 1.0;
        g.set("bandwidth", stats::Json{{"sent_mean_bytes_per_s", sent_sum / dn},
                                       {"sent_max_bytes_per_s", sent_max},
                                       {"received_mean_bytes_per_s", recv_sum / dn},
                                       {"received_max_bytes_per_s", recv_max}});
    }
    g.set("active_until_ps", span.count());
    g.set("vector_latency", latency.to_json("ps"));

    // Links by class: directed channels, the ones used, vectors, busy time, utilization over the active span.
    struct ClassUse {
        std::int64_t channels = 0, used = 0, vectors = 0, corrected = 0, uncorrectable = 0;
        Time busy, busiest;
    };
    std::map<std::string, ClassUse> classes;
    for (topo::ChannelId c = 0; c < t.num_channels(); ++c)
        ++classes[std::string(topo::link_class_name(t.channel(c).link_class))].channels;
    std::int64_t corrected = 0, uncorrectable = 0;
    Time busiest;
    for (const TspChip* c : chips_) {
        for (const TspChip::LinkUse& u : c->link_use()) {
            ClassUse& cu = classes[std::string(topo::link_class_name(t.channel(u.channel).link_class))];
            if (u.vectors > 0) ++cu.used;
            cu.vectors += u.vectors;
            cu.busy += u.busy;
            cu.busiest = std::max(cu.busiest, u.busy);
            cu.corrected += u.corrected;
            cu.uncorrectable += u.uncorrectable;
            corrected += u.corrected;
            uncorrectable += u.uncorrectable;
            busiest = std::max(busiest, u.busy);
        }
    }
    stats::Json links = stats::Json::object();
    for (const auto& [name, cu] : classes) {
        const double denom = static_cast<double>(cu.channels) * static_cast<double>(span.count());
        links[name] = stats::Json{{"channels", cu.channels},
                                  {"channels_used", cu.used},
                                  {"vectors", cu.vectors},
                                  {"busy_ps", cu.busy.count()},
                                  {"bytes_per_s", last_delivery > Time::zero()
                                                      ? static_cast<double>(cu.vectors) *
                                                            static_cast<double>(system_->links().unit_payload.count()) /
                                                            (static_cast<double>(last_delivery.count()) * 1e-12)
                                                      : 0.0},
                                  {"utilization", denom > 0 ? static_cast<double>(cu.busy.count()) / denom : 0.0},
                                  {"max_utilization", ratio(cu.busiest, span)},
                                  {"corrected", cu.corrected},
                                  {"uncorrectable", cu.uncorrectable}};
    }
    g.set("links", links);
    g.set("busiest_link_busy_ps", busiest.count());
    // FEC: corrected errors cost nothing; an uncorrectable one is detected and the runtime replays the inference
    // (no link-level retry: that would move arrival times and break the schedule).
    g.set("fec",
          stats::Json{
              {"corrected", corrected}, {"uncorrectable", uncorrectable}, {"replay_required", uncorrectable > 0}});

    const topo::GlobalAddressMap map(t, system_->chip().memory);
    g.set("global_memory", stats::Json{{"capacity_bytes", map.capacity().count()},
                                       {"capacity", to_string(map.capacity())},
                                       {"per_tsp_bytes", map.per_tsp().count()},
                                       {"tsps", map.tsps()}});

    if (program_.collective) {
        const workload::CollectiveLayout& c = *program_.collective;
        g.set("collective", stats::Json{{"kind", std::string(workload::collective_kind_name(c.kind))},
                                        {"algorithm", std::string(workload::collective_algorithm_name(c.algorithm))},
                                        {"levels", c.levels},
                                        {"tsps", static_cast<std::int64_t>(c.members.size())},
                                        {"bytes_per_tsp", c.bytes_per_tsp.count()},
                                        {"padding_bytes", c.padding_bytes.count()},
                                        {"transfers", c.transfers}});
    }

    // Destination slots whose final contents the run checks: a workload's data check, a program's expect_memory.
    {
        std::int64_t slots = 0;
        for (const MemoryBlock& b : program_.expect_memory) slots += static_cast<std::int64_t>(b.values.size());
        if (program_.data_check) slots += program_.data_check->slots();
        const bool on = !program_.from_workload || program_.data_check.has_value();
        stats::Json dj{{"on", on}, {"slots", slots}};
        if (program_.data_check) dj["ambiguous_slots"] = program_.data_check->ambiguous_slots;
        g.set("data_check", dj);
    }

    const sched::Schedule& s = program_.schedule;
    const bool predicted = program_.had_predictions || !s.predicted.empty();
    if (predicted || s.lower_bound > Time::zero()) {
        stats::Json sj{{"jitter_allowance_ps", s.jitter_allowance.count()}, {"vectors_checked", checked}};
        if (program_.from_workload) sj["verified"] = program_.verified;
        if (predicted) sj["prediction_error_ps"] = max_error.count();
        if (s.makespan > Time::zero()) sj["predicted_makespan_ps"] = s.makespan.count();
        // Figures from a partial run would flatter it: only a complete run has a makespan to measure.
        if (s.lower_bound > Time::zero() && complete) {
            sj["lower_bound_ps"] = s.lower_bound.count();
            sj["efficiency"] = ratio(s.lower_bound, last_delivery);
            stats::Json terms = stats::Json::object();
            for (const sched::BoundTerm& b : s.bound.terms)
                terms[b.name] = stats::Json{{"ps", b.value.count()}, {"where", b.where}};
            sj["bound_terms"] = terms;
            sj["bound_binding"] = s.bound.binding;
            sj["link_utilization_max"] = ratio(s.bound.busiest_link, last_delivery);
            if (s.bound.algorithm > Time::zero()) {
                sj["algorithm_bound_ps"] = s.bound.algorithm.count();
                sj["algorithm_efficiency"] = ratio(s.bound.algorithm, last_delivery);
            }
        }
        g.set("schedule", sj);
    }

    // Every vector's arrival at every hop, for small runs.
    if (recording_ && sum.vector_hops <= executor_.record_limit) {
        std::vector<ArrivalRecord> all;
        for (const TspChip* c : chips_) all.insert(all.end(), c->arrivals().begin(), c->arrivals().end());
        std::sort(all.begin(), all.end());
        stats::Json list = stats::Json::array();
        for (const ArrivalRecord& a : all) {
            list.push_back(stats::Json{{"tsp", t.vertex_name(a.tsp)},
                                       {"port", a.port},
                                       {"transfer", a.transfer},
                                       {"vector", a.vector},
                                       {"arrival_ps", a.arrival.count()},
                                       {"fec", fec_name(a.fec)}});
        }
        g.set("arrivals", list);
    }

    for (const TspChip* c : chips_)
        if (c->active()) c->write_stats(sim_.stats().group(c->path()), span);
}

std::unique_ptr<TspModel> build(std::unique_ptr<TspSystem> system, const ExecutorConfig& executor, Program program,
                                sim::Simulator& sim) {
    const topo::FrozenTopology& t = system->topology();
    const std::int32_t n = t.num_vertices();
    std::vector<ChipProgram> per(static_cast<std::size_t>(n));
    const bool check = !program.schedule.predicted.empty();
    for (ChipProgram& p : per) {
        p.jitter_allowance = program.schedule.jitter_allowance;
        p.check_predictions = check;
    }
    auto chip_of = [&](std::uint32_t tsp, const char* what) -> ChipProgram& {
        if (tsp >= static_cast<std::uint32_t>(n))
            throw InputError(fmt::format("schedule: {} names TSP {} but the system has {}", what, tsp, n));
        return per[tsp];
    };
    // The chips take the instructions (the largest part of a compiled schedule, a second copy through the run
    // otherwise); finish() gives the schedule its programs back from them.
    for (sched::TspProgram& p : program.schedule.programs) {
        ChipProgram& cp = chip_of(p.tsp, "a program");
        if (cp.instructions.empty())
            cp.instructions = std::move(p.instructions);
        else
            cp.instructions.insert(cp.instructions.end(), p.instructions.begin(), p.instructions.end());
    }
    std::vector<sched::TspProgram>().swap(program.schedule.programs);
    const std::int64_t vb = system->vector_bytes();
    for (const MemoryBlock& b : program.memory) {
        ChipProgram& cp = chip_of(b.tsp, "initial memory");
        for (std::size_t k = 0; k < b.values.size(); ++k)
            cp.memory.emplace_back(b.address / vb + static_cast<std::int64_t>(k), b.values[k]);
    }
    for (const MemoryBlock& b : program.expect_memory) chip_of(b.tsp, "expected memory");
    if (program.data_check) {
        for (const DataCheck::Region& r : program.data_check->initial) {
            ChipProgram& cp = chip_of(r.tsp, "the data check");
            cp.seeded.push_back(r);
            cp.data_check = &*program.data_check;
        }
        for (const DataCheck::Expect& e : program.data_check->expected) chip_of(e.region.tsp, "the data check");
    }
    for (const sched::PredictedRun& r : program.schedule.predicted) {
        if (r.channel >= static_cast<std::uint32_t>(t.num_channels()))
            throw InputError(fmt::format("schedule: predicted run of transfer {} on channel {} but the system has {}",
                                         r.transfer, r.channel, t.num_channels()));
        per[static_cast<std::size_t>(t.channel(static_cast<topo::ChannelId>(r.channel)).dst)].predicted.push_back(r);
    }
    // The chips hold their predictions now; the schedule's copies and its reservations are read by nothing after
    // this (the trace draws trains from the instructions), so they go before the run allocates its memory.
    program.had_predictions = check;
    std::vector<sched::PredictedRun>().swap(program.schedule.predicted);
    std::vector<sched::Reservation>().swap(program.schedule.reservations);

    // Every vector hop is claimed by one receiving instruction, so the program says how many there will be: list
    // them only if they fit (a chip would otherwise record up to the limit for nothing).
    std::int64_t expected_hops = 0;
    for (const ChipProgram& cp : per)
        for (const sched::Instruction& ins : cp.instructions)
            if (ins.op != sched::Op::Send) expected_hops += ins.count;
    ExecutorConfig chip_config = executor;
    if (expected_hops > executor.record_limit) chip_config.record_limit = 0;

    // Chips by vertex, created in the order construction_order gives (their source ids come from their paths).
    std::vector<TspChip*> chips(static_cast<std::size_t>(n), nullptr);
    for (const std::uint32_t k : sim.construction_order(static_cast<std::uint32_t>(n), "tsp")) {
        const auto v = static_cast<topo::VertexId>(k);
        chips[k] = &sim.add<TspChip>(system->tsp_path(v), *system, v, chip_config, std::move(per[k]));
    }
    for (topo::ChannelId c = 0; c < t.num_channels(); ++c) {
        const topo::Channel& ch = t.channel(c);
        TspChip& a = *chips[static_cast<std::size_t>(ch.src)];
        TspChip& b = *chips[static_cast<std::size_t>(ch.dst)];
        sim.connect(*a.out_port(ch.src_port), *b.in_port(ch.dst_port), system->timing(c).latency());
        // The runs on the channel live in the sender's out-port storage; the receiver reads and empties it.
        WireStore& store = *a.out_store(ch.src_port);
        store.bind(a.ctx(), b.ctx());
        b.attach_in_store(ch.dst_port, store);
    }
    return std::make_unique<TspModel>(sim, std::move(system), executor, std::move(program),
                                      std::move(chips), chip_config.record_limit > 0);
}

Program workload_program(const workload::TransferSet& transfers, const TspSystem& system,
                         const sched::SchedulerConfig& scheduler, bool data_check, std::uint64_t seed,
                         const sim::Simulator* sim) {
    Program p;
    p.from_workload = true;
    if (sim) sim->announce_phase("compile");
    p.schedule = sched::compile(system.topology(), system.links(), system.chip(), transfers, scheduler);
    return_free_memory();
    p.collective = transfers.collective;
    p.readiness.reserve(transfers.transfers.size());
    std::size_t deps = 0;
    for (const workload::Transfer& x : transfers.transfers) deps += x.deps.size();
    p.readiness_deps.reserve(deps);
    for (const workload::Transfer& x : transfers.transfers) {
        p.readiness.push_back({x.id, static_cast<std::uint32_t>(x.deps.size()), p.readiness_deps.size(), x.earliest,
                               x.compute_before});
        p.readiness_deps.insert(p.readiness_deps.end(), x.deps.begin(), x.deps.end());
    }
    if (scheduler.verify) {
        if (sim) sim->announce_phase("verify");
        const auto t0 = std::chrono::steady_clock::now();
        const std::vector<std::string> problems =
            sched::verify(p.schedule, system.topology(), system.links(), system.chip(), &transfers, 10);
        p.verify_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!problems.empty())
            throw ModelError(fmt::format("schedule verifier: the compiled schedule breaks the timing contract ({}{} "
                                         "problem{}); first: {}",
                                         problems.size() >= 10 ? "at least " : "", problems.size(),
                                         problems.size() == 1 ? "" : "s", problems.front()));
        p.verified = true;
        return_free_memory();
    }
    if (data_check)
        p.data_check =
            make_data_check(transfers, system.vector_bytes(), system.links().unit_payload, seed, &p.schedule);
    // The transfers' timings served the data check's orders; nothing reads them after (the run, its statistics
    // and the trace read the instructions), and at 10,440 TSPs they are 68 MB.
    std::vector<sched::TransferTiming>().swap(p.schedule.transfers);
    return p;
}

std::unique_ptr<sim::ModelInstance> build(const config::Json& root, sim::Simulator& sim, config::Errors& errors) {
    MachineConfig machine;
    ExecutorConfig executor;
    ProgramConfig program_config;
    workload::TransferSetConfig workload_config;
    sched::SchedulerConfig scheduler_config;
    const std::size_t before = errors.size();
    auto parse = [&](const char* key, const auto& schema, auto& out) {
        if (root.is_object() && root.contains(key)) schema.parse(root.at(key), std::string("/") + key, out, errors);
    };
    parse("topology", topo::tsp_topology_schema(), machine.topology);
    parse("links", topo::link_class_timing_schema(), machine.links);
    parse("chip", topo::chip_schema(), machine.chip);
    parse("executor", executor_schema(), executor);
    parse("program", program_schema(), program_config);
    if (root.is_object() && root.contains("workload")) {
        // "collective"/"tsps" may be the string "compute", which the schema's integer list cannot say.
        const config::Json workload = workload::normalize_collective(root.at("workload"), "/workload", errors);
        workload::transfer_set_schema().parse(workload, "/workload", workload_config, errors);
    }
    parse("scheduler", sched::scheduler_schema(), scheduler_config);
    const bool has_program = root.is_object() && root.contains("program");
    const bool has_workload = root.is_object() && root.contains("workload");
    if (has_program && has_workload)
        errors.add("/workload", "a tsp config runs either a \"program\" or a \"workload\", not both");
    if (root.is_object() && root.contains("scheduler") && !has_workload)
        errors.add("/scheduler", "the scheduler compiles a \"workload\": give one, or leave this section out");
    if (errors.size() != before) return nullptr;

    auto system = std::make_unique<TspSystem>(machine, sim.seed());
    Program program;
    if (has_workload) {
        // Both throw ConfigError with JSON Pointers under /workload for a transfer set that does not fit.
        const workload::TransferSet transfers = workload::make_transfer_set(
            workload_config, system->topology(), system->chip(), "/workload", system->links().unit_payload);
        program = workload_program(transfers, *system, scheduler_config, executor.data_check, sim.seed(), &sim);
    } else {
        program = resolve(program_config, *system, "/program", errors);
    }
    if (errors.size() != before) return nullptr;
    return build(std::move(system), executor, std::move(program), sim);
}

void register_components(sim::Registry& registry) {
    sim::ModelEntry entry;
    entry.name = "tsp";
    entry.doc =
        "TSP multiprocessor executing a compile-time schedule: chips are endpoints and switches (send, "
        "cut-through forward with fan-out, receive, reduce) on C2C links with exact train timing and FEC; "
        "every link double booking, FIFO overflow, unexpected, late or mispredicted vector is an error.";
    entry.sections = {config::section_info("topology", topo::tsp_topology_schema()),
                      config::section_info("links", topo::link_class_timing_schema()),
                      config::section_info("chip", topo::chip_schema()),
                      config::section_info("executor", executor_schema()),
                      config::section_info("program", program_schema()),
                      config::section_info("workload", workload::transfer_set_schema()),
                      config::section_info("scheduler", sched::scheduler_schema())};
    entry.stats = stat_declarations();
    entry.components = {{"TspChip",
                         "One TSP (sys.<rack>.<node>.<tsp>): C2C ports, core clock, memory, clock-crossing FIFOs and "
                         "the executor of its instruction list."}};
    entry.build = [](const config::Json& root, sim::Simulator& sim, config::Errors& errors) {
        return build(root, sim, errors);
    };
    registry.add(std::move(entry));
}

}  // namespace loom::tsp
