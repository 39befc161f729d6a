#include "loom/tsp/prediction_index.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "loom/base/error.hpp"
#include "loom/sched/schedule.hpp"

namespace loom::tsp {

void PredictionIndex::add(const sched::PredictedRun& run, const LinkTiming& timing) {
    entries_.push_back(Entry{run, &timing, 0});
}

void PredictionIndex::freeze() {
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
        return std::tie(a.run.transfer, a.run.first_vector) < std::tie(b.run.transfer, b.run.first_vector);
    });
    for (std::size_t i = 1; i < entries_.size(); ++i) {
        const auto& a = entries_[i - 1].run;
        const auto& b = entries_[i].run;
        if (a.transfer == b.transfer && a.first_vector + a.count > b.first_vector)
            throw InputError(fmt::format("schedule: predicted runs of transfer {} on channel {} overlap at vector {}",
                                         b.transfer, b.channel, b.first_vector));
    }
    cursor_ = 0;
}

std::optional<Time> PredictionIndex::expect(std::uint32_t transfer, std::uint32_t vector) {
    auto covers = [&](const Entry& e) {
        return e.run.transfer == transfer && vector >= e.run.first_vector && vector - e.run.first_vector < e.run.count;
    };
    if (cursor_ >= entries_.size() || !covers(entries_[cursor_])) {
        auto it = std::upper_bound(entries_.begin(), entries_.end(), std::make_pair(transfer, vector),
                                   [](const std::pair<std::uint32_t, std::uint32_t>& k, const Entry& e) {
                                       return k < std::make_pair(e.run.transfer, e.run.first_vector);
                                   });
        if (it == entries_.begin()) return std::nullopt;
        --it;
        if (!covers(*it)) return std::nullopt;
        cursor_ = static_cast<std::size_t>(it - entries_.begin());
    }
    Entry& e = entries_[cursor_];
    ++e.seen;
    // The scheduler's own formula, so prediction and check cannot drift apart.
    return sched::predicted_arrival(e.run, vector - e.run.first_vector, *e.timing);
}

std::vector<PredictionIndex::Missing> PredictionIndex::missing() const {
    std::vector<Missing> out;
    for (const Entry& e : entries_) {
        if (e.seen >= e.run.count) continue;
        out.push_back({e.run.transfer, e.run.first_vector, e.run.count - e.seen,
                       sched::predicted_arrival(e.run, e.seen, *e.timing)});
    }
    return out;
}

}  // namespace loom::tsp
