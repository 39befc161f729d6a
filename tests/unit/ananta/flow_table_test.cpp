#include <catch2/catch.hpp>

#include "loom/ananta/flow_table.hpp"

using namespace loom;
using namespace loom::ananta;

namespace {
FlowTableLimits limits(std::int64_t untrusted, std::int64_t trusted) {
    return FlowTableLimits{untrusted, trusted, Time::s(10), Time::s(240)};
}
FiveTuple key(std::uint16_t port) { return FiveTuple{ip(203, 0, 113, 5), ip(100, 64, 0, 1), port, 80, IpProto::Tcp}; }
const FlowTarget kDip{ip(10, 0, 0, 10), 8080, ip(10, 0, 0, 1)};
}  // namespace

TEST_CASE("A flow enters untrusted and is promoted to trusted by its second packet") {
    FlowTable t(limits(10, 10));
    CHECK(t.insert(key(1), kDip, Time::zero()));
    CHECK(t.class_of(key(1)) == FlowClass::Untrusted);
    CHECK(t.size(FlowClass::Untrusted) == 1);
    CHECK(t.lookup(key(1), Time::ms(1)) == kDip);
    CHECK(t.class_of(key(1)) == FlowClass::Trusted);
    CHECK(t.size(FlowClass::Untrusted) == 0);
    CHECK(t.size(FlowClass::Trusted) == 1);
    CHECK(t.promotions() == 1);
    CHECK_FALSE(t.lookup(key(2), Time::ms(1)).has_value());
}

TEST_CASE("An untrusted flow is live at its idle timeout minus 1 ps and gone at the timeout") {
    FlowTable t(limits(10, 10));
    t.insert(key(1), kDip, Time::zero());
    t.insert(key(2), kDip, Time::zero());
    CHECK(t.lookup(key(1), Time::s(10) - Time::ps(1)).has_value());
    CHECK_FALSE(t.lookup(key(2), Time::s(10)).has_value());
    CHECK(t.expired() == 1);
}

TEST_CASE("A trusted flow is live at its idle timeout minus 1 ps and gone at the timeout") {
    FlowTable t(limits(10, 10));
    t.insert(key(1), kDip, Time::zero());
    t.insert(key(2), kDip, Time::zero());
    const Time seen = Time::s(1);
    t.lookup(key(1), seen);  // both promoted, last seen at 1 s
    t.lookup(key(2), seen);
    CHECK(t.size(FlowClass::Trusted) == 2);
    CHECK(t.lookup(key(1), seen + Time::s(240) - Time::ps(1)).has_value());
    CHECK_FALSE(t.lookup(key(2), seen + Time::s(240)).has_value());
    t.expire(seen + Time::s(240) - Time::ps(1) + Time::s(240));
    CHECK(t.size() == 0);
}

TEST_CASE("A full untrusted class refuses new flows until an entry expires") {
    FlowTable t(limits(2, 10));
    CHECK(t.insert(key(1), kDip, Time::zero()));
    CHECK(t.insert(key(2), kDip, Time::s(1)));
    CHECK_FALSE(t.insert(key(3), kDip, Time::s(2)));
    CHECK_FALSE(t.class_of(key(3)).has_value());
    CHECK_FALSE(t.insert(key(3), kDip, Time::s(10) - Time::ps(1)));
    CHECK(t.insert(key(3), kDip, Time::s(10)));  // key 1 expired at 10 s
    CHECK(t.size(FlowClass::Untrusted) == 2);
}

TEST_CASE("A full trusted class leaves a second-packet flow untrusted and refreshed") {
    FlowTable t(limits(10, 1));
    t.insert(key(1), kDip, Time::zero());
    t.insert(key(2), kDip, Time::zero());
    t.lookup(key(1), Time::s(1));
    CHECK(t.lookup(key(2), Time::s(9)).has_value());
    CHECK(t.class_of(key(2)) == FlowClass::Untrusted);
    CHECK(t.promotions_refused() == 1);
    // Refreshed at 9 s: still live at 18 s, which is past the first insertion's timeout.
    CHECK(t.lookup(key(2), Time::s(18)).has_value());
}

TEST_CASE("Inserting an existing flow replaces its target and class") {
    FlowTable t(limits(10, 10));
    t.insert(key(1), kDip, Time::zero());
    t.lookup(key(1), Time::s(1));
    const FlowTarget other{ip(10, 0, 1, 10), 8080, ip(10, 0, 1, 1)};
    CHECK(t.insert(key(1), other, Time::s(2)));
    CHECK(t.class_of(key(1)) == FlowClass::Untrusted);
    CHECK(t.size() == 1);
    CHECK(t.lookup(key(1), Time::s(3)) == other);
}
