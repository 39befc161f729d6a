#include <catch2/catch.hpp>

#include "loom/net/packet.hpp"

namespace {
struct VectorPayload {
    std::int64_t value;
    std::uint32_t chunk;
};
}  // namespace

TEST_CASE("A packet pool reuses released slots and keeps ids unique") {
    loom::net::PacketPool<VectorPayload> pool;
    const auto a = pool.allocate();
    const auto b = pool.allocate();
    pool[a].payload.value = 7;
    pool[b].payload.value = 9;
    CHECK(pool[a].header.id == 0);
    CHECK(pool[b].header.id == 1);
    CHECK(pool.live() == 2);
    pool.release(a);
    const auto c = pool.allocate();
    CHECK(c == a);                   // slot reused
    CHECK(pool[c].header.id == 2);   // id is not
    CHECK(pool[c].payload.value == 0);  // payload reset
    CHECK(pool[b].payload.value == 9);
    CHECK(pool.live() == 2);
    CHECK(pool.capacity() == 2);
}

TEST_CASE("Packet handles survive pool growth") {
    loom::net::PacketPool<VectorPayload> pool;
    const auto first = pool.allocate();
    pool[first].payload.value = 123;
    for (int i = 0; i < 10000; ++i) pool.allocate();
    CHECK(pool[first].payload.value == 123);
    CHECK(pool.live() == 10001);
}
