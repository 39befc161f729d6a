// Stats declared, not poured: every model's runs (the golden cases, an Ananta and a PHOLD run) write only keys
// that `loom list --format json` declares, each declaration with a unit and a description; and the time series
// of declared statistics (/stats/series in a config) leave the rest of the document unchanged.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"
#include "loom/stats/declaration.hpp"

using Json = nlohmann::json;
using loom_cli::fs::path;

namespace {

// The declarations `loom list --format json` gives for a model's documents: every document's, then its own.
std::map<std::string, loom::stats::StatDecls> declarations() {
    const loom_cli::Run r = loom_cli::loom("list --format json");
    REQUIRE(r.code == 0);
    const Json list = Json::parse(r.out);
    const auto decls_of = [](const Json& array) {
        loom::stats::StatDecls d;
        for (const Json& e : array) {
            const std::string shape = e.at("shape").get<std::string>();
            loom::stats::StatShape s = loom::stats::StatShape::Scalar;
            if (shape == "histogram") s = loom::stats::StatShape::Histogram;
            if (shape == "time_average") s = loom::stats::StatShape::TimeAverage;
            if (shape == "record") s = loom::stats::StatShape::Record;
            if (shape == "list") s = loom::stats::StatShape::List;
            d.add({e.at("pointer").get<std::string>(), e.at("unit").get<std::string>(), e.at("doc").get<std::string>(), s});
        }
        return d;
    };
    std::map<std::string, loom::stats::StatDecls> out;
    for (const auto& [model, entry] : list.at("models").items()) {
        loom::stats::StatDecls d = decls_of(list.at("document_stats"));
        d.append(decls_of(entry.at("stats")));
        out[model] = std::move(d);
    }
    return out;
}

// Runs `loom ARGS --quiet --out DIR` and returns stats.json.
Json run_document(const std::string& args, const path& out) {
    const loom_cli::Run r = loom_cli::loom(args + " --quiet --out '" + out.string() + "'");
    INFO("loom " << args << "\n" << r.err);
    REQUIRE(r.code == 0);
    return Json::parse(loom_cli::slurp(out / "stats.json"));
}

// One run of each kind the golden cases pin, on the small machine where a golden uses a large one (the
// 264-TSP collectives and the 1,056-terminal Dragonfly write the same keys as their node-sized and small
// siblings, in 30 s each), and the models and options the goldens do not cover.
std::vector<std::string> covered_runs() {
    return {"schedule configs/tsp/schedule-node.json",
            "schedule configs/tsp/compare-node.json --compare dynamic",
            "schedule configs/tsp/collectives/allreduce-node.json",
            "schedule configs/tsp/collectives/alltoall-node.json",
            "run configs/tsp/node.json",
            "run configs/tsp/programs/reduce.json",
            "run configs/dragonfly/small-ur.json",
            "run configs/dragonfly/small-adversarial.json",
            "run configs/ananta/demo.json --set end_time=1800ms --set trace.records=true",
            "run configs/ananta/bgp-cascade-ci.json",
            "run configs/ananta/fastpath-ci.json",
            "run configs/ananta/health-ci.json",
            "run configs/ananta/hashing-ci.json",
            "run configs/ananta/mux-failure-ci.json",
            "run configs/ananta/manager-availability-ci.json",
            "run configs/ananta/snat-latency-ci.json",
            "run configs/ananta/snat-fairness-ci.json",
            "run configs/ananta/stale-primary-ci.json",
            "run configs/ananta/syn-flood-ci.json",
            "run configs/ananta/vip-config-snat-storm-ci.json",
            "run configs/bench/phold.json --set phold.lps=64 --set end_time=20us"};
}

std::string series_arg(const std::string& interval, const std::vector<std::string>& keys) {
    const Json stats{{"series", {{"interval", interval}, {"keys", keys}}}};
    return "--set 'stats=" + stats.dump() + "'";
}

}  // namespace

TEST_CASE("Every declared statistic has a unit and a one-line description", "[integration][stats]") {
    for (const auto& [model, decls] : declarations()) {
        INFO("model " << model);
        CHECK(decls.size() > 5);
        for (const std::string& p : decls.problems()) FAIL_CHECK(model << ": " << p);
    }
}

TEST_CASE("Every key of every model's stats document is declared", "[integration][stats]") {
    const auto decls = declarations();
    const path out = loom_cli::scratch("stat-declarations");
    for (const std::string& args : covered_runs()) {
        const Json doc = run_document(args, out);
        const std::string model = doc.at("model").get<std::string>();
        REQUIRE(decls.count(model) == 1);
        const std::vector<std::string> missing = decls.at(model).undeclared(doc);
        std::string list;
        for (std::size_t i = 0; i < missing.size() && i < 40; ++i) list += "\n  " + missing[i];
        if (missing.size() > 40) list += "\n  ... and " + std::to_string(missing.size() - 40) + " more";
        INFO("loom " << args << " (model " << model << "): " << missing.size()
                     << " keys no declaration covers (declare them in the model's *_stats.cpp):" << list);
        CHECK(missing.empty());
    }
}

TEST_CASE("A time series of declared statistics goes into stats.json and series.csv, the rest unchanged",
          "[integration][stats][series]") {
    const path plain = loom_cli::scratch("series-plain"), sampled = loom_cli::scratch("series-sampled");
    const std::string base = "run configs/ananta/demo.json --set end_time=1800ms";
    const Json without = run_document(base, plain);
    const Json with = run_document(
        base + " " + series_arg("100ms", {"/stats/ananta/muxes/*/forwarded", "/stats/ananta/drops/mux_down",
                                         "/stats/kernel/events_handled"}),
        sampled);
    // Everything but the config's hash and the series itself is byte-identical.
    for (const char* key : {"stats", "sim_time_ps", "stop_reason", "seed", "model"}) {
        INFO(key);
        CHECK(with.at(key).dump() == without.at(key).dump());
    }
    CHECK_FALSE(without.contains("series"));
    CHECK_FALSE(loom_cli::fs::exists(plain / "series.csv"));
    const Json& s = with.at("series");
    CHECK(s.at("interval_ps") == 100'000'000'000LL);
    CHECK(s.at("samples") == 19);  // 0, 100 ms, ..., 1800 ms
    const Json& values = s.at("values");
    CHECK(values.size() == 6);  // four Muxes, the drop reason and the kernel's count
    // The failed Mux forwards nothing after 1.5 s; the others go on until the traffic stops at 2 s.
    const Json& mux3 = values.at("/stats/ananta/muxes/mux3/forwarded");
    CHECK(mux3.at(15) == mux3.at(18));
    CHECK(mux3.at(18) == with.at("stats").at("ananta").at("muxes").at("mux3").at("forwarded"));
    const Json& mux0 = values.at("/stats/ananta/muxes/mux0/forwarded");
    CHECK(mux0.at(18).get<std::int64_t>() > mux0.at(15).get<std::int64_t>());
    CHECK(values.at("/stats/kernel/events_handled").at(0) == 0);
    const std::string csv = loom_cli::slurp(sampled / "series.csv");
    CHECK(csv.rfind("time_ps,/stats/ananta/muxes/mux0/forwarded,/stats/ananta/muxes/mux1/forwarded,", 0) == 0);
    CHECK(std::count(csv.begin(), csv.end(), '\n') == 20);
}

TEST_CASE("PHOLD's events handled can be sampled and never decrease", "[integration][stats][series]") {
    const path out = loom_cli::scratch("series-phold");
    const Json doc = run_document("run configs/bench/phold.json --set phold.lps=64 --set end_time=20us " +
                                      series_arg("1us", {"/stats/phold/events_handled", "/stats/phold/in_flight/final"}),
                                  out);
    const Json& handled = doc.at("series").at("values").at("/stats/phold/events_handled");
    REQUIRE(handled.size() == 21);
    for (std::size_t i = 1; i < handled.size(); ++i) CHECK(handled.at(i) >= handled.at(i - 1));
    CHECK(handled.back() == doc.at("stats").at("phold").at("events_handled"));
    for (const Json& v : doc.at("series").at("values").at("/stats/phold/in_flight/final")) CHECK(v == 64 * 16);
}

TEST_CASE("Fabric and TSP totals can be sampled, never decrease, end at the document's values, and change nothing else",
          "[integration][stats][series]") {
    struct Case {
        std::string args, interval;
        std::vector<std::string> keys;
        std::string group;
    };
    const std::vector<Case> cases = {
        {"run configs/dragonfly/small-ur.json", "500ns",
         {"/stats/fabric/flits_generated", "/stats/fabric/flits_injected", "/stats/fabric/flits_ejected",
          "/stats/fabric/packets_ejected", "/stats/fabric/flit_hops", "/stats/fabric/packets_measured"},
         "fabric"},
        {"schedule configs/tsp/collectives/allreduce-node.json", "200ns",
         {"/stats/tsp/instructions", "/stats/tsp/vectors_sent", "/stats/tsp/vector_hops",
          "/stats/tsp/vectors_delivered", "/stats/tsp/makespan_ps"},
         "tsp"}};
    for (const Case& c : cases) {
        INFO(c.args);
        const path plain = loom_cli::scratch("series-" + c.group + "-plain");
        const path sampled = loom_cli::scratch("series-" + c.group + "-sampled");
        const Json without = run_document(c.args, plain);
        const Json with = run_document(c.args + " " + series_arg(c.interval, c.keys), sampled);
        for (const char* key : {"stats", "sim_time_ps", "stop_reason"}) {
            INFO(key);
            CHECK(with.at(key).dump() == without.at(key).dump());
        }
        const Json& values = with.at("series").at("values");
        REQUIRE(values.size() == c.keys.size());
        for (const std::string& k : c.keys) {
            INFO(k);
            const Json& v = values.at(k);
            REQUIRE(v.size() >= 3);
            for (std::size_t i = 1; i < v.size(); ++i) CHECK(v.at(i) >= v.at(i - 1));
            CHECK(v.back() > v.front());
            // Samples fall on multiples of the interval: the last is at most the run's final value.
            const Json& final_value = with.at("stats").at(c.group).at(k.substr(std::string("/stats/").size() + c.group.size() + 1));
            CHECK(v.back() <= final_value);
            CHECK(v.back() > 0);
        }
    }
}

TEST_CASE("A series key that is not a declared statistic is an error at its place in the list",
          "[integration][stats][series]") {
    const loom_cli::Run r = loom_cli::loom(
        "validate configs/ananta/demo.json " +
        series_arg("10ms", {"/stats/ananta/packets/created", "/stats/ananta/nope", "/stats/ananta/connections/setup_latency_ps"}));
    CHECK(r.code == 2);
    CHECK(r.err.find("/stats/series/keys/1: '/stats/ananta/nope' is not a declared statistic of model 'ananta' (see "
                     "loom list)") != std::string::npos);
    CHECK(r.err.find("/stats/series/keys/2:") != std::string::npos);
    CHECK(r.err.find("/stats/series/keys/0") == std::string::npos);
}

TEST_CASE("A declared statistic known only at the end of a run cannot be sampled", "[integration][stats][series]") {
    const loom_cli::Run r =
        loom_cli::loom("validate configs/ananta/demo.json " + series_arg("10ms", {"/stats/ananta/mux_load/cov"}));
    CHECK(r.code == 2);
    CHECK(r.first_err().find("/stats/series/keys/0: model 'ananta' cannot sample '/stats/ananta/mux_load/cov' during "
                             "a run") != std::string::npos);
}

TEST_CASE("A bad series interval or an unknown key of the stats section names its JSON path",
          "[integration][stats][series]") {
    const loom_cli::Run r = loom_cli::loom(
        "validate configs/bench/phold.json --set 'stats={\"series\": {\"interval\": \"0s\", \"keys\": "
        "[\"/stats/phold/events_handled\"]}, \"serie\": 1}'");
    CHECK(r.code == 2);
    CHECK(r.err.find("/stats/serie: unknown key 'serie'") != std::string::npos);
    CHECK(r.err.find("/stats/series/interval: expected a duration like \"722ns\" (>= 1ps), got \"0s\"") !=
          std::string::npos);
}

TEST_CASE("A key with '*' samples every statistic it selects that the model can read, ending at the document's values",
          "[integration][stats][series]") {
    const path out = loom_cli::scratch("series-select");
    const Json doc = run_document("run configs/ananta/demo.json --set end_time=1600ms " +
                                      series_arg("400ms", {"/stats/ananta/connections/*"}),
                                  out);
    const Json& values = doc.at("series").at("values");
    CHECK(values.size() == 5);  // opened, completed, failed, open, retransmissions (the rest exist only at the end)
    for (const char* name : {"opened", "completed", "failed", "open", "retransmissions"}) {
        INFO(name);
        const Json& v = values.at(std::string("/stats/ananta/connections/") + name);
        REQUIRE(v.size() == 5);
        CHECK(v.at(0) == 0);
        CHECK(v.back() == doc.at("stats").at("ananta").at("connections").at(name));
    }
}
