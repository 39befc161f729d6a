// The processes a sweep is spread over: one (the default) or the ranks of an `mpirun` launch when Loom is built
// with Open MPI. The sweep stays the same code either way: it asks only for its rank, a broadcast from rank 0
// and a gather to rank 0, all of text.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace loom::scenario {

class SweepGroup {
public:
    virtual ~SweepGroup() = default;
    virtual int rank() const = 0;  // 0 .. size() - 1; rank 0 writes the summaries and prints
    virtual int size() const = 0;
    // Every rank calls it; rank 0's `text` is what every rank gets back.
    virtual std::string broadcast(const std::string& text) = 0;
    // Every rank calls it; rank 0 gets every rank's text in rank order, the others an empty vector.
    virtual std::vector<std::string> gather(const std::string& text) = 0;
    // Every rank calls it once the sweep is over (results or an error every rank reached alike). A group that
    // is destroyed without it (an error only one rank met) takes every rank down rather than leave them waiting.
    virtual void finish() = 0;
};

// The group of this process: MPI's world when built with it and launched by mpirun (the launcher's environment
// says so), else a group of one. Throws InputError when launched by mpirun with more than one rank and built
// without MPI: the ranks would each run the whole sweep into the same folder.
std::unique_ptr<SweepGroup> open_sweep_group();

}  // namespace loom::scenario
