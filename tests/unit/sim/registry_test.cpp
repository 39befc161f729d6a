#include <catch2/catch.hpp>

#include <string>

#include "loom/base/error.hpp"
#include "loom/sim/registry.hpp"
#include "loom/sim/simulator.hpp"

using namespace loom;
using namespace loom::sim;

namespace {

class Nothing : public ModelInstance {
public:
    void finish() override {}
};

ModelEntry entry(const std::string& name) {
    ModelEntry e;
    e.name = name;
    e.doc = "test model " + name;
    e.build = [](const config::Json&, Simulator&, config::Errors&) -> std::unique_ptr<ModelInstance> {
        return std::make_unique<Nothing>();
    };
    return e;
}

}  // namespace

TEST_CASE("The registry finds models by name and lists them sorted") {
    Registry r;
    r.add(entry("tsp"));
    r.add(entry("phold"));
    r.add(entry("ananta"));
    CHECK(r.find("phold").doc == "test model phold");
    CHECK(r.contains("tsp"));
    CHECK_FALSE(r.contains("fabric"));
    const auto all = r.entries();
    REQUIRE(all.size() == 3);
    CHECK(all[0]->name == "ananta");
    CHECK(all[1]->name == "phold");
    CHECK(all[2]->name == "tsp");
    Simulator sim;
    config::Errors errors;
    CHECK(r.find("tsp").build(config::Json::object(), sim, errors) != nullptr);
}

TEST_CASE("An unknown model name is bad input listing the known models") {
    Registry r;
    r.add(entry("phold"));
    r.add(entry("tsp"));
    try {
        r.find("phlod");
        FAIL("found");
    } catch (const InputError& e) {
        const std::string what = e.what();
        CHECK(what.find("phlod") != std::string::npos);
        CHECK(what.find("phold, tsp") != std::string::npos);
        CHECK(e.exit_code() == 2);
    }
}

TEST_CASE("Registering a model twice or without a build function is a bug") {
    Registry r;
    r.add(entry("phold"));
    CHECK_THROWS_AS(r.add(entry("phold")), InternalError);
    ModelEntry broken;
    broken.name = "broken";
    CHECK_THROWS_AS(r.add(broken), InternalError);
}

TEST_CASE("A model instance has no summary and no trace unless it provides them") {
    const Nothing n;
    CHECK_FALSE(n.text_summary().has_value());
    CHECK_FALSE(n.trace().has_value());
}
