#include "loom/sim/simulator.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

#include <fmt/format.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/stdout_sinks.h>

#include "loom/base/error.hpp"
#include "loom/base/rng.hpp"
#include "loom/sim/channel.hpp"
#include "loom/sim/port.hpp"
#include "loom/stats/group.hpp"

namespace loom::sim {

const char* to_string(StopReason reason) {
    switch (reason) {
        case StopReason::EndTime: return "end_time";
        case StopReason::EventBudget: return "event_budget";
        case StopReason::Quiescent: return "quiescent";
        case StopReason::Stopped: return "stopped";
        case StopReason::Interrupted: return "interrupted";
    }
    return "?";
}

namespace {
// push_to<Radix>'s other paths (the current window, the overflow heap): push() tests again.
[[gnu::noinline]] void push_radix(RadixQueue& queue, std::int64_t time, std::uint64_t key, std::uint32_t target,
                                  std::uint32_t arg) {
    queue.push(time, key, target, arg);
}
}  // namespace

template <QueueKind K>
void Simulator::push_to(Simulator& sim, std::int64_t time, std::uint64_t key, std::uint32_t target,
                        std::uint32_t arg) {
    if constexpr (K == QueueKind::Radix) {
        if (!sim.radix_.try_push(time, key, target, arg)) [[unlikely]] push_radix(sim.radix_, time, key, target, arg);
    } else if constexpr (K == QueueKind::Calendar) {
        sim.calendar_.push(time, key, target, arg);
    } else if constexpr (K == QueueKind::TwoLevel) {
        sim.two_level_.push(Event{time, key, target, arg});
    } else {
        sim.heap_.push(Event{time, key, target, arg});
    }
}

Simulator::PushFn Simulator::push_fn_for(QueueKind kind) {
    switch (kind) {
        case QueueKind::Radix: return &push_to<QueueKind::Radix>;
        case QueueKind::Calendar: return &push_to<QueueKind::Calendar>;
        case QueueKind::TwoLevel: return &push_to<QueueKind::TwoLevel>;
        case QueueKind::Heap: break;
    }
    return &push_to<QueueKind::Heap>;
}

Simulator::Simulator(SimulatorOptions options)
    : options_(std::move(options)), kind_(options_.queue), push_fn_(push_fn_for(kind_)) {
    if (!options_.log_sink) options_.log_sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    if (kind_ != QueueKind::Radix) radix_.refuse_try_push();  // push_channel then goes through push_fn_
}

Simulator::~Simulator() = default;

void Simulator::require(State state, const char* what) const {
    if (state_ != state) {
        static constexpr const char* kNames[] = {"construction", "run (after init)", "finished"};
        throw InternalError(fmt::format("Simulator::{} is only allowed during {}", what,
                                        kNames[static_cast<int>(state)]));
    }
}

spdlog::logger* Simulator::logger(const std::string& subsystem) {
    auto& slot = loggers_[subsystem];
    if (!slot) {
        // Not registered with spdlog's global registry: loggers belong to this simulator.
        slot = std::make_shared<spdlog::logger>(subsystem, options_.log_sink);
        slot->set_level(options_.log_level);
        slot->set_pattern("[%n] [%l] %v");
    }
    return slot.get();
}

bool path_before(std::string_view a, std::string_view b) {
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (digit(a[i]) && digit(b[j])) {
            // Compare the two digit runs as numbers: without leading zeros, the longer is larger, then by digits.
            std::size_t ie = i, je = j;
            while (ie < a.size() && digit(a[ie])) ++ie;
            while (je < b.size() && digit(b[je])) ++je;
            std::size_t is = i, js = j;
            while (is + 1 < ie && a[is] == '0') ++is;
            while (js + 1 < je && b[js] == '0') ++js;
            if (ie - is != je - js) return ie - is < je - js;
            const int c = a.substr(is, ie - is).compare(b.substr(js, je - js));
            if (c != 0) return c < 0;
            i = ie;
            j = je;
            continue;
        }
        if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
        ++i;
        ++j;
    }
    if ((i < a.size()) != (j < b.size())) return j < b.size();  // a prefix (in natural order) comes first
    return a < b;  // equal but for leading zeros
}

std::vector<std::uint32_t> Simulator::construction_order(std::uint32_t n, std::string_view what) const {
    std::vector<std::uint32_t> order(n);
    for (std::uint32_t k = 0; k < n; ++k) order[k] = k;
    if (options_.shuffle_construction == 0) return order;
    Rng rng(derive(options_.shuffle_construction, what));
    for (std::uint32_t k = n; k > 1; --k) std::swap(order[k - 1], order[rng.uniform(k)]);
    return order;
}

Context& Simulator::make_context(std::string path, const std::string& subsystem, bool driver) {
    require(State::Building, "add");
    if (path.empty()) throw InternalError("a component needs a non-empty path");
    if (!paths_.insert(path).second) throw InternalError("two components share the path '" + path + "'");
    if (contexts_.size() >= key::kMaxSources) {
        throw InputError(fmt::format("more than {} components: the event key has {} bits of source id",
                                     key::kMaxSources, key::kSourceBits));
    }
    const auto source = static_cast<std::uint32_t>(contexts_.size());
    spdlog::logger* log = logger(subsystem);
    drivers_.push_back(driver);
    return contexts_.emplace_back(*this, std::move(path), source, options_.seed, log);
}

Channel& Simulator::add_channel(std::string path, std::uint32_t endpoints, Time min_latency) {
    require(State::Building, "add_channel");
    if (!paths_.insert(path).second) throw InternalError("two components share the path '" + path + "'");
    channels_.push_back(std::make_unique<Channel>(*this, std::move(path), endpoints, min_latency));
    lookahead_ = std::min(lookahead_, min_latency);
    return *channels_.back();
}

void Simulator::connect(OutPort& from, InPort& to, Time latency) {
    require(State::Building, "connect");
    if (latency < Time::ps(1)) {
        throw InternalError(fmt::format("link {} -> {}: latency {} is below the 1ps minimum", from.path(),
                                        to.path(), loom::to_string(latency)));
    }
    if (from.bound()) throw InternalError("port " + from.path() + " is already connected to " + from.peer());
    if (to.bound()) throw InternalError("port " + to.path() + " is already connected");
    from.target_ = to.slot();
    from.latency_ = latency;
    from.peer_ = to.path();
    from.bound_ = true;
    to.bound_ = true;
    lookahead_ = std::min(lookahead_, latency);
}

std::uint32_t Simulator::add_slot(HandlerFn fn, void* obj, const void* hint) {
    require(State::Building, "add_slot");
    LOOM_ASSERT(slots_.size() < std::numeric_limits<std::uint32_t>::max(), "too many handler slots");
    slots_.push_back(Slot{fn, obj, hint});
    return static_cast<std::uint32_t>(slots_.size() - 1);
}

std::uint32_t Simulator::reserve_slots(std::uint32_t n) {
    require(State::Building, "reserve_slots");
    LOOM_ASSERT(slots_.size() + n < std::numeric_limits<std::uint32_t>::max(), "too many handler slots");
    const auto first = static_cast<std::uint32_t>(slots_.size());
    slots_.resize(slots_.size() + n);
    return first;
}

void Simulator::set_slot(std::uint32_t slot, HandlerFn fn, void* obj, const void* hint) {
    require(State::Building, "set_slot");
    LOOM_ASSERT(slot < slots_.size() && slots_[slot].fn == nullptr, "set_slot on a used or unknown slot");
    slots_[slot] = Slot{fn, obj, hint};
}

void Simulator::set_slot_prefetch(std::uint32_t slot, PrefetchFn fn) {
    require(State::Building, "set_slot_prefetch");
    LOOM_ASSERT(slot < slots_.size(), "set_slot_prefetch on an unknown slot");
    slots_[slot].prefetch = fn;
    if (fn != nullptr) prefetching_ = true;
}

std::uint32_t Simulator::register_port(PortBase* port, std::string path) {
    require(State::Building, "register_port");
    ports_.push_back(PortRecord{port, std::move(path)});
    return static_cast<std::uint32_t>(ports_.size() - 1);
}

void Simulator::init() {
    require(State::Building, "init");
    for (const PortRecord& record : ports_) {
        if (!record.port->bound()) throw InternalError("port " + record.path + " is not connected");
    }
    for (const auto& channel : channels_) channel->check_bound();
    assign_sources();
    state_ = State::Ready;
    for (const auto& component : components_) {
        running_ = &component->ctx();  // init() runs as its component, like a handler
        component->init();
    }
    running_ = nullptr;
    peak_pending_ = std::max(peak_pending_, pending());
}

void Simulator::assign_sources() {
    // Source ids from paths, so the event order never depends on the order the builder created components in
    // (and a partitioned run, whose processes each build a part, agrees on every id). The components (and
    // their init and finish calls) follow the same order.
    struct Entry {
        bool driver;
        const std::string* path;
        std::unique_ptr<Component> component;
    };
    std::vector<Entry> entries;
    entries.reserve(components_.size());
    for (auto& component : components_) {
        const Context& ctx = component->ctx();
        if (ctx.events_sent() != 0) {
            throw InternalError(fmt::format("component {} sent {} event(s) before Simulator::init(): events start "
                                            "in init(), once every component has its source id",
                                            ctx.path(), ctx.events_sent()));
        }
        entries.push_back(Entry{drivers_[ctx.source()], &ctx.path(), std::move(component)});
    }
    std::sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) {
        if (x.driver != y.driver) return x.driver;
        return path_before(*x.path, *y.path);
    });
    for (std::size_t k = 0; k < entries.size(); ++k) {
        entries[k].component->ctx().assign_source(static_cast<std::uint32_t>(k));
        components_[k] = std::move(entries[k].component);
    }
}

void Simulator::set_progress(std::function<void(const Progress&)> fn, unsigned interval_log2) {
    LOOM_ASSERT(interval_log2 < 63, "progress interval too large");
    progress_ = std::move(fn);
    progress_log2_ = interval_log2;
}

void Simulator::set_sampler(Time interval, std::function<void(Time)> fn) {
    if (!fn) {
        sampler_ = nullptr;
        next_sample_ = std::numeric_limits<std::int64_t>::max();
        return;
    }
    LOOM_ASSERT(interval >= Time::ps(1), "Simulator::set_sampler: the interval must be at least 1 ps");
    sampler_ = std::move(fn);
    sample_interval_ = interval.count();
    // The first sample time not yet passed: a sampler set mid-run starts at the next multiple of the interval.
    next_sample_ = now_ == 0 && events_ == 0 ? 0 : (now_ / sample_interval_ + 1) * sample_interval_;
}

void Simulator::sample_through(std::int64_t t) {
    while (sampler_ && next_sample_ <= t) {
        sampler_(Time::ps(next_sample_));
        next_sample_ = next_sample_ > std::numeric_limits<std::int64_t>::max() - sample_interval_
                           ? std::numeric_limits<std::int64_t>::max()
                           : next_sample_ + sample_interval_;
    }
}

template <class Q>
Simulator::LoopExit Simulator::loop(Q& queue, std::int64_t end) {
    // The per-event path: peek, test the end time, pop, dispatch. Budget, progress and stop() share one
    // counter comparison (stop_at_). Before dispatching, the handler state of the next two events is
    // prefetched (a handler's component is usually cold: thousands of them take turns), in two stages since
    // the second one's slot must be in cache before its object address can be read.
    while (events_ < stop_at_) {
        if (queue.empty()) [[unlikely]] return LoopExit::Empty;
        const Event& top = queue.top();
        if (top.time > end) [[unlikely]] return LoopExit::PastEnd;
        const Event e = top;
        queue.pop();
        if (const Event* next = queue.peek(0)) {
            const Slot& s = slots_[next->target];
            __builtin_prefetch(s.obj);
            __builtin_prefetch(static_cast<const char*>(s.obj) + 64);
            __builtin_prefetch(s.hint);
            if (const Event* after = queue.peek(1)) __builtin_prefetch(&slots_[after->target]);
        }
        now_ = e.time;
        ++events_;
        const Slot slot = slots_[e.target];
        running_ = static_cast<const Context*>(slot.hint);
        slot.fn(slot.obj, e);
        if (queue.size() > peak_pending_) [[unlikely]] peak_pending_ = queue.size();
    }
    return LoopExit::CheckPoint;
}

// One event of the loops that read events in place (loop_radix, loop_calendar): prefetches the handler state of
// the two events guessed to follow it (e[1] and e[2], readable whatever they are: SortedRun::kPad), then
// dispatches it; `events` and `peak` are the loop's register copies of events_ and peak_pending_.
// With kHooks, e[1]'s prefetch hook (if its slot has one) is called after those prefetches.
template <bool kHooks, class Q>
[[gnu::always_inline]] inline void Simulator::dispatch_in_place(const Event* e, const Slot* slots, const Q& queue,
                                                               std::uint64_t& events, std::size_t& peak) {
    prefetch_handlers(e, slots);
    if constexpr (kHooks) {
        const Slot& s = slots[e[1].target];
        if (s.prefetch != nullptr) s.prefetch(s.obj, e[1]);
    }
    now_ = e->time;
    ++events;
    const Slot& slot = slots[e->target];
    running_ = static_cast<const Context*>(slot.hint);
    slot.fn(slot.obj, *e);
    if (queue.size() > peak) [[unlikely]] peak = queue.size();
}

template <bool kHooks>
Simulator::LoopExit Simulator::loop_radix(std::int64_t end) {
    // As loop(), without copying each event out of the queue: the handler gets the radix queue's current
    // window entry (see HandlerFn), and the empty test is folded into the window's exhausted test. The slots
    // do not change while running (add_slot and set_slot are for building), so their address is held. The
    // next two events are read without testing for the window's end: the run keeps SortedRun::kPad readable
    // events past it (a stale event there only costs a useless prefetch). A trampoline may go on with the
    // window's next events itself (next_in_batch: PHOLD's channel endpoints hand out whole windows that way),
    // so the event count and the peak of pending events are kept in their members, not in registers, and the
    // end time is published for it (batch_end_) while the loop runs; with prefetch hooks there are no batches.
    // (A batch that walks the window with a pointer of its own, to the last event at or before `end`, cost
    // more: a push into the current window may move its events, and testing for that costs what the pointer
    // saves.)
    RadixQueue& queue = radix_;
    const Slot* const slots = slots_.data();
    struct Unpublish {  // also when a handler throws
        std::int64_t& end;
        ~Unpublish() { end = kNoBatch; }
    } unpublish{batch_end_};
    batch_end_ = kHooks ? kNoBatch : std::min(end, std::numeric_limits<std::int64_t>::max() - 1);
    while (events_ < stop_at_) {
        const Event* const e = queue.front();
        if (e == nullptr) [[unlikely]] return LoopExit::Empty;
        if (e->time > end) [[unlikely]] return LoopExit::PastEnd;
        queue.pop();
        dispatch_in_place<kHooks>(e, slots, queue, events_, peak_pending_);
    }
    return LoopExit::CheckPoint;
}

template <bool kHooks>
Simulator::LoopExit Simulator::loop_calendar(std::int64_t end) {
    // As loop(), for the calendar queue, reading its events in place (see HandlerFn) and merging its two
    // sorted lists here: the loaded run, which stays where it is while handlers push and is walked with a
    // pointer held in a register, and near_ (pushes into the buckets being popped), whose front is read
    // afresh after each event. While near_ is empty, an event costs one test of it. The event count and the
    // peak of pending events are kept in registers and written back when the loop returns (nothing reads them
    // while a handler runs; an exception from a handler writes them back too). The slots do not change while
    // running. The next two events are guessed as the two after the one handled in its own list, read without
    // testing for the list's end (SortedRun::kPad: a stale event there only costs a useless prefetch). The
    // loaded run ends in SortedRun::kSentinel, so that while near_ is not empty the lesser front is one
    // comparison (the sentinel never comes first: near_'s front is a real event).
    CalendarQueue& queue = calendar_;
    const Slot* const slots = slots_.data();
    std::uint64_t events = events_;
    std::size_t peak = peak_pending_;
    LoopExit exit = LoopExit::CheckPoint;
    try {
        while (events < stop_at_) {
            if (!queue.ready()) [[unlikely]] {
                exit = LoopExit::Empty;
                break;
            }
            const Event* run = queue.run_cursor();
            const Event* const limit = queue.run_limit();
            for (;;) {
                const Event* e;
                if (!queue.near_pending()) [[likely]] {
                    if (run == limit) [[unlikely]] break;  // loads the next buckets
                    e = run;
                    if (e->time > end) [[unlikely]] {
                        exit = LoopExit::PastEnd;
                        break;
                    }
                    ++run;
                    queue.run_popped();
                } else {
                    const Event* const near = queue.near_cursor();
                    // An exhausted run's cursor is its sentinel (after every event: CalendarQueue::advance marks
                    // the run's end), so the merge needs no test of the run's end.
                    const bool from_run = before(*run, *near);
                    e = from_run ? run : near;
                    if (e->time > end) [[unlikely]] {
                        exit = LoopExit::PastEnd;
                        break;
                    }
                    if (from_run) {
                        ++run;
                        queue.run_popped();
                    } else {
                        queue.near_popped();
                    }
                }
                dispatch_in_place<kHooks>(e, slots, queue, events, peak);
                if (events >= stop_at_) [[unlikely]] break;
            }
            if (exit == LoopExit::PastEnd) break;
        }
    } catch (...) {
        events_ = events;
        peak_pending_ = peak;
        throw;
    }
    events_ = events;
    peak_pending_ = peak;
    return exit;
}

RunResult Simulator::run(const RunLimits& limits) {
    require(State::Ready, "run");
    run_end_ = limits.end;
    const std::uint64_t start_events = events_;
    const std::uint64_t budget_end = limits.max_events == 0 ? std::numeric_limits<std::uint64_t>::max()
                                                            : start_events + limits.max_events;
    const auto wall_start = std::chrono::steady_clock::now();
    const std::uint64_t interval = std::uint64_t{1} << progress_log2_;
    std::uint64_t next_progress = progress_ ? (events_ / interval + 1) * interval
                                            : std::numeric_limits<std::uint64_t>::max();
    // The stop flag shares the inner loop's one counter comparison: it is read at check points only.
    const std::atomic<bool>* stop_flag = options_.stop_flag;
    const std::uint64_t poll_interval = std::uint64_t{1} << options_.stop_poll_log2;
    std::uint64_t next_poll = stop_flag ? events_ + poll_interval : std::numeric_limits<std::uint64_t>::max();
    stop_requested_ = false;
    RunResult result;
    // No handler runs once run() returns, normally or by an exception from a handler.
    struct NotRunning {
        const Context*& running;
        ~NotRunning() { running = nullptr; }
    } not_running{running_};
    for (;;) {
        if (stop_flag && stop_flag->load(std::memory_order_relaxed)) {
            result.reason = StopReason::Interrupted;
            break;
        }
        stop_at_ = std::min({budget_end, next_progress, next_poll});
        // A sample time acts as an end time the loop stops before passing: no event, no per-event test.
        const std::int64_t end = std::min(limits.end.count(), next_sample_);
        const LoopExit exit =
            kind_ == QueueKind::Radix      ? (prefetching_ ? loop_radix<true>(end) : loop_radix<false>(end))
            : kind_ == QueueKind::TwoLevel ? loop(two_level_, end)
            : kind_ == QueueKind::Calendar ? (prefetching_ ? loop_calendar<true>(end) : loop_calendar<false>(end))
                                           : loop(heap_, end);
        if (exit == LoopExit::Empty) {
            sample_through(std::min(now_, limits.end.count()));
            result.reason = StopReason::Quiescent;
            break;
        }
        if (exit == LoopExit::PastEnd) {
            if (end < limits.end.count()) {  // a sample time, not the end
                sample_through(end);
                continue;
            }
            sample_through(limits.end.count());
            result.reason = StopReason::EndTime;
            now_ = limits.end.count();
            break;
        }
        if (stop_requested_) {
            result.reason = StopReason::Stopped;
            break;
        }
        if (events_ >= budget_end) {
            result.reason = StopReason::EventBudget;
            break;
        }
        if (stop_flag && events_ >= next_poll) {
            next_poll = events_ + poll_interval;
            if (events_ < next_progress) continue;
        }
        // Progress check point.
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
        progress_(Progress{now(), events_, pending(), wall});
        next_progress += interval;
    }
    stop_requested_ = false;
    result.events = events_ - start_events;
    result.now = now();
    return result;
}

void Simulator::finish() {
    require(State::Ready, "finish");
    state_ = State::Finished;
    for (const auto& component : components_) {
        running_ = &component->ctx();
        component->finish();
    }
    running_ = nullptr;
    stats::Group& kernel = stats_.group("kernel");
    kernel.counter("events_handled").set(static_cast<std::int64_t>(events_));
    kernel.counter("timer_events_discarded").set(static_cast<std::int64_t>(stale_timer_events_));
    kernel.counter("peak_pending").set(static_cast<std::int64_t>(peak_pending_));
    kernel.counter("pending_at_end").set(static_cast<std::int64_t>(pending()));
    kernel.counter("components").set(static_cast<std::int64_t>(components_.size()));
}

void Simulator::release_components() {
    require(State::Finished, "release_components");
    // In the destructor's order: the components first, while the channels, contexts and ports still exist.
    std::vector<std::unique_ptr<Component>>().swap(components_);
}

std::size_t Simulator::queue_bytes() const {
    switch (kind_) {
        case QueueKind::TwoLevel: return two_level_.peak_bytes();
        case QueueKind::Radix: return radix_.peak_bytes();
        case QueueKind::Calendar: return calendar_.peak_bytes();
        case QueueKind::Heap: break;
    }
    return heap_.bytes_held();
}

std::string Simulator::perf_fields() const {
    const double per_event =
        peak_pending_ ? static_cast<double>(queue_bytes()) / static_cast<double>(peak_pending_) : 0.0;
    std::string out = fmt::format(" queue={} queue_bytes={} peak_pending={} queue_bytes_per_event={:.1f}",
                                  to_string(kind_), queue_bytes(), peak_pending_, per_event);
    if (kind_ == QueueKind::Calendar) {
        out += fmt::format(" calendar_bucket_ps={} calendar_buckets={} calendar_rebuilds={}",
                           std::int64_t{1} << calendar_.shift(), calendar_.buckets(), calendar_.rebuilds());
    }
    if (kind_ == QueueKind::Radix) {
        out += fmt::format(" radix_window_ps={} radix_windows={} radix_rebuilds={}", std::int64_t{1} << radix_.shift(),
                           radix_.windows(), radix_.rebuilds());
    }
    if (kind_ == QueueKind::TwoLevel) {
        out += fmt::format(" two_level_bucket_ps={} two_level_windows={} two_level_rebuilds={}",
                           std::int64_t{1} << two_level_.fine_shift(), two_level_.coarse_windows(),
                           two_level_.rebuilds());
    }
    return out;
}

}  // namespace loom::sim
