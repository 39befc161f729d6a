#include "loom/sim/channel.hpp"

#include <fmt/format.h>

#include "loom/base/error.hpp"

namespace loom::sim {

Channel::Channel(Simulator& sim, std::string path, std::uint32_t endpoints, Time min_latency)
    : path_(std::move(path)), min_latency_(min_latency), endpoints_(endpoints, nullptr) {
    if (endpoints == 0) throw InternalError("channel " + path_ + " has no endpoints");
    if (min_latency < Time::ps(1)) {
        throw InternalError(fmt::format("channel {}: minimum latency {} is below 1ps", path_,
                                        loom::to_string(min_latency)));
    }
    base_slot_ = sim.reserve_slots(endpoints);
}

TrafficTally Channel::sent() const {
    TrafficTally t;
    for (const ChannelPort* p : endpoints_) {
        if (p) t += p->sent();
    }
    return t;
}

TrafficTally Channel::received() const {
    TrafficTally t;
    for (const ChannelPort* p : endpoints_) {
        if (p) t += p->received();
    }
    return t;
}

void Channel::check_bound() const {
    for (std::size_t i = 0; i < endpoints_.size(); ++i) {
        if (endpoints_[i] == nullptr) {
            throw InternalError(fmt::format("channel {}: endpoint {} of {} has no port attached", path_, i,
                                            endpoints_.size()));
        }
    }
}

void ChannelPort::attach(Channel& channel, std::uint32_t index) {
    if (bound_) throw InternalError("port " + path() + " is already attached to a channel");
    if (index >= channel.size()) {
        throw InternalError(fmt::format("port {}: endpoint {} is out of range for channel {} of {} endpoints",
                                        path(), index, channel.path(), channel.size()));
    }
    if (channel.endpoints_[index] != nullptr) {
        throw InternalError(fmt::format("port {}: endpoint {} of channel {} is already taken by {}", path(), index,
                                        channel.path(), channel.endpoints_[index]->path()));
    }
    channel.endpoints_[index] = this;
    sim_->set_slot(channel.base_slot_ + index, deliver_, this, ctx_);
    base_slot_ = channel.base_slot_;
    size_ = channel.size();
    index_ = index;
    min_latency_ = channel.min_latency();
    bound_ = true;
}

void ChannelPort::reject(std::uint32_t to, Time delay) const {
    if (!bound_) throw InternalError("port " + path() + " is not attached to a channel");
    if (to >= size_) {
        throw InternalError(fmt::format("port {}: destination {} is out of range (channel of {} endpoints)", path(),
                                        to, size_));
    }
    throw InternalError(fmt::format("port {}: send with delay {} is below the channel's minimum latency {}",
                                    path(), loom::to_string(delay), loom::to_string(min_latency_)));
}

}  // namespace loom::sim
