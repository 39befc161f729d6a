// A bounded FIFO of packet handles with drop accounting by reason: every packet offered is either queued or
// counted as dropped, so conservation (sent = delivered + dropped + in flight) can be checked.
#pragma once

#include <array>
#include <cstdint>
#include <deque>

#include "loom/base/units.hpp"
#include "loom/net/packet.hpp"

namespace loom::net {

enum class DropReason : std::uint8_t { QueueFull, NoRoute, Uncorrectable, Policy, Count_ };
const char* drop_reason_name(DropReason r);  // "queue_full", "no_route", "uncorrectable", "policy"

class DropQueue {
public:
    // Capacity in packets and in bytes (0 = unbounded for that measure).
    DropQueue(std::int64_t max_packets = 0, std::int64_t max_bytes = 0)
        : max_packets_(max_packets), max_bytes_(max_bytes) {}

    // Queues the packet, or counts it dropped (QueueFull) and returns false.
    bool push(PacketHandle h, std::int64_t bytes) {
        if ((max_packets_ > 0 && static_cast<std::int64_t>(q_.size()) >= max_packets_) ||
            (max_bytes_ > 0 && bytes_ + bytes > max_bytes_)) {
            drop(DropReason::QueueFull);
            return false;
        }
        q_.push_back({h, bytes});
        bytes_ += bytes;
        ++enqueued_;
        return true;
    }
    PacketHandle front() const { return q_.front().handle; }
    std::int64_t front_bytes() const { return q_.front().bytes; }
    PacketHandle pop() {
        const Entry e = q_.front();
        q_.pop_front();
        bytes_ -= e.bytes;
        return e.handle;
    }
    // Counts a drop that happened elsewhere (a model's decision) against this queue's totals.
    void drop(DropReason r) { ++dropped_[static_cast<std::size_t>(r)]; }

    bool empty() const { return q_.empty(); }
    std::size_t size() const { return q_.size(); }
    std::int64_t bytes() const { return bytes_; }
    std::uint64_t enqueued() const { return enqueued_; }
    std::uint64_t dropped(DropReason r) const { return dropped_[static_cast<std::size_t>(r)]; }
    std::uint64_t dropped_total() const;

private:
    struct Entry {
        PacketHandle handle;
        std::int64_t bytes;
    };
    std::deque<Entry> q_;
    std::int64_t max_packets_, max_bytes_;
    std::int64_t bytes_ = 0;
    std::uint64_t enqueued_ = 0;
    std::array<std::uint64_t, static_cast<std::size_t>(DropReason::Count_)> dropped_{};
};

}  // namespace loom::net
