// What a replicated sweep reports per value: mean, sample standard deviation and the 95% confidence interval of
// the mean (Student t), from the values of a point's replications.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "loom/config/schema.hpp"

namespace loom::config {

// Two-sided 95% quantile of Student's t distribution with `df` >= 1 degrees of freedom (t_{0.975, df}).
double student_t95(std::size_t df);

struct ReplicationSummary {
    std::size_t n = 0;             // values summarized
    double mean = 0;
    std::optional<double> sd;      // sample standard deviation (n - 1 in the denominator); none when n < 2
    std::optional<double> ci95;    // half-width: the interval is mean +- ci95 = t95(n - 1) * sd / sqrt(n)
};

// Summarizes `values` (n >= 1). The mean and the sum of squares are accumulated in point order in long double,
// so the result is the same bytes whatever process computed it.
ReplicationSummary summarize(const std::vector<double>& values);

// One reported value over a point's replications, as points.jsonl writes it: numbers give
// {"n", "mean", "sd", "ci95", "ci95_low", "ci95_high", "values"} (sd and the interval null when n < 2); a value
// that is not a number in some replication (a string, a flag) gives {"n", "values"} and, when every replication
// agrees, "value". `values` holds one entry per replication, null where the value was missing.
Json summarize_json(const std::vector<Json>& values);

}  // namespace loom::config
