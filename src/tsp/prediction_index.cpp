#include "loom/tsp/prediction_index.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "loom/base/assert.hpp"
#include "loom/base/error.hpp"
#include "loom/sched/schedule.hpp"

namespace loom::tsp {

void PredictionIndex::add(const sched::PredictedRun& run, const LinkTiming& timing) {
    if (timing_ == nullptr) {
        timing_ = &timing;
        latency_ = timing.latency();
        serial_ = Serializer(timing);
    }
    LOOM_ASSERT(timing_ == &timing, "PredictionIndex: runs on channels with different timings");
    entries_.push_back(Entry{run.transfer, run.first_vector, run.count, run.offset, run.channel, 0, run.train_start});
}

Time PredictionIndex::arrival(const Entry& e, std::uint32_t j) const {
    sched::PredictedRun r;
    r.transfer = e.transfer;
    r.channel = e.channel;
    r.first_vector = e.first_vector;
    r.count = e.count;
    r.offset = e.offset;
    r.train_start = e.train_start;
    // The scheduler's own formula, so prediction and check cannot drift apart.
    return sched::predicted_arrival(r, j, *timing_);
}

void PredictionIndex::freeze() {
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
        return std::tie(a.transfer, a.first_vector) < std::tie(b.transfer, b.first_vector);
    });
    entries_.shrink_to_fit();
    for (std::size_t i = 1; i < entries_.size(); ++i) {
        const Entry& a = entries_[i - 1];
        const Entry& b = entries_[i];
        if (a.transfer == b.transfer && a.first_vector + a.count > b.first_vector)
            throw InputError(fmt::format("schedule: predicted runs of transfer {} on channel {} overlap at vector {}",
                                         b.transfer, b.channel, b.first_vector));
    }
    cursor_ = 0;
    stepped_ = std::numeric_limits<std::size_t>::max();
}

std::size_t PredictionIndex::locate(std::uint32_t transfer, std::uint32_t vector) const {
    auto covers = [&](const Entry& e) {
        return e.transfer == transfer && vector >= e.first_vector && vector - e.first_vector < e.count;
    };
    if (cursor_ < entries_.size() && covers(entries_[cursor_])) return cursor_;
    // Runs mostly arrive in the index's order: the entry after the cursor first, then a binary search.
    if (cursor_ + 1 < entries_.size() && covers(entries_[cursor_ + 1])) return cursor_ + 1;
    auto it = std::upper_bound(entries_.begin(), entries_.end(), std::make_pair(transfer, vector),
                               [](const std::pair<std::uint32_t, std::uint32_t>& k, const Entry& e) {
                                   return k < std::make_pair(e.transfer, e.first_vector);
                               });
    if (it == entries_.begin()) return kNone;
    --it;
    return covers(*it) ? static_cast<std::size_t>(it - entries_.begin()) : kNone;
}

std::optional<Time> PredictionIndex::expect_other(std::uint32_t transfer, std::uint32_t vector) {
    const std::size_t at = locate(transfer, vector);
    if (at == kNone) return std::nullopt;
    cursor_ = at;
    Entry& e = entries_[cursor_];
    ++e.seen;
    // sched::predicted_arrival (see arrival()), its serialization stepped while the lookups go in vector order.
    const std::uint32_t j = vector - e.first_vector;
    if (stepped_ != cursor_ || next_ != j) {
        stepper_ = SerialStepper(serial_, static_cast<std::int64_t>(e.offset) + j + 1);
        stepped_ = cursor_;
    }
    const Time t = e.train_start + stepper_.value() + latency_;
    stepper_.next();
    next_ = j + 1;
    return t;
}

bool PredictionIndex::take_span(std::uint32_t transfer, std::uint32_t vector, std::uint32_t n, Time& base,
                                SerialStepper& first) {
    // The entry expect(transfer, vector) would use, found without moving the cursor.
    const std::size_t at = locate(transfer, vector);
    if (at == kNone) return false;
    Entry& e = entries_[at];
    const std::uint32_t j = vector - e.first_vector;
    if (n == 0 || n > e.count - j) return false;  // the last vectors lie outside this entry
    // From here as expect() for each of the n: the first positions the cursor and the stepper (expect_other()),
    // the others take the inline case.
    cursor_ = at;
    if (stepped_ != at || next_ != j) {
        stepper_ = SerialStepper(serial_, static_cast<std::int64_t>(e.offset) + j + 1);
        stepped_ = at;
    }
    e.seen += n;
    base = e.train_start + latency_;
    first = stepper_;
    // Where n lookups leave it: at offset + j + n + 1, stepped for short spans, else made there (the same exact
    // quotient and remainder, one division instead of n steps).
    if (n <= kStepSpan) {
        for (std::uint32_t i = 0; i < n; ++i) stepper_.next();
    } else {
        stepper_ = SerialStepper(serial_, static_cast<std::int64_t>(e.offset) + j + n + 1);
    }
    next_ = j + n;
    return true;
}

std::vector<PredictionIndex::Missing> PredictionIndex::missing() const {
    std::vector<Missing> out;
    for (const Entry& e : entries_) {
        if (e.seen >= e.count) continue;
        out.push_back({e.transfer, e.first_vector, e.count - e.seen, arrival(e, e.seen)});
    }
    return out;
}

}  // namespace loom::tsp
