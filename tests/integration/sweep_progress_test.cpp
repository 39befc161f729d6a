// Progress on long commands through the real binary: phases of `schedule --compare` and of a fabric run on
// stderr with --progress, nothing without it when stderr is not a terminal, and never in the files.
#include <catch2/catch.hpp>

#include "cli_harness.hpp"

using loom_cli::loom;
using loom_cli::scratch;
using loom_cli::slurp;
namespace fs = std::filesystem;

namespace {

// The "phase: ..." lines of stderr, in order (the progress line's carriage returns removed).
std::string phases(const std::string& err) {
    std::string out, line;
    for (char c : err + "\n") {
        if (c == '\r') {
            line.clear();
        } else if (c == '\n') {
            if (line.rfind("phase: ", 0) == 0) out += line + "\n";
            line.clear();
        } else {
            line += c;
        }
    }
    return out;
}

}  // namespace

TEST_CASE("schedule --compare with --progress prints compile, verify, run and each dynamic run, and the same files") {
    const auto d = scratch("progress-schedule");
    const std::string args = "schedule configs/tsp/collectives/allreduce-node.json --compare dynamic --seeds 2 "
                             "--routing minimal,valiant";
    const auto shown = loom(args + " --progress --out " + (d / "a").string());
    INFO(shown.err);
    REQUIRE(shown.code == 0);
    CHECK(phases(shown.err) == "phase: compile\nphase: verify\nphase: run\n"
                               "phase: dynamic run 1/4: minimal seed 1\nphase: dynamic run 2/4: minimal seed 2\n"
                               "phase: dynamic run 3/4: valiant seed 1\nphase: dynamic run 4/4: valiant seed 2\n");
    const auto silent = loom(args + " --out " + (d / "b").string());
    REQUIRE(silent.code == 0);
    CHECK(silent.err.empty());
    CHECK(shown.out == silent.out);
    CHECK(slurp(d / "a/stats.json") == slurp(d / "b/stats.json"));
}

TEST_CASE("A fabric run with --progress names its warm-up, measure and drain phases") {
    const auto d = scratch("progress-fabric");
    const auto r = loom("run configs/dragonfly/small-ur.json --set traffic.rate=0.1 --progress --out " + d.string());
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(phases(r.err) == "phase: run\nphase: warm-up\nphase: measure\nphase: drain\n");
    CHECK(slurp(d / "stats.json").find("phase: ") == std::string::npos);
}
