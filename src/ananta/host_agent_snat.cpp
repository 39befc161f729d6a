// The Host Agent's idle SNAT ranges: when one was last used, and giving it back to the manager.
#include <algorithm>

#include "loom/ananta/host_agent.hpp"

namespace loom::ananta {

namespace {
bool on_range(const FiveTuple& outside, const SnatGrant& g) {
    return outside.dst == g.vip && outside.dst_port >= g.first && outside.dst_port - g.first < g.count;
}
}  // namespace

std::optional<Time> HostAgent::snat_last_use(const SnatGrant& g) const {
    std::optional<Time> last;
    for (const Binding& b : pool_)  // live bindings have a DIP
        if (b.dip != 0 && b.dip == g.dip && on_range(b.outside, g) && (!last || b.last_seen > *last)) last = b.last_seen;
    return last;
}

bool HostAgent::return_snat(const SnatGrant& g) {
    auto it = grants_.find(g.dip);
    if (it == grants_.end()) return false;
    auto& list = it->second;
    const auto r = std::find_if(list.begin(), list.end(), [&](const SnatGrant& h) {
        return h.vip == g.vip && h.first == g.first && h.count == g.count;
    });
    if (r == list.end()) return false;
    list.erase(r);
    if (list.empty()) grants_.erase(it);
    std::vector<FiveTuple> gone;
    for (const Binding& b : pool_)
        if (b.dip != 0 && b.dip == g.dip && on_range(b.outside, g)) gone.push_back(b.outside);
    for (const FiveTuple& t : gone) unbind(t);  // the set removed does not depend on the pool's order
    return true;
}

}  // namespace loom::ananta
