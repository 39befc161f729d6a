// Why a packet was dropped: a small id per reason, the link layer's own reasons built in and a model's added
// at setup (an Ananta model adds "mux_overload", "no_route", "mtu"), and per-component counts by reason.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/stats/json.hpp"

namespace loom::net {

// A reason id: the built-in ones below, then the ones a DropReasons table adds (in order of adding).
struct DropReason {
    std::uint16_t id = 0;
    constexpr bool operator==(const DropReason&) const = default;

    static const DropReason QueueFull;         // "queue_full": the chosen queue's packet or byte limit
    static const DropReason LinkDown;          // "link_down": down when the packet starts or while it flies
    static const DropReason FaultLoss;         // "fault_loss": the loss fault parameter
    static const DropReason FecUncorrectable;  // "fec_uncorrectable": a unit FEC could not correct (no retry
                                               //   left); the packet's CRC fails at the receiver
    static const DropReason Collision;         // "collision": sent on a queueless port while it was busy
};
inline constexpr DropReason DropReason::QueueFull{0};
inline constexpr DropReason DropReason::LinkDown{1};
inline constexpr DropReason DropReason::FaultLoss{2};
inline constexpr DropReason DropReason::FecUncorrectable{3};
inline constexpr DropReason DropReason::Collision{4};
inline constexpr std::uint16_t kBuiltinDropReasons = 5;

// The names of every reason of one model: the built-ins, then the model's own. Built at setup and then only
// read (ports keep a pointer to their model's table; it must outlive them).
class DropReasons {
public:
    DropReasons();
    // Adds a reason named `name` (snake_case, unique: InternalError otherwise) and returns its id.
    DropReason add(const std::string& name);
    // The id of `name`; InternalError if there is none.
    DropReason find(const std::string& name) const;
    const std::string& name(DropReason r) const;
    std::size_t size() const { return names_.size(); }

private:
    std::vector<std::string> names_;
};

// Counts by reason, owned by the component that drops. Grows to any id it is given.
class DropCounts {
public:
    void add(DropReason r, std::uint64_t n = 1) {
        if (r.id >= counts_.size()) counts_.resize(r.id + std::size_t{1}, 0);
        counts_[r.id] += n;
    }
    std::uint64_t operator[](DropReason r) const { return r.id < counts_.size() ? counts_[r.id] : 0; }
    std::uint64_t total() const;
    // Adds another component's counts (a model merging its components' stats in finish()).
    void merge(const DropCounts& other);
    // {reason name: count} for the reasons with a non-zero count, sorted by name.
    stats::Json to_json(const DropReasons& names) const;

private:
    std::vector<std::uint64_t> counts_;
};

}  // namespace loom::net
