#include <catch2/catch.hpp>

#include "loom/config/document.hpp"
#include "loom/tsp/executor_config.hpp"

using namespace loom;

TEST_CASE("The executor section defaults to train mode and accepts vector mode") {
    tsp::ExecutorConfig c;
    config::Errors errors;
    tsp::executor_schema().parse(config::parse_json_text("{}", "test"), "/executor", c, errors);
    REQUIRE(errors.empty());
    CHECK(c.mode == tsp::ExecutionMode::Train);
    tsp::executor_schema().parse(config::parse_json_text(R"({"mode": "vector"})", "test"), "/executor", c, errors);
    REQUIRE(errors.empty());
    CHECK(c.mode == tsp::ExecutionMode::Vector);
    CHECK(std::string(tsp::to_string(c.mode)) == "vector");
}

TEST_CASE("An unknown execution mode is rejected at /executor/mode") {
    tsp::ExecutorConfig c;
    config::Errors errors;
    tsp::executor_schema().parse(config::parse_json_text(R"({"mode": "tensor"})", "test"), "/executor", c, errors);
    REQUIRE(errors.size() == 1);
    CHECK(errors.messages()[0].rfind("/executor/mode:", 0) == 0);
}
