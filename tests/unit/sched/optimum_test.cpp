// The lower bound against the true optimum: on tiny tree-shaped machines (every route forced), an exhaustive search
// over the order of vectors on every link finds the smallest makespan any schedule can reach, and the bound must not
// exceed it. The search runs on a relaxation of the machine (continuous time, no issue or FIFO limits, each vector
// sent on from an intermediate TSP as soon as it has arrived, as a Send from memory can), so its optimum is at most
// the real one: a bound above it would be above the real optimum too.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <vector>

#include "loom/sched/scheduler.hpp"
#include "sched_fixtures.hpp"

using loom::Time;
using loom::sched::compile;
using loom::sched::Schedule;
using loom::sched::SchedulerConfig;
using loom::topo::ChipConfig;
using loom::topo::LinkClassTiming;
using loom::workload::Transfer;
using loom::workload::TransferSet;
namespace fx = loom::sched::test;

namespace {

struct Machine {
    std::int32_t tsps = 0;
    std::vector<std::pair<std::int32_t, std::int32_t>> links;  // undirected, as given to fx::custom

    // Directed link id of a -> b (2l for links[l].first -> second, 2l + 1 back), or -1.
    std::int32_t directed(std::int32_t a, std::int32_t b) const {
        for (std::size_t l = 0; l < links.size(); ++l) {
            if (links[l].first == a && links[l].second == b) return static_cast<std::int32_t>(2 * l);
            if (links[l].second == a && links[l].first == b) return static_cast<std::int32_t>(2 * l + 1);
        }
        return -1;
    }
    std::int32_t head(std::int32_t d) const {
        const auto& l = links[static_cast<std::size_t>(d / 2)];
        return d % 2 == 0 ? l.second : l.first;
    }
    // The unique path a -> b of a tree, as directed links.
    std::vector<std::int32_t> path(std::int32_t a, std::int32_t b) const {
        std::vector<std::int32_t> via(static_cast<std::size_t>(tsps), -1);  // directed link that reached a TSP
        std::vector<std::int32_t> frontier{a};
        std::vector<bool> seen(static_cast<std::size_t>(tsps), false);
        seen[static_cast<std::size_t>(a)] = true;
        while (!frontier.empty()) {
            std::vector<std::int32_t> next;
            for (std::int32_t u : frontier)
                for (std::int32_t w = 0; w < tsps; ++w) {
                    const std::int32_t d = directed(u, w);
                    if (d < 0 || seen[static_cast<std::size_t>(w)]) continue;
                    seen[static_cast<std::size_t>(w)] = true;
                    via[static_cast<std::size_t>(w)] = d;
                    next.push_back(w);
                }
            frontier = std::move(next);
        }
        std::vector<std::int32_t> p;
        for (std::int32_t w = b; w != a;) {
            const std::int32_t d = via[static_cast<std::size_t>(w)];
            REQUIRE(d >= 0);
            p.push_back(d);
            w = links[static_cast<std::size_t>(d / 2)].first == w ? links[static_cast<std::size_t>(d / 2)].second
                                                                   : links[static_cast<std::size_t>(d / 2)].first;
        }
        std::reverse(p.begin(), p.end());
        return p;
    }
};

// The smallest makespan over every order of vectors on every link (vectors of one transfer keep their order on a
// link: they are interchangeable, so any schedule can be rearranged that way without moving a completion later).
std::int64_t optimum(const Machine& m, const std::vector<Transfer>& xs) {
    const std::int64_t v = fx::kVectorPs, lat = fx::kLatencyPs;
    const std::size_t links = 2 * m.links.size();
    // Each transfer's tree: the directed link before each of its links (-1 at the source), and its final links.
    std::vector<std::map<std::int32_t, std::int32_t>> parent(xs.size());
    std::vector<std::vector<std::int32_t>> finals(xs.size());
    std::vector<std::int64_t> vectors(xs.size());
    std::vector<std::vector<std::size_t>> per_link(links);  // transfer labels, one per vector
    for (std::size_t t = 0; t < xs.size(); ++t) {
        vectors[t] = xs[t].bytes.count() / 320;
        for (auto d : xs[t].dsts) {
            const auto p = m.path(static_cast<std::int32_t>(xs[t].src), static_cast<std::int32_t>(d));
            for (std::size_t h = 0; h < p.size(); ++h) parent[t][p[h]] = h == 0 ? -1 : p[h - 1];
            finals[t].push_back(p.back());
        }
        for (const auto& [link, from] : parent[t])
            for (std::int64_t j = 0; j < vectors[t]; ++j) per_link[static_cast<std::size_t>(link)].push_back(t);
    }
    for (auto& labels : per_link) std::sort(labels.begin(), labels.end());

    std::int64_t best = std::numeric_limits<std::int64_t>::max();
    // depart[link][t][j]: when vector j of transfer t enters the link.
    const auto evaluate = [&]() {
        std::vector<std::vector<std::vector<std::int64_t>>> depart(links, std::vector<std::vector<std::int64_t>>(xs.size()));
        for (std::size_t l = 0; l < links; ++l)
            for (std::size_t t = 0; t < xs.size(); ++t)
                if (parent[t].count(static_cast<std::int32_t>(l))) depart[l][t].assign(static_cast<std::size_t>(vectors[t]), 0);
        const auto completion = [&](std::size_t t) {
            std::int64_t c = 0;
            for (std::int32_t f : finals[t]) c = std::max(c, depart[static_cast<std::size_t>(f)][t].back() + v + lat);
            return c;
        };
        std::size_t total = 0;
        for (const auto& labels : per_link) total += labels.size();
        // Longest paths by repeated relaxation; still changing after `total` + 1 rounds means the orders form a
        // cycle (a vector waiting, through other links, for one that waits for it): no schedule has them.
        for (std::size_t round = 0; round <= total + 1; ++round) {
            bool changed = false;
            for (std::size_t l = 0; l < links; ++l) {
                std::vector<std::int64_t> next(xs.size(), 0);
                std::int64_t free_at = 0;
                for (std::size_t t : per_link[l]) {
                    const auto j = static_cast<std::size_t>(next[t]++);
                    std::int64_t at = free_at;
                    const std::int32_t from = parent[t].at(static_cast<std::int32_t>(l));
                    if (from >= 0) {
                        // An intermediate TSP may take the vector into memory and Send it on from there (staging,
                        // or at a destination of a fan-out), with no forwarding latency: the earliest it can go.
                        at = std::max(at, depart[static_cast<std::size_t>(from)][t][j] + v + lat);
                    } else {
                        at = std::max(at, xs[t].earliest.count());
                        for (auto dep : xs[t].deps) at = std::max(at, completion(static_cast<std::size_t>(dep)));
                    }
                    if (at > depart[l][t][j]) {
                        depart[l][t][j] = at;
                        changed = true;
                    }
                    free_at = depart[l][t][j] + v;
                }
            }
            if (!changed) {
                std::int64_t makespan = 0;
                for (std::size_t t = 0; t < xs.size(); ++t) makespan = std::max(makespan, completion(t));
                best = std::min(best, makespan);
                return;
            }
        }
    };
    std::function<void(std::size_t)> each_order = [&](std::size_t l) {
        if (l == links) return evaluate();
        auto& labels = per_link[l];
        do {
            each_order(l + 1);
        } while (std::next_permutation(labels.begin(), labels.end()));
    };
    each_order(0);
    return best;
}

// Built by a function rather than nested braces: g++ 12 at -O3 reports a false use-after-free on the latter.
Machine machine(std::int32_t tsps, std::vector<std::pair<std::int32_t, std::int32_t>> links) {
    Machine m;
    m.tsps = tsps;
    m.links = std::move(links);
    return m;
}

struct Case {
    const char* name;
    Machine machine;
    std::vector<Transfer> transfers;  // ids are positions, as deps name them
};

}  // namespace

TEST_CASE("On tiny tree machines the lower bound never exceeds the exhaustively searched optimum") {
    std::vector<Case> cases;
    const auto add = [&](const char* name, Machine m, std::vector<Transfer> xs) {
        cases.push_back(Case{name, std::move(m), std::move(xs)});
    };
    add("two TSPs, both ways, one dependent", machine(2, {{0, 1}}),
        {fx::transfer(0, 0, {1}, 3), fx::transfer(1, 1, {0}, 2), fx::transfer(2, 0, {1}, 2, {1})});
    add("chain of three, forwarded through the middle", machine(3, {{0, 1}, {1, 2}}),
        {fx::transfer(0, 0, {2}, 3), fx::transfer(1, 2, {0}, 2), fx::transfer(2, 1, {0, 2}, 2)});
    add("chain of three, fan-out from the end, dependent reply", machine(3, {{0, 1}, {1, 2}}),
        {fx::transfer(0, 0, {1, 2}, 3), fx::transfer(1, 2, {0}, 2, {0}), fx::transfer(2, 1, {2}, 1)});
    add("fan-out through a destination", machine(3, {{0, 1}, {1, 2}}), {fx::transfer(0, 0, {1, 2}, 3)});
    add("staging candidate", machine(3, {{0, 1}, {1, 2}}), {fx::transfer(0, 0, {2}, 3)});
    add("star of four, contention at the hub", machine(4, {{0, 1}, {0, 2}, {0, 3}}),
        {fx::transfer(0, 1, {2}, 2), fx::transfer(1, 3, {2}, 2), fx::transfer(2, 0, {2, 3}, 1),
         fx::transfer(3, 2, {1}, 1, {0})});
    for (const Case& c : cases) {
        INFO(c.name);
        const auto topology = fx::custom(c.machine.tsps, c.machine.links);
        TransferSet set;
        set.transfers = c.transfers;
        const std::int64_t opt = optimum(c.machine, c.transfers);
        REQUIRE(opt < std::numeric_limits<std::int64_t>::max());
        Time bound;
        for (std::int32_t chunk : {1, 8})
            for (bool staging : {false, true}) {
            SchedulerConfig config;
            config.min_chunk_vectors = chunk;
            config.staging = staging;
            const Schedule s = compile(topology, LinkClassTiming{}, ChipConfig{}, set, config);
            INFO("optimum " << opt << " ps, bound " << s.lower_bound.count() << " ps (" << s.bound.binding
                            << "), scheduler " << s.makespan.count() << " ps");
            // The relaxation's optimum is below every real schedule: if not, the search models the machine wrongly.
            CHECK(opt <= s.makespan.count());
            CHECK(s.lower_bound.count() <= opt);
            bound = s.lower_bound;
        }
        CHECK(bound > Time::zero());
    }
}

TEST_CASE("The exhaustive search finds the optimum of a case worked out by hand") {
    // Two TSPs: 0 sends 3 vectors to 1 and 1 sends 2 back, independent: each link is busy 3 (or 2) vector times and
    // the last vector lands a hop later. Then a transfer of 2 vectors 0 -> 1 that waits for the reply: it starts
    // when the reply's last vector lands (2v + L) and, sharing link 0 -> 1 with the first transfer (done by 3v),
    // completes at 2v + L + 2v + L.
    const Machine two = machine(2, {{0, 1}});
    const std::int64_t v = fx::kVectorPs, lat = fx::kLatencyPs;
    CHECK(optimum(two, {fx::transfer(0, 0, {1}, 3), fx::transfer(1, 1, {0}, 2)}) == 3 * v + lat);
    CHECK(optimum(two, {fx::transfer(0, 0, {1}, 3), fx::transfer(1, 1, {0}, 2), fx::transfer(2, 0, {1}, 2, {1})}) ==
          4 * v + 2 * lat);
    // Through the middle of a chain: two hops, each vector sent on as soon as it has arrived.
    const Machine chain = machine(3, {{0, 1}, {1, 2}});
    CHECK(optimum(chain, {fx::transfer(0, 0, {2}, 1)}) == 2 * (v + lat));
    CHECK(optimum(chain, {fx::transfer(0, 0, {2}, 3)}) == 4 * v + 2 * lat);
    // Two vectors from the two ends meet on no shared link: the optimum is one transfer's own time.
    CHECK(optimum(chain, {fx::transfer(0, 0, {1}, 2), fx::transfer(1, 2, {1}, 2)}) == 2 * v + lat);
}
