#include "dc_dynamics.hpp"

#include <fmt/format.h>

namespace loom::ananta {

void check_dynamics(const DcConfig& c, config::Errors& errors) {
    const DynamicsParameters& d = c.dynamics;
    const HealthProbeConfig& h = d.health;
    if (h.reply_latency >= h.timeout)
        errors.add("/health/reply_latency",
                   fmt::format("expected less than timeout ({}), got {}", loom::to_string(h.timeout),
                               loom::to_string(h.reply_latency)));
    if (c.params.mux.hash == MuxHashKind::Maglev) {
        const std::int64_t m = c.params.mux.maglev_table_size;
        for (std::size_t i = 0; i < c.vips.size(); ++i) {
            const std::int64_t dips = static_cast<std::int64_t>(c.vips[i].dips.size()) + c.vips[i].dip_hosts_count;
            if (dips > m)
                errors.add("/mux/maglev_table_size",
                           fmt::format("a Maglev table needs at least one entry per DIP: VIP {} has {} DIPs, the table {} "
                                       "entries",
                                       c.vips[i].name, dips, m));
        }
    }
    const HashStudyConfig& s = d.hash_study;
    if (!s.enabled) return;
    const auto nv = static_cast<std::int64_t>(c.vips.size());
    if (s.vip >= nv) {
        errors.add("/hash_study/vip", fmt::format("VIP {} does not exist ({} VIPs)", s.vip, nv));
        return;
    }
    const VipSpec& v = c.vips[static_cast<std::size_t>(s.vip)];
    const std::int64_t dips = static_cast<std::int64_t>(v.dips.size()) + v.dip_hosts_count;
    if (s.remove >= dips)
        errors.add("/hash_study/remove",
                   fmt::format("expected fewer than the VIP's {} DIPs (one must remain), got {}", dips, s.remove));
    std::vector<std::int64_t> sizes = s.maglev_table_sizes;
    sizes.push_back(c.params.mux.maglev_table_size);  // the pool's own table is always studied
    for (std::size_t i = 0; i < sizes.size(); ++i)
        if (sizes[i] < dips + s.add)
            errors.add(i + 1 == sizes.size() ? std::string("/mux/maglev_table_size")
                                             : config::child_pointer("/hash_study/maglev_table_sizes", i),
                       fmt::format("a Maglev table needs at least one entry per DIP: expected at least {} (the VIP's {} "
                                   "DIPs plus {} added), got {}",
                                   dips + s.add, dips, s.add, sizes[i]));
}

}  // namespace loom::ananta
