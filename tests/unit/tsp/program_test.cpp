#include <catch2/catch.hpp>

#include <string>

#include "loom/config/document.hpp"
#include "loom/tsp/program.hpp"

using namespace loom;
using loom::config::Json;

namespace {

std::vector<std::string> problems(const Json& program, tsp::Program* out = nullptr) {
    tsp::MachineConfig m;
    m.topology.kind = topo::TspKind::Node;
    const tsp::TspSystem sys(m, 1);
    tsp::ProgramConfig pc;
    config::Errors errors;
    tsp::program_schema().parse(program, "/program", pc, errors);
    if (errors.empty()) {
        tsp::Program p = tsp::resolve(pc, sys, "/program", errors);
        if (out) *out = p;
    }
    return errors.messages();
}

}  // namespace

TEST_CASE("A program names TSPs by vertex id or by name and sorts each list by cycle") {
    tsp::Program p;
    const auto errs = problems(Json::parse(R"({"tsps": [
        {"name": "node0.tsp2", "instructions": [{"cycle": 9, "op": "receive", "in_port": 0},
                                                 {"cycle": 3, "op": "receive", "in_port": 1, "transfer": 4}]},
        {"tsp": 0, "instructions": [{"cycle": 0, "op": "send", "out_ports": [1, 3], "count": 2, "address": 640}],
         "memory": [{"address": 640, "values": [1, 2]}]}],
        "expect": [{"name": "node0.tsp2", "port": 0, "train_start": "1ns", "count": 2}],
        "jitter_allowance": "2ns"})"),
                               &p);
    CHECK(errs.empty());
    REQUIRE(p.schedule.programs.size() == 2);
    CHECK(p.schedule.programs[0].tsp == 0);
    CHECK(p.schedule.programs[0].instructions[0].out_ports == 0b1010);
    CHECK(p.schedule.programs[1].tsp == 2);
    CHECK(p.schedule.programs[1].instructions[0].transfer == 4);  // cycle 3 first
    REQUIRE(p.memory.size() == 1);
    CHECK(p.memory[0].values == std::vector<std::int64_t>{1, 2});
    REQUIRE(p.schedule.predicted.size() == 1);
    CHECK(p.schedule.predicted[0].tsp == 2);
    CHECK(p.schedule.jitter_allowance == Time::ns(2));
}

TEST_CASE("Out-of-range addresses and unwired ports are config errors at their JSON Pointers") {
    const auto errs = problems(Json::parse(R"({"tsps": [
        {"tsp": 0, "instructions": [
            {"cycle": 0, "op": "send", "out_ports": [7], "address": 230686400, "count": 2},
            {"cycle": 0, "op": "receive", "in_port": 9, "address": 100},
            {"cycle": 0, "op": "forward", "in_port": 0, "out_ports": []},
            {"cycle": 0, "op": "receive", "in_port": 0, "out_ports": [1]}]},
        {"name": "node3.tsp0"},
        {"tsp": 8},
        {"tsp": 0}]})"));
    REQUIRE(errs.size() == 8);
    CHECK(errs[0] ==
          "/program/tsps/0/instructions/0/out_ports/0: port 7 of node0.tsp0 is not wired (wired ports: 0, "
          "1, 2, 3, 4, 5, 6)");
    CHECK(errs[1].rfind("/program/tsps/0/instructions/0/address: 2 vectors from byte 230686400 end at byte 230687040, "
                        "outside the TSP's memory of 220MiB",
                        0) == 0);
    CHECK(errs[2] ==
          "/program/tsps/0/instructions/1/in_port: port 9 of node0.tsp0 is not wired (wired ports: 0, 1, 2, "
          "3, 4, 5, 6)");
    CHECK(errs[3] == "/program/tsps/0/instructions/2/out_ports: a forward needs at least one out port");
    CHECK(errs[4].rfind("/program/tsps/0/instructions/3/out_ports: a receive sends nothing", 0) == 0);
    CHECK(errs[5] == "/program/tsps/1/name: no TSP named 'node3.tsp0' (names look like 'node0.tsp0')");
    CHECK(errs[6] == "/program/tsps/2/tsp: no TSP 8 (the system has 8: 0..7)");
    CHECK(errs[7] == "/program/tsps/3: TSP node0.tsp0 already has a program at /program/tsps/0");
}

TEST_CASE("Unknown keys, bad ops and missing TSP names are reported by the schema") {
    const auto errs = problems(Json::parse(R"({"tsps": [{"tsp": 1, "instructions": [{"op": "jump", "cycel": 3}]},
                                                        {"instructions": []}]})"));
    REQUIRE(errs.size() == 2);
    CHECK(errs[0].rfind("/program/tsps/0/instructions/0/cycel: unknown key", 0) == 0);
    CHECK(errs[1].rfind("/program/tsps/0/instructions/0/op:", 0) == 0);
    const auto none = problems(Json::parse(R"({"tsps": [{"instructions": []}]})"));
    REQUIRE(none.size() == 1);
    CHECK(none[0] == "/program/tsps/0: give exactly one of \"tsp\" (vertex id) and \"name\"");
}
