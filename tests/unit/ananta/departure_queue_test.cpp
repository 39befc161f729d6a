#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

#include "loom/ananta/departure_queue.hpp"
#include "loom/base/rng.hpp"

using namespace loom;
using namespace loom::ananta;

namespace {
IpPacket numbered(std::uint32_t n) {
    IpPacket p;
    p.seq = n;
    return p;
}
}  // namespace

TEST_CASE("A departure queue hands packets out by departure, equal departures in queueing order") {
    DepartureQueue q;
    CHECK(q.empty());
    q.push(50, numbered(0));
    q.push(30, numbered(1));  // another core's, earlier: passes 0
    q.push(50, numbered(2));  // equal to 0: after it
    q.push(70, numbered(3));
    q.push(30, numbered(4));  // equal to 1: after it, before 0
    REQUIRE(q.size() == 5);
    std::vector<std::pair<std::int64_t, std::uint32_t>> out;
    while (!q.empty()) {
        out.emplace_back(q.front().at, q.front().packet.seq);
        q.pop();
    }
    CHECK(out == std::vector<std::pair<std::int64_t, std::uint32_t>>{{30, 1}, {30, 4}, {50, 0}, {50, 2}, {70, 3}});
}

TEST_CASE("A departure queue keeps its order across wrap-around and growth, against a sorted reference") {
    DepartureQueue q;
    Rng rng(3);
    std::vector<std::tuple<std::int64_t, std::uint32_t>> ref;  // (departure, queueing number), sorted = wanted
    std::uint32_t n = 0;
    std::int64_t now = 0;
    for (int round = 0; round < 2'000; ++round) {
        // A few departures (some earlier than the latest queued), then the due ones leave.
        const auto pushes = static_cast<int>(rng.uniform(6));
        for (int k = 0; k < pushes; ++k) {
            const std::int64_t at = now + 1 + static_cast<std::int64_t>(rng.uniform(40));
            q.push(at, numbered(n));
            ref.emplace_back(at, n++);
        }
        now += static_cast<std::int64_t>(rng.uniform(12));
        std::sort(ref.begin(), ref.end());
        std::size_t due = 0;
        while (due < ref.size() && std::get<0>(ref[due]) <= now) ++due;
        for (std::size_t k = 0; k < due; ++k) {
            REQUIRE(!q.empty());
            REQUIRE(q.front().at == std::get<0>(ref[k]));
            REQUIRE(q.front().packet.seq == std::get<1>(ref[k]));
            q.pop();
        }
        ref.erase(ref.begin(), ref.begin() + static_cast<std::ptrdiff_t>(due));
        REQUIRE(q.size() == ref.size());
    }
    CHECK(n > 4'000);
}
