#include <catch2/catch.hpp>

#include "loom/config/document.hpp"
#include "loom/sched/scheduler_config.hpp"

using namespace loom::literals;
using loom::sched::NonminimalVia;
using loom::sched::SchedulerConfig;

namespace {

SchedulerConfig parse(const char* text, loom::config::Errors& errors) {
    SchedulerConfig c;
    loom::sched::scheduler_schema().parse(loom::config::parse_json_text(text, "test"), "/scheduler", c, errors);
    return c;
}

}  // namespace

TEST_CASE("The scheduler section defaults to 8 paths, detours allowed, no staging and jitter from the links") {
    loom::config::Errors errors;
    const SchedulerConfig c = parse("{}", errors);
    REQUIRE(errors.empty());
    CHECK(c.max_paths == 8);
    CHECK(c.allow_nonminimal);
    CHECK(c.nonminimal_via == NonminimalVia::Auto);
    CHECK_FALSE(c.staging);
    CHECK(c.staging_bytes == 16_MiB);
    CHECK_FALSE(c.jitter_allowance.has_value());
    CHECK(c.min_chunk_vectors == 8);
    CHECK(c.max_train_vectors == 0);
}

TEST_CASE("The scheduler section parses every field and writes it back") {
    loom::config::Errors errors;
    const SchedulerConfig c = parse(R"({"max_paths": 3, "allow_nonminimal": false, "nonminimal_via": "group",
        "staging": true, "staging_bytes": "1MiB", "jitter_allowance": "10ns", "min_chunk_vectors": 4,
        "max_train_vectors": 512})",
                                    errors);
    REQUIRE(errors.empty());
    CHECK(c.max_paths == 3);
    CHECK_FALSE(c.allow_nonminimal);
    CHECK(c.nonminimal_via == NonminimalVia::Group);
    CHECK(c.staging);
    CHECK(c.staging_bytes == 1_MiB);
    CHECK(c.jitter_allowance == 10_ns);
    CHECK(c.min_chunk_vectors == 4);
    CHECK(c.max_train_vectors == 512);
    const auto json = loom::sched::scheduler_schema().to_json(c);
    CHECK(json.at("nonminimal_via") == "group");
    CHECK(json.at("jitter_allowance") == "10ns");
    CHECK(loom::sched::nonminimal_via_name(NonminimalVia::Tsp) == "tsp");
}

TEST_CASE("Out-of-range scheduler values are reported at their pointers") {
    loom::config::Errors errors;
    parse(R"({"max_paths": 0, "nonminimal_via": "rack", "jitter_allowance": "-1ns"})", errors);
    REQUIRE(errors.size() == 3);
    CHECK(errors.messages()[0].rfind("/scheduler/jitter_allowance:", 0) == 0);
    CHECK(errors.messages()[1].rfind("/scheduler/max_paths:", 0) == 0);
    CHECK(errors.messages()[2].rfind("/scheduler/nonminimal_via:", 0) == 0);
}
