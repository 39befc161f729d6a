// Hostile and careless input to the real `loom` binary: every case is bad input (exit 2) with a one-line error
// naming the place, never a crash, a hang or a report that looks complete when it is not.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"

using loom_cli::loom;
using loom_cli::scratch;
using loom_cli::slurp;
using loom_cli::write;
namespace fs = std::filesystem;

namespace {

const std::string kSmall = "configs/bench/phold.json --set phold.lps=64 --set phold.population=4 --set end_time=20us";

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string nested_array(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

}  // namespace

TEST_CASE("A config with an array nested a million deep is bad input naming the file and the depth limit") {
    const auto d = scratch("deep-config");
    write(d / "deep.json", "{\"model\": \"phold\", \"phold\": " + nested_array(1'000'000) + "}");
    const auto r = loom("validate " + (d / "deep.json").string());
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(starts_with(r.first_err(), "loom: " + (d / "deep.json").string() + ": /phold/0/0/"));
    CHECK(contains(r.first_err(), "JSON nested deeper than 128 levels"));
}

TEST_CASE("A --set value nested too deep is bad input naming the override") {
    const auto r = loom("validate " + kSmall + " --set 'phold.x=" + nested_array(10'000) + "'");
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(starts_with(r.first_err(), "loom: --set phold.x: /0/0/"));
    CHECK(contains(r.first_err(), "nested deeper than 128 levels"));
}

TEST_CASE("A sweep axis value nested a hundred thousand deep is bad input naming the sweep file") {
    const auto d = scratch("deep-sweep");
    write(d / "deep.sweep.json", "{\"base\": \"" LOOM_SOURCE_DIR "/configs/bench/phold.json\", \"axes\": [{\"path\": "
                                 "\"phold.lps\", \"values\": [" + nested_array(100'000) + "]}]}");
    const auto r = loom("sweep " + (d / "deep.sweep.json").string() + " --quiet --out " + (d / "out").string());
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(starts_with(r.first_err(), "loom: " + (d / "deep.sweep.json").string() + ": /axes/0/values/0/"));
}

TEST_CASE("Character devices are refused before reading") {
    for (const char* dev : {"/dev/zero", "/dev/urandom"}) {
        const auto r = loom(std::string("validate ") + dev);
        CHECK(r.code == 2);
        CHECK(r.first_err() == std::string("loom: ") + dev + ": not a regular file (a character device)");
    }
}

TEST_CASE("A FIFO with no writer is refused instead of blocking forever") {
    const auto d = scratch("fifo");
    const fs::path fifo = d / "config.json";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const auto r = loom("validate " + fifo.string());
    CHECK(r.code == 2);
    CHECK(r.first_err() == "loom: " + fifo.string() + ": not a regular file (a pipe)");
}

TEST_CASE("A directory given as a config is refused") {
    const auto r = loom("run configs");
    CHECK(r.code == 2);
    CHECK(r.first_err() == "loom: configs: not a regular file (a directory)");
}

TEST_CASE("A config file larger than 64 MiB is refused with the limit") {
    const auto d = scratch("large");
    const fs::path big = d / "big.json";
    write(big, "{}");
    fs::resize_file(big, (std::uintmax_t{64} << 20) + 1);  // sparse: nothing is written
    const auto r = loom("validate " + big.string());
    CHECK(r.code == 2);
    CHECK(starts_with(r.first_err(), "loom: " + big.string() + ": file is larger than 64 MiB"));
}

TEST_CASE("A number out of a double's range in a config is bad input naming its pointer") {
    const auto d = scratch("huge-number");
    write(d / "c.json", R"({"model": "phold", "phold": {"lps": 64, "mean_delay": 1e400}})");
    const auto r = loom("validate " + (d / "c.json").string());
    CHECK(r.code == 2);
    CHECK(r.first_err() == "loom: " + (d / "c.json").string() + ": /phold/mean_delay: number 1e400 is out of range");
}

TEST_CASE("A number out of a double's range in a sweep file is bad input naming its pointer") {
    const auto d = scratch("huge-number-sweep");
    write(d / "s.sweep.json", "{\"base\": \"" LOOM_SOURCE_DIR "/configs/bench/phold.json\", \"axes\": [{\"path\": "
                              "\"phold.lps\", \"values\": [64, -1e400]}]}");
    const auto r = loom("sweep " + (d / "s.sweep.json").string() + " --quiet --out " + (d / "out").string());
    CHECK(r.code == 2);
    CHECK(r.first_err() == "loom: " + (d / "s.sweep.json").string() + ": /axes/0/values/1: number -1e400 is out of range");
}

TEST_CASE("Non-UTF-8 bytes in --set are bad input") {
    const auto r = loom("validate " + kSmall + " --set \"description=$(printf 'caf\\351')\"");
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(starts_with(r.first_err(), "loom: --set: not valid UTF-8"));
}

TEST_CASE("A failed write to standard output is an error naming it") {
    const auto run = loom("run " + kSmall + " --quiet > /dev/full");
    CHECK(run.code == 2);
    CHECK(run.first_err() == "loom: standard output: write failed: No space left on device");
    const auto list = loom("list > /dev/full");
    CHECK(list.code == 2);
    CHECK(list.first_err() == "loom: standard output: write failed: No space left on device");
}

TEST_CASE("Empty or meaningless flag values are one-line errors") {
    struct Case {
        std::string args;
        std::string flag;
    };
    const Case cases[] = {
        {"run " + kSmall + " --out ''", "--out"},
        {"run " + kSmall + " --trace ''", "--trace"},
        {"schedule configs/tsp/schedule-node.json --compare dynamic --seeds 0", "--seeds"},
        {"schedule configs/tsp/schedule-node.json --compare dynamic --routing ''", "--routing"},
        {"schedule configs/tsp/schedule-node.json --compare ''", "--compare"},
        {"list --format csv", "--format"},
        {"run ''", "config"},
        {"run " + kSmall + " --log-level loud", "--log-level"},
    };
    for (const auto& c : cases) {
        const auto r = loom(c.args);
        INFO(c.args << "\n" << r.err);
        CHECK(r.code == 2);
        CHECK(starts_with(r.first_err(), "loom: "));
        CHECK(contains(r.first_err(), c.flag));
        CHECK(r.err.find('\n') == r.err.size() - 1);  // one line
        CHECK(r.out.empty());
    }
}

TEST_CASE("A bad LOOM_LOG is an error naming the variable") {
    const auto r = loom("run " + kSmall, "LOOM_LOG=loud");
    CHECK(r.code == 2);
    CHECK(r.first_err() == "loom: LOOM_LOG: expected one of trace, debug, info, warn, error, off, got 'loud'");
}

TEST_CASE("A failed rerun into an existing --out leaves no stats.json from the previous run") {
    const auto d = scratch("rerun");
    REQUIRE(loom("run " + kSmall + " --quiet --out " + d.string()).code == 0);
    REQUIRE(fs::exists(d / "stats.json"));
    const auto r = loom("run " + kSmall + " --set phold.lps=0 --quiet --out " + d.string());
    CHECK(r.code == 2);
    CHECK_FALSE(fs::exists(d / "stats.json"));
    CHECK_FALSE(fs::exists(d / "report.txt"));
    CHECK_FALSE(fs::exists(d / "config.json"));
}

TEST_CASE("loom validate reports every error of a config in one pass, each line naming the file") {
    const auto d = scratch("all-errors");
    write(d / "c.json", R"({"model": "phold", "seed": -1, "bogus": 1, "phold": {"lps": 0, "mean_delay": "1x"}})");
    const auto r = loom("validate " + (d / "c.json").string());
    CHECK(r.code == 2);
    const std::string file = "loom: " + (d / "c.json").string() + ": ";
    CHECK(r.first_err() == file + "/seed: expected integer >= 0, got -1");
    CHECK(contains(r.err, file + "/bogus: unknown key 'bogus'"));
    CHECK(contains(r.err, file + "/phold/lps: expected integer in 1..1048576, got 0"));
    CHECK(contains(r.err, file + "/phold/mean_delay: expected a duration"));
}

TEST_CASE("The log level from --log-level or LOOM_LOG sets what every command logs on stderr") {
    const auto debug = loom("validate configs/bench/phold.json --log-level debug");
    CHECK(debug.code == 0);
    CHECK(contains(debug.first_err(), "[debug] loom 0."));
    CHECK(debug.out == "configs/bench/phold.json: ok\n");
    const auto env = loom("list --format json", "LOOM_LOG=debug");
    CHECK(env.code == 0);
    CHECK(contains(env.first_err(), "[debug] loom 0."));
    // The flag wins over the environment.
    const auto off = loom("validate configs/bench/phold.json --log-level off", "LOOM_LOG=debug");
    CHECK(off.code == 0);
    CHECK(off.err.empty());
}

TEST_CASE("loom --version names the git commit, and --help speaks only of models that exist") {
    const auto v = loom("--version");
    CHECK(v.code == 0);
    CHECK(starts_with(v.out, "loom 0."));
    CHECK(contains(v.out, " (git "));
    const auto h = loom("--help");
    CHECK(h.code == 0);
    for (const char* model : {"tsp", "fabric", "ananta", "phold"}) CHECK(contains(h.out, model));
}
