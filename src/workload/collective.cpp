#include "loom/workload/collective.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "collective_builder.hpp"
#include "loom/base/error.hpp"
#include "loom/base/memory.hpp"

namespace loom::workload {
namespace {

using detail::Builder;
using detail::ceil_div;
using detail::CollectiveBuffers;
using detail::CollectiveGenerator;
using detail::CollectiveRequest;

// The generator of each (kind, algorithm); an entry without an algorithm serves every algorithm of its kind not
// listed before it. Kinds that use no algorithm have one such entry; none: no transfers.
struct GeneratorEntry {
    CollectiveKind kind;
    std::optional<CollectiveAlgorithm> algorithm;
    CollectiveGenerator generate;
};
constexpr std::array kGenerators{
    GeneratorEntry{CollectiveKind::AllReduce, CollectiveAlgorithm::Ring, detail::generate_ring_all_reduce},
    GeneratorEntry{CollectiveKind::AllReduce, CollectiveAlgorithm::Hierarchical,
                   detail::generate_hierarchical_all_reduce},
    GeneratorEntry{CollectiveKind::AllReduce, CollectiveAlgorithm::Direct, detail::generate_direct_all_reduce},
    GeneratorEntry{CollectiveKind::AllToAll, CollectiveAlgorithm::Direct, detail::generate_direct_all_to_all},
    GeneratorEntry{CollectiveKind::AllToAll, std::nullopt, detail::generate_shifted_all_to_all},
    GeneratorEntry{CollectiveKind::ReduceScatter, std::nullopt, detail::generate_reduce_scatter},
    GeneratorEntry{CollectiveKind::AllGather, std::nullopt, detail::generate_all_gather},
    GeneratorEntry{CollectiveKind::Broadcast, std::nullopt, detail::generate_broadcast},
    GeneratorEntry{CollectiveKind::Gather, std::nullopt, detail::generate_gather_scatter},
    GeneratorEntry{CollectiveKind::Scatter, std::nullopt, detail::generate_gather_scatter},
};

CollectiveGenerator generator_of(CollectiveKind kind, CollectiveAlgorithm algorithm) {
    for (const GeneratorEntry& e : kGenerators) {
        if (e.kind == kind && (!e.algorithm || *e.algorithm == algorithm)) return e.generate;
    }
    return nullptr;
}

std::vector<topo::VertexId> members_of(const CollectiveConfig& c, const topo::FrozenTopology& t,
                                       const std::string& pointer, config::Errors& errors) {
    std::vector<topo::VertexId> m;
    if (c.tsps.empty()) {
        for (topo::VertexId v = 0; v < t.num_vertices(); ++v)
            if (!t.vertex(v).spare && t.vertex(v).terminals > 0) m.push_back(v);
    } else {
        const std::string at = config::child_pointer(pointer, "tsps");
        for (std::size_t i = 0; i < c.tsps.size(); ++i) {
            const std::int64_t v = c.tsps[i];
            if (v < 0 || v >= t.num_vertices()) {
                errors.add(config::child_pointer(at, i),
                           fmt::format("TSP {} is not in the topology (0..{})", v, t.num_vertices() - 1));
                continue;
            }
            const topo::VertexInfo& info = t.vertex(static_cast<topo::VertexId>(v));
            if (info.spare || info.terminals <= 0) {
                errors.add(config::child_pointer(at, i),
                           fmt::format("TSP {} ({}) is a spare: collectives run over compute TSPs", v,
                                       t.vertex_name(static_cast<topo::VertexId>(v))));
                continue;
            }
            if (std::find(m.begin(), m.end(), static_cast<topo::VertexId>(v)) != m.end()) {
                errors.add(config::child_pointer(at, i), fmt::format("TSP {} repeated", v));
                continue;
            }
            m.push_back(static_cast<topo::VertexId>(v));
        }
        std::sort(m.begin(), m.end());
    }
    if (errors.empty() && m.size() < 2)
        errors.add(config::child_pointer(pointer, "tsps"),
                   fmt::format("a collective needs at least 2 TSPs, got {}", m.size()));
    return m;
}

}  // namespace

TransferSet make_collective(const CollectiveConfig& c, const topo::FrozenTopology& t, const topo::ChipConfig& chip,
                            const std::string& pointer, Bytes unit_payload) {
    config::Errors errors;
    CollectiveLayout layout;
    layout.kind = c.kind;
    layout.algorithm = c.algorithm;
    layout.members = members_of(c, t, pointer, errors);
    errors.throw_if_any();
    const auto member_count = static_cast<std::int64_t>(layout.members.size());
    const std::int64_t vector_bytes = unit_payload.count();
    // The tensor or block, in whole vectors.
    const std::int64_t tensor_vectors = ceil_div(c.bytes.count(), vector_bytes);
    layout.address = c.address;
    layout.bytes_per_tsp = c.bytes;
    const bool rooted =
        c.kind == CollectiveKind::Broadcast || c.kind == CollectiveKind::Gather || c.kind == CollectiveKind::Scatter;
    if (rooted) {
        const auto it = std::find(layout.members.begin(), layout.members.end(), static_cast<topo::VertexId>(c.root));
        if (it == layout.members.end())
            errors.add(config::child_pointer(pointer, "root"), fmt::format("TSP {} is not a member", c.root));
        else
            layout.root = it - layout.members.begin();
    }
    errors.throw_if_any();

    Builder b(layout, vector_bytes);
    if (const auto available = available_memory_bytes()) b.limit_memory(*available, pointer);
    CollectiveBuffers buffers;
    if (const CollectiveGenerator generate = generator_of(c.kind, c.algorithm)) {
        generate(CollectiveRequest{c, t, tensor_vectors, vector_bytes, pointer, errors}, layout, b, buffers);
        errors.throw_if_any();
    }
    const std::int64_t region = buffers.region;
    const std::int64_t scratch = buffers.scratch;
    layout.padding_bytes = Bytes(std::max(region, tensor_vectors) * vector_bytes - c.bytes.count());
    if (c.kind == CollectiveKind::AllGather || c.kind == CollectiveKind::Gather || c.kind == CollectiveKind::Scatter ||
        c.kind == CollectiveKind::Broadcast)
        layout.padding_bytes = Bytes(tensor_vectors * vector_bytes - c.bytes.count());
    const std::int64_t end = c.address + region * vector_bytes * (c.kind == CollectiveKind::AllToAll ? 2 : 1) + scratch * vector_bytes;
    if (end > chip.memory.count())
        errors.add(config::child_pointer(pointer, "bytes"),
                   fmt::format("{} per TSP over {} TSPs needs {} of memory from offset {}, beyond the TSP's {}",
                               to_string(c.bytes), member_count, to_string(Bytes(end - c.address)), c.address,
                               to_string(chip.memory)));
    errors.throw_if_any();

    TransferSet s;
    s.transfers = b.take();
    layout.transfers = static_cast<std::int64_t>(s.transfers.size());
    s.collective = std::move(layout);
    return s;
}

CollectiveMemory collective_memory(const CollectiveLayout& layout, Bytes unit_payload) {
    CollectiveMemory m;
    const std::int64_t vector_bytes = unit_payload.count();
    const auto member_count = static_cast<std::int64_t>(layout.members.size());
    auto member = [&](std::int64_t r) { return layout.members[static_cast<std::size_t>(r)]; };
    auto values = [&](std::int64_t r, std::int64_t first, std::int64_t count) {
        std::vector<std::int64_t> v(static_cast<std::size_t>(count));
        for (std::int64_t k = 0; k < count; ++k) v[static_cast<std::size_t>(k)] = collective_value(member(r), first + k);
        return v;
    };
    auto sums = [&](std::int64_t first, std::int64_t count) {
        std::int64_t base = 0;
        for (std::int64_t r = 0; r < member_count; ++r) base += collective_value(member(r), 0);
        std::vector<std::int64_t> v(static_cast<std::size_t>(count));
        for (std::int64_t k = 0; k < count; ++k) v[static_cast<std::size_t>(k)] = base + member_count * (first + k);
        return v;
    };
    auto at = [&](std::int64_t slot) { return layout.address + slot * vector_bytes; };
    switch (layout.kind) {
        case CollectiveKind::None:
            break;
        case CollectiveKind::AllReduce:
            for (std::int64_t r = 0; r < member_count; ++r) {
                m.initial.push_back({member(r), at(0), values(r, 0, layout.vectors)});
                m.expected.push_back({member(r), at(0), sums(0, layout.vectors)});
            }
            break;
        case CollectiveKind::ReduceScatter:
            for (std::int64_t r = 0; r < member_count; ++r) {
                m.initial.push_back({member(r), at(0), values(r, 0, layout.vectors)});
                m.expected.push_back({member(r), at(r * layout.block), sums(r * layout.block, layout.block)});
            }
            break;
        case CollectiveKind::AllGather:
            for (std::int64_t r = 0; r < member_count; ++r) {
                m.initial.push_back({member(r), at(r * layout.block), values(r, r * layout.block, layout.block)});
                for (std::int64_t o = 0; o < member_count; ++o)
                    m.expected.push_back({member(r), at(o * layout.block), values(o, o * layout.block, layout.block)});
            }
            break;
        case CollectiveKind::AllToAll:
            for (std::int64_t r = 0; r < member_count; ++r) m.initial.push_back({member(r), at(0), values(r, 0, member_count * layout.block)});
            for (std::int64_t d = 0; d < member_count; ++d)
                for (std::int64_t r = 0; r < member_count; ++r)
                    if (r != d)
                        m.expected.push_back(
                            {member(d), layout.out_address + r * layout.block * vector_bytes, values(r, d * layout.block, layout.block)});
            break;
        case CollectiveKind::Broadcast:
            m.initial.push_back({member(layout.root), at(0), values(layout.root, 0, layout.block)});
            for (std::int64_t r = 0; r < member_count; ++r)
                if (r != layout.root) m.expected.push_back({member(r), at(0), values(layout.root, 0, layout.block)});
            break;
        case CollectiveKind::Gather:
            for (std::int64_t r = 0; r < member_count; ++r) {
                m.initial.push_back({member(r), at(r * layout.block), values(r, r * layout.block, layout.block)});
                m.expected.push_back({member(layout.root), at(r * layout.block), values(r, r * layout.block, layout.block)});
            }
            break;
        case CollectiveKind::Scatter:
            m.initial.push_back({member(layout.root), at(0), values(layout.root, 0, member_count * layout.block)});
            for (std::int64_t r = 0; r < member_count; ++r)
                m.expected.push_back({member(r), at(r * layout.block), values(layout.root, r * layout.block, layout.block)});
            break;
    }
    return m;
}

}  // namespace loom::workload
