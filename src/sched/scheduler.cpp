#include "loom/sched/scheduler.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

#include <fmt/format.h>

#include "loom/base/assert.hpp"
#include "scheduler_impl.hpp"

namespace loom::sched {
namespace detail {

Time Scheduler::jitter_of(const topo::LinkClassTiming& links, const SchedulerConfig& cfg) {
    if (cfg.jitter_allowance) return *cfg.jitter_allowance;
    Time j;
    for (topo::LinkClass c : topo::kAllLinkClasses) j = std::max(j, links.timing(c).jitter);
    return j;
}

std::array<Serializer, topo::kLinkClassCount> Scheduler::paces(const topo::LinkClassTiming& links) {
    std::array<Serializer, topo::kLinkClassCount> p;
    for (topo::LinkClass c : topo::kAllLinkClasses) p[topo::index_of(c)] = Serializer(links.timing(c));
    return p;
}

Scheduler::Scheduler(const topo::FrozenTopology& t, const topo::LinkClassTiming& links, const topo::ChipConfig& chip,
                     const workload::TransferSet& set, const SchedulerConfig& cfg)
    : topo_(t),
      chip_(chip),
      set_(set),
      cfg_(cfg),
      unit_(links.unit_payload),
      jitter_(jitter_of(links, cfg)),
      timing_(chip.clock(), chip.forward_cycles, chip.crossing_cycles, chip.fifo_depth, jitter_),
      net_{t, paces(links), timing_, cfg.max_train_vectors},
      table_(min_gaps()),
      fit_memo_(static_cast<std::size_t>(t.num_channels())) {
    for (topo::LinkClass c : topo::kAllLinkClasses) {
        if (t.link_count(c) > 0)
            links.timing(c).validate(fmt::format("/links/{}", topo::link_class_name(c)));
    }
    check_inputs();
}

std::vector<Time> Scheduler::min_gaps() const {
    std::vector<Time> g(static_cast<std::size_t>(topo_.num_channels()));
    for (topo::ChannelId c = 0; c < topo_.num_channels(); ++c) g[static_cast<std::size_t>(c)] = net_.channel(c)(1);
    return g;
}

Schedule Scheduler::run() {
    const std::size_t n = set_.transfers.size();
    done_.assign(n, Time::zero());
    duration_lb_.assign(n, Time::zero());
    consume_after_.assign(n, Time::zero());
    timings_.assign(n, TransferTiming{});
    staging_used_.assign(static_cast<std::size_t>(topo_.num_vertices()), 0);

    // List scheduling: a transfer is ready when its dependencies are complete; the earliest ready goes first.
    std::vector<std::vector<std::size_t>> dependents(n);
    std::vector<std::vector<std::size_t>> followers(n);  // by `after`: placed later, consume later, start freely
    std::vector<std::size_t> waiting(n, 0);
    {
        std::vector<std::pair<workload::TransferId, std::size_t>> ids;
        for (std::size_t i = 0; i < n; ++i) ids.emplace_back(set_.transfers[i].id, i);
        std::sort(ids.begin(), ids.end());
        for (std::size_t i = 0; i < n; ++i) {
            for (const auto* list : {&set_.transfers[i].deps, &set_.transfers[i].paced_by}) {
                for (workload::TransferId d : *list) {
                    const auto it = std::lower_bound(ids.begin(), ids.end(), std::make_pair(d, std::size_t{0}));
                    LOOM_ASSERT(it != ids.end() && it->first == d, "validated dependencies exist");
                    dependents[it->second].push_back(i);
                    ++waiting[i];
                }
            }
            for (workload::TransferId d : set_.transfers[i].after) {
                const auto it = std::lower_bound(ids.begin(), ids.end(), std::make_pair(d, std::size_t{0}));
                LOOM_ASSERT(it != ids.end() && it->first == d, "validated orderings exist");
                followers[it->second].push_back(i);
                ++waiting[i];
            }
        }
    }
    using Ready = std::pair<std::int64_t, std::size_t>;  // (ready ps, position)
    std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
    std::vector<Time> ready_at(n);
    for (std::size_t i = 0; i < n; ++i) {
        ready_at[i] = set_.transfers[i].earliest;
        if (waiting[i] == 0) ready.emplace(ready_at[i].count(), i);
    }
    while (!ready.empty()) {
        const std::size_t i = ready.top().second;
        ready.pop();
        plan_transfer(i, ready_at[i]);
        for (std::size_t j : dependents[i]) {
            ready_at[j] = std::max(ready_at[j], done_[i] + set_.transfers[j].compute_before);
            if (--waiting[j] == 0) ready.emplace(ready_at[j].count(), j);
        }
        for (std::size_t j : followers[i]) {
            consume_after_[j] = std::max(consume_after_[j], done_[i]);
            if (--waiting[j] == 0) ready.emplace(ready_at[j].count(), j);
        }
    }
    return build();
}

}  // namespace detail

Schedule compile(const topo::FrozenTopology& topology, const topo::LinkClassTiming& links, const topo::ChipConfig& chip,
                 const workload::TransferSet& transfers, const SchedulerConfig& config) {
    detail::Scheduler scheduler(topology, links, chip, transfers, config);
    return scheduler.run();
}

}  // namespace loom::sched
