// Time-weighted average of a piecewise-constant signal (queue occupancy, events in flight). The area is kept
// in double: statistics are outputs, never inputs to the time path.
#pragma once

#include "loom/base/units.hpp"
#include "loom/stats/json.hpp"

namespace loom::stats {

// The signal is undefined before the first set(); from then on it holds the last value set.
class TimeAverage {
public:
    // The signal takes `value` from time `now` on. Times must not decrease. Several sets at one time are
    // allowed: only the last one holds for any duration, but each counts toward max().
    void set(Time now, double value);
    void add(Time now, double delta) { set(now, value_ + delta); }
    double current() const { return value_; }
    // The largest value ever set (even for zero duration); 0 before the first set.
    double max() const { return max_; }
    // Average over [first set, end]; end must not precede the last set. When that interval is empty the
    // current value is returned; 0 before the first set.
    double average(Time end) const;
    Json to_json(Time end) const;  // {"avg","max","final"}

private:
    bool started_ = false;
    Time start_{}, last_{};
    double value_ = 0, max_ = 0, area_ = 0;  // area in value·ps
};

}  // namespace loom::stats
