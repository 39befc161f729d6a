// One port's predicted arrivals by (transfer, vector), for the dynamic check predicted <= actual <= predicted +
// jitter allowance: it keeps a cursor for in-order lookups and counts what was seen; times come from
// sched::predicted_arrival.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "loom/base/link_timing.hpp"
#include "loom/base/serializer.hpp"
#include "loom/base/units.hpp"
#include "loom/sched/schedule.hpp"

namespace loom::tsp {

class PredictionIndex {
public:
    // Adds a run of predictions on the channel whose timing is `timing` (the same for every run of one index:
    // it is one port's channel). Call freeze() after the last add.
    void add(const sched::PredictedRun& run, const LinkTiming& timing);
    // Sorts the runs and frees spare capacity; two runs covering the same vector is a bug in the schedule
    // (InputError naming it).
    void freeze();

    bool empty() const { return entries_.empty(); }
    // Predicted arrival of `vector` of `transfer` on this channel (nullopt: none predicted), counting the
    // vector as seen. Lookups in increasing vector order within a run cost O(1).
    std::optional<Time> expect(std::uint32_t transfer, std::uint32_t vector) {
        // The common case inline (it runs per vector hop): the next vector of the entry at the cursor, whose
        // serialization is stepped to it. The same as expect_other() there.
        if (cursor_ == stepped_) {
            Entry& e = entries_[cursor_];
            if (e.transfer == transfer && vector == e.first_vector + next_ && next_ < e.count) {
                ++e.seen;
                const Time t = e.train_start + stepper_.value() + latency_;
                stepper_.next();
                ++next_;
                return t;
            }
        }
        return expect_other(transfer, vector);
    }

    // expect(transfer, vector), expect(transfer, vector + 1), ..., n >= 1 lookups at once, when all n vectors lie
    // in one entry: counts them as seen, leaves the index as those n lookups would, and sets `first` to the
    // serialization stepper of the first one's prediction, which is base + first.value() (the caller steps a copy:
    // the i-th is base + S after i next()s). Otherwise (some vector not predicted, or the vectors spanning
    // entries) returns false and changes nothing: the caller looks them up one at a time.
    bool take_span(std::uint32_t transfer, std::uint32_t vector, std::uint32_t n, Time& base, SerialStepper& first);

    // The entry the next lookup reads first (nullptr when none), for prefetching.
    const void* next_entry() const { return cursor_ < entries_.size() ? &entries_[cursor_] : nullptr; }

    struct Missing {
        std::uint32_t transfer = 0;
        std::uint32_t first_vector = 0;  // of the run that has unseen vectors
        std::uint32_t count = 0;         // vectors of that run not seen
        Time predicted;                  // predicted arrival of the run's first vector
    };
    // Runs with vectors that were predicted but never seen.
    std::vector<Missing> missing() const;

private:
    // A run's fields the check reads (32 bytes; a sched::PredictedRun and its timing were 56): the TSP and the
    // timing are the index's, final_destination is not read.
    struct Entry {
        std::uint32_t transfer = 0;
        std::uint32_t first_vector = 0;
        std::uint32_t count = 0;
        std::uint32_t offset = 0;
        std::uint32_t channel = 0;
        std::uint32_t seen = 0;
        Time train_start;
    };
    static constexpr std::uint32_t kStepSpan = 8;  // take_span: longer spans position the stepper by a division
    Time arrival(const Entry& e, std::uint32_t j) const;
    // expect() off its common case: another entry, or a vector out of order.
    std::optional<Time> expect_other(std::uint32_t transfer, std::uint32_t vector);
    // The entry that covers (transfer, vector): the cursor's, the next, else by a binary search; kNone if none.
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::size_t locate(std::uint32_t transfer, std::uint32_t vector) const;
    // What expect() reads first (it runs per vector arriving), the timing the index was made for last.
    std::vector<Entry> entries_;
    std::size_t cursor_ = 0;
    std::size_t stepped_ = std::numeric_limits<std::size_t>::max();
    std::uint32_t next_ = 0;
    Time latency_;  // timing_->latency(), summed once (it adds up the latency parts)
    // In-order lookups step the serialization instead of computing it: stepper_ is at offset + next_ + 1 of
    // entry stepped_ (sched::predicted_arrival's serialization term for vector next_ of that entry).
    SerialStepper stepper_;
    Serializer serial_;  // timing_'s serialization, for the stepper
    const LinkTiming* timing_ = nullptr;
};

}  // namespace loom::tsp
