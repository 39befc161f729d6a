// The scheduler's checks of its inputs before planning. The first ones repeat ranges that scheduler_schema() and
// chip_schema() already enforce when parsing JSON; they stay because compile() is also called with values built in
// code, which no schema has seen.
#include <string>

#include <fmt/format.h>

#include "loom/base/error.hpp"
#include "scheduler_impl.hpp"

namespace loom::sched::detail {

void Scheduler::check_inputs() const {
    if (cfg_.max_paths < 1) throw InputError("/scheduler/max_paths: expected at least 1");
    if (cfg_.min_chunk_vectors < 1) throw InputError("/scheduler/min_chunk_vectors: expected at least 1");
    if (cfg_.max_train_vectors < 0) throw InputError("/scheduler/max_train_vectors: expected 0 or more");
    if (jitter_ < Time::zero()) throw InputError("/scheduler/jitter_allowance: must not be negative");
    if (chip_.issue_cycles < 0 || chip_.forward_cycles < 0 || chip_.crossing_cycles < 0 || chip_.fifo_depth < 1)
        throw InputError("/chip: issue_cycles, forward_cycles and crossing_cycles must be >= 0, fifo_depth >= 1");
    config::Errors errors;
    workload::validate(set_, topo_, chip_, "/workload", errors, unit_);
    if (cfg_.staging) {
        const std::int64_t limit = chip_.memory.count() - cfg_.staging_bytes.count();
        if (limit < 0) errors.add("/scheduler/staging_bytes", "is larger than the chip's memory");
        for (std::size_t i = 0; i < set_.transfers.size() && limit >= 0; ++i) {
            const workload::Transfer& x = set_.transfers[i];
            const std::int64_t size = x.vectors(unit_) * unit_.count();
            for (const char* key : {"src_address", "dst_address"}) {
                const std::int64_t a = std::string(key) == "src_address" ? x.src_address : x.dst_address;
                if (a + size > limit)
                    errors.add(fmt::format("/workload/transfers/{}/{}", i, key),
                               fmt::format("overlaps the staging area (the top {} of memory, from offset {})",
                                           to_string(cfg_.staging_bytes), limit));
            }
        }
    }
    errors.throw_if_any();
}

}  // namespace loom::sched::detail
