#include "loom/net/port_config.hpp"

#include <optional>

#include <fmt/format.h>

namespace loom::net {

bool Partition::covers(const std::string& path) const {
    std::size_t begin = 0;
    while (begin <= links.size()) {
        std::size_t end = links.find(',', begin);
        if (end == std::string::npos) end = links.size();
        std::string prefix = links.substr(begin, end - begin);
        while (!prefix.empty() && prefix.front() == ' ') prefix.erase(prefix.begin());
        while (!prefix.empty() && prefix.back() == ' ') prefix.pop_back();
        if (!prefix.empty() && path.compare(0, prefix.size(), prefix) == 0 &&
            (path.size() == prefix.size() || path[prefix.size()] == '.'))
            return true;
        begin = end + 1;
    }
    return false;
}

void apply_partitions(PortConfig& config, const std::string& path, const std::vector<Partition>& partitions) {
    for (const Partition& p : partitions)
        if (p.covers(path)) config.faults.down.push_back({p.from, p.to});
}

namespace {

config::Schema<QueueConfig> queue_schema() {
    using Q = QueueConfig;
    config::Schema<Q> s("One queue of an output port.");
    s.field("max_packets", &Q::max_packets,
            "Packets the queue holds, the one on the wire excluded (0: unbounded). Default: Linux's txqueuelen.")
        .range(0, std::int64_t{1} << 40);
    s.field("max_bytes", &Q::max_bytes, "Packet bytes the queue holds (0: unbounded).").at_least(Bytes(0));
    s.field("weight", &Q::weight, "Weighted round robin: packets this queue sends per turn.").range(1, 1 << 20);
    return s;
}

config::Schema<DownInterval> down_schema() {
    using D = DownInterval;
    config::Schema<D> s("A half-open interval [from, to) during which the link is down.");
    s.field("from", &D::from, "Start of the down time.").at_least(Time::zero()).required();
    s.field("to", &D::to, "End of the down time (the link is up again at `to`).").at_least(Time::zero()).required();
    s.check("to", [](const D& d) -> std::optional<std::string> {
        if (d.to <= d.from) return fmt::format("expected a time after from ({}), got {}", to_string(d.from), to_string(d.to));
        return std::nullopt;
    });
    return s;
}

config::Schema<FaultConfig> fault_schema() {
    using F = FaultConfig;
    config::Schema<F> s("Faults of the link, drawn per packet from (seed, port path, packet number).");
    s.field("loss", &F::loss, "Probability that a packet is lost on the wire.").range(0.0, 1.0);
    s.field("delay", &F::delay, "Delay added to every arrival.").at_least(Time::zero());
    s.field("duplicate", &F::duplicate, "Probability that the receiver gets a packet twice.").range(0.0, 1.0);
    s.field("reorder_window", &F::reorder_window,
            "Each arrival is delayed by a uniform draw in [0, reorder_window], so packets may overtake each other "
            "by at most this much (0: in order).")
        .at_least(Time::zero());
    s.list("down", &F::down, down_schema(), "Down times of the link.");
    return s;
}

}  // namespace

config::Schema<PortConfig> port_schema() {
    using P = PortConfig;
    config::Schema<P> s("An output port: its queues, how it picks among them, link-level retry and faults. Timing "
                        "(rate, framing, latency, jitter, BER, FEC) is the link class's.");
    s.list("queues", &P::queues, queue_schema(), "The port's queues, highest priority first (ignored by scheduling \"none\").").range(0, 64);
    s.choice("scheduling", &P::scheduling,
             {{"strict_priority", Scheduling::StrictPriority},
              {"weighted_round_robin", Scheduling::WeightedRoundRobin},
              {"none", Scheduling::None}},
             "strict_priority (queue 0 first), weighted_round_robin (by queue weights), or none (no queue: a send "
             "while the link is busy is a collision).");
    s.field("packet_overhead", &P::packet_overhead,
            "Per-packet framing bytes sent with each packet (Ethernet: 24 = preamble, FCS, inter-frame gap).")
        .at_least(Bytes(0));
    s.field("link_retry", &P::link_retry,
            "Replay a packet with an uncorrectable unit from that unit (go-back-N, never reordering); "
            "otherwise the packet is dropped.");
    s.field("replay_latency", &P::replay_latency,
            "From a failed attempt's last bit out to the replay's first bit (the NAK round trip).")
        .at_least(Time::zero());
    s.field("max_retries", &P::max_retries, "Replays of one packet before it is dropped.").range(0, 1 << 20);
    s.section("faults", &P::faults, fault_schema(), "Fault parameters (all off by default).");
    s.check("queues", [](const P& p) -> std::optional<std::string> {
        if (p.scheduling != Scheduling::None && p.queues.empty())
            return std::string("expected at least one queue (or scheduling \"none\")");
        return std::nullopt;
    });
    return s;
}

config::Schema<Partition> partition_schema() {
    using P = Partition;
    config::Schema<P> s("A set of links down together over [from, to).");
    s.field("links", &P::links, "Comma-separated port path prefixes (\"dc.rack3,dc.mux1.out\").").required();
    s.field("from", &P::from, "Start of the partition.").at_least(Time::zero()).required();
    s.field("to", &P::to, "End of the partition (links are up again at `to`).").at_least(Time::zero()).required();
    s.check("to", [](const P& p) -> std::optional<std::string> {
        if (p.to <= p.from) return fmt::format("expected a time after from ({}), got {}", to_string(p.from), to_string(p.to));
        return std::nullopt;
    });
    return s;
}

}  // namespace loom::net
