// LeaveTimes (the clock-crossing FIFO's leave times in the verifier and the executor) against a std::multiset.
#include <catch2/catch.hpp>

#include <cstdint>
#include <iterator>
#include <random>
#include <set>

#include "loom/sched/leave_times.hpp"

using loom::Time;
using loom::sched::LeaveTimes;

TEST_CASE("LeaveTimes holds what a multiset of leave times holds, in and out of order") {
    for (const std::int64_t spread : {0, 3, 50, 1'000}) {
        std::mt19937_64 rng(static_cast<std::uint64_t>(spread) + 5);
        LeaveTimes fifo;
        std::multiset<std::int64_t> model;
        std::int64_t now = 0;
        for (int step = 0; step < 20'000; ++step) {
            // A vector arrives: the ones that left by now go, it joins with a leave time mostly after the others'.
            now += static_cast<std::int64_t>(rng() % 40);
            fifo.pop_through(Time::ps(now));
            model.erase(model.begin(), model.upper_bound(now));
            REQUIRE(fifo.size() == model.size());
            REQUIRE(fifo.empty() == model.empty());
            if (!model.empty()) REQUIRE(fifo.front() == Time::ps(*model.begin()));
            const auto jitter = spread == 0 ? 0 : static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(spread));
            const std::int64_t leave = now + 60 + jitter - spread / 2;
            fifo.push(Time::ps(leave));
            model.insert(leave);
            REQUIRE(fifo.size() == model.size());
            REQUIRE(fifo.front() == Time::ps(*model.begin()));
        }
        // Everything leaves by the end; a cleared FIFO is empty and takes new times.
        fifo.pop_through(Time::max());
        CHECK(fifo.empty());
        fifo.push(Time::ps(7));
        fifo.clear();
        CHECK(fifo.size() == 0);
        fifo.push(Time::ps(9));
        fifo.push(Time::ps(8));
        CHECK(fifo.front() == Time::ps(8));
        fifo.release();
        CHECK(fifo.empty());
    }
}

TEST_CASE("LeaveTimes counts the times after a given one as a multiset does") {
    std::mt19937_64 rng(5);
    LeaveTimes held;
    std::multiset<std::int64_t> ref;
    for (int step = 0; step < 5000; ++step) {
        const auto t = static_cast<std::int64_t>(rng() % 200);
        if (rng() % 3 == 0) {
            held.pop_through(Time::ps(t));
            ref.erase(ref.begin(), ref.upper_bound(t));
        } else {
            held.push(Time::ps(t));
            ref.insert(t);
        }
        const auto a = static_cast<std::int64_t>(rng() % 220) - 10;
        const auto after = static_cast<std::size_t>(std::distance(ref.upper_bound(a), ref.end()));
        REQUIRE(held.count_after(Time::ps(a)) == after);
    }
}
