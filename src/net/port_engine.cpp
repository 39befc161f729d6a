#include "loom/net/port_engine.hpp"

#include <algorithm>
#include <bit>
#include <limits>

#include <fmt/format.h>

#include "loom/base/assert.hpp"
#include "loom/base/error.hpp"
#include "loom/base/rng.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/stats/group.hpp"

namespace loom::net {
namespace {

// Distinct salts keep a port's fault draws independent of each other and of its FEC and jitter draws.
constexpr std::uint64_t kLossSalt = 0x1055'0000'0000'0003ULL;
constexpr std::uint64_t kDuplicateSalt = 0xd0b1'0000'0000'0004ULL;
constexpr std::uint64_t kReorderSalt = 0x5e0d'0000'0000'0005ULL;
constexpr std::uint32_t kDuplicateBit = 0x8000'0000U;

std::uint64_t stream_of(sim::Context& ctx, std::string_view name, std::uint64_t stream) {
    if (stream != 0) return stream;
    return derive(ctx.sim().seed(), ctx.path() + "." + std::string(name));
}

// A uniform integer in [0, span] from 64 random bits (multiply-shift, no bias worth a branch at these spans).
std::int64_t uniform_upto(std::uint64_t bits, std::int64_t span) {
    __extension__ using u128 = unsigned __int128;
    return static_cast<std::int64_t>((static_cast<u128>(bits) * (static_cast<std::uint64_t>(span) + 1)) >> 64);
}

}  // namespace

PortEngine::PortEngine(sim::Context& ctx, std::string_view name, const LinkTiming& timing, const PortConfig& config,
                       std::uint64_t stream, const DropReasons* reasons)
    : ctx_(&ctx),
      wire_(ctx, name),
      latency_ps_(timing.latency().count()),
      plain_(false),
      unit_bytes64_(timing.unit_payload.count()),
      overhead_bytes64_(config.packet_overhead.count()),
      queueless_(config.scheduling == Scheduling::None),
      tx_(timing, stream_of(ctx, name, stream)),
      wake_(ctx, this, sim::handler<&PortEngine::on_wake>),
      config_(config),
      reasons_(reasons),
      fault_stream_(derive(stream_of(ctx, name, stream), std::uint64_t{0xfa17})),
      name_(name) {
    timing.validate(path());
    if (!queueless_) {
        if (config_.queues.empty()) throw InternalError(fmt::format("port {}: a queued port needs a queue", path()));
        queues_.resize(config_.queues.size());
        rr_credit_ = config_.queues[0].weight;
    }
    std::sort(config_.faults.down.begin(), config_.faults.down.end(),
              [](const DownInterval& a, const DownInterval& b) { return a.from < b.from; });
    scheduled_down_ = !config_.faults.down.empty();
    const FaultConfig& f = config_.faults;
    faulty_ = f.loss > 0.0 || f.duplicate > 0.0 || f.delay != Time::zero() || f.reorder_window > Time::zero() ||
              scheduled_down_;
    // ceil(k * bits * 10^12 / rate) is k * (bits * 10^12 / rate) when the rate divides bits * 10^12 (whole Gbit/s
    // and Mbit/s rates with byte units): a multiplication instead of a division per packet.
    __extension__ using i128 = __int128;
    const i128 unit_ps = static_cast<i128>(timing.unit_wire.bits()) * 1'000'000'000'000LL;
    const std::int64_t rate = timing.rate.bits_per_s();
    if (unit_ps % rate == 0 && unit_ps / rate <= std::numeric_limits<std::int64_t>::max())
        ps_per_unit_ = static_cast<std::int64_t>(unit_ps / rate);
    // Such a rate (ps_per_unit_ >= 1: a rate that divides the bits is at most bits * 10^12) on a queued port
    // with no faults, no jitter and no bit errors: the port's own arithmetic; any other port: the Transmitter
    // (which gives the same times on a plain port: tests/unit/net/output_port_test.cpp).
    constexpr std::int64_t kI32 = std::numeric_limits<std::int32_t>::max();
    plain_ = !queueless_ && !faulty_ && timing.jitter == Time::zero() && timing.bit_error_rate <= 0.0 &&
             ps_per_unit_ > 0 && unit_bytes64_ <= kI32 && overhead_bytes64_ >= 0 && overhead_bytes64_ <= kI32;
    keep_info_ = !plain_ || deliveries_read_;
    if (unit_bytes64_ > 0 && std::has_single_bit(static_cast<std::uint64_t>(unit_bytes64_)))
        unit_shift_ = static_cast<std::int8_t>(std::countr_zero(static_cast<std::uint64_t>(unit_bytes64_)));
    if (plain_ && ps_per_unit_ <= std::numeric_limits<std::int32_t>::max()) {
        fast_ps_per_unit_ = static_cast<std::int32_t>(ps_per_unit_);
        overhead_bytes_ = static_cast<std::int32_t>(overhead_bytes64_);
    }
    refresh_fast();
}

void PortEngine::set_deliveries_read(bool read) {
    LOOM_ASSERT(slot_count_ == 0, "output port: deliveries_read set after a send");
    deliveries_read_ = read;
    keep_info_ = !plain_ || deliveries_read_;
    refresh_fast();
}

void PortEngine::refresh_fast() {
    // The wire's latency is the link's (net::connect binds it so): transmit_fast reads it there, in the line it
    // sends through.
    fast_ = plain_ && !keep_info_ && !forced_down_ && waiting_ == 0 && unit_shift_ >= 0 && fast_ps_per_unit_ > 0 &&
            wire_.bound() && wire_.latency().count() == latency_ps_;
}

void PortEngine::InFlightRing::grow() {
    // Not published: 16 entries to start with (a port has a few packets on the wire at once), doubling.
    LOOM_ASSERT(capacity <= (std::numeric_limits<std::uint32_t>::max() >> 1), "output port in-flight ring full");
    const std::uint32_t bigger = capacity == 0 ? 16 : capacity * 2;
    auto fresh = std::make_unique<InFlight[]>(bigger);
    for (std::uint32_t i = 0; i < count; ++i) fresh[i] = items[(head + i) & (capacity - 1)];
    items = std::move(fresh);
    capacity = bigger;
    head = 0;
}

std::int64_t PortEngine::units_of(std::int64_t bytes) const {
    const std::int64_t unit = unit_bytes64_;
    const std::int64_t b = bytes + overhead_bytes64_;
    if (b <= unit) return 1;
    if (unit_shift_ >= 0) return (b + unit - 1) >> unit_shift_;
    return (b + unit - 1) / unit;
}

// Inlined into acquire() and send().
inline std::uint32_t PortEngine::take_slot(std::int64_t now) {
    // The most recent packet's slot once it has arrived (strictly past: an arrival at `now` may not have been
    // handled yet), then the oldest slot on the wire, once arrived; then a slot given back by a drop; else a new
    // one. A slot grows the port's storage only when nothing is free and nothing has arrived. Which handle a
    // packet gets changes nothing else: events are ordered by time and key, never by their argument.
    if (back_slot_ != kNoSlot && back_arrival_ < now) {
        const std::uint32_t h = back_slot_;
        back_slot_ = kNoSlot;
        return h;
    }
    if (!in_flight_.empty() && in_flight_.front().arrival < now) {
        const std::uint32_t h = in_flight_.front().handle;
        in_flight_.pop_front();
        return h;
    }
    return take_spare();
}

// take_slot()'s rare cases, out of line.
[[gnu::noinline]] std::uint32_t PortEngine::take_spare() {
    if (!free_.empty()) {
        const std::uint32_t h = free_.back();
        free_.pop_back();
        return h;
    }
    LOOM_ASSERT(slot_count_ < kDuplicateBit, "output port slots exhausted");
    if (keep_info_) info_.emplace_back();
    if (grow_slots_ != nullptr) grow_slots_(slot_owner_, slot_count_ + 1);
    return slot_count_++;
}


bool PortEngine::down_at(Time t) const {
    if (forced_down_) return true;
    if (!scheduled_down_) return false;
    for (const DownInterval& d : config_.faults.down) {
        if (d.from > t) break;
        if (t < d.to) return true;
    }
    return false;
}

bool PortEngine::down_during(Time from, Time to) const {
    for (const DownInterval& d : config_.faults.down) {
        if (d.from >= to) break;
        if (d.to > from) return true;
    }
    return false;
}

bool PortEngine::idle() const { return waiting_ == 0 && free_at().count() <= ctx_->now_ps(); }

std::uint64_t PortEngine::queued() const { return waiting_; }

void PortEngine::drop(std::uint32_t handle, DropReason reason) {
    drops_.add(reason);
    release(handle);
}

void PortEngine::refuse(DropReason reason) {
    ++sent_;
    drops_.add(reason);
}

// Inlined into send() (the hot path of every Ananta hop) and transmit().
[[gnu::always_inline]] inline SendResult PortEngine::transmit_plain(std::uint32_t handle, std::int64_t bytes) {
    // Transmitter::send's arithmetic for a link with no jitter and no bit errors: only the train's last unit
    // matters, its FEC outcome is clean, and no fault applies.
    const std::int64_t now = ctx_->now_ps();
    if (forced_down_) {
        drop(handle, DropReason::LinkDown);
        return SendResult::Dropped;
    }
    const std::int64_t units = units_of(bytes);
    // The link is free (busy_until_ <= now): the packet starts now and its units follow back to back, so the
    // train arithmetic (start + ceil(units so far * bits / rate)) is now + units * ps_per_unit_ at this rate.
    std::int64_t serialization;
    if (__builtin_mul_overflow(units, ps_per_unit_, &serialization)) [[unlikely]]
        serialization = tx_.timing().serialization(units).count();
    const std::int64_t sent = now + serialization;
    // Sends are later than the previous one's end and the latency is fixed: arrivals are in order of sending.
    const std::int64_t arrival = sent + latency_ps_;
    const std::uint64_t first_unit = next_index_;
    next_index_ += static_cast<std::uint64_t>(units);
    busy_until_ = sent;
    if (keep_info_) {
        Delivery& info = info_[handle];
        info.start = Time::ps(now);
        info.units = units;
        info.first_unit = first_unit;
        info.attempts = 1;
        info.duplicate = false;
    }
    wire_.send(handle, Time::ps(arrival - now));
    on_wire(arrival, handle);
    return SendResult::Sent;
}

// transmit_plain() for a fast port (no Delivery kept, not down, a power-of-two unit): its first line and the
// wire's only. Inlined into send() (the hot path of every Ananta hop).
[[gnu::always_inline]] inline SendResult PortEngine::transmit_fast(std::uint32_t handle, std::int64_t bytes,
                                                                   std::int64_t now) {
    ++sent_;
    // units_of() for a power-of-two unit: one unit up to its size, else the bytes rounded up to whole units.
    const std::int64_t unit = std::int64_t{1} << unit_shift_;
    const std::int64_t b = bytes + overhead_bytes_;
    const std::int64_t units = b <= unit ? 1 : (b + unit - 1) >> unit_shift_;
    std::int64_t serialization;
    if (__builtin_mul_overflow(units, std::int64_t{fast_ps_per_unit_}, &serialization)) [[unlikely]]
        serialization = tx_.timing().serialization(units).count();
    // The link is free: the packet starts now (see transmit_plain).
    const std::int64_t sent = now + serialization;
    const Time latency = wire_.latency();
    next_index_ += static_cast<std::uint64_t>(units);
    busy_until_ = sent;
    wire_.send(handle, Time::ps(serialization) + latency);
    on_wire(sent + latency.count(), handle);
    return SendResult::Sent;
}

// submit()'s body, inlined into submit() and send(): a fast port with its link free sends at once; every
// other case is offer_general().
inline SendResult PortEngine::offer(std::uint32_t handle, std::int64_t bytes, std::uint32_t queue, std::int64_t now) {
    if (fast_ && busy_until_ <= now) return transmit_fast(handle, bytes, now);
    return offer_general(handle, bytes, queue);
}

[[gnu::noinline]] SendResult PortEngine::offer_general(std::uint32_t handle, std::int64_t bytes,
                                                       std::uint32_t queue) {
    if (queue == kDataQueue) queue = data_queue_;
    if (keep_info_) info_[handle].seq = sent_;
    ++sent_;
    if (queueless_) {
        if (tx_.free_at().count() > ctx_->now_ps()) {
            drop(handle, DropReason::Collision);
            return SendResult::Collision;
        }
        return transmit(handle, bytes);
    }
    if (waiting_ == 0 && free_at().count() <= ctx_->now_ps())
        return plain_ ? transmit_plain(handle, bytes) : transmit(handle, bytes);
    if (down_at(ctx_->now())) {
        drop(handle, DropReason::LinkDown);
        return SendResult::Dropped;
    }
    LOOM_ASSERT(queue < queues_.size(), "output port queue index out of range");
    Queue& q = queues_[queue];
    const QueueConfig& limits = config_.queues[queue];
    if ((limits.max_packets > 0 && static_cast<std::int64_t>(q.items.size()) >= limits.max_packets) ||
        (limits.max_bytes.count() > 0 && q.bytes + bytes > limits.max_bytes.count())) {
        drop(handle, DropReason::QueueFull);
        return SendResult::Dropped;
    }
    q.items.push_back({handle, bytes});
    q.bytes += bytes;
    ++waiting_;
    fast_ = false;
    arm_wake();
    return SendResult::Queued;
}

std::uint32_t PortEngine::acquire() { return take_slot(ctx_->now_ps()); }

SendResult PortEngine::submit(std::uint32_t handle, std::int64_t bytes, std::uint32_t queue) {
    return offer(handle, bytes, queue, ctx_->now_ps());
}

PortEngine::Sending PortEngine::send(std::int64_t bytes, std::uint32_t queue) {
    const std::int64_t now = ctx_->now_ps();
    const std::uint32_t h = take_slot(now);
    return Sending{h, offer(h, bytes, queue, now)};
}


SendResult PortEngine::transmit(std::uint32_t handle, std::int64_t bytes) {
    if (plain_) return transmit_plain(handle, bytes);
    const Time now = ctx_->now();
    if (down_at(now)) {
        drop(handle, DropReason::LinkDown);
        return SendResult::Dropped;
    }
    const std::int64_t units = units_of(bytes);
    Transmission tr{};
    if (queueless_) {
        [[maybe_unused]] const bool ok = tx_.start_train(now, units, tr);
        LOOM_DEBUG_ASSERT(ok, "queueless port busy after the collision check");
    } else {
        tr = tx_.send(now, units);
    }
    Delivery& info = info_[handle];
    info.start = tr.start;
    info.units = units;
    info.first_unit = tr.index + 1 - static_cast<std::uint64_t>(units);
    info.attempts = 1;
    info.duplicate = false;
    // Link-level retry: replay from the first unit FEC could not correct, after the NAK round trip.
    while (tr.fec == FecOutcome::Uncorrectable && config_.link_retry &&
           static_cast<std::int64_t>(info.attempts) <= config_.max_retries) {
        std::uint64_t bad = info.first_unit;
        while (tx_.outcome(bad) != FecOutcome::Uncorrectable) ++bad;
        const auto resend = static_cast<std::int64_t>(tr.index - bad + 1);
        tr = tx_.send(tr.sent + config_.replay_latency, resend);
        info.start = tr.start;
        info.units = resend;
        info.first_unit = tr.index + 1 - static_cast<std::uint64_t>(resend);
        ++info.attempts;
        ++retries_;
    }
    if (tr.fec == FecOutcome::Uncorrectable) {
        drop(handle, DropReason::FecUncorrectable);
        return SendResult::Sent;
    }
    // Fault draws only when some fault is configured (the common case reads none of the cold configuration).
    const FaultConfig& f = config_.faults;
    const std::uint64_t seq = info.seq;
    Time arrival = tr.arrival;
    if (faulty_) {
        if (f.loss > 0.0 && counter_uniform(fault_stream_ ^ kLossSalt, seq) < f.loss) {
            drop(handle, DropReason::FaultLoss);
            return SendResult::Sent;
        }
        arrival += f.delay;
        if (f.reorder_window > Time::zero())
            arrival += Time::ps(uniform_upto(derive(fault_stream_ ^ kReorderSalt, seq), f.reorder_window.count()));
        if (down_during(tr.start, arrival)) {
            drop(handle, DropReason::LinkDown);
            return SendResult::Sent;
        }
    }
    const Time delay = arrival - now;
    wire_.send(handle, delay);
    if (faulty_ && f.duplicate > 0.0 && counter_uniform(fault_stream_ ^ kDuplicateSalt, seq) < f.duplicate) {
        wire_.send(handle | kDuplicateBit, delay);
        ++duplicated_;
    }
    // Arrivals are nearly in order (reordering only within the window), so a FIFO reclaims slots promptly.
    on_wire(arrival.count(), handle);
    return SendResult::Sent;
}

std::uint32_t PortEngine::pick() {
    const auto n = static_cast<std::uint32_t>(queues_.size());
    if (config_.scheduling == Scheduling::StrictPriority) {
        for (std::uint32_t i = 0; i < n; ++i)
            if (!queues_[i].items.empty()) return i;
    } else {
        // At most one full pass plus the return to the starting queue with a fresh turn.
        for (std::uint32_t step = 0; step <= n; ++step) {
            if (!queues_[rr_].items.empty() && rr_credit_ > 0) {
                --rr_credit_;
                return rr_;
            }
            rr_ = (rr_ + 1) % n;
            rr_credit_ = config_.queues[rr_].weight;
        }
    }
    LOOM_ASSERT(false, "output port: pick() with every queue empty");
    return 0;
}

void PortEngine::on_wake() {
    // Start packets while the link is free now: normally one, more when packets are dropped before the wire.
    while (waiting_ > 0 && free_at().count() <= ctx_->now_ps()) {
        Queue& q = queues_[pick()];
        const Item item = q.items.front();
        q.items.pop_front();
        q.bytes -= item.bytes;
        --waiting_;
        transmit(item.handle, item.bytes);
    }
    if (waiting_ > 0) arm_wake();
    else refresh_fast();
}

void PortEngine::arm_wake() {
    const Time at = std::max(free_at(), ctx_->now());
    if (wake_.armed() && wake_.expiry() == at) return;
    wake_.arm_at(at);
}

void PortEngine::set_down(bool down) {
    forced_down_ = down;
    if (down) {
        for (Queue& q : queues_) {
            for (const Item& item : q.items) drop(item.handle, DropReason::LinkDown);
            q.items.clear();
            q.bytes = 0;
        }
        waiting_ = 0;
    }
    refresh_fast();
}

void PortEngine::write_stats(stats::Group& group) const {
    stats::Json j;
    j["sent"] = sent_;
    j["delivered"] = delivered();
    j["duplicated"] = duplicated_;
    j["retries"] = retries_;
    j["dropped"] = reasons_ ? drops_.to_json(*reasons_) : drops_.to_json(DropReasons{});
    j["busy_ps"] = busy_time().count();
    j["units"] = units_sent();
    j["fec_corrected"] = tx_.corrected();
    j["fec_uncorrectable"] = tx_.uncorrectable();
    group.set(name_, std::move(j));
}

}  // namespace loom::net
