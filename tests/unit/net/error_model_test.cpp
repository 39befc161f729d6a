#include <catch2/catch.hpp>

#include <cmath>

#include "loom/net/error_model.hpp"

using namespace loom::literals;
using loom::net::ErrorModel;
using loom::net::FecOutcome;

namespace {
loom::LinkTiming timing(double ber, int t) {
    loom::LinkTiming lt;
    lt.rate = 100_Gbps;
    lt.latency_parts = {{"wire", 100_ns}};
    lt.bit_error_rate = ber;
    lt.fec_correctable_bits = t;
    return lt;
}
}  // namespace

TEST_CASE("A link with zero bit error rate never errs") {
    ErrorModel m(timing(0.0, 0), 7);
    CHECK(m.error_free());
    for (std::uint64_t i = 0; i < 10000; ++i) REQUIRE(m.outcome(i) == FecOutcome::Clean);
}

TEST_CASE("FEC outcomes depend only on link stream and unit index") {
    ErrorModel a(timing(1e-4, 2), 11), b(timing(1e-4, 2), 11), c(timing(1e-4, 2), 12);
    int differ = 0;
    for (std::uint64_t i = 0; i < 20000; ++i) {
        REQUIRE(a.outcome(i) == b.outcome(i));
        differ += a.outcome(i) != c.outcome(i);
    }
    // query order does not matter
    CHECK(a.outcome(19999) == b.outcome(19999));
    CHECK(differ > 0);
}

TEST_CASE("FEC outcome frequencies follow the binomial model") {
    // 2624 bits at BER 1e-4: P(clean) = (1-1e-4)^2624 ~ 0.769; with t = 1, P(uncorrectable) = P(N >= 2)
    ErrorModel m(timing(1e-4, 1), 3);
    const double p_clean = std::pow(1 - 1e-4, 2624);
    const double p1 = 2624 * 1e-4 * std::pow(1 - 1e-4, 2623);
    CHECK(m.p_clean() == Approx(p_clean).epsilon(1e-9));
    CHECK(m.p_uncorrectable() == Approx(1 - p_clean - p1).epsilon(1e-6));
    int clean = 0, corrected = 0, bad = 0;
    const int n = 200000;
    for (std::uint64_t i = 0; i < static_cast<std::uint64_t>(n); ++i) {
        switch (m.outcome(i)) {
            case FecOutcome::Clean: ++clean; break;
            case FecOutcome::Corrected: ++corrected; break;
            case FecOutcome::Uncorrectable: ++bad; break;
        }
    }
    CHECK(clean / double(n) == Approx(p_clean).margin(0.005));
    CHECK(corrected / double(n) == Approx(p1).margin(0.005));
    CHECK(bad / double(n) == Approx(1 - p_clean - p1).margin(0.005));
}

TEST_CASE("Jitter draws stay within zero and the jitter bound") {
    CHECK(loom::net::jitter_of(1, 5, loom::Time::zero()) == loom::Time::zero());
    bool nonzero = false;
    for (std::uint64_t i = 0; i < 5000; ++i) {
        const auto j = loom::net::jitter_of(9, i, 10_ns);
        REQUIRE(j >= loom::Time::zero());
        REQUIRE(j <= 10_ns);
        nonzero |= j > loom::Time::zero();
    }
    CHECK(nonzero);
}
