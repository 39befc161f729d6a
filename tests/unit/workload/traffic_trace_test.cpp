#include <catch2/catch.hpp>

#include "loom/base/error.hpp"
#include "loom/workload/traffic_trace.hpp"

using namespace loom;
using namespace loom::workload;

TEST_CASE("A trace reads durations and integer picoseconds and sorts messages stably by time") {
    const auto t = TrafficTrace::parse(
        "{\"time\": \"2ns\", \"src\": 1, \"dst\": 2, \"bytes\": 64}\n"
        "\n"
        "{\"time\": 1000, \"src\": 3, \"dst\": 0, \"bytes\": 1}\n"
        "{\"time\": \"1ns\", \"src\": 4, \"dst\": 5, \"bytes\": 7}\n",
        "t.jsonl");
    REQUIRE(t.messages().size() == 3);
    CHECK(t.messages()[0].src == 3);
    CHECK(t.messages()[0].time == Time::ns(1));
    CHECK(t.messages()[1].src == 4);
    CHECK(t.messages()[2].time == Time::ns(2));
    CHECK(t.messages()[2].bytes == Bytes(64));
    CHECK(t.problems(6).empty());
    const auto p = t.problems(5);
    REQUIRE(p.size() == 1);
    CHECK(p[0] == "t.jsonl:4: /dst: expected a terminal id in 0..4, got 5");
}

TEST_CASE("Every bad trace line is reported with its file line and pointer") {
    try {
        TrafficTrace::parse("{\"time\": \"x\", \"src\": 1, \"dst\": 2, \"bytes\": 1}\n"
                            "{\"time\": 5, \"src\": -1, \"dst\": 2, \"bytes\": 0, \"tag\": 1}\n"
                            "not json\n",
                            "bad.jsonl");
        FAIL("no error");
    } catch (const ConfigError& e) {
        const auto& m = e.messages();
        REQUIRE(m.size() == 5);
        CHECK(m[0].rfind("bad.jsonl:1: /time: expected a duration", 0) == 0);
        CHECK(m[1].rfind("bad.jsonl:2: /tag: unknown key 'tag'", 0) == 0);
        CHECK(m[2].rfind("bad.jsonl:2: /src: expected integer in 0..", 0) == 0);
        CHECK(m[3].rfind("bad.jsonl:2: /bytes: expected integer in 1..", 0) == 0);
        CHECK(m[4].rfind("bad.jsonl:3: malformed JSON", 0) == 0);
    }
}

TEST_CASE("A missing trace file is an input error naming the file") {
    CHECK_THROWS_WITH(TrafficTrace::load("/nonexistent/trace.jsonl"),
                      "/nonexistent/trace.jsonl: cannot open trace file");
}
