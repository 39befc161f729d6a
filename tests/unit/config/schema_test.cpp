#include <catch2/catch.hpp>

#include "loom/base/error.hpp"
#include "loom/config/schema.hpp"

using namespace loom::literals;
using loom::Bandwidth;
using loom::Bytes;
using loom::Frequency;
using loom::Time;
using loom::config::Errors;
using loom::config::FieldInfo;
using loom::config::Json;
using loom::config::Kind;
using loom::config::Schema;

namespace {

struct Phold {
    std::int64_t lps = 1024;
    std::int32_t population = 16;
    Time lookahead = 10_ns;
    Time mean_delay = 100_ns;
};

Schema<Phold> phold_schema() {
    Schema<Phold> s("PHOLD benchmark");
    s.field("lps", &Phold::lps, "logical processes").range(1, 1 << 24);
    s.field("population", &Phold::population, "events per LP at start").at_least(1);
    s.field("lookahead", &Phold::lookahead, "minimum delay").at_least(Time::ps(1));
    s.field("mean_delay", &Phold::mean_delay, "mean extra delay").range(0_ps, 1_ms);
    s.check("lookahead", [](const Phold& p) -> std::optional<std::string> {
        if (p.lookahead > p.mean_delay) return "must not exceed mean_delay";
        return std::nullopt;
    });
    return s;
}

enum class Routing { Minimal, Valiant, Ugal };

struct Transfer {
    std::int64_t src = 0;
    std::int64_t dst = 0;
    Bytes size = 1_MiB;
};

struct Link {
    Bandwidth rate = 25_Gbps;
    std::int64_t latency_cycles = 3;
    double ber = 1e-12;
};

struct Root {
    std::string model;
    std::string description;
    std::int64_t seed = 1;
    std::optional<Time> end_time;
    bool trace = false;
    Frequency clock = 900_MHz;
    Routing routing = Routing::Minimal;
    std::vector<std::int64_t> spares;
    Phold phold{.lps = 64};
    Link link;
    std::vector<Transfer> transfers;
};

Schema<Root> root_schema() {
    Schema<Transfer> transfer("one tensor transfer");
    transfer.field("src", &Transfer::src, "source TSP").at_least(0).required();
    transfer.field("dst", &Transfer::dst, "destination TSP").at_least(0).required();
    transfer.field("size", &Transfer::size, "tensor size").at_least(1_B);
    Schema<Link> link("link timing");
    link.field("rate", &Link::rate, "line rate").at_least(Bandwidth::bps(1));
    link.field("latency_cycles", &Link::latency_cycles, "fixed latency").range(1, 1000);
    link.field("ber", &Link::ber, "bit error rate").range(0.0, 1.0);

    Schema<Root> s("a test config");
    s.field("model", &Root::model, "model name").required();
    s.field("description", &Root::description, "free text");
    s.field("seed", &Root::seed, "RNG seed");
    s.field("end_time", &Root::end_time, "stop time (none: run to completion)");
    s.field("trace", &Root::trace, "write a trace");
    s.field("clock", &Root::clock, "core clock").range(Frequency::hz(1), Frequency::ghz(5));
    s.choice("routing", &Root::routing, {{"minimal", Routing::Minimal}, {"valiant", Routing::Valiant}, {"ugal", Routing::Ugal}},
             "routing function");
    s.field("spares", &Root::spares, "spare node ids").range(0, 7);
    s.section("phold", &Root::phold, phold_schema(), "PHOLD parameters");
    s.section("link", &Root::link, link, "link parameters");
    s.list("transfers", &Root::transfers, transfer, "tensor transfers").at_least(1);
    return s;
}

std::vector<std::string> errors_of(const Json& doc, Root& out) {
    Errors errors;
    root_schema().parse(doc, "", out, errors);
    return errors.messages();
}

std::vector<std::string> errors_of(const Json& doc) {
    Root out;
    return errors_of(doc, out);
}

const Json kMinimal = Json::parse(R"({"model": "phold", "transfers": [{"src": 0, "dst": 1}]})");

Json with(const Json& base, const Json& patch) {
    Json doc = base;
    doc.merge_patch(patch);
    return doc;
}

}  // namespace

TEST_CASE("A valid config fills every field and keeps defaults for absent ones") {
    Root out;
    const Json doc = Json::parse(R"({
        "model": "phold", "seed": 7, "end_time": "200us", "trace": true, "clock": "1.5GHz", "routing": "ugal",
        "spares": [3, 7], "phold": {"lps": 4096, "lookahead": "1.5ns"},
        "link": {"rate": "25.78125Gbps", "latency_cycles": 12, "ber": 0.5},
        "transfers": [{"src": 0, "dst": 1, "size": "220MiB"}, {"src": 2, "dst": 3, "size": 328}]
    })");
    CHECK(errors_of(doc, out).empty());
    CHECK(out.model == "phold");
    CHECK(out.description.empty());
    CHECK(out.seed == 7);
    CHECK(out.end_time == 200_us);
    CHECK(out.trace);
    CHECK(out.clock == Frequency::hz(1'500'000'000));
    CHECK(out.routing == Routing::Ugal);
    CHECK(out.spares == std::vector<std::int64_t>{3, 7});
    CHECK(out.phold.lps == 4096);
    CHECK(out.phold.population == 16);
    CHECK(out.phold.lookahead == 1'500_ps);
    CHECK(out.phold.mean_delay == 100_ns);
    CHECK(out.link.rate == Bandwidth::bps(25'781'250'000));
    CHECK(out.link.latency_cycles == 12);
    CHECK(out.link.ber == 0.5);
    REQUIRE(out.transfers.size() == 2);
    CHECK(out.transfers[0].size == 220_MiB);
    CHECK(out.transfers[1].src == 2);
    CHECK(out.transfers[1].size == Bytes(328));
}

TEST_CASE("An unknown key is an error naming the key and the valid ones") {
    CHECK(errors_of(with(kMinimal, {{"phold", {{"lsp", 3}}}})) ==
          std::vector<std::string>{
              "/phold/lsp: unknown key 'lsp' (expected one of: lps, population, lookahead, mean_delay)"});
}

TEST_CASE("A wrong type says what was expected and what was got") {
    CHECK(errors_of(with(kMinimal, {{"phold", {{"lps", "many"}}}})) ==
          std::vector<std::string>{"/phold/lps: expected integer in 1..16777216, got \"many\""});
    CHECK(errors_of(with(kMinimal, {{"seed", 1.5}})) == std::vector<std::string>{"/seed: expected integer, got 1.5"});
    CHECK(errors_of(with(kMinimal, {{"trace", "yes"}})) ==
          std::vector<std::string>{"/trace: expected true or false, got \"yes\""});
    CHECK(errors_of(with(kMinimal, {{"description", 5}})) ==
          std::vector<std::string>{"/description: expected a string, got 5"});
    CHECK(errors_of(with(kMinimal, {{"link", {{"ber", "low"}}}})) ==
          std::vector<std::string>{"/link/ber: expected number in 0..1, got \"low\""});
    CHECK(errors_of(with(kMinimal, {{"routing", "fastest"}})) ==
          std::vector<std::string>{"/routing: expected one of \"minimal\", \"valiant\", \"ugal\", got \"fastest\""});
    CHECK(errors_of(with(kMinimal, {{"spares", 3}})) ==
          std::vector<std::string>{"/spares: expected an array of integers, got 3"});
}

TEST_CASE("A duration must be a unit string, never a bare number") {
    CHECK(errors_of(with(kMinimal, {{"phold", {{"lookahead", 0}}}})) ==
          std::vector<std::string>{"/phold/lookahead: expected a duration like \"722ns\", got 0"});
    CHECK(errors_of(with(kMinimal, {{"phold", {{"lookahead", "10 ns"}}}})) ==
          std::vector<std::string>{"/phold/lookahead: expected a duration like \"722ns\", got \"10 ns\""});
    CHECK(errors_of(with(kMinimal, {{"clock", 900}})) ==
          std::vector<std::string>{"/clock: expected a frequency like \"900MHz\", got 900"});
    CHECK(errors_of(with(kMinimal, {{"link", {{"rate", "fast"}}}})) ==
          std::vector<std::string>{"/link/rate: expected a rate like \"25Gbps\", got \"fast\""});
    CHECK(errors_of(with(kMinimal, {{"transfers", {{{"src", 0}, {"dst", 1}, {"size", -3}}}}})) ==
          std::vector<std::string>{"/transfers/0/size: expected a size like \"220MiB\", got -3"});
}

TEST_CASE("An out-of-range value is reported with the range") {
    CHECK(errors_of(with(kMinimal, {{"phold", {{"lps", 0}}}})) ==
          std::vector<std::string>{"/phold/lps: expected integer in 1..16777216, got 0"});
    CHECK(errors_of(with(kMinimal, {{"phold", {{"population", 0}}}})) ==
          std::vector<std::string>{"/phold/population: expected integer in 1..2147483647, got 0"});
    CHECK(errors_of(with(kMinimal, {{"phold", {{"population", 3'000'000'000LL}}}})) ==
          std::vector<std::string>{"/phold/population: expected integer in 1..2147483647, got 3000000000"});
    CHECK(errors_of(with(kMinimal, {{"phold", {{"lookahead", "0ps"}}}})) ==
          std::vector<std::string>{"/phold/lookahead: expected a duration >= 1ps, got \"0ps\""});
    CHECK(errors_of(with(kMinimal, {{"phold", {{"mean_delay", "2ms"}}}})) ==
          std::vector<std::string>{"/phold/mean_delay: expected a duration in 0ps..1ms, got \"2ms\""});
    CHECK(errors_of(with(kMinimal, {{"clock", "6GHz"}})) ==
          std::vector<std::string>{"/clock: expected a frequency in 1Hz..5GHz, got \"6GHz\""});
    CHECK(errors_of(with(kMinimal, {{"link", {{"ber", 2}}}})) ==
          std::vector<std::string>{"/link/ber: expected number in 0..1, got 2"});
    CHECK(errors_of(with(kMinimal, {{"transfers", {{{"src", 0}, {"dst", 1}, {"size", 0}}}}})) ==
          std::vector<std::string>{"/transfers/0/size: expected a size >= 1B, got 0"});
    CHECK(errors_of(with(kMinimal, {{"transfers", {{{"src", 0}, {"dst", 1}, {"size", 18446744073709551615ULL}}}}})) ==
          std::vector<std::string>{"/transfers/0/size: expected a size like \"220MiB\", got 18446744073709551615"});
    CHECK(errors_of(with(kMinimal, {{"seed", 18446744073709551615ULL}})) ==
          std::vector<std::string>{"/seed: expected integer, got 18446744073709551615"});
}

TEST_CASE("Integer list elements are checked one by one at their own pointer") {
    CHECK(errors_of(with(kMinimal, {{"spares", {1, 9, "x"}}})) ==
          std::vector<std::string>{"/spares/1: expected integer in 0..7, got 9",
                                   "/spares/2: expected integer in 0..7, got \"x\""});
}

TEST_CASE("A missing required key is reported at the parent pointer") {
    CHECK(errors_of(Json::parse(R"({"transfers": [{"src": 0, "dst": 1}]})")) ==
          std::vector<std::string>{"/: missing required key 'model'"});
    CHECK(errors_of(Json::parse(R"({"model": "x", "transfers": [{"src": 0}]})")) ==
          std::vector<std::string>{"/transfers/0: missing required key 'dst'"});
}

TEST_CASE("An absent section with required keys reports each of them") {
    struct Workload {
        std::int64_t transfers = 0;
        std::int64_t repeat = 1;
    };
    struct Config {
        Workload workload;
    };
    Schema<Workload> w;
    w.field("transfers", &Workload::transfers, "").required();
    w.field("repeat", &Workload::repeat, "");
    Schema<Config> s;
    s.section("workload", &Config::workload, w, "");
    Config out;
    Errors errors;
    s.parse(Json::object(), "", out, errors);
    CHECK(errors.messages() == std::vector<std::string>{"/workload: missing required key 'transfers'"});
}

TEST_CASE("A non-object where an object is expected is one error") {
    CHECK(errors_of(with(kMinimal, {{"phold", 5}})) == std::vector<std::string>{"/phold: expected an object, got 5"});
    CHECK(errors_of(Json::array({1, 2})) == std::vector<std::string>{"/: expected an object, got [1,2]"});
    CHECK(errors_of(with(kMinimal, {{"transfers", {3}}})) ==
          std::vector<std::string>{"/transfers/0: expected an object, got 3"});
}

TEST_CASE("A list must be an array of objects within its length bounds") {
    CHECK(errors_of(with(kMinimal, {{"transfers", "all"}})) ==
          std::vector<std::string>{"/transfers: expected an array of objects, got \"all\""});
    CHECK(errors_of(with(kMinimal, {{"transfers", Json::array()}})) ==
          std::vector<std::string>{"/transfers: expected an array of objects with length >= 1, got 0 elements"});
}

TEST_CASE("List elements report errors with their index") {
    const Json doc = Json::parse(R"({"model": "x", "transfers": [{"src": 0, "dst": 1}, {"src": -1, "dst": 2, "sz": 4}]})");
    CHECK(errors_of(doc) == std::vector<std::string>{"/transfers/1/src: expected integer >= 0, got -1",
                                                     "/transfers/1/sz: unknown key 'sz' (expected one of: src, dst, size)"});
}

TEST_CASE("Several errors are reported together in a stable order") {
    Root out;
    const Json doc = Json::parse(R"({"modle": "x", "seed": "one", "phold": {"lps": 0, "lookahead": 5},
                                     "transfers": [{"src": 0, "dst": 1}]})");
    const auto messages = errors_of(doc, out);
    CHECK(messages == std::vector<std::string>{
                          "/modle: unknown key 'modle' (expected one of: model, description, seed, end_time, trace, "
                          "clock, routing, spares, phold, link, transfers)",
                          "/phold/lookahead: expected a duration like \"722ns\", got 5",
                          "/phold/lps: expected integer in 1..16777216, got 0",
                          "/seed: expected integer, got \"one\"",
                          "/: missing required key 'model'"});
    Errors errors;
    root_schema().parse(doc, "", out, errors);
    try {
        errors.throw_if_any();
        FAIL("no exception");
    } catch (const loom::ConfigError& e) {
        CHECK(e.messages() == messages);
        CHECK(e.exit_code() == 2);
    }
}

TEST_CASE("Fields that fail keep their previous value") {
    Root out;
    errors_of(with(kMinimal, {{"seed", "x"}, {"phold", {{"lps", 0}}}}), out);
    CHECK(out.seed == 1);
    CHECK(out.phold.lps == 64);
}

TEST_CASE("Cross-field checks run after the fields parse and report at their key") {
    CHECK(errors_of(with(kMinimal, {{"phold", {{"lookahead", "1us"}}}})) ==
          std::vector<std::string>{"/phold/lookahead: must not exceed mean_delay"});
    // Not when a field already failed: the check would judge a value that was never set.
    CHECK(errors_of(with(kMinimal, {{"phold", {{"lookahead", "1us"}, {"lps", 0}}}})).size() == 1);
}

TEST_CASE("A nested schema parses at any pointer") {
    Phold p;
    Errors errors;
    phold_schema().parse(Json{{"lps", -1}}, "/models/0/phold", p, errors);
    CHECK(errors.messages() == std::vector<std::string>{"/models/0/phold/lps: expected integer in 1..16777216, got -1"});
}

TEST_CASE("Optional fields take null or absence as unset") {
    Root out;
    out.end_time = 1_us;
    CHECK(errors_of(with(kMinimal, {{"end_time", "5us"}}), out).empty());
    CHECK(out.end_time == 5_us);
    Errors errors;
    Json doc = kMinimal;
    doc["end_time"] = nullptr;
    root_schema().parse(doc, "", out, errors);
    CHECK(errors.empty());
    CHECK_FALSE(out.end_time.has_value());
}

TEST_CASE("Keys with slash or tilde are escaped in pointers") {
    CHECK(errors_of(with(kMinimal, {{"a/b~c", 1}}))[0].rfind("/a~1b~0c: unknown key 'a/b~c'", 0) == 0);
    CHECK(loom::config::child_pointer("/x", 3) == "/x/3");
}

TEST_CASE("Defaults render the default-constructed struct with unit strings") {
    const Json d = root_schema().defaults();
    CHECK_FALSE(d.contains("model"));  // required: no default
    CHECK(d["seed"] == 1);
    CHECK(d["end_time"].is_null());
    CHECK(d["clock"] == "900MHz");
    CHECK(d["routing"] == "minimal");
    CHECK(d["spares"] == Json::array());
    CHECK(d["phold"] == Json::parse(R"({"lps": 64, "population": 16, "lookahead": "10ns", "mean_delay": "100ns"})"));
    CHECK(d["link"] == Json::parse(R"({"rate": "25Gbps", "latency_cycles": 3, "ber": 1e-12})"));
    CHECK(d["transfers"] == Json::array());
}

TEST_CASE("to_json writes a config that parses back to the same values") {
    Root in;
    in.model = "phold";
    in.end_time = 3_us;
    in.link.rate = Bandwidth::bps(25'781'250'000);
    in.routing = Routing::Valiant;
    in.transfers = {Transfer{1, 2, Bytes(328)}};
    const Json j = root_schema().to_json(in);
    CHECK(j["model"] == "phold");
    CHECK(j["link"]["rate"] == "25.78125Gbps");
    CHECK(j["transfers"][0] == Json::parse(R"({"src": 1, "dst": 2, "size": "328B"})"));
    Root out;
    CHECK(errors_of(j, out).empty());
    CHECK(out.link.rate == in.link.rate);
    CHECK(out.routing == Routing::Valiant);
    CHECK(out.end_time == 3_us);
    CHECK(out.transfers[0].size == Bytes(328));
}

TEST_CASE("describe lists fields in declaration order with kinds, defaults, ranges and children") {
    const std::vector<FieldInfo> info = root_schema().describe();
    REQUIRE(info.size() == 11);
    CHECK(info[0].key == "model");
    CHECK(info[0].required);
    CHECK(info[0].default_value.is_null());
    CHECK(info[5].kind == Kind::Frequency);
    CHECK(info[5].range == "1Hz..5GHz");
    CHECK(info[6].kind == Kind::Choice);
    CHECK(info[6].choices == std::vector<std::string>{"minimal", "valiant", "ugal"});
    CHECK(info[7].kind == Kind::IntegerList);
    CHECK(info[7].range == "0..7");
    const FieldInfo& phold = info[8];
    CHECK(phold.kind == Kind::Section);
    REQUIRE(phold.children.size() == 4);
    CHECK(phold.children[0].range == "1..16777216");
    CHECK(phold.children[0].default_value == 64);  // the section's default in Root, not Phold{}
    CHECK(phold.children[1].range == ">= 1");
    CHECK(phold.children[2].range == ">= 1ps");
    CHECK(phold.children[2].kind == Kind::Duration);
    CHECK(phold.children[3].range == "0ps..1ms");
    CHECK(info[9].children[2].range == "0..1");
    CHECK(info[10].kind == Kind::List);
    CHECK(info[10].range == ">= 1");
    CHECK(info[10].children[2].range == ">= 1B");
    CHECK(info[10].children[0].required);
    CHECK(std::string(loom::config::kind_name(Kind::Duration)) == "duration");
}

TEST_CASE("describe_json gives the machine-readable schema") {
    const Json j = loom::config::describe_json(phold_schema().describe());
    REQUIRE(j.size() == 4);
    CHECK(j[0] == Json::parse(R"({"key": "lps", "kind": "integer", "doc": "logical processes", "required": false,
                                  "default": 1024, "range": "1..16777216"})"));
    CHECK(j[2]["default"] == "10ns");
    const Json r = loom::config::describe_json(root_schema().describe());
    CHECK(r[6]["choices"] == Json::array({"minimal", "valiant", "ugal"}));
    CHECK(r[10]["fields"][0]["key"] == "src");
}

TEST_CASE("Declaring a range on an unordered kind or a key twice is an internal error") {
    struct S {
        std::string name;
        bool flag = false;
        Time t;
    };
    Schema<S> s;
    CHECK_THROWS_AS(s.field("name", &S::name, "").range(1, 2), loom::InternalError);
    CHECK_THROWS_AS(s.field("name", &S::name, ""), loom::InternalError);
    CHECK_THROWS_AS(s.field("t", &S::t, "").at_least(Bytes(1)), loom::InternalError);
    CHECK_THROWS_AS(s.field("delay_cycles", &S::t, ""), loom::InternalError);
}

TEST_CASE("Real bounds on integer fields round inward") {
    struct S {
        std::int64_t n = 0;
    };
    Schema<S> s;
    s.field("n", &S::n, "").range(0.5, 9.9);
    CHECK(s.describe()[0].range == "1..9");
}

TEST_CASE("report_unknown_keys reports hand-read objects like a schema") {
    Errors errors;
    loom::config::report_unknown_keys(Json{{"a", 1}, {"zz", 2}}, "/x", {"a", "b"}, errors);
    CHECK(errors.messages() == std::vector<std::string>{"/x/zz: unknown key 'zz' (expected one of: a, b)"});
}

TEST_CASE("Long values are abbreviated in messages") {
    Json big = Json::array();
    for (int i = 0; i < 100; ++i) big.push_back(i);
    CHECK(loom::config::quote_value(big) == "an array of 100 elements");
    CHECK(loom::config::quote_value(Json(std::string(100, 'x'))) == "\"" + std::string(44, 'x') + "...");
    CHECK(loom::config::quote_value(Json("short")) == "\"short\"");
}
