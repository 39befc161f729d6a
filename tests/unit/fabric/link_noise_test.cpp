// Noisy router-to-router channels (FabricConfig link_jitter / link_bit_error_rate): off by default, deterministic,
// slower, and never losing or reordering a flit (finish() checks conservation; routers assert the order).
#include <catch2/catch.hpp>

#include <string>

#include "fabric_test_util.hpp"
#include "loom/fabric/router.hpp"

using namespace loom;
using namespace loom::fabric;
using loom::fabric::testing::build_run;
using loom::fabric::testing::finish_run;
using loom::fabric::testing::small_config;

namespace {

config::Json noisy(double ber, const std::string& jitter) {
    config::Json c = small_config("minimal", "uniform", 0.3);
    c["fabric"]["link_jitter"] = jitter;
    c["fabric"]["link_bit_error_rate"] = ber;
    c["fabric"]["link_fec_correctable_bits"] = 1;
    return c;
}

}  // namespace

TEST_CASE("Link noise is off by default and a zero setting changes nothing") {
    testing::Run a = build_run(small_config("minimal", "uniform", 0.3));
    testing::Run b = build_run(noisy(0.0, "0ns"));
    const config::Json x = finish_run(a), y = finish_run(b);
    CHECK(x.dump() == y.dump());
    CHECK_FALSE(x.contains("link_retries"));
    CHECK_FALSE(x.contains("credit_retries"));
}

TEST_CASE("Jitter and uncorrectable flits slow packets down, are counted, and repeat exactly under one seed") {
    testing::Run clean = build_run(small_config("minimal", "uniform", 0.3));
    const config::Json c = finish_run(clean);
    testing::Run a = build_run(noisy(2e-4, "15ns"));
    testing::Run b = build_run(noisy(2e-4, "15ns"));
    const config::Json x = finish_run(a), y = finish_run(b);
    CHECK(x.dump() == y.dump());
    REQUIRE(x.at("status") == "steady");
    CHECK(x.at("link_retries").get<std::int64_t>() > 0);
    CHECK(x.at("link_fec_corrected").get<std::int64_t>() > x.at("link_retries").get<std::int64_t>());
    CHECK(x.at("packet_latency").at("mean_cycles").get<double>() > c.at("packet_latency").at("mean_cycles").get<double>() + 5);
    // Every flit injected is ejected or still in the network (finish() checked it per VC and channel).
    CHECK(x.at("flits_injected").get<std::int64_t>() - x.at("flits_ejected").get<std::int64_t>() ==
          x.at("flits_in_network").get<std::int64_t>());
}

TEST_CASE("Retries alone delay the flits behind the bad one (go-back-N) without reordering") {
    config::Json cfg = noisy(1e-3, "0ns");
    cfg["fabric"]["link_replay_cycles"] = 40;
    testing::Run a = build_run(cfg);
    const config::Json x = finish_run(a);
    REQUIRE(x.at("status") == "steady");
    CHECK(x.at("link_retries").get<std::int64_t>() > 100);
    // Credits returned beside the flits on the same channels see the same link model, from draws of their own.
    CHECK(x.at("credit_retries").get<std::int64_t>() > 0);
    CHECK(x.at("credit_retries") != x.at("link_retries"));
    // Packets arrive whole: finish() found every flit and credit accounted for (debug builds also assert that no
    // body flit reaches an idle VC, which a reordered flit would cause).
    CHECK(x.at("packets_ejected").get<std::int64_t>() > 0);
}
