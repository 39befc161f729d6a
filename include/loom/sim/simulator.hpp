// The discrete-event simulator: an ordinary object (two can run in one process) that owns the components,
// channels, handler slots, the event queue and the statistics registry, and runs events in key order.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <spdlog/common.h>

#include "loom/base/units.hpp"
#include "loom/sim/calendar_queue.hpp"
#include "loom/sim/component.hpp"
#include "loom/sim/context.hpp"
#include "loom/sim/event.hpp"
#include "loom/sim/event_queue.hpp"
#include "loom/sim/heap_queue.hpp"
#include "loom/sim/radix_queue.hpp"
#include "loom/sim/two_level_queue.hpp"
#include "loom/stats/registry.hpp"

namespace spdlog::sinks {
class sink;
}

namespace loom::sim {

class Channel;
class InPort;
class OutPort;
class PortBase;

// A handler slot: what an event's `target` calls. `obj` is the port, endpoint or timer; `fn` a trampoline
// that knows its concrete type and the component member to call; `hint` the handler's component's Context
// (Simulator::running() while the handler runs, and an address the handler will touch). The run loop prefetches obj's first two cache lines and hint for the next
// event while the current one runs. The Event may be the queue's own copy: a handler reads what it needs from
// it before it sends anything (a push may move the queue's events).
using HandlerFn = void (*)(void* obj, const Event& e);
// An optional prefetch hook of a slot (set_slot_prefetch): called by the in-place run loops (calendar, radix) for
// the event guessed to come next, while the current one has yet to run, so that the handler can start loading the
// state that event will read (its payload, the record it will look up). It only prefetches: it changes nothing,
// and must tolerate a wrong guess (a stale event, or one whose payload has been overwritten). A simulation
// with no hook runs the loops without it (not one instruction more per event).
using PrefetchFn = void (*)(const void* obj, const Event& e);
struct alignas(32) Slot {  // 32 bytes: a slot's address is its index shifted, one instruction per lookup
    HandlerFn fn = nullptr;
    void* obj = nullptr;
    const void* hint = nullptr;
    PrefetchFn prefetch = nullptr;
};
static_assert(sizeof(Slot) == 32);

struct SimulatorOptions {
    std::uint64_t seed = 1;                    // run seed: every RNG stream is derive(seed, component path)
    QueueKind queue = QueueKind::Calendar;
    std::shared_ptr<spdlog::sinks::sink> log_sink;  // null: stderr
    spdlog::level::level_enum log_level = spdlog::level::info;
    // Set from outside (a signal handler): run() polls it every 2^stop_poll_log2 events and returns with
    // StopReason::Interrupted. Null: never polled.
    const std::atomic<bool>* stop_flag = nullptr;
    unsigned stop_poll_log2 = 14;
    // Nonzero: builders create their components in an order shuffled by this seed (construction_order()), to
    // show that results do not depend on it. 0: the order the builder's loops are written in.
    std::uint64_t shuffle_construction = 0;
};

// The order of component paths that source ids follow: "natural" order, where a run of digits compares as the
// number it spells ("fabric.r2" before "fabric.r10", "lp9" before "lp10"), other characters by their byte value,
// and two paths equal in that order (only leading zeros differ) by plain byte order. A strict total order.
bool path_before(std::string_view a, std::string_view b);

// When run() stops. The end time is INCLUSIVE: every event at time <= end is handled, and a run stopped by
// it leaves now() == end. An event budget counts the events this call handles (cancelled-timer events
// included). Quiescence (no pending events) leaves now() at the last event handled.
struct RunLimits {
    Time end = Time::max();
    std::uint64_t max_events = 0;  // 0: no budget
};
enum class StopReason { EndTime, EventBudget, Quiescent, Stopped, Interrupted };
// "end_time" | "event_budget" | "quiescent" | "stopped" | "interrupted"
const char* to_string(StopReason reason);

struct RunResult {
    StopReason reason = StopReason::Quiescent;
    std::uint64_t events = 0;  // handled by this call
    Time now;
};

// Passed to the progress hook every 2^interval_log2 events; the only place the kernel reads the wall clock.
struct Progress {
    Time now;
    std::uint64_t events = 0;  // since construction
    std::size_t pending = 0;
    double wall_s = 0;         // since this run() started
};

class Simulator {
public:
    explicit Simulator(SimulatorOptions options = {});
    ~Simulator();
    Simulator(const Simulator&) = delete;
    Simulator& operator=(const Simulator&) = delete;

    // ---- construct and connect (before init) ----

    // Creates component C at `path` as C(Context&, args...). Paths are unique. The order of creation does not
    // matter: init() gives each component the rank of its path as its source id (path_before), and may be
    // tested by building in a shuffled order (construction_order). C may declare
    // `static constexpr std::string_view kSubsystem` to pick its logger (default "sim"), and
    // `static constexpr bool kDriver = true` for the experimenter's hand (a component applying timed scenario
    // actions): drivers rank before every other component, so a driver's action at T in Phase::Delivery comes
    // before every arrival at T.
    template <class C, class... Args>
    C& add(std::string path, Args&&... args) {
        static_assert(std::is_base_of_v<Component, C>, "Simulator::add creates Components");
        Context& ctx = make_context(std::move(path), subsystem_of<C>(), is_driver<C>());
        auto component = std::make_unique<C>(ctx, std::forward<Args>(args)...);
        C& ref = *component;
        components_.push_back(std::move(component));
        return ref;
    }
    // An any-to-any channel of `endpoints` endpoints (ChannelPort::attach binds them) whose every send takes
    // at least `min_latency` (>= 1 ps).
    Channel& add_channel(std::string path, std::uint32_t endpoints, Time min_latency);
    // A point-to-point link from `from` to `to` with minimum latency `latency` (>= 1 ps). Each port is bound
    // once.
    void connect(OutPort& from, InPort& to, Time latency);

    // ---- lifecycle ----

    // Checks that every port and channel endpoint is bound (InternalError naming the first unbound one),
    // gives every component its source id (drivers first, then the rank of its path in path_before order; a
    // component that sent an event before init() is an InternalError naming it), then calls init() on every
    // component in source-id order.
    void init();
    // Runs events in (time, phase, source, counter) order until a limit is reached or stop() is called.
    // May be called again to continue.
    RunResult run(const RunLimits& limits = {});
    // From inside a handler: run() returns after the current event with StopReason::Stopped.
    void stop() {
        stop_requested_ = true;
        stop_at_ = 0;
        batch_end_ = kNoBatch;  // a running batch (next_in_batch) ends after this event too
    }
    // Calls finish() on every component in source-id order and writes the "kernel" stats group. Once.
    void finish();

    // ---- observation ----

    Time now() const { return Time::ps(now_); }
    // The end limit of the latest run() (Time::max() when none was set): models whose results extend past their
    // last event (a train's arrivals are known when it starts) judge completeness against it.
    Time run_end() const { return run_end_; }
    std::int64_t now_ps() const { return now_; }
    std::uint64_t seed() const { return options_.seed; }
    std::uint64_t events_handled() const { return events_; }
    std::uint64_t timer_events_discarded() const { return stale_timer_events_; }
    std::size_t pending() const {
        switch (kind_) {
            case QueueKind::TwoLevel: return two_level_.size();
            case QueueKind::Radix: return radix_.size();
            case QueueKind::Calendar: return calendar_.size();
            case QueueKind::Heap: break;
        }
        return heap_.size();
    }
    // Most events pending at once (sampled after each event and after init).
    std::size_t peak_pending() const { return peak_pending_; }
    QueueKind queue_kind() const { return kind_; }
    std::size_t queue_bytes() const;  // the most memory the queue has held (its containers' capacities)
    stats::Registry& stats() { return stats_; }
    const stats::Registry& stats() const { return stats_; }
    // " queue=calendar queue_bytes=.. peak_pending=.. bytes_per_event=.." for the --perf line.
    std::string perf_fields() const;
    // Calls `fn` every 2^interval_log2 events of run() (empty fn: none).
    void set_progress(std::function<void(const Progress&)> fn, unsigned interval_log2 = 20);
    // Calls `fn(t)` for t = 0, interval, 2*interval, ... while running, each once every event at a time <= t
    // has been handled and before any later one: the state it reads is the state at the end of instant t. A
    // run that ends at its end time samples every t <= end; one that goes quiet, every t <= now(). Sampling
    // adds no event and touches no queue, so a run's events and results are the same with or without it; `fn`
    // must only read. interval >= 1 ps; an empty fn removes the sampler.
    void set_sampler(Time interval, std::function<void(Time)> fn);
    // The phases of a long command, for a person watching it ("compile", "verify", "warm-up", "measure",
    // "drain"): a model announces each as it begins, during its build or its run; the front end listens. The
    // kernel gives the names no meaning and nothing in a run may depend on whether anyone listens.
    void set_phase_listener(std::function<void(std::string_view phase)> fn) { phase_listener_ = std::move(fn); }
    void announce_phase(std::string_view phase) const {
        if (phase_listener_) phase_listener_(phase);
    }
    std::size_t component_count() const { return components_.size(); }
    // After finish(): destroys the components (as the destructor would, first), keeping the statistics, so that
    // a front end can build its report without the model's memory beneath it. Nothing may run afterwards; the
    // model instance that refers to the components must be gone first.
    void release_components();
    // The component whose event handler, init() or finish() is running (the Context its slot names); nullptr
    // otherwise (building, between runs, the model's own end-of-run work). What sim::Owner checks against.
    const Context* running() const { return running_; }
    // The order in which a builder should create `n` like components (indices 0..n-1): the identity, or with
    // SimulatorOptions::shuffle_construction a permutation drawn from that seed and `what` (a name of the
    // group, so two groups get different permutations). Results must not depend on it.
    std::vector<std::uint32_t> construction_order(std::uint32_t n, std::string_view what) const;
    bool shuffled_construction() const { return options_.shuffle_construction != 0; }
    // The smallest minimum latency of any link or channel (Time::max() if there are none): the lookahead a
    // conservative partitioned run could use if every link crossed partitions.
    Time lookahead() const { return lookahead_; }
    // The logger of a subsystem ("phold", "net"), created on first use with the simulator's sink and level.
    spdlog::logger* logger(const std::string& subsystem);
    // Visits every pending event (unspecified order); for end-of-run accounting and tests.
    template <class F>
    void for_each_pending(F&& f) const {
        switch (kind_) {
            case QueueKind::TwoLevel: two_level_.for_each(f); return;
            case QueueKind::Radix: radix_.for_each(f); return;
            case QueueKind::Calendar: calendar_.for_each(f); return;
            case QueueKind::Heap: heap_.for_each(f); return;
        }
    }

    // ---- kernel interface for ports, channels and timers (not for model code) ----

    std::uint32_t add_slot(HandlerFn fn, void* obj, const void* hint = nullptr);
    // `n` consecutive empty slots; returns the first. Filled later with set_slot (channel endpoints).
    std::uint32_t reserve_slots(std::uint32_t n);
    void set_slot(std::uint32_t slot, HandlerFn fn, void* obj, const void* hint = nullptr);
    // Gives slot `slot` a prefetch hook (see PrefetchFn), called with the slot's obj; before init.
    void set_slot_prefetch(std::uint32_t slot, PrefetchFn fn);
    bool prefetch_hooks() const { return prefetching_; }
    // Records a port (for init's bound check and for messages); returns its id.
    std::uint32_t register_port(PortBase* port, std::string path);
    const std::string& port_path(std::uint32_t id) const { return ports_[id].path; }
    // Schedules the event (time, key, target, arg). The queue's push is chosen once, when the simulator is
    // built (push_fn_): a send costs one well-predicted indirect call, with the event's fields in registers,
    // instead of a test of the queue kind and an Event built on the stack and copied; and the send sites in the
    // models' handlers inline none of the four queues' code.
    void push(std::int64_t time, std::uint64_t key, std::uint32_t target, std::uint32_t arg) {
        LOOM_DEBUG_ASSERT(time >= now_, "event scheduled in the past: " + to_string(Event{time, key, target, arg}));
        LOOM_DEBUG_ASSERT(target < slots_.size(),
                          "event for an unknown slot: " + to_string(Event{time, key, target, arg}));
        push_fn_(*this, time, key, target, arg);
    }
    void push(const Event& e) { push(e.time, e.key, e.target, e.arg); }
    // push() for the channels' sends (ChannelPort::send): the radix queue's common path inline, with no test of
    // the queue kind. With another kind the radix queue is never used and refuses every try_push (its ring is
    // empty: RadixQueue::refuse_try_push), so such a send costs that one failed range test more and goes
    // through push_fn_ as push() does; with the radix queue push_fn_ is only reached by an event outside the
    // ring (the current window, the overflow heap). Inside the radix queue's batch trampoline, where the
    // handler is inlined, this saves the call, its argument moves and push_to's own (PHOLD: about 6
    // instructions per event), and the kind test (2 more).
    void push_channel(std::int64_t time, std::uint64_t key, std::uint32_t target, std::uint32_t arg) {
        LOOM_DEBUG_ASSERT(time >= now_, "event scheduled in the past: " + to_string(Event{time, key, target, arg}));
        LOOM_DEBUG_ASSERT(target < slots_.size(),
                          "event for an unknown slot: " + to_string(Event{time, key, target, arg}));
        if (radix_.try_push(time, key, target, arg)) [[likely]] return;
        push_fn_(*this, time, key, target, arg);
    }
    // Batch dispatch, for a trampoline that has just handled its event (the radix queue's run loop without
    // prefetch hooks; with any other loop next_in_batch returns nullptr at once). begin_batch() copies what a
    // batch reads on every step into registers (the slots, and how many events it may still handle before the
    // loop's budget, progress or stop-poll point: a count down, so one instruction tests and counts);
    // next_in_batch then gives the next event if the loop would handle it next and its slot's trampoline is
    // `Self`, i.e. it is the current window's next event, at or before the loop's end or sample time (read
    // from batch_end_, which stop() lowers below every time), within that count: popped, with now(),
    // running(), the batch's count and the prefetches of the events after it done as the loop does them, and
    // its slot's obj in `obj`. The trampoline handles it and asks again, or on nullptr (nothing changed then)
    // calls end_batch() and returns to the loop; it calls end_batch() also when a handler throws (the event
    // count is written back; a handler reads no count). This saves the call, the trampoline's prologue and
    // epilogue and the loop's reloads per event. The event is read in place, as the loop's are (see
    // HandlerFn): a push into the current window may move the window's events, so each call reads the window's
    // cursor afresh.
    struct Batch {
        const Slot* slots;
        HandlerFn self;      // the trampoline (in a register: g++ rebuilt the constant address per event)
        std::int64_t left;   // events this batch may still handle (-1 once it ran out)
        std::int64_t start;  // left when it began (events_ then: `events`)
        std::uint64_t events;
    };
    // Called with the batch's first event counted (events_ <= stop_at_), with the trampoline (Self) that will
    // ask next_in_batch<Self>.
    template <HandlerFn Self>
    Batch begin_batch() const {
        const auto left = static_cast<std::int64_t>(
            std::min<std::uint64_t>(stop_at_ - events_, std::numeric_limits<std::int64_t>::max()));
        HandlerFn self = Self;
        asm("" : "+r"(self));  // opaque: kept in a register rather than rebuilt from its address per event
        return Batch{slots_.data(), self, left, left, events_};
    }
    void end_batch(const Batch& batch) {
        events_ = batch.events + static_cast<std::uint64_t>(batch.start - std::max<std::int64_t>(batch.left, 0));
    }
    template <HandlerFn Self>
    [[gnu::always_inline]] const Event* next_in_batch(Batch& batch, void*& obj) {
        RadixQueue& queue = radix_;
        const Event* const e = queue.window_cursor();
        // An exhausted window's cursor is its sentinel, after batch_end_ (kept below INT64_MAX by loop_radix).
        if (e->time > batch_end_) return nullptr;
        const Slot& slot = batch.slots[e->target];
        if (slot.fn != batch.self) return nullptr;
        if (--batch.left < 0) [[unlikely]] return nullptr;  // one subtraction and its sign
        // The peak, sampled after the event handled, as the loop does: the queue's mark is at most the peak.
        if (queue.pop_above_mark()) [[unlikely]] note_radix_peak();
        prefetch_handlers(e, batch.slots);
        now_ = e->time;
        running_ = static_cast<const Context*>(slot.hint);
        obj = slot.obj;
        return e;
    }
    // next_in_batch's pop found more events pending before it than the radix queue's mark: the peak of
    // pending events is raised if that was above it, and the mark to the peak.
    [[gnu::noinline, gnu::cold]] void note_radix_peak() {
        peak_pending_ = std::max(peak_pending_, radix_.size() + 1);
        radix_.raise_mark(peak_pending_);
    }
    void note_stale_timer_event() { ++stale_timer_events_; }
    const std::int64_t* now_ptr() const { return &now_; }
    bool initialized() const { return state_ != State::Building; }

private:
    enum class State { Building, Ready, Finished };
    // How the inner loop ended: a limit it checks per event, or the check point (budget/progress/stop).
    enum class LoopExit { Empty, PastEnd, CheckPoint };

    using PushFn = void (*)(Simulator&, std::int64_t time, std::uint64_t key, std::uint32_t target,
                            std::uint32_t arg);
    template <QueueKind K>
    static void push_to(Simulator& sim, std::int64_t time, std::uint64_t key, std::uint32_t target,
                        std::uint32_t arg);
    static PushFn push_fn_for(QueueKind kind);
    template <class C>
    static std::string subsystem_of() {
        if constexpr (requires { C::kSubsystem; }) {
            return std::string(C::kSubsystem);
        } else {
            return "sim";
        }
    }
    template <class C>
    static constexpr bool is_driver() {
        if constexpr (requires { C::kDriver; }) {
            return C::kDriver;
        } else {
            return false;
        }
    }
    Context& make_context(std::string path, const std::string& subsystem, bool driver);
    void assign_sources();
    template <class Q>
    LoopExit loop(Q& queue, std::int64_t end);
    // kHooks: some slot has a prefetch hook (the loops call them; without, they are the same code as before).
    template <bool kHooks>
    LoopExit loop_radix(std::int64_t end);  // loop() for the radix queue, reading its window in place
    template <bool kHooks>
    LoopExit loop_calendar(std::int64_t end);  // loop() for the calendar queue, reading its events in place
    // Prefetches the handler state of the two events after e (e[1]'s object, its second line and its hint;
    // e[2]'s slot, whose object address is read the next time): readable whatever they are (SortedRun::kPad).
    [[gnu::always_inline]] static void prefetch_handlers(const Event* e, const Slot* slots) {
        const Slot& s = slots[e[1].target];
        __builtin_prefetch(s.obj);
        __builtin_prefetch(static_cast<const char*>(s.obj) + 64);
        __builtin_prefetch(s.hint);
        __builtin_prefetch(&slots[e[2].target]);
    }
    template <bool kHooks, class Q>
    void dispatch_in_place(const Event* e, const Slot* slots, const Q& queue, std::uint64_t& events,
                           std::size_t& peak);
    void sample_through(std::int64_t t);  // takes every sample due at or before t
    void require(State state, const char* what) const;

    SimulatorOptions options_;
    QueueKind kind_;
    PushFn push_fn_;  // push_to<kind_>
    State state_ = State::Building;
    std::int64_t now_ = 0;
    const Context* running_ = nullptr;
    Time run_end_ = Time::max();
    std::uint64_t events_ = 0;
    std::uint64_t stop_at_ = 0;  // the inner loop runs while events_ < stop_at_
    // The end (or sample) time of the running radix loop for next_in_batch, below INT64_MAX (the time of the
    // window's sentinel); kNoBatch (below every event time) outside it, with prefetch hooks and after stop().
    static constexpr std::int64_t kNoBatch = std::numeric_limits<std::int64_t>::min();
    std::int64_t batch_end_ = kNoBatch;
    bool stop_requested_ = false;
    std::uint64_t stale_timer_events_ = 0;
    std::size_t peak_pending_ = 0;
    bool prefetching_ = false;  // some slot has a prefetch hook
    Time lookahead_ = Time::max();
    std::vector<Slot> slots_;
    TwoLevelQueue two_level_;
    RadixQueue radix_;
    CalendarQueue calendar_;
    HeapQueue heap_;
    std::function<void(const Progress&)> progress_;
    std::function<void(std::string_view)> phase_listener_;
    unsigned progress_log2_ = 20;
    std::function<void(Time)> sampler_;
    std::int64_t sample_interval_ = 0;
    std::int64_t next_sample_ = std::numeric_limits<std::int64_t>::max();  // the next sample time (ps)

    stats::Registry stats_;
    std::map<std::string, std::shared_ptr<spdlog::logger>> loggers_;
    std::set<std::string> paths_;
    struct PortRecord {
        PortBase* port;
        std::string path;
    };
    std::vector<PortRecord> ports_;
    std::vector<std::unique_ptr<Channel>> channels_;
    // Declared after the contexts so that components (which hold Context&) are destroyed first.
    std::deque<Context> contexts_;
    std::vector<bool> drivers_;  // by creation index: whether the component is a driver (kDriver)
    std::vector<std::unique_ptr<Component>> components_;
};

}  // namespace loom::sim
