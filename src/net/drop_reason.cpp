#include "loom/net/drop_reason.hpp"

#include <fmt/format.h>

#include "loom/base/error.hpp"

namespace loom::net {

DropReasons::DropReasons() : names_{"queue_full", "link_down", "fault_loss", "fec_uncorrectable", "collision"} {}

DropReason DropReasons::add(const std::string& name) {
    for (const auto& n : names_)
        if (n == name) throw InternalError(fmt::format("drop reason '{}' is declared twice", name));
    if (name.empty()) throw InternalError("a drop reason needs a name");
    if (names_.size() >= 0xffff) throw InternalError("too many drop reasons");
    names_.push_back(name);
    return DropReason{static_cast<std::uint16_t>(names_.size() - 1)};
}

DropReason DropReasons::find(const std::string& name) const {
    for (std::size_t i = 0; i < names_.size(); ++i)
        if (names_[i] == name) return DropReason{static_cast<std::uint16_t>(i)};
    throw InternalError(fmt::format("no drop reason named '{}'", name));
}

const std::string& DropReasons::name(DropReason r) const {
    if (r.id >= names_.size()) throw InternalError(fmt::format("drop reason {} was never declared", r.id));
    return names_[r.id];
}

std::uint64_t DropCounts::total() const {
    std::uint64_t n = 0;
    for (auto c : counts_) n += c;
    return n;
}

void DropCounts::merge(const DropCounts& other) {
    if (counts_.size() < other.counts_.size()) counts_.resize(other.counts_.size(), 0);
    for (std::size_t i = 0; i < other.counts_.size(); ++i) counts_[i] += other.counts_[i];
}

stats::Json DropCounts::to_json(const DropReasons& names) const {
    stats::Json out = stats::Json::object();
    for (std::size_t i = 0; i < counts_.size(); ++i)
        if (counts_[i] != 0) out[names.name(DropReason{static_cast<std::uint16_t>(i)})] = counts_[i];
    return out;
}

}  // namespace loom::net
