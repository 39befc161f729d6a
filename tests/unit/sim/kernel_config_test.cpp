#include <catch2/catch.hpp>

#include <string>

#include "loom/sim/kernel_config.hpp"

using namespace loom;
using namespace loom::sim;

TEST_CASE("The kernel section selects the queue and an event budget") {
    KernelConfig k;
    config::Errors errors;
    kernel_schema().parse(config::Json{{"queue", "heap"}, {"max_events", 1000}}, "/kernel", k, errors);
    CHECK(errors.empty());
    CHECK(k.queue == QueueKind::Heap);
    CHECK(k.max_events == 1000);
    const SimulatorOptions o = simulator_options(k, 7);
    CHECK(o.queue == QueueKind::Heap);
    CHECK(o.seed == 7);
    const RunLimits l = run_limits(k, Time::us(200));
    CHECK(l.end == Time::us(200));
    CHECK(l.max_events == 1000);
}

TEST_CASE("The kernel section defaults to the calendar queue and no budget") {
    KernelConfig k;
    config::Errors errors;
    kernel_schema().parse(config::Json::object(), "/kernel", k, errors);
    CHECK(errors.empty());
    CHECK(k.queue == QueueKind::Calendar);
    CHECK(k.max_events == 0);
    CHECK(k.shuffle_construction == 0);
    CHECK(kernel_schema().defaults() ==
          config::Json{{"queue", "calendar"}, {"max_events", 0}, {"shuffle_construction", 0}});
}

TEST_CASE("Bad kernel values are reported at their JSON Pointer") {
    KernelConfig k;
    config::Errors errors;
    kernel_schema().parse(config::Json{{"queue", "ladder"}, {"max_events", -1}, {"qeue", 1}}, "/kernel", k, errors);
    REQUIRE(errors.size() == 3);
    std::string all;
    for (const auto& m : errors.messages()) all += m + "\n";
    CHECK(all.find("/kernel/queue") != std::string::npos);
    CHECK(all.find("/kernel/max_events") != std::string::npos);
    CHECK(all.find("/kernel/qeue") != std::string::npos);
}
