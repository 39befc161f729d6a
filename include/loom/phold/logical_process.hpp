// One PHOLD logical process: on every arrival it forwards the token to a uniformly chosen process (itself
// included) after lookahead + Exp(mean_delay), drawing from its own RNG stream.
#pragma once

#include <cstdint>
#include <string_view>

#include "loom/base/units.hpp"
#include "loom/phold/phold.hpp"
#include "loom/sim/channel.hpp"
#include "loom/sim/component.hpp"

namespace loom::phold {

class LogicalProcess : public sim::Component {
public:
    static constexpr std::string_view kSubsystem = "phold";

    LogicalProcess(sim::Context& ctx, const PholdConfig& config);

    // Sends the process's `population` initial tokens to itself (token ids index * population + k).
    void init() override;

    sim::ChannelPort& port() { return port_; }
    const sim::ChannelPort& port() const { return port_; }
    std::int64_t handled() const { return handled_; }

private:
    void on_token(std::uint32_t token);
    // lookahead + Exp(mean), the exponential rounded to the nearest ps (halves up): integer time from here on.
    Time next_delay();

    // Hot fields first: with the component base they share the first cache line, the port follows.
    std::int64_t handled_ = 0;
    std::uint64_t lps_;
    Time lookahead_;
    double mean_ps_;
    sim::ChannelPort port_;
    std::int64_t population_;
};

}  // namespace loom::phold
