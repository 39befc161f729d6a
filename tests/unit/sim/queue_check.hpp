// Checks shared by the event-queue tests: a queue under test popped in step with the heap as the reference.
#pragma once

#include <catch2/catch.hpp>

#include "loom/sim/event.hpp"

namespace loom::sim::testing {

// Pops the front of both queues, requiring the same event (time, key and argument); returns it.
template <class Queue, class Reference>
Event pop_both(Queue& q, Reference& reference) {
    const Event a = q.top();
    const Event b = reference.top();
    REQUIRE(a.time == b.time);
    REQUIRE(a.key == b.key);
    REQUIRE(a.arg == b.arg);
    q.pop();
    reference.pop();
    return a;
}

}  // namespace loom::sim::testing
