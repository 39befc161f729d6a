#include "loom/config/sweep_summary.hpp"

#include <array>
#include <cmath>

namespace loom::config {

double student_t95(std::size_t df) {
    // t_{0.975, df} for df = 1..30 (any statistics textbook's table, e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2),
    // then 40, 60, 120 and the normal limit. Between tabulated df the smaller df's (larger) value is used, so
    // the interval is never narrower than the exact one.
    static constexpr std::array<double, 30> small{
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (df == 0) return 0;
    if (df <= small.size()) return small[df - 1];
    if (df < 40) return small.back();
    if (df < 60) return 2.021;
    if (df < 120) return 2.000;
    return 1.980;  // df >= 120: within 1% of the normal limit 1.960 and still conservative
}

ReplicationSummary summarize(const std::vector<double>& values) {
    ReplicationSummary s;
    s.n = values.size();
    if (s.n == 0) return s;
    long double sum = 0;
    for (double v : values) sum += v;
    const long double mean = sum / static_cast<long double>(s.n);
    s.mean = static_cast<double>(mean);
    if (s.n < 2) return s;
    long double squares = 0;  // two passes: no cancellation between a large mean and a small spread
    for (double v : values) squares += (v - mean) * (v - mean);
    const double sd = static_cast<double>(std::sqrt(squares / static_cast<long double>(s.n - 1)));
    s.sd = sd;
    s.ci95 = student_t95(s.n - 1) * sd / std::sqrt(static_cast<double>(s.n));
    return s;
}

Json summarize_json(const std::vector<Json>& values) {
    std::vector<double> numbers;
    bool all_numbers = true;
    for (const Json& v : values) {
        if (v.is_null()) continue;
        if (v.is_number()) {
            numbers.push_back(v.get<double>());
        } else {
            all_numbers = false;
        }
    }
    Json out = Json::object();
    if (!all_numbers) {
        std::size_t n = 0;
        Json common;
        bool agree = true;
        for (const Json& v : values) {
            if (v.is_null()) continue;
            if (n++ == 0) {
                common = v;
            } else if (v != common) {
                agree = false;
            }
        }
        out["n"] = n;
        if (agree) out["value"] = common;
        out["values"] = values;
        return out;
    }
    const ReplicationSummary s = summarize(numbers);
    out["n"] = s.n;
    out["mean"] = s.n ? Json(s.mean) : Json();
    out["sd"] = s.sd ? Json(*s.sd) : Json();
    out["ci95"] = s.ci95 ? Json(*s.ci95) : Json();
    out["ci95_low"] = s.ci95 ? Json(s.mean - *s.ci95) : Json();
    out["ci95_high"] = s.ci95 ? Json(s.mean + *s.ci95) : Json();
    out["values"] = values;
    return out;
}

}  // namespace loom::config
