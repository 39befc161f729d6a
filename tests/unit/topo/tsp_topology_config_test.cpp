#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "loom/base/error.hpp"
#include "loom/config/document.hpp"
#include "loom/topo/tsp_topology.hpp"
#include "loom/topo/tsp_topology_config.hpp"

using loom::topo::PortAssignment;
using loom::topo::TspKind;
using loom::topo::TspTopologyConfig;

namespace {

// Parses `text` as the "topology" section; returns the messages (empty on success).
std::vector<std::string> parse_errors(const std::string& text, TspTopologyConfig& out) {
    loom::config::Errors errors;
    loom::topo::tsp_topology_schema().parse(loom::config::parse_json_text(text, "test"), "/topology", out, errors);
    return errors.messages();
}

bool has_message(const std::vector<std::string>& messages, const std::string& part) {
    return std::any_of(messages.begin(), messages.end(),
                       [&](const std::string& m) { return m.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("The topology section defaults to the paper's largest system") {
    TspTopologyConfig c;
    REQUIRE(parse_errors("{}", c).empty());
    CHECK(c.kind == TspKind::Multirack);
    CHECK(c.tsps_per_node == 8);
    CHECK(c.nodes_per_rack == 9);
    CHECK(c.racks == 145);
    CHECK(c.links_per_node_pair == 2);
    CHECK(c.global_ports_per_tsp == 4);
    CHECK(c.local_links_per_tsp == 7);
    CHECK(c.c2c_links_per_tsp == 16);
    CHECK(c.spare_nodes_per_rack == 0);
    CHECK(c.port_assignment == PortAssignment::RoundRobin);
    CHECK(c.num_tsps() == 10'440);
}

TEST_CASE("The topology section parses kind and port assignment by name") {
    TspTopologyConfig c;
    REQUIRE(parse_errors(R"({"kind": "system264", "nodes": 17, "port_assignment": "blocked"})", c).empty());
    CHECK(c.kind == TspKind::System264);
    CHECK(c.nodes == 17);
    CHECK(c.port_assignment == PortAssignment::Blocked);
    CHECK(c.num_tsps() == 136);
    CHECK(c.num_racks() == 0);
}

TEST_CASE("More racks than a rack has rack-to-rack ports is rejected at /topology/racks with the limit") {
    TspTopologyConfig c;
    const auto messages = parse_errors(R"({"kind": "multirack", "racks": 146})", c);
    REQUIRE(messages.size() == 1);
    CHECK(messages[0] ==
          "/topology/racks: 146 racks need 145 rack-to-rack ports per rack (one link to every other rack), a rack "
          "has 144 (9 nodes x (32 global ports - 16 in-rack ports)): at most 145 racks");
}

TEST_CASE("Zero racks is out of range") {
    TspTopologyConfig c;
    const auto messages = parse_errors(R"({"racks": 0})", c);
    REQUIRE(messages.size() == 1);
    CHECK(messages[0].rfind("/topology/racks:", 0) == 0);
}

TEST_CASE("More ports per TSP than the 16 physical C2C links is rejected naming the limit") {
    TspTopologyConfig c;
    const auto messages = parse_errors(R"({"global_ports_per_tsp": 10})", c);
    REQUIRE(messages.size() == 1);
    CHECK(messages[0] ==
          "/topology/global_ports_per_tsp: 7 local links + 10 global ports = 17 ports per TSP, more than the 16 "
          "physical C2C links of a TSP (c2c_links_per_tsp)");
}

TEST_CASE("A rack whose in-rack links need more global ports than a node has is rejected") {
    TspTopologyConfig c;
    const auto messages = parse_errors(R"({"kind": "rack", "links_per_node_pair": 5})", c);
    REQUIRE(messages.size() == 1);
    CHECK(messages[0] ==
          "/topology/nodes_per_rack: 9 nodes per rack with 5 links per node pair (links_per_node_pair) need 40 "
          "in-rack ports per node, more than the 32 global ports of a node (8 TSPs x 4 global_ports_per_tsp)");
}

TEST_CASE("An all-to-all system with more nodes than global ports per node allow is rejected") {
    TspTopologyConfig c;
    const auto messages = parse_errors(R"({"kind": "system264", "nodes": 34})", c);
    REQUIRE(messages.size() == 1);
    CHECK(messages[0] ==
          "/topology/nodes: 34 nodes all-to-all need 33 global ports per node, a node has 32 (8 TSPs x 4 "
          "global_ports_per_tsp): at most 33 nodes");
}

TEST_CASE("A node without enough local links for a full mesh is rejected") {
    TspTopologyConfig c;
    const auto messages = parse_errors(R"({"kind": "node", "tsps_per_node": 9})", c);
    REQUIRE(messages.size() == 1);
    CHECK(messages[0] ==
          "/topology/local_links_per_tsp: a fully connected node of 9 TSPs (tsps_per_node) needs 8 local links per "
          "TSP, got 7");
}

TEST_CASE("Sparing every node of a rack is rejected") {
    TspTopologyConfig c;
    const auto messages = parse_errors(R"({"kind": "rack", "spare_nodes_per_rack": 9})", c);
    REQUIRE(messages.size() == 1);
    CHECK(has_message(messages, "/topology/spare_nodes_per_rack: 9 spare nodes leave no compute node"));
}

TEST_CASE("Unknown keys and bad choices in the topology section are all reported together") {
    TspTopologyConfig c;
    const auto messages = parse_errors(R"({"kind": "torus", "rackz": 3})", c);
    CHECK(messages.size() == 2);
    CHECK(has_message(messages, "/topology/kind"));
    CHECK(has_message(messages, "/topology/rackz"));
}

TEST_CASE("The builder rejects an impossible shape built in code with the same messages") {
    TspTopologyConfig c;
    c.racks = 200;
    try {
        loom::topo::build_tsp_topology(c);
        FAIL("expected a ConfigError");
    } catch (const loom::ConfigError& e) {
        REQUIRE(e.messages().size() == 1);
        CHECK(e.messages()[0].rfind("/topology/racks: 200 racks need 199 rack-to-rack ports", 0) == 0);
        CHECK(e.exit_code() == 2);
    }
}

TEST_CASE("Every preset config's topology section parses and builds the system it describes") {
    struct Preset {
        const char* file;
        std::int64_t tsps;
        std::int64_t compute;
    };
    for (const Preset& p : {Preset{"node.json", 8, 8}, Preset{"system-264.json", 264, 256}, Preset{"rack.json", 72, 64},
                            Preset{"max-10440.json", 10'440, 10'440}}) {
        INFO(p.file);
        const auto doc = loom::config::load_json_file(std::string(LOOM_SOURCE_DIR) + "/configs/tsp/" + p.file);
        CHECK(doc.at("model") == "tsp");
        CHECK(doc.contains("description"));
        TspTopologyConfig c;
        loom::config::Errors errors;
        loom::topo::tsp_topology_schema().parse(doc.at("topology"), "/topology", c, errors);
        REQUIRE(errors.empty());
        const auto t = loom::topo::build_tsp_topology(c);
        CHECK(t.num_vertices() == p.tsps);
        CHECK(t.num_compute_vertices() == p.compute);
    }
}
