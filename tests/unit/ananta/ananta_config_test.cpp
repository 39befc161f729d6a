#include <catch2/catch.hpp>

#include "loom/ananta/ananta_config.hpp"

using namespace loom;
using namespace loom::ananta;

TEST_CASE("Ananta parameter defaults follow the published values") {
    const AnantaParameters p;
    CHECK(p.mux.core_pps == 220'000);
    CHECK(p.mux.core_bandwidth == Bandwidth::bps(800'000'000));
    CHECK(p.host_agent.mss_clamp == 1440);
    CHECK(mux_schema().defaults()["core_bandwidth"] == "800Mbps");
    CHECK(tcp_schema().defaults()["initial_rto"] == "1s");
}

TEST_CASE("Ananta sections parse from a config and name the pointer of every error") {
    AnantaParameters p;
    config::Errors errors;
    parse_parameters(config::Json::parse(R"({"mux": {"cores": 4, "hash_seed": 99, "trusted_idle_timeout": "30s"},
        "host_agent": {"mss_clamp": 1400}, "tcp": {"max_retries": 2}, "ecmp": {"mode": "modulo"}})"),
                     p, errors);
    CHECK(errors.empty());
    CHECK(p.mux.cores == 4);
    CHECK(p.mux.hash_seed == 99);
    CHECK(p.mux.trusted_idle_timeout == Time::s(30));
    CHECK(p.host_agent.mss_clamp == 1400);
    CHECK(p.tcp.max_retries == 2);
    CHECK(p.ecmp.mode == EcmpMode::ModuloN);
    parse_parameters(config::Json::parse(R"({"mux": {"cores": 0, "core": 1}, "tcp": {"initial_rto": 5}})"), p, errors);
    REQUIRE(errors.size() == 3);
    CHECK(errors.messages()[0].rfind("/mux/core", 0) == 0);
    CHECK(errors.messages()[1].rfind("/mux/cores", 0) == 0);
    CHECK(errors.messages()[2].rfind("/tcp/initial_rto", 0) == 0);
}

TEST_CASE("The Ananta sections are listed for loom list") {
    const auto sections = parameter_sections();
    REQUIRE(sections.size() == 6);
    CHECK(sections[0].key == "mux");
    CHECK(sections[1].key == "host_agent");
    CHECK(sections[2].key == "tcp");
    CHECK(sections[3].key == "ecmp");
    CHECK(sections[4].key == "manager");
    CHECK(sections[5].key == "snat");
    CHECK_FALSE(sections[0].children.empty());
}

TEST_CASE("The manager and snat sections parse, default to the published values and check ranges") {
    AnantaParameters p;
    CHECK(p.snat.ports_per_range == 8);
    CHECK(p.manager.stage_priorities);
    CHECK(p.manager.write_on_reject);
    config::Errors errors;
    parse_parameters(config::Json::parse(R"({"manager": {"workers": 4, "stage_priorities": false,
        "mux_programming_latency": "5ms"}, "snat": {"ports_per_range": 16, "demand_prediction": false}})"),
                     p, errors);
    CHECK(errors.empty());
    CHECK(p.manager.workers == 4);
    CHECK_FALSE(p.manager.stage_priorities);
    CHECK(p.manager.mux_programming_latency == Time::ms(5));
    CHECK(p.snat.ports_per_range == 16);
    CHECK_FALSE(p.snat.demand_prediction);
    parse_parameters(config::Json::parse(R"({"snat": {"ports_per_range": 12}})"), p, errors);
    REQUIRE(errors.size() == 1);
    CHECK(errors.messages()[0].rfind("/snat/ports_per_range", 0) == 0);
}
