#include <catch2/catch.hpp>

#include "loom/net/transmitter.hpp"

using namespace loom::literals;
using loom::Time;
using loom::net::Transmitter;

namespace {
loom::LinkTiming c2c() {
    loom::LinkTiming lt;
    lt.rate = loom::Bandwidth::bps(103'125'000'000);  // 4 x 25.78125 Gbps
    lt.latency_parts = {{"serdes_fec", 150_ns}, {"cable", 4_ns}};
    return lt;
}
}  // namespace

TEST_CASE("A single unit arrives after serialization plus latency, not a picosecond earlier") {
    Transmitter tx(c2c(), 1);
    const auto t = tx.send(1_us);
    const Time expect = 1_us + Time::ps(25'445) + 154_ns;
    CHECK(t.arrival == expect);
    CHECK(t.arrival - Time::ps(1) < expect);
    CHECK(t.sent == 1_us + Time::ps(25'445));
    CHECK(tx.free_at() == t.sent);
}

TEST_CASE("Back-to-back units form one train timed from its start") {
    Transmitter one_by_one(c2c(), 1), as_train(c2c(), 1);
    loom::net::Transmission last{};
    for (int i = 0; i < 1000; ++i) last = one_by_one.send(Time::zero());  // each ready at 0: queued behind
    const auto train = as_train.send(Time::zero(), 1000);
    CHECK(last.sent == train.sent);
    CHECK(last.arrival == train.arrival);
    // exact: ceil(1000 * 2624e12 / 103.125e9) = 25444849, not 1000 * 25445
    CHECK(train.sent == Time::ps(25'444'849));
    CHECK(one_by_one.units_sent() == 1000);
}

TEST_CASE("A unit ready exactly when the link frees continues the train, one later starts a new one") {
    Transmitter tx(c2c(), 1);
    const auto a = tx.send(Time::zero());
    const auto b = tx.send(a.sent);  // ready exactly when the link frees: continues the train
    CHECK(b.sent == Time::ps(50'890));  // ceil(2 * 25444.848..) from train start 0, not 2 * 25445
    const auto c = tx.send(b.sent + 1_ns);          // idle gap: new train
    CHECK(c.start == b.sent + 1_ns);
    CHECK(c.sent == c.start + Time::ps(25'445));
}

TEST_CASE("Jitter delays arrivals within the bound and never reorders them") {
    auto lt = c2c();
    lt.jitter = 20_ns;
    Transmitter tx(lt, 5);
    Time prev;
    bool late = false;
    for (int i = 0; i < 2000; ++i) {
        const auto t = tx.send(Time::zero());
        const Time nominal = t.sent + lt.latency();
        REQUIRE(t.arrival >= nominal);
        REQUIRE(t.arrival >= prev);
        late |= t.arrival > nominal;
        prev = t.arrival;
    }
    CHECK(late);
}

TEST_CASE("A train and the same units one by one see the same FEC outcomes") {
    auto lt = c2c();
    lt.bit_error_rate = 1e-4;
    lt.fec_correctable_bits = 1;
    Transmitter a(lt, 42), b(lt, 42);
    for (int i = 0; i < 500; ++i) a.send(Time::zero());
    b.send(Time::zero(), 500);
    CHECK(a.corrected() == b.corrected());
    CHECK(a.uncorrectable() == b.uncorrectable());
    CHECK(a.corrected() > 0);
}

TEST_CASE("A strict train starts at exactly its start even when the link frees at that instant") {
    Transmitter joined(c2c(), 1), strict(c2c(), 1);
    const auto a = joined.send(Time::zero());
    strict.send(Time::zero());
    const auto b = joined.send(a.sent);  // continues the train: ceil(2 x 25444.85) from 0
    loom::net::Transmission c{};
    REQUIRE(strict.start_train(a.sent, 1, c));  // a train of its own: 25445 + 25445
    CHECK(b.sent == Time::ps(50'890));
    CHECK(c.start == Time::ps(25'445));
    CHECK(c.sent == Time::ps(50'890));
    loom::net::Transmission d{};
    REQUIRE(strict.start_train(c.sent, 3, d));
    CHECK(d.sent == c.sent + Time::ps(76'335));  // ceil(3 x 25444.85) = 76335, from the new start
    CHECK(d.index == 4);
}

TEST_CASE("A strict train on a busy link is refused and changes nothing") {
    Transmitter tx(c2c(), 1);
    tx.send(Time::zero(), 2);
    loom::net::Transmission t{};
    CHECK_FALSE(tx.start_train(Time::ps(50'888), 1, t));
    CHECK(tx.units_sent() == 2);
    CHECK(tx.start_train(Time::ps(50'890), 1, t));
}

TEST_CASE("Unit arrivals stepped from a train's description reproduce the transmitter's, jitter included") {
    auto lt = c2c();
    lt.jitter = 30_ns;
    Transmitter tx(lt, 9);
    tx.send(Time::zero(), 5);
    const Time floor = tx.last_arrival();
    loom::net::Transmission t{};
    Time first{};
    REQUIRE(tx.start_train(1_us, 50, t, &first));
    Time prev = floor;
    Time stepped_first{};
    for (std::int64_t k = 1; k <= 50; ++k) {
        prev = tx.unit_arrival(1_us, k, 5, prev);
        if (k == 1) stepped_first = prev;
    }
    CHECK(stepped_first == first);
    CHECK(prev == t.arrival);
    CHECK(tx.last_arrival() == t.arrival);
}

TEST_CASE("An uncorrectable unit arrives later by the replay latency and the units behind it wait") {
    loom::LinkTiming lt;
    lt.rate = loom::Bandwidth::gbps(100);
    lt.latency_parts = {{"wire", loom::Time::ns(10)}};
    lt.bit_error_rate = 0.05;  // most units see several errors
    lt.fec_correctable_bits = 0;
    lt.replay_latency = loom::Time::ns(1000);
    loom::net::Transmitter with(lt, 3);
    lt.replay_latency = loom::Time::zero();
    loom::net::Transmitter without(lt, 3);
    const auto a = with.send(loom::Time::zero(), 8);
    const auto b = without.send(loom::Time::zero(), 8);
    REQUIRE(with.uncorrectable() > 0);
    CHECK(a.arrival >= b.arrival + loom::Time::ns(1000));
    CHECK(a.sent == b.sent);  // the sender is not held up: only the arrival moves
}
