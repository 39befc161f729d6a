#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "loom/config/schema.hpp"
#include "loom/net/port_config.hpp"

using namespace loom;
using namespace loom::literals;
using namespace loom::net;

namespace {
PortConfig parse(const config::Json& j, config::Errors& errors) {
    PortConfig c;
    port_schema().parse(j, "/port", c, errors);
    return c;
}
}  // namespace

TEST_CASE("A port config defaults to one strict-priority queue of 1000 packets and no faults") {
    config::Errors errors;
    const PortConfig c = parse(config::Json::object(), errors);
    CHECK(errors.empty());
    REQUIRE(c.queues.size() == 1);
    CHECK(c.queues[0].max_packets == 1000);
    CHECK(c.scheduling == Scheduling::StrictPriority);
    CHECK_FALSE(c.link_retry);
    CHECK(c.faults.loss == 0.0);
    CHECK(c.faults.down.empty());
}

TEST_CASE("A port config parses queues, scheduling, retry and faults with units") {
    config::Errors errors;
    const PortConfig c = parse(config::Json::parse(R"({
        "queues": [{"max_packets": 10, "weight": 3}, {"max_bytes": "64KiB"}],
        "scheduling": "weighted_round_robin", "packet_overhead": "24B",
        "link_retry": true, "replay_latency": "250ns",
        "faults": {"loss": 0.01, "delay": "2us", "duplicate": 0.001, "reorder_window": "1us",
                   "down": [{"from": "1ms", "to": "2ms"}]}})"),
                               errors);
    INFO((errors.empty() ? std::string() : errors.messages().front()));
    REQUIRE(errors.empty());
    REQUIRE(c.queues.size() == 2);
    CHECK(c.queues[0].weight == 3);
    CHECK(c.queues[1].max_bytes == 64_KiB);
    CHECK(c.scheduling == Scheduling::WeightedRoundRobin);
    CHECK(c.packet_overhead == 24_B);
    CHECK(c.replay_latency == 250_ns);
    CHECK(c.faults.delay == 2_us);
    REQUIRE(c.faults.down.size() == 1);
    CHECK(c.faults.down[0].to == 2_ms);
}

TEST_CASE("A port config reports bad values at their JSON Pointers") {
    config::Errors errors;
    parse(config::Json::parse(R"({"faults": {"loss": 1.5, "down": [{"from": "2ms", "to": "1ms"}]}})"), errors);
    const auto& m = errors.messages();
    auto has = [&](const std::string& prefix) {
        return std::any_of(m.begin(), m.end(), [&](const std::string& s) { return s.rfind(prefix, 0) == 0; });
    };
    CHECK(has("/port/faults/loss:"));
    CHECK(has("/port/faults/down/0/to:"));
    config::Errors none;
    parse(config::Json::parse(R"({"queues": []})"), none);
    REQUIRE(none.size() == 1);
    CHECK(none.messages()[0].rfind("/port/queues:", 0) == 0);
    config::Errors fine;
    parse(config::Json::parse(R"({"queues": [], "scheduling": "none"})"), fine);
    CHECK(fine.empty());
}

TEST_CASE("A port config lists every parameter with its doc for loom list") {
    const auto fields = port_schema().describe();
    std::vector<std::string> keys;
    for (const auto& f : fields) keys.push_back(f.key);
    for (const char* k : {"queues", "scheduling", "packet_overhead", "link_retry", "replay_latency", "max_retries", "faults"})
        CHECK(std::find(keys.begin(), keys.end(), k) != keys.end());
    for (const auto& f : fields) CHECK_FALSE(f.doc.empty());
}
