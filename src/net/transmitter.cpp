#include "loom/net/transmitter.hpp"

#include <algorithm>

#include "loom/base/assert.hpp"

namespace loom::net {

Transmitter::Transmitter(const LinkTiming& timing, std::uint64_t stream)
    : timing_(timing), errors_(timing, stream), stream_(stream), latency_(timing.latency()) {}

Transmission Transmitter::send(Time ready, std::int64_t k, Time* first_arrival) {
    LOOM_DEBUG_ASSERT(k >= 1, "Transmitter::send needs at least one unit");
    if (ready > busy_until_ || train_units_ == 0) {
        train_start_ = ready;  // idle: a new train
        train_units_ = 0;
    }
    const Time start = train_units_ == 0 ? train_start_ : busy_until_;
    Transmission t{};
    t.start = start;
    t.fec = FecOutcome::Clean;
    const bool jitter = timing_.jitter > Time::zero();
    Time last_sent;  // unit k's: the loop always runs its body for i == k
    for (std::int64_t i = 1; i <= k; ++i) {
        // Per-unit work only when something per unit can differ (jitter, errors); otherwise jump to the end.
        if (!jitter && errors_.error_free() && i < k) {
            i = k - 1;
            continue;
        }
        const std::uint64_t index = next_index_ + static_cast<std::uint64_t>(i - 1);
        const Time sent = timing_.unit_sent(train_start_, train_units_ + i);
        last_sent = sent;
        Time arrival = sent + latency_ + (jitter ? jitter_of(stream_, index, timing_.jitter) : Time::zero());
        const FecOutcome f = errors_.outcome(index);
        if (f == FecOutcome::Uncorrectable) arrival += timing_.replay_latency;  // replayed; later units wait behind
        arrival = std::max(arrival, last_arrival_);
        last_arrival_ = arrival;
        if (f == FecOutcome::Corrected) ++corrected_;
        if (f == FecOutcome::Uncorrectable) ++uncorrectable_;
        if (f > t.fec) t.fec = f;
        if (i == 1 && first_arrival) *first_arrival = arrival;
    }
    train_units_ += k;
    next_index_ += static_cast<std::uint64_t>(k);
    t.sent = last_sent;  // = unit_sent(train_start_, train_units_), computed once (a 64-bit division)
    if (!jitter) last_arrival_ = std::max(last_arrival_, t.sent + latency_);
    t.arrival = last_arrival_;
    t.index = next_index_ - 1;
    busy_ += t.sent - start;
    busy_until_ = t.sent;
    return t;
}

bool Transmitter::start_train(Time start, std::int64_t k, Transmission& out, Time* first_arrival) {
    if (busy_until_ > start) return false;
    train_units_ = 0;  // forces send() to open a new train at `start`
    out = send(start, k, first_arrival);
    return true;
}

Time Transmitter::unit_arrival(Time start, std::int64_t k, std::uint64_t first_index, Time floor) const {
    return arrival_after(timing_.unit_sent(start, k), first_index + static_cast<std::uint64_t>(k - 1), floor);
}

Time Transmitter::arrival_after(Time sent, std::uint64_t index, Time floor) const {
    Time arrival = sent + latency_;
    if (timing_.jitter > Time::zero()) arrival += jitter_of(stream_, index, timing_.jitter);
    if (!errors_.error_free() && errors_.outcome(index) == FecOutcome::Uncorrectable) arrival += timing_.replay_latency;
    return std::max(arrival, floor);
}

}  // namespace loom::net
