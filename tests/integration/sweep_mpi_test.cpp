// `mpirun -n 2 loom sweep`: the runs spread over two ranks give the same summaries, byte for byte, as one process,
// and a second launch finds every run already written. Built only when Loom is built with MPI.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "cli_harness.hpp"

using loom_cli::scratch;
using loom_cli::slurp;
using loom_cli::write;
namespace fs = std::filesystem;

namespace {

// Runs `mpirun -n RANKS loom ARGS` (as root in CI containers, more ranks than cores allowed): the exit code.
int mpirun(int ranks, const std::string& args, const fs::path& err) {
    const std::string cmd = "cd '" + std::string(LOOM_SOURCE_DIR) + "' && '" + LOOM_MPIEXEC +
                            "' --allow-run-as-root --oversubscribe -n " + std::to_string(ranks) + " '" + LOOM_EXE +
                            "' " + args + " >/dev/null 2>'" + err.string() + "'";
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("A sweep over 2 MPI ranks writes the same points.csv and points.jsonl bytes as one process and resumes") {
    const auto d = scratch("sweep-mpi");
    write(d / "base.json", R"({"model": "phold", "seed": 3, "end_time": "20us", "phold": {"lps": 32, "population": 4}})");
    const fs::path s = d / "m.sweep.json";
    write(s, R"({"base": "base.json", "axes": [{"path": "phold.lps", "values": [16, 32, 48]}],
                "report": ["/stats/phold/events_handled"], "replications": 2})");
    const auto single = loom_cli::loom("sweep " + s.string() + " --quiet --out " + (d / "single").string());
    REQUIRE(single.code == 0);
    const int code = mpirun(2, "sweep " + s.string() + " -j 2 --quiet --out " + (d / "mpi").string(), d / "err1");
    INFO(slurp(d / "err1"));
    REQUIRE(code == 0);
    CHECK(slurp(d / "mpi/points.csv") == slurp(d / "single/points.csv"));
    CHECK(slurp(d / "mpi/points.jsonl") == slurp(d / "single/points.jsonl"));
    CHECK(slurp(d / "mpi/points/p0002/r001/stats.json") == slurp(d / "single/points/p0002/r001/stats.json"));
    // An interrupted launch leaves some runs written: the next one runs only the rest and ends the same.
    fs::remove_all(d / "mpi/points/p0001");
    fs::remove(d / "mpi/points.csv");
    const int again = mpirun(2, "sweep " + s.string() + " --progress --out " + (d / "mpi").string(), d / "err2");
    const std::string err = slurp(d / "err2");
    INFO(err);
    CHECK(again == 0);
    CHECK(err.find("p0000/r000 cached") != std::string::npos);
    CHECK(err.find("p0001/r000 ok") != std::string::npos);
    CHECK(slurp(d / "mpi/points.csv") == slurp(d / "single/points.csv"));
    CHECK(slurp(d / "mpi/points.jsonl") == slurp(d / "single/points.jsonl"));
}
