#include <catch2/catch.hpp>

#include "loom/net/drop_queue.hpp"

using loom::net::DropQueue;
using loom::net::DropReason;
using loom::net::PacketHandle;

TEST_CASE("A full queue counts the drop and keeps the packets it has") {
    DropQueue q(2, 0);
    CHECK(q.push(PacketHandle{1}, 100));
    CHECK(q.push(PacketHandle{2}, 100));
    CHECK_FALSE(q.push(PacketHandle{3}, 100));
    CHECK(q.dropped(DropReason::QueueFull) == 1);
    CHECK(q.size() == 2);
    CHECK(q.pop() == PacketHandle{1});
    CHECK(q.bytes() == 100);
    // conservation: offered = enqueued + dropped
    CHECK(q.enqueued() + q.dropped_total() == 3);
}

TEST_CASE("A byte limit drops the packet that would exceed it") {
    DropQueue q(0, 1000);
    CHECK(q.push(PacketHandle{1}, 600));
    CHECK_FALSE(q.push(PacketHandle{2}, 500));
    CHECK(q.push(PacketHandle{3}, 400));
    CHECK(q.bytes() == 1000);
    q.drop(DropReason::NoRoute);
    CHECK(q.dropped_total() == 2);
    CHECK(std::string(loom::net::drop_reason_name(DropReason::NoRoute)) == "no_route");
}
