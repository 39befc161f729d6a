// Hostile or careless input that reaches the models: the real `loom` in a separate process, checked by exit code and
// the first line of stderr (the README's promise: bad input exits 2 with one line saying where).
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "cli_harness.hpp"

namespace fs = std::filesystem;
using loom_cli::loom;
using loom_cli::scratch;

namespace {

fs::path write(const fs::path& dir, const std::string& name, const std::string& text) {
    const fs::path p = dir / name;
    loom_cli::write(p, text);
    return p;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const std::string kNode = R"("model": "tsp", "topology": {"kind": "node", "tsps_per_node": 8})";

}  // namespace

TEST_CASE("A transfer earliest near the largest 64-bit time is bad input naming its pointer") {
    const fs::path d = scratch("earliest");
    const auto cfg = write(d, "c.json", "{" + kNode + R"(, "workload": {"transfers": [
        {"src": 0, "dsts": [1], "bytes": "320B", "earliest": "9223372036854775000ps"}]}})");
    const loom_cli::Run r = loom("schedule " + cfg.string());
    CHECK(r.code == 2);
    CHECK(has(r.first_err(), "/workload/transfers/0/earliest"));
}

TEST_CASE("A compute_before above the largest input time is bad input naming its pointer") {
    const fs::path d = scratch("compute-before");
    const auto cfg = write(d, "c.json", "{" + kNode + R"(, "workload": {"transfers": [
        {"id": 0, "src": 0, "dsts": [1], "bytes": "320B"},
        {"id": 1, "src": 1, "dsts": [2], "bytes": "320B", "deps": [0], "compute_before": "9000000000000000000ps"}]}})");
    const loom_cli::Run r = loom("validate " + cfg.string());
    CHECK(r.code == 2);
    CHECK(has(r.first_err(), "/workload/transfers/1/compute_before"));
}

TEST_CASE("A dependency chain whose compute times add up past the largest input time is bad input") {
    const fs::path d = scratch("chain");
    const auto cfg = write(d, "c.json", "{" + kNode + R"(, "workload": {"transfers": [
        {"id": 0, "src": 0, "dsts": [1], "bytes": "320B", "earliest": "900s"},
        {"id": 1, "src": 1, "dsts": [2], "bytes": "320B", "deps": [0], "compute_before": "900s"}]}})");
    const loom_cli::Run r = loom("schedule " + cfg.string());
    CHECK(r.code == 2);
    CHECK(has(r.first_err(), "/workload/transfers/1"));
    CHECK(has(r.first_err(), "could start only after"));
}

TEST_CASE("schedule --seeds 0 is bad input") {
    const loom_cli::Run r = loom("schedule configs/tsp/compare-node.json --compare dynamic --seeds 0");
    CHECK(r.code == 2);
    CHECK(has(r.first_err(), "--seeds: expected an integer >= 1"));
}

TEST_CASE("schedule --compare dynamic stops the dynamic runs at end_time as it stops the scheduled one") {
    const loom_cli::Run r =
        loom("schedule configs/tsp/compare-node.json --compare dynamic --seeds 1 --routing min --brief --set end_time=28us");
    CHECK(r.code == 0);
    CHECK(has(r.out, "dynamic-minimal: cut short at end_time 28us"));
}

TEST_CASE("A directory given as the fabric's trace file is bad input, not an empty trace") {
    const fs::path d = scratch("trace-dir");
    const loom_cli::Run r = loom("run configs/dragonfly/small-ur.json --set traffic.pattern=trace --set traffic.trace=" +
                          d.string());
    CHECK(r.code == 2);
    CHECK(has(r.first_err(), "not a regular file"));
}

TEST_CASE("A trace message time past the largest input time is bad input naming its line") {
    const fs::path d = scratch("trace-time");
    const auto trace = write(d, "t.jsonl", R"({"time": 9223372036854775000, "src": 0, "dst": 1, "bytes": 64})" "\n");
    const loom_cli::Run r = loom("run configs/dragonfly/small-ur.json --set traffic.pattern=trace --set traffic.trace=" +
                          trace.string());
    CHECK(r.code == 2);
    CHECK(has(r.first_err(), "t.jsonl:1"));
}

TEST_CASE("An uncorrectable FEC error replays the vector, which then misses its slot: exit 3") {
    const loom_cli::Run r = loom("schedule configs/tsp/schedule-node.json --brief --set links.in_node.bit_error_rate=0.003");
    CHECK(r.code == 3);
    CHECK(has(r.first_err(), "outside its predicted window"));
}

TEST_CASE("A random workload too large for the memory available is refused before it is built") {
    const loom_cli::Run r = loom("validate configs/tsp/schedule-node.json --set workload.random.count=4294967296");
    CHECK(r.code == 2);
    CHECK(has(r.first_err(), "/workload/random/count: this workload needs about"));
}

TEST_CASE("An all-to-all over 10,440 TSPs is refused before it is built") {
    const loom_cli::Run r =
        loom("validate configs/tsp/collectives/allreduce-10440.json --set workload.collective.kind=all_to_all");
    CHECK(r.code == 2);
    CHECK(has(r.first_err(), "/workload/collective: this workload needs about"));
}

TEST_CASE("loom topo on a Dragonfly speaks of routers, channels, bisection and zero-load latency") {
    const loom_cli::Run r = loom("topo configs/dragonfly/small-ur.json");
    CHECK(r.code == 0);
    CHECK(has(r.out, "routers                36 in 9 groups of 4"));
    CHECK(has(r.out, "20 flits/cycle"));
    CHECK(has(r.out, "zero-load latency"));
    CHECK_FALSE(has(r.out, "tsps"));
}

TEST_CASE("A schedule whose last vector lands after end_time is cut short even when its last event came before") {
    // compare-node: the last train starts before 18 us, its last vector lands at 24.77 us.
    const loom_cli::Run r = loom("schedule configs/tsp/compare-node.json --brief --set end_time=18us");
    CHECK(r.code == 3);
    CHECK(has(r.first_err(), "run cut short at 18us (end_time): the last vector arrives at"));
    const loom_cli::Run ok = loom("schedule configs/tsp/compare-node.json --brief --set end_time=25us");
    CHECK(ok.code == 0);
}

TEST_CASE("A --max-memory cap refuses work whose estimate exceeds it, before building it") {
    const loom_cli::Run r =
        loom("validate configs/tsp/schedule-node.json --max-memory 64MiB --set workload.random.count=1000000");
    CHECK(r.code == 2);
    CHECK(has(r.first_err(), "/workload/random/count: this workload needs about"));
    const loom_cli::Run ok = loom("validate configs/tsp/schedule-node.json --max-memory 2GiB");
    CHECK(ok.code == 0);
}

TEST_CASE("A --max-memory cap must be a positive size above what the process already uses") {
    const loom_cli::Run word = loom("validate configs/tsp/schedule-node.json --max-memory lots");
    CHECK(word.code == 2);
    CHECK(has(word.first_err(), "--max-memory: expected a positive size such as 4GiB"));
    const loom_cli::Run tiny = loom("validate configs/tsp/schedule-node.json --max-memory 1KiB");
    CHECK(tiny.code == 2);
    CHECK(has(tiny.first_err(), "--max-memory: 1024 B is below the"));
}

TEST_CASE("A collective cut into too many pieces is refused while it is generated, naming the collective") {
    const loom_cli::Run r = loom("validate configs/tsp/collectives/allreduce-10440.json --max-memory 1GiB "
                                 "--set workload.collective.pieces=64");
    CHECK(r.code == 2);
    CHECK(has(r.first_err(), "/workload/collective: this workload needs more than the"));
}

TEST_CASE("A trace message of 2^40 bytes is cut into packets as they start, not all at once") {
    const fs::path d = scratch("trace-huge");
    const auto trace = write(d, "t.jsonl", R"({"time": 0, "src": 0, "dst": 1, "bytes": 1099511627776})" "\n");
    const loom_cli::Run r = loom("run configs/dragonfly/small-ur.json --max-memory 1GiB --set end_time=2us "
                                 "--set traffic.pattern=trace --set traffic.trace=" + trace.string());
    INFO(r.err);
    CHECK_FALSE(has(r.err, "out of memory"));
    CHECK((r.code == 0 || r.code == 3));
}
