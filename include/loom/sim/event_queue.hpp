// The one interface every pending-event queue implements (a plug point: the contract below is what an
// implementation must keep), and the config-visible choice between the implementations.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "loom/sim/event.hpp"

namespace loom::sim {

// Contract of an event queue Q (checked by the concept; semantics by tests/unit/sim/event_queue_test.cpp):
//   push(e)          inserts e. e.time >= 0 and e.time >= the time of the last event popped (the kernel never
//                    schedules into the past). O(1) amortized for the calendar, O(log n) for the heap.
//   top()            the least pending event in the order `before` (time, then key); queue not empty. It may
//                    reorganize internal storage, so it is not const; the returned reference is valid until
//                    the next push or pop.
//   pop()            removes the event top() returns; queue not empty; top() must have been called since the
//                    last push or pop (the kernel always peeks first to test its end time).
//   size(), empty()  pending events.
//   clear()          drops every event, keeps tuning state.
//   bytes_held()     heap memory the queue owns now (capacities, not sizes): what the 32 B/event target counts.
//   for_each(f)      calls f(const Event&) for every pending event, in unspecified order (end-of-run accounting).
//   peek(k)          the event k places after top() if the queue can name it without work, else nullptr. A
//                    hint only (the kernel prefetches the handlers of the next events with it); it may be
//                    stale after the next push.
// Pop order is a pure function of the multiset of pending events: it never depends on insertion order, so
// every implementation produces the same sequence. The kernel holds the queue by value and calls it directly
// (no virtual call per event); the choice between implementations is made once per run.
template <class Q>
concept EventQueue = requires(Q q, const Q cq, const Event& e) {
    q.push(e);
    { q.top() } -> std::same_as<const Event&>;
    q.pop();
    { cq.size() } -> std::same_as<std::size_t>;
    { cq.empty() } -> std::same_as<bool>;
    q.clear();
    { cq.bytes_held() } -> std::same_as<std::size_t>;
    { cq.peek(std::size_t{1}) } -> std::same_as<const Event*>;
};

// Which implementation a Simulator uses ("kernel": {"queue": ...}).
//   Calendar — sliding bucket ring with sort-on-activation and an overflow heap; adapts its bucket width and
//              ring size to the workload. The default: fastest in CPU time on every measured workload.
//   TwoLevel — coarse ring of unsorted windows in front of narrow buckets that mostly hold one event, with an
//              overflow heap; adapts bucket width and ring length. Fewer instructions than the calendar on
//              PHOLD but more CPU time (bench/README.md), so not the default.
//   Radix    — ring of wide unsorted windows (events appended to chunks), each sorted on activation by one
//              counting-sort pass over 256 fine buckets and an insertion pass; adapts width and ring length.
//              Fastest on PHOLD and the hold benchmarks, slower than the calendar on same-time bursts
//              (bench/README.md); configs/bench/phold.json selects it.
//   Heap     — 4-ary implicit heap: simple, no tuning, O(log n); the reference the others are checked against.
enum class QueueKind { Calendar, Heap, TwoLevel, Radix };

const char* to_string(QueueKind kind);  // "calendar" | "heap" | "two_level" | "radix"
std::optional<QueueKind> parse_queue_kind(std::string_view text);  // inverse of to_string

}  // namespace loom::sim
