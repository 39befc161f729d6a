#include <catch2/catch.hpp>

#include "loom/ananta/ananta_config.hpp"
#include "loom/ananta/dynamics_config.hpp"

using namespace loom;
using namespace loom::ananta;

TEST_CASE("Dynamics parameter defaults are the documented ones") {
    const DynamicsParameters p;
    CHECK(p.bgp.hold_time == Time::s(30));
    CHECK(p.bgp.keepalive_interval == Time::s(10));
    CHECK(p.health.interval == Time::s(5));
    CHECK(p.health.unhealthy_threshold == 2);
    CHECK(p.fastpath.idle_timeout == Time::s(240));
    CHECK(health_probe_schema().defaults()["timeout"] == "1s");
    CHECK(fastpath_schema().defaults()["handshake_timeout"] == "10s");
}

TEST_CASE("Dynamics sections parse from a config and name the pointer of every error") {
    DynamicsParameters p;
    config::Errors errors;
    parse_dynamics_parameters(config::Json::parse(R"({"bgp": {"fast_detection": true, "fast_interval": "50ms",
        "control_queue": true}, "health": {"interval": "2s", "unhealthy_threshold": 3}})"),
                              p, errors);
    CHECK(errors.empty());
    CHECK(p.bgp.fast_detection);
    CHECK(p.bgp.fast_interval == Time::ms(50));
    CHECK(p.bgp.control_queue);
    CHECK(p.health.interval == Time::s(2));
    CHECK(p.health.unhealthy_threshold == 3);
    parse_dynamics_parameters(config::Json::parse(R"({"bgp": {"keepalive_interval": "40s"},
        "health": {"timeout": "9s"}, "fastpath": {"idle": 1}})"),
                              p, errors);
    REQUIRE(errors.size() == 3);
    CHECK(errors.messages()[0].rfind("/bgp/keepalive_interval", 0) == 0);
    CHECK(errors.messages()[1].rfind("/fastpath/idle", 0) == 0);
    CHECK(errors.messages()[2].rfind("/health/timeout", 0) == 0);
    CHECK(dynamics_sections().size() == 4);
}

TEST_CASE("The mux section takes maglev hashing and refuses a table size that is not prime") {
    AnantaParameters p;
    config::Errors errors;
    parse_parameters(config::Json::parse(R"({"mux": {"hash": "maglev", "maglev_table_size": 251}})"), p, errors);
    CHECK(errors.empty());
    CHECK(p.mux.hash == MuxHashKind::Maglev);
    CHECK(p.mux.maglev_table_size == 251);
    parse_parameters(config::Json::parse(R"({"mux": {"maglev_table_size": 65536}})"), p, errors);
    REQUIRE(errors.size() == 1);
    CHECK(errors.messages()[0].rfind("/mux/maglev_table_size", 0) == 0);
}
