#include "sweep_group.hpp"

#include <climits>
#include <cstdlib>

#include <fmt/format.h>

#include "loom/base/error.hpp"

#ifdef LOOM_HAVE_MPI
#include <mpi.h>
#endif

namespace loom::scenario {
namespace {

class SingleProcess final : public SweepGroup {
public:
    int rank() const override { return 0; }
    int size() const override { return 1; }
    std::string broadcast(const std::string& text) override { return text; }
    std::vector<std::string> gather(const std::string& text) override { return {text}; }
    void finish() override {}
};

// The number of processes the launcher started, from the environment Open MPI's mpirun (or another PMI/PMIx
// launcher) gives each of them; 0 when not launched by one.
int launched_size() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"}) {
        if (const char* v = std::getenv(name); v && *v) return std::atoi(v);
    }
    return 0;
}

#ifdef LOOM_HAVE_MPI
class MpiWorld final : public SweepGroup {
public:
    MpiWorld() {
        int provided = 0;
        // Only the thread that called sweep() talks to MPI; the -j workers never do.
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
        MPI_Comm_size(MPI_COMM_WORLD, &size_);
    }
    ~MpiWorld() override {
        if (finished_) return;
        // An error only this rank met: the others would wait for it forever in the next collective.
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int rank() const override { return rank_; }
    int size() const override { return size_; }
    std::string broadcast(const std::string& text) override {
        unsigned long long n = text.size();
        MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
        std::string out = rank_ == 0 ? text : std::string(static_cast<std::size_t>(n), '\0');
        check_size(n);
        if (n) MPI_Bcast(out.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD);
        return out;
    }
    std::vector<std::string> gather(const std::string& text) override {
        check_size(text.size());
        const int mine = static_cast<int>(text.size());
        std::vector<int> sizes(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
        MPI_Gather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
        std::vector<int> offsets(sizes.size());
        long long total = 0;
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            offsets[i] = static_cast<int>(total);
            total += sizes[i];
            check_size(static_cast<unsigned long long>(total));
        }
        std::string all(static_cast<std::size_t>(total), '\0');
        MPI_Gatherv(text.data(), mine, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, 0,
                    MPI_COMM_WORLD);
        std::vector<std::string> out;
        for (std::size_t i = 0; i < sizes.size(); ++i)
            out.push_back(all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(sizes[i])));
        return out;
    }
    void finish() override {
        if (finished_) return;
        finished_ = true;
        MPI_Finalize();
    }

private:
    // MPI counts are int: a sweep's summary past 2 GiB is not a case to support, but it must not wrap.
    static void check_size(unsigned long long n) {
        if (n > static_cast<unsigned long long>(INT_MAX))
            throw InputError("sweep: the results to collect exceed 2 GiB (MPI message limit)");
    }
    int rank_ = 0;
    int size_ = 1;
    bool finished_ = false;
};
#endif

}  // namespace

std::unique_ptr<SweepGroup> open_sweep_group() {
    const int launched = launched_size();
#ifdef LOOM_HAVE_MPI
    if (launched > 0) return std::make_unique<MpiWorld>();
#else
    if (launched > 1) {
        throw InputError(fmt::format("sweep: started as {} MPI processes, but this loom was built without MPI "
                                     "(install libopenmpi-dev and rebuild, LOOM_MPI=AUTO or ON); run it without "
                                     "mpirun",
                                     launched));
    }
#endif
    return std::make_unique<SingleProcess>();
}

}  // namespace loom::scenario
