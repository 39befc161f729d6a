#include "loom/stats/time_average.hpp"

#include <algorithm>

#include "loom/base/assert.hpp"

namespace loom::stats {

void TimeAverage::set(Time now, double value) {
    if (!started_) {
        started_ = true;
        start_ = last_ = now;
        value_ = max_ = value;
        return;
    }
    LOOM_DEBUG_ASSERT(now >= last_, "TimeAverage::set: time went backwards");
    area_ += value_ * static_cast<double>((now - last_).count());
    last_ = now;
    value_ = value;
    max_ = std::max(max_, value);
}

double TimeAverage::average(Time end) const {
    if (!started_) return 0.0;
    LOOM_DEBUG_ASSERT(end >= last_, "TimeAverage::average: end precedes the last change");
    const std::int64_t span = (end - start_).count();
    if (span <= 0) return value_;
    const double area = area_ + value_ * static_cast<double>((end - last_).count());
    return area / static_cast<double>(span);
}

Json TimeAverage::to_json(Time end) const {
    return Json{{"avg", average(end)}, {"max", max_}, {"final", value_}};
}

}  // namespace loom::stats
