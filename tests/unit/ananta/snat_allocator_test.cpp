#include <catch2/catch.hpp>

#include <map>

#include "loom/ananta/snat_allocator.hpp"
#include "loom/base/rng.hpp"

using namespace loom;
using namespace loom::ananta;

namespace {
const IpAddr kVip = ip(100, 64, 0, 1);
const IpAddr kDip = ip(10, 0, 0, 10);

SnatConfig small() {
    SnatConfig c;
    c.first_port = 1024;
    c.last_port = 1024 + 63;  // 8 ranges of 8
    return c;
}
}  // namespace

TEST_CASE("SNAT ranges are aligned power-of-two blocks handed out lowest first") {
    SnatAllocator a(small());
    a.add_vip(kVip);
    const auto d = a.decide(kDip, kVip, Time::zero(), 3);
    REQUIRE(d.grants.size() == 3);
    CHECK(d.grants[0] == SnatGrant{0, kDip, kVip, 1024, 8});
    CHECK(d.grants[2].first == 1040);
    CHECK(a.owner(kVip, 1047) == kDip);
    CHECK_FALSE(a.owner(kVip, 1048).has_value());
    CHECK(a.ports_held(kDip) == 24);
    CHECK(a.decide(kDip, ip(1, 2, 3, 4), Time::zero()).refusal == SnatRefusal::UnknownVip);
}

TEST_CASE("A range another DIP holds cannot be taken and released ranges are reused") {
    SnatAllocator a(small());
    a.add_vip(kVip);
    const auto g = *a.allocate(kDip, kVip, Time::zero());
    CHECK_FALSE(a.take(SnatGrant{0, kDip + 1, kVip, g.first, 8}, Time::zero(), true));
    CHECK(a.take(g, Time::zero(), true));  // idempotent for its holder
    a.release(SnatGrant{0, kDip + 1, kVip, g.first, 8});  // not the holder: ignored
    CHECK(a.owner(kVip, g.first) == kDip);
    a.release(g);
    CHECK(a.allocate(kDip + 1, kVip, Time::zero())->first == g.first);
}

TEST_CASE("Demand prediction gives several ranges to a DIP that asks again within the interval") {
    SnatConfig c = small();
    c.predicted_ranges = 3;
    c.prediction_interval = Time::ms(10);
    SnatAllocator a(c);
    a.add_vip(kVip);
    CHECK(a.decide(kDip, kVip, Time::ms(0)).grants.size() == 1);
    CHECK(a.decide(kDip, kVip, Time::ms(10) - Time::ps(1)).grants.size() == 3);
    CHECK(a.decide(kDip, kVip, Time::ms(20)).grants.size() == 1);  // last allocation at 10 ms - 1 ps
    c.demand_prediction = false;
    SnatAllocator b(c);
    b.add_vip(kVip);
    b.decide(kDip, kVip, Time::ms(0));
    CHECK(b.decide(kDip, kVip, Time::ms(1)).grants.size() == 1);
}

TEST_CASE("Per-VM limits cap ports held and allocations per window, and pre-allocation is not rate limited") {
    SnatConfig c = small();
    c.demand_prediction = false;
    c.max_ports_per_vm = 16;
    c.max_allocations_per_window = 2;
    c.rate_window = Time::ms(10);
    SnatAllocator a(c);
    a.add_vip(kVip);
    CHECK(a.decide(kDip, kVip, Time::ms(0), 1, true).grants.size() == 1);
    CHECK(a.decide(kDip, kVip, Time::ms(1)).grants.size() == 1);
    CHECK(a.decide(kDip, kVip, Time::ms(2)).refusal == SnatRefusal::PortLimit);
    const IpAddr other = kDip + 1;
    CHECK(a.decide(other, kVip, Time::ms(0)).grants.size() == 1);
    a.release(a.held().back());
    CHECK(a.decide(other, kVip, Time::ms(1)).grants.size() == 1);
    CHECK(a.decide(other, kVip, Time::ms(2)).refusal == SnatRefusal::RateLimit);
    CHECK(a.decide(other, kVip, Time::ms(10)).grants.size() == 1);  // the 0 ms allocation left the window
    CHECK(a.decide(other, kVip, Time::ms(10), 4).grants.size() == 0);  // would pass 16 ports
}

TEST_CASE("One outstanding SNAT request per DIP") {
    SnatAllocator a(small());
    CHECK(a.open_request(kDip));
    CHECK_FALSE(a.open_request(kDip));
    CHECK(a.open_request(kDip + 1));
    a.close_request(kDip);
    CHECK(a.open_request(kDip));
}

TEST_CASE("Uncommitted ranges are forgotten and idle committed ones are offered for reclaim") {
    SnatConfig c = small();
    c.idle_reclaim = Time::ms(5);
    SnatAllocator a(c);
    a.add_vip(kVip);
    const auto d1 = a.decide(kDip, kVip, Time::ms(0), 1);
    const auto d2 = a.decide(kDip + 1, kVip, Time::ms(0), 1);
    a.commit(d1.grants[0]);
    a.drop_uncommitted();
    CHECK(a.held().size() == 1);
    CHECK_FALSE(a.owner(kVip, d2.grants[0].first).has_value());
    CHECK(a.next_idle_deadline() == Time::ms(5));
    a.touch(kDip, kVip, Time::ms(3));
    CHECK(a.idle(Time::ms(8) - Time::ps(1)).empty());
    REQUIRE(a.idle(Time::ms(8)).size() == 1);
    CHECK(a.idle(Time::ms(8))[0].first == d1.grants[0].first);
}

TEST_CASE("Randomized SNAT allocator sequences never give a port to two DIPs or exceed a DIP's limit") {
    for (std::uint64_t seed = 1; seed <= 8 * LOOM_SNAT_RANDOM_RUNS; ++seed) {
        SnatConfig c = small();
        c.max_ports_per_vm = 24;
        c.max_allocations_per_window = 3;
        c.rate_window = Time::ms(2);
        c.predicted_ranges = 2;
        c.prediction_interval = Time::ms(1);
        c.idle_reclaim = Time::ms(4);
        SnatAllocator a(c);
        a.add_vip(kVip);
        Rng rng(seed);
        Time now;
        for (int step = 0; step < 200; ++step) {
            now += Time::us(static_cast<std::int64_t>(rng.uniform(300)));
            const IpAddr dip = kDip + static_cast<IpAddr>(rng.uniform(5));
            switch (rng.uniform(5)) {
                case 0:
                case 1: {
                    const auto d = a.decide(dip, kVip, now);
                    for (const auto& g : d.grants)
                        if (rng.uniform(4) != 0) a.commit(g);
                    break;
                }
                case 2: {
                    const auto held = a.held();
                    if (!held.empty()) a.release(held[rng.uniform(held.size())]);
                    break;
                }
                case 3:
                    for (const auto& g : a.idle(now)) a.release(g);
                    break;
                default:
                    if (rng.uniform(8) == 0) a.drop_uncommitted();
                    else a.touch(dip, kVip, now);
            }
            std::map<std::uint32_t, IpAddr> ports;
            std::map<IpAddr, std::int64_t> per_dip;
            bool ok = true;
            for (const auto& g : a.held()) {
                ok = ok && g.count == 8 && g.first % 8 == 0 && g.first >= 1024 && g.first + 7 <= 1024 + 63;
                for (std::uint32_t p = g.first; p < g.first + 8u; ++p) ok = ok && ports.emplace(p, g.dip).second;
                per_dip[g.dip] += 8;
            }
            for (const auto& [d, n] : per_dip) ok = ok && n <= 24 && a.ports_held(d) == n;
            if (!ok) {
                INFO("seed " << seed << " step " << step);
                REQUIRE(ok);
            }
        }
    }
}
