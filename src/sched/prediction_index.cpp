#include "loom/sched/prediction_index.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace loom::sched {

Time predicted_arrival(const PredictedRun& r, std::uint32_t j, const LinkTiming& t) {
    return r.train_start + t.serialization(static_cast<std::int64_t>(r.offset) + j + 1) + t.latency();
}

PredictionIndex::PredictionIndex(const Schedule& schedule, const topo::FrozenTopology& topology,
                                 const topo::LinkClassTiming& links)
    : schedule_(schedule), topology_(topology) {
    for (topo::LinkClass c : topo::kAllLinkClasses) timings_.push_back(links.timing(c));
    order_.resize(schedule.predicted.size());
    std::iota(order_.begin(), order_.end(), 0u);
    const auto& runs = schedule.predicted;
    std::sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) {
        const PredictedRun& x = runs[a];
        const PredictedRun& y = runs[b];
        return std::tie(x.transfer, x.tsp, x.channel, x.first_vector, a) <
               std::tie(y.transfer, y.tsp, y.channel, y.first_vector, b);
    });
}

const LinkTiming& PredictionIndex::timing(std::uint32_t channel) const {
    return timings_[topo::index_of(topology_.channel(static_cast<topo::ChannelId>(channel)).link_class)];
}

const PredictedRun* PredictionIndex::find(std::uint32_t transfer, std::uint32_t vector, std::uint32_t tsp,
                                          std::uint32_t channel) const {
    const auto& runs = schedule_.predicted;
    // The last run of (transfer, tsp, channel) that starts at or before `vector`.
    auto it = std::upper_bound(order_.begin(), order_.end(), std::make_tuple(transfer, tsp, channel, vector),
                               [&](const auto& key, std::uint32_t i) {
                                   const PredictedRun& r = runs[i];
                                   return key < std::make_tuple(r.transfer, r.tsp, r.channel, r.first_vector);
                               });
    if (it == order_.begin()) return nullptr;
    const PredictedRun& r = runs[*(it - 1)];
    if (r.transfer != transfer || r.tsp != tsp || r.channel != channel) return nullptr;
    if (vector >= r.first_vector + r.count) return nullptr;
    return &r;
}

std::optional<Time> PredictionIndex::arrival(std::uint32_t transfer, std::uint32_t vector, std::uint32_t tsp,
                                             std::uint32_t channel) const {
    const PredictedRun* r = find(transfer, vector, tsp, channel);
    if (!r) return std::nullopt;
    return predicted_arrival(*r, vector - r->first_vector, timing(channel));
}

std::optional<Time> PredictionIndex::arrival(std::uint32_t transfer, std::uint32_t vector, std::uint32_t tsp) const {
    std::optional<Time> best;
    const auto v = static_cast<topo::VertexId>(tsp);
    if (v < 0 || v >= topology_.num_vertices()) return best;
    for (topo::ChannelId out : topology_.out_channels(v)) {
        const auto in = static_cast<std::uint32_t>(topo::FrozenTopology::reverse(out));
        if (auto t = arrival(transfer, vector, tsp, in); t && (!best || *t < *best)) best = t;
    }
    return best;
}

std::optional<Time> PredictionIndex::arrival_on_port(std::uint32_t transfer, std::uint32_t vector, std::uint32_t tsp,
                                                     std::int32_t port) const {
    const auto v = static_cast<topo::VertexId>(tsp);
    if (v < 0 || v >= topology_.num_vertices() || port < 0 || port >= topology_.num_ports(v)) return std::nullopt;
    const topo::ChannelId out = topology_.channel_at(v, port);
    if (out == topo::kNoChannel) return std::nullopt;
    return arrival(transfer, vector, tsp, static_cast<std::uint32_t>(topo::FrozenTopology::reverse(out)));
}

}  // namespace loom::sched
