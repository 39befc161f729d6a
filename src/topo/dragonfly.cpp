#include "loom/topo/dragonfly.hpp"

#include <fmt/format.h>

#include "graph_builder.hpp"

namespace loom::topo {
namespace {

constexpr std::int64_t kMaxRouters = std::int64_t{1} << 22;

std::vector<ShapeProblem> range_problems(const DragonflyConfig& c) {
    std::vector<ShapeProblem> out;
    auto need = [&](const char* key, std::int64_t v, std::int64_t lo, std::int64_t hi) {
        if (v < lo || v > hi) out.push_back({key, fmt::format("expected integer in {}..{}, got {}", lo, hi, v)});
    };
    need("p", c.p, 0, 4096);
    need("a", c.a, 1, 4096);
    need("h", c.h, 0, 4096);
    need("g", c.g, 0, 1'000'000);
    return out;
}

// Far end of global port k of group i: (group j, port index at j), or j = -1 if the link does not exist.
std::pair<std::int32_t, std::int32_t> far_end(const DragonflyConfig& c, std::int32_t i, std::int32_t k) {
    const std::int32_t g = c.groups();
    const std::int32_t ports = c.a * c.h;
    const std::int32_t t = k % (g - 1);
    const std::int32_t copy = k / (g - 1);
    std::int32_t j = 0;
    std::int32_t t_far = 0;
    if (c.arrangement == GlobalArrangement::Absolute) {
        j = t < i ? t : t + 1;
        t_far = i < j ? i : i - 1;
    } else {
        j = (i + t + 1) % g;
        t_far = g - 2 - t;
    }
    const std::int32_t k_far = t_far + copy * (g - 1);
    if (k_far >= ports) return {-1, -1};
    return {j, k_far};
}

}  // namespace

std::string_view global_arrangement_name(GlobalArrangement a) {
    return a == GlobalArrangement::Absolute ? "absolute" : "relative";
}

std::vector<ShapeProblem> shape_problems(const DragonflyConfig& c) {
    std::vector<ShapeProblem> out;
    if (!range_problems(c).empty()) return out;
    const std::int64_t ports = std::int64_t{c.a} * c.h;
    const std::int64_t g = c.groups();
    if (g - 1 > ports)
        out.push_back({"g", fmt::format("{} groups need {} global links per group (one to every other group), a group "
                                        "has {} (a = {} routers x h = {} global ports): at most {} groups",
                                        g, g - 1, ports, c.a, c.h, ports + 1)});
    else if (g * c.a > kMaxRouters)
        out.push_back({c.g > 0 ? "g" : "a",
                       fmt::format("{} routers is more than the {} Loom can describe", g * c.a, kMaxRouters)});
    return out;
}

void validate(const DragonflyConfig& c, const std::string& pointer, config::Errors& errors) {
    for (const auto& p : range_problems(c)) errors.add(config::child_pointer(pointer, p.key), p.message);
    for (const auto& p : shape_problems(c)) errors.add(config::child_pointer(pointer, p.key), p.message);
}

config::Schema<DragonflyConfig> dragonfly_schema() {
    using C = DragonflyConfig;
    config::Schema<C> s("Generic Dragonfly: g groups of a fully connected routers, h global ports and p terminals "
                        "per router");
    s.field("p", &C::p, "terminals per router").range(0, 4096);
    s.field("a", &C::a, "routers per group, fully connected").range(1, 4096);
    s.field("h", &C::h, "global ports per router").range(0, 4096);
    s.field("g", &C::g, "groups, at most a*h + 1; 0 means a*h + 1 (one global link per group pair)")
        .range(0, 1'000'000);
    s.choice("arrangement", &C::arrangement,
             {{"absolute", GlobalArrangement::Absolute}, {"relative", GlobalArrangement::Relative}},
             "global port k of group i leads to group t or t+1 skipping i (absolute) or to group i+t+1 mod g "
             "(relative), t = k mod (g-1)");
    for (const char* key : {"g", "a"}) {
        s.check(key, [key = std::string(key)](const C& c) -> std::optional<std::string> {
            for (const auto& p : shape_problems(c))
                if (p.key == key) return p.message;
            return std::nullopt;
        });
    }
    return s;
}

FrozenTopology build_dragonfly(const DragonflyConfig& c, const std::string& pointer) {
    config::Errors errors;
    validate(c, pointer, errors);
    errors.throw_if_any();

    const std::int32_t g = c.groups();
    const std::int32_t a = c.a;
    detail::GraphBuilder b;
    for (std::int32_t i = 0; i < g; ++i)
        for (std::int32_t r = 0; r < a; ++r) {
            VertexInfo info;
            info.group = i;
            info.rack = -1;
            info.node = i * a + r;
            info.index = r;
            info.terminals = c.p;
            b.add_vertex(info, (a - 1) + c.h);
        }
    for (std::int32_t i = 0; i < g; ++i)
        for (std::int32_t r = 0; r < a; ++r)
            for (std::int32_t q = r + 1; q < a; ++q) b.add_link(i * a + r, q - 1, i * a + q, r, LinkClass::Local);
    if (g > 1) {
        // Each link is added once, from the group with the lower number (a group pair can hold several links).
        const std::int32_t ports = a * c.h;
        for (std::int32_t i = 0; i < g; ++i)
            for (std::int32_t k = 0; k < ports; ++k) {
                const auto [j, k_far] = far_end(c, i, k);
                if (j <= i) continue;  // absent (-1) or added from group j
                b.add_link(i * a + k / c.h, (a - 1) + k % c.h, j * a + k_far / c.h, (a - 1) + k_far % c.h,
                           LinkClass::Global);
            }
    }
    return b.freeze("dragonfly");
}

}  // namespace loom::topo
