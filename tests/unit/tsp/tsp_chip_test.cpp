#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "loom/tsp/program.hpp"
#include "tsp_harness.hpp"

using namespace loom;
using namespace loom::literals;
using loom::config::Json;
using loom::tsp::ExecutionMode;
using loom::tsp::test::node_config;
using loom::tsp::test::run_config;

// Timing facts used below, from the defaults (link_class_timing.hpp, chip_config.hpp) and the contract in
// sched/schedule.hpp:
//   in-node link: 4 lanes x 25 Gbps = 100 Gbps; a vector is 328 bytes = 2624 bits on the wire, so
//   serialization(k) = ceil(k * 2624e12 / 100e9) = 26240 k ps; latency = serdes_fec 480 ns + cable 0.75 m x 5 ns/m
//   = 3750 ps + clock_crossing 14 ns = 497750 ps.
//   core clock 900 MHz: edge n at floor(n * 10^4 / 9) ps; crossing_cycles 0, issue_cycles 0, forward_cycles 178.
//   Node wiring: port q of TSP t leads to TSP q if q < t, else to TSP q + 1.
namespace {

constexpr std::int64_t kLatency = 497'750;
constexpr std::int64_t kSer = 26'240;

Json ins(std::int64_t cycle, const std::string& op, std::int64_t in_port, std::vector<std::int64_t> out_ports,
         std::int64_t count = 1, std::int64_t address = 0, std::int64_t transfer = 0, std::int64_t first_vector = 0) {
    return Json{{"cycle", cycle},       {"op", op},       {"in_port", in_port},           {"out_ports", out_ports},
                {"transfer", transfer}, {"count", count}, {"first_vector", first_vector}, {"address", address}};
}

Json chip(int id, Json instructions, Json extra = Json::object()) {
    Json t{{"tsp", id}, {"instructions", std::move(instructions)}};
    for (auto& [k, v] : extra.items()) t[k] = v;
    return t;
}

Json with_mode(Json config, ExecutionMode mode) {
    config["executor"] = {{"mode", mode == ExecutionMode::Train ? "train" : "vector"}};
    return config;
}

std::vector<std::int64_t> arrival_times(const tsp::test::RunOutput& r, const std::string& at) {
    std::vector<std::int64_t> out;
    for (const auto& a : r.stats.at("tsp").at("arrivals"))
        if (a.at("tsp") == at) out.push_back(a.at("arrival_ps").get<std::int64_t>());
    return out;
}

// TSP0 sends `count` vectors to TSP1 (port 0 -> port 0), which receives them at `receive_cycle`.
Json one_hop(std::int64_t count, std::int64_t receive_cycle) {
    return node_config(
        {{"tsps", {chip(0, {ins(0, "send", 0, {0}, count)}), chip(1, {ins(receive_cycle, "receive", 0, {}, count)})}}});
}

}  // namespace

TEST_CASE(
    "A vector takes 26240 ps to serialize at 4 x 25 Gbps, 25445 ps at 4 x 25.78125 Gbps, 21867 ps at 4 x 30 Gbps") {
    // ceil(2624e12 / 100e9) = 26240; ceil(2624e12 / 103.125e9) = ceil(25444.85) = 25445;
    // ceil(2624e12 / 120e9) = ceil(21866.67) = 21867.
    const std::vector<std::pair<std::string, std::int64_t>> rates{
        {"25Gbps", 26'240}, {"25.78125Gbps", 25'445}, {"30Gbps", 21'867}};
    for (const auto& [rate, ser] : rates) {
        for (auto mode : {ExecutionMode::Train, ExecutionMode::Vector}) {
            Json c = with_mode(one_hop(1, 1000), mode);
            c["links"] = {{"in_node", {{"lane_rate", rate}}}};
            const auto r = run_config(c);
            INFO(r.error);
            REQUIRE(r.ok);
            CHECK(arrival_times(r, "node0.tsp1") == std::vector<std::int64_t>{ser + kLatency});
        }
    }
}

TEST_CASE("One hop: a vector sent at cycle 0 has not arrived at 523989 ps and has at 523990 ps") {
    // Send at cycle 0: train start edge(0) = 0; arrival = 0 + 26240 + 497750 = 523990 ps.
    for (auto mode : {ExecutionMode::Train, ExecutionMode::Vector}) {
        const Json c = with_mode(one_hop(1, 472), mode);
        const auto before = run_config(c, 1, Time::ps(523'989));
        CHECK(before.stats.at("tsp").at("vector_hops") == 0);
        CHECK(before.stats.at("tsp").at("complete") == false);
        const auto at = run_config(c, 1, Time::ps(523'990));
        CHECK(at.stats.at("tsp").at("vector_hops") == 1);
        const auto all = run_config(c);
        INFO(all.error);
        REQUIRE(all.ok);
        CHECK(arrival_times(all, "node0.tsp1") == std::vector<std::int64_t>{523'990});
        CHECK(all.stats.at("tsp").at("makespan_ps") == 523'990);
    }
}

TEST_CASE(
    "Two and three hops: forwards issued at the arrival's core edge give arrivals at exactly 1246212 and 1968434 ps") {
    // Hop 1 arrives at TSP1 at 523990 ps; the first core edge at or after it is n = ceil(523990 * 9 / 10^4) = 472,
    // edge(472) = 524444 ps. A Forward issued at cycle 472 starts its train forward_cycles later, at
    // edge(472 + 178) = 722222 ps, so hop 2 arrives at 722222 + 26240 + 497750 = 1246212 ps. The next edge is 1122
    // (1246666 ps): a Forward at TSP2 at cycle 1122 starts at edge(1300) = 1444444 and hop 3 arrives at
    // 1444444 + 523990 = 1968434 ps, received at cycle 1772.
    const Json two = node_config({{"tsps",
                                   {chip(0, {ins(0, "send", 0, {1})}), chip(1, {ins(472, "forward", 0, {1})}),
                                    chip(2, {ins(1122, "receive", 1, {})})}}});
    const Json three =
        node_config({{"tsps",
                      {chip(0, {ins(0, "send", 0, {0})}), chip(1, {ins(472, "forward", 0, {1})}),
                       chip(2, {ins(1122, "forward", 1, {2})}), chip(3, {ins(1772, "receive", 2, {})})}}});
    Json two_fixed = two;
    two_fixed["program"]["tsps"][0] = chip(0, {ins(0, "send", 0, {0})});
    for (auto mode : {ExecutionMode::Train, ExecutionMode::Vector}) {
        const auto r2 = run_config(with_mode(two_fixed, mode));
        INFO(r2.error);
        REQUIRE(r2.ok);
        CHECK(arrival_times(r2, "node0.tsp1") == std::vector<std::int64_t>{523'990});
        CHECK(arrival_times(r2, "node0.tsp2") == std::vector<std::int64_t>{1'246'212});
        CHECK(run_config(with_mode(two_fixed, mode), 1, Time::ps(1'246'211)).stats.at("tsp").at("vector_hops") == 1);
        CHECK(run_config(with_mode(two_fixed, mode), 1, Time::ps(1'246'212)).stats.at("tsp").at("vector_hops") == 2);

        const auto r3 = run_config(with_mode(three, mode));
        INFO(r3.error);
        REQUIRE(r3.ok);
        CHECK(arrival_times(r3, "node0.tsp3") == std::vector<std::int64_t>{1'968'434});
        CHECK(run_config(with_mode(three, mode), 1, Time::ps(1'968'433)).stats.at("tsp").at("vector_hops") == 2);
        CHECK(run_config(with_mode(three, mode), 1, Time::ps(1'968'434)).stats.at("tsp").at("vector_hops") == 3);
        // End-to-end latency: first bit at 0, last bit in at 1968434 ps.
        CHECK(r3.stats.at("tsp").at("vector_latency").at("max_ps") == 1'968'434);
    }
    // TSP0's port 1 leads to TSP2, not TSP1: the forward at TSP1 then receives nothing and waits for a vector
    // that never comes, while TSP2 gets one it did not expect.
    const auto wrong = run_config(two);
    CHECK_FALSE(wrong.ok);
    CHECK(wrong.exit_code == 3);
}

TEST_CASE("Cut-through forwarding starts the onward train before the last vector has arrived") {
    // Twelve vectors arrive at TSP1 at 523990 + 26240 (i - 1) ps and are available at edges 524444, 551111,
    // 576666, 603333, ... ps. A Forward issued at edge m needs vector i by edge(m) + 26240 (i - 1) (contract rule
    // 5): edge(m) >= max(524444, 524871, 524186, 524613, ...) = 524871 gives m = 473 (525555 ps). Its train starts
    // forward_cycles later, at edge(473 + 178) = 723333 ps, while vectors 9..12 are still arriving (the last at
    // 812630 ps). At TSP2 vector i arrives at 723333 + 26240 i + 497750; the Receive issues at 1124.
    const Json c = node_config({{"tsps",
                                 {chip(0, {ins(0, "send", 0, {0}, 12)}), chip(1, {ins(473, "forward", 0, {1}, 12)}),
                                  chip(2, {ins(1124, "receive", 1, {}, 12)})}}});
    std::vector<std::int64_t> expected;
    for (std::int64_t i = 1; i <= 12; ++i) expected.push_back(723'333 + 26'240 * i + 497'750);
    for (auto mode : {ExecutionMode::Train, ExecutionMode::Vector}) {
        const auto r = run_config(with_mode(c, mode));
        INFO(r.error);
        REQUIRE(r.ok);
        CHECK(arrival_times(r, "node0.tsp2") == expected);
        // Cut-through: the onward train starts (723333 ps) before the input's last vector is in (812630 ps).
        CHECK(arrival_times(r, "node0.tsp1").back() == 812'630);
        CHECK(expected.front() - 26'240 - 497'750 < 812'630);
        // One cycle earlier (edge 472 = 524444 ps) the second vector is late for its slot (needed by 550684 ps).
        Json early = c;
        early["program"]["tsps"][1]["instructions"][0]["cycle"] = 472;
        const auto late = run_config(with_mode(early, mode));
        CHECK_FALSE(late.ok);
        CHECK(late.exit_code == 3);
        CHECK(late.error.find("late vector: transfer 0 vector 1") != std::string::npos);
        CHECK(late.error.find("sys.node0.tsp1 port 0") != std::string::npos);
    }
}

TEST_CASE("Forwarding latency adds to every hop") {
    // Rule 5: a Forward's train starts forward_cycles after its issue, and the issue waits for the vector: with
    // forward_cycles = 0 the onward train starts at the issue edge (525555 ps), 178 cycles (197778 ps) earlier.
    Json c = node_config({{"tsps",
                           {chip(0, {ins(0, "send", 0, {0}, 1)}), chip(1, {ins(472, "forward", 0, {1}, 1)}),
                            chip(2, {ins(1122, "receive", 1, {}, 1)})}}});
    const auto slow = run_config(c);
    INFO(slow.error);
    REQUIRE(slow.ok);
    c["chip"]["forward_cycles"] = 0;
    c["program"]["tsps"][2]["instructions"][0]["cycle"] = 944;
    const auto fast = run_config(c);
    INFO(fast.error);
    REQUIRE(fast.ok);
    // Issue edge 472 = 524444 ps; train at edge(650) = 722222 ps vs edge(472) = 524444 ps.
    CHECK(arrival_times(slow, "node0.tsp2") == std::vector<std::int64_t>{722'222 + 26'240 + 497'750});
    CHECK(arrival_times(fast, "node0.tsp2") == std::vector<std::int64_t>{524'444 + 26'240 + 497'750});
}

TEST_CASE("A receive issued at the vector's first available edge accepts it, one cycle earlier it is late") {
    // The vector arrives at 523990 ps, available at edge 472 (524444 ps). A Receive needs vector 1 by its issue.
    for (auto mode : {ExecutionMode::Train, ExecutionMode::Vector}) {
        CHECK(run_config(with_mode(one_hop(1, 472), mode)).ok);
        const auto r = run_config(with_mode(one_hop(1, 471), mode));
        CHECK_FALSE(r.ok);
        CHECK(r.exit_code == 3);
        CHECK(r.error ==
              "schedule error at sys.node0.tsp1 port 0, t=524444 ps (core cycle 472): late vector: transfer "
              "0 vector 0 arrived at 523990 ps, available at 524444 ps, but instruction 0 (receive at cycle "
              "471) needed it at 523333 ps (core cycle 471)");
    }
}

TEST_CASE("FIFO overflow is a model error naming the TSP, port and time") {
    // Six vectors arrive every 26240 ps from 523990 ps; the receive issues only at cycle 700 (777777 ps), so the
    // fifth arrival (523990 + 4 x 26240 = 628950 ps) finds four vectors queued in the 4-deep FIFO.
    for (auto mode : {ExecutionMode::Train, ExecutionMode::Vector}) {
        const auto r = run_config(with_mode(one_hop(6, 700), mode));
        CHECK_FALSE(r.ok);
        CHECK(r.exit_code == 3);
        CHECK(r.error ==
              "schedule error at sys.node0.tsp1 port 0, t=628950 ps (core cycle 566): FIFO overflow: "
              "transfer 0 vector 4 arrived with 4 vectors queued (fifo_depth 4)");
        // A deeper FIFO holds them.
        Json deep = with_mode(one_hop(6, 700), mode);
        deep["chip"] = {{"fifo_depth", 6}};
        CHECK(run_config(deep).ok);
    }
}

TEST_CASE("A vector arriving where no instruction expects it is a model error") {
    for (auto mode : {ExecutionMode::Train, ExecutionMode::Vector}) {
        // Two vectors sent, one received.
        const Json c = with_mode(
            node_config({{"tsps", {chip(0, {ins(0, "send", 0, {0}, 2)}), chip(1, {ins(472, "receive", 0, {}, 1)})}}}),
            mode);
        const auto r = run_config(c);
        CHECK_FALSE(r.ok);
        CHECK(r.exit_code == 3);
        CHECK(r.error ==
              "schedule error at sys.node0.tsp1 port 0, t=550230 ps (core cycle 495): vector arrived where "
              "none is expected: transfer 0 vector 1 after the port's 1 expected vectors");
        // The wrong transfer on the right port.
        Json wrong = c;
        wrong["program"]["tsps"][1]["instructions"][0]["transfer"] = 7;
        wrong["program"]["tsps"][1]["instructions"][0]["count"] = 2;
        const auto w = run_config(wrong);
        CHECK_FALSE(w.ok);
        CHECK(w.error.find("transfer 0 vector 0 came where instruction 0 (receive at cycle 472) expects transfer 7 "
                           "vector 0") != std::string::npos);
    }
}

TEST_CASE("A vector made late by link jitter is a model error with exit code 3") {
    // Eight vectors; the receive issues at the latest cycle that works without jitter: vector i is available at
    // the first edge at or after 523990 + 26240 (i - 1) and must be there by issue + 26240 (i - 1).
    std::int64_t latest = 0;
    const ClockDomain clock(Frequency::mhz(900));
    for (std::int64_t i = 0; i < 8; ++i) {
        const Time avail = clock.next_edge(Time::ps(523'990 + kSer * i));
        latest = std::max(latest, clock.edge_at_or_after(avail - Time::ps(kSer * i)));
    }
    for (auto mode : {ExecutionMode::Train, ExecutionMode::Vector}) {
        Json c = with_mode(one_hop(8, latest), mode);
        CHECK(run_config(c).ok);
        c["links"] = {{"in_node", {{"jitter", "5ns"}}}};
        const auto r = run_config(c);
        CHECK_FALSE(r.ok);
        CHECK(r.exit_code == 3);
        CHECK(r.error.find("late vector") != std::string::npos);
        CHECK(r.error.find("sys.node0.tsp1 port 0") != std::string::npos);
        // The same error in both modes.
        CHECK(r.error == run_config(with_mode(c, ExecutionMode::Vector)).error);
    }
}

TEST_CASE("Reduce adds the arriving vector to memory and stores or forwards the sum") {
    // TSP0 sends values 5 and 6; TSP1 holds 7 and 8 at byte 640. Store: TSP1 ends with 12, 14. Forward: TSP2
    // receives 12, 14 at byte 320 while TSP1's memory keeps 7, 8.
    const Json send = chip(0, {ins(0, "send", 0, {0}, 2)}, {{"memory", {{{"address", 0}, {"values", {5, 6}}}}}});
    const Json store = node_config({{"tsps",
                                     {send, chip(1, {ins(473, "reduce", 0, {}, 2, 640)},
                                                 {{"memory", {{{"address", 640}, {"values", {7, 8}}}}},
                                                  {"expect_memory", {{{"address", 640}, {"values", {12, 14}}}}}})}}});
    const Json forward = node_config({{"tsps",
                                       {send,
                                        chip(1, {ins(500 - 20, "reduce", 0, {1}, 2, 640)},
                                             {{"memory", {{{"address", 640}, {"values", {7, 8}}}}},
                                              {"expect_memory", {{{"address", 640}, {"values", {7, 8}}}}}}),
                                        chip(2, {ins(1000, "receive", 1, {}, 2, 320)},
                                             {{"expect_memory", {{{"address", 320}, {"values", {12, 14}}}}}})}}});
    for (auto mode : {ExecutionMode::Train, ExecutionMode::Vector}) {
        const auto s = run_config(with_mode(store, mode));
        INFO(s.error);
        REQUIRE(s.ok);
        CHECK(s.stats.at("sys.node0.tsp1").at("memory") == Json::parse("[[640, 12], [960, 14]]"));
        CHECK(s.stats.at("sys.node0.tsp1").at("vectors_reduced") == 2);
        const auto f = run_config(with_mode(forward, mode));
        INFO(f.error);
        REQUIRE(f.ok);
        CHECK(f.stats.at("sys.node0.tsp2").at("memory") == Json::parse("[[320, 12], [640, 14]]"));
        // A wrong expectation is a data error.
        Json bad = forward;
        bad["program"]["tsps"][2]["expect_memory"][0]["values"] = {12, 15};
        const auto b = run_config(with_mode(bad, mode));
        CHECK_FALSE(b.ok);
        CHECK(b.exit_code == 3);
        CHECK(b.error == "data error at sys.node0.tsp2 address 640: expected 15, got 14");
    }
}

TEST_CASE("A fan-out send delivers every vector to every out port at the same times") {
    // TSP0 ports 0, 1, 2 lead to TSPs 1, 2, 3, each of which receives on its port 0.
    Json c = node_config(
        {{"tsps",
          {chip(0, {ins(0, "send", 0, {0, 1, 2}, 3)}, {{"memory", {{{"address", 0}, {"values", {1, 2, 3}}}}}}),
           chip(1, {ins(473, "receive", 0, {}, 3)}), chip(2, {ins(473, "receive", 0, {}, 3)}),
           chip(3, {ins(473, "receive", 0, {}, 3)})}}});
    for (int t = 1; t <= 3; ++t) c["program"]["tsps"][t]["expect_memory"] = {{{"address", 0}, {"values", {1, 2, 3}}}};
    for (auto mode : {ExecutionMode::Train, ExecutionMode::Vector}) {
        const auto r = run_config(with_mode(c, mode));
        INFO(r.error);
        REQUIRE(r.ok);
        const std::vector<std::int64_t> expect{523'990, 550'230, 576'470};
        for (const char* at : {"node0.tsp1", "node0.tsp2", "node0.tsp3"}) CHECK(arrival_times(r, at) == expect);
        CHECK(r.stats.at("tsp").at("vectors_sent") == 9);
        CHECK(r.stats.at("tsp").at("vectors_delivered") == 9);
    }
}

TEST_CASE("Two trains booked on one link at once are a model error naming the link") {
    for (auto mode : {ExecutionMode::Train, ExecutionMode::Vector}) {
        // The second send starts at cycle 20 (22222 ps) while the first 2-vector train holds the link until 52480 ps.
        const Json c = with_mode(
            node_config({{"tsps",
                          {chip(0, {ins(0, "send", 0, {0}, 2), ins(20, "send", 0, {0}, 1, 0, 1)}),
                           chip(1, {ins(472, "receive", 0, {}, 2), ins(600, "receive", 0, {}, 1, 640, 1)})}}}),
            mode);
        const auto r = run_config(c);
        CHECK_FALSE(r.ok);
        CHECK(r.exit_code == 3);
        CHECK(r.error ==
              "schedule error at sys.node0.tsp0 port 0, t=22222 ps (core cycle 20): link sys.node0.tsp0.port0 "
              "double-booked: instruction 1 (send at cycle 20) starts transfer 1 vectors 0..0 at 22222 ps "
              "but the link is busy until 52480 ps");
    }
}

TEST_CASE("Arrivals are checked against predictions within the jitter allowance") {
    // The vector arrives at 523990 ps: a prediction from a train start of 0 is exact.
    Json c = one_hop(1, 472);
    c["program"]["expect"] = {{{"tsp", 1},
                               {"port", 0},
                               {"transfer", 0},
                               {"first_vector", 0},
                               {"count", 1},
                               {"train_start", "0ps"},
                               {"final", true}}};
    for (auto mode : {ExecutionMode::Train, ExecutionMode::Vector}) {
        const auto ok = run_config(with_mode(c, mode));
        INFO(ok.error);
        REQUIRE(ok.ok);
        CHECK(ok.stats.at("tsp").at("schedule").at("prediction_error_ps") == 0);
        CHECK(ok.stats.at("tsp").at("schedule").at("vectors_checked") == 1);
        // Predicted 1 ns late: the vector is early.
        Json early = c;
        early["program"]["expect"][0]["train_start"] = "1ns";
        const auto e = run_config(with_mode(early, mode));
        CHECK_FALSE(e.ok);
        CHECK(e.error ==
              "schedule error at sys.node0.tsp1 port 0, t=523990 ps (core cycle 471): transfer 0 vector 0 "
              "arrived on link sys.node0.tsp0.port0 at 523990 ps, outside its predicted window [524990, "
              "524990] ps");
        // Sent one cycle (1111 ps) after the predicted train start: late, unless the allowance covers it.
        Json late = c;
        late["program"]["tsps"][0]["instructions"][0]["cycle"] = 1;
        late["program"]["tsps"][1]["instructions"][0]["cycle"] = 473;
        const auto l = run_config(with_mode(late, mode));
        CHECK_FALSE(l.ok);
        CHECK(l.error.find("arrived on link sys.node0.tsp0.port0 at 525101 ps, outside its predicted window [523990, "
                           "523990] ps") != std::string::npos);
        late["program"]["jitter_allowance"] = "1111ps";
        const auto covered = run_config(with_mode(late, mode));
        INFO(covered.error);
        INFO(covered.error);
        REQUIRE(covered.ok);
        CHECK(covered.stats.at("tsp").at("schedule").at("prediction_error_ps") == 1111);
        // A predicted vector that never comes.
        Json missing = c;
        missing["program"]["expect"][0]["count"] = 2;
        const auto m = run_config(with_mode(missing, mode));
        CHECK_FALSE(m.ok);
        CHECK(m.error.find("predicted vectors never arrived: 1 vectors of transfer 0 from vector 0") !=
              std::string::npos);
    }
}

TEST_CASE("An instruction whose vectors never arrive fails a complete run") {
    const Json c = node_config({{"tsps", {chip(1, {ins(472, "receive", 0, {}, 1)})}}});
    const auto r = run_config(c);
    CHECK_FALSE(r.ok);
    CHECK(r.exit_code == 3);
    CHECK(r.error.find("vectors never arrived: instruction 0 (receive at cycle 472) expected 1 vectors") !=
          std::string::npos);
}

TEST_CASE("Idle TSPs cause no events") {
    const auto r = run_config(node_config({{"tsps", Json::array()}}));
    INFO(r.error);
    REQUIRE(r.ok);
    CHECK(r.events == 0);
    CHECK(r.stats.at("tsp").at("active_tsps") == 0);
}

TEST_CASE("A train claimed by several instructions is split between them in issue order") {
    // Six vectors from TSP0. Receiving: vectors 0-3 go to byte 0 (receive at 473), vectors 4-5 to byte 3200
    // (vector 4 is available at edge 567, vector 5 at 655555 ps <= edge(567) + 26240). Forwarding: vectors 0-2
    // go on to TSP2 (forward at 473, train at edge(651) = 723333 ps), vectors 3-5 to TSP3 (vector 3 available at
    // 603333 ps, 4 by 630000 - 26240, 5 by 655555 - 52480: forward at edge 544 = 604444 ps, train at edge(722) =
    // 802222 ps). The receives issue at 1124 and 1195.
    const Json values{{"memory", {{{"address", 0}, {"values", {1, 2, 3, 4, 5, 6}}}}}};
    const Json receive = node_config(
        {{"tsps",
          {chip(0, {ins(0, "send", 0, {0}, 6)}, values),
           chip(1, {ins(473, "receive", 0, {}, 4, 0, 0, 0), ins(567, "receive", 0, {}, 2, 3200, 0, 4)},
                {{"expect_memory",
                  {{{"address", 0}, {"values", {1, 2, 3, 4}}}, {{"address", 3200}, {"values", {5, 6}}}}}})}}});
    const Json forward =
        node_config({{"tsps",
                      {chip(0, {ins(0, "send", 0, {0}, 6)}, values),
                       chip(1, {ins(473, "forward", 0, {1}, 3, 0, 0, 0), ins(544, "forward", 0, {2}, 3, 0, 0, 3)}),
                       chip(2, {ins(1124, "receive", 1, {}, 3, 0, 0, 0)},
                            {{"expect_memory", {{{"address", 0}, {"values", {1, 2, 3}}}}}}),
                       chip(3, {ins(1195, "receive", 1, {}, 3, 0, 0, 3)},
                            {{"expect_memory", {{{"address", 0}, {"values", {4, 5, 6}}}}}})}}});
    for (auto mode : {ExecutionMode::Train, ExecutionMode::Vector}) {
        const auto r = run_config(with_mode(receive, mode));
        INFO(r.error);
        CHECK(r.ok);
        const auto f = run_config(with_mode(forward, mode));
        INFO(f.error);
        REQUIRE(f.ok);
        CHECK(arrival_times(f, "node0.tsp3") == std::vector<std::int64_t>{802'222 + kSer + kLatency,
                                                                          802'222 + 2 * kSer + kLatency,
                                                                          802'222 + 3 * kSer + kLatency});
        // One cycle early, the second forward finds vector 4 (its second) not yet there.
        Json early = forward;
        early["program"]["tsps"][1]["instructions"][1]["cycle"] = 543;
        const auto e = run_config(with_mode(early, mode));
        CHECK_FALSE(e.ok);
        CHECK(e.error.find("late vector: transfer 0 vector 4") != std::string::npos);
    }
    CHECK(run_config(with_mode(forward, ExecutionMode::Train)).text ==
          run_config(with_mode(forward, ExecutionMode::Vector)).text);
}

TEST_CASE("Two trains received into overlapping slots land in the order of their writes, vector by vector") {
    // TSP1 receives 3 vectors from TSP0 (port 0) into slots 0-2 and, 12 cycles later, 3 from TSP2 (port 1) into
    // slots 2-4. The writes interleave: slot 0 at 525555 ps (the receive's issue), TSP2's first into slot 2 at
    // 538888, slot 1 at 551111, slot 3 at 564444, TSP0's last into slot 2 at 576666, slot 4 at 590000. So slot 2
    // ends with TSP0's value although TSP2's part starts later: the parts are applied in key order where they
    // share a slot (the whole of one part first would leave TSP2's 10 there).
    const Json c = node_config(
        {{"tsps",
          {chip(0, {ins(0, "send", 0, {0}, 3)}, {{"memory", {{{"address", 0}, {"values", {1, 2, 3}}}}}}),
           chip(1, {ins(473, "receive", 0, {}, 3, 0, 0, 0), ins(485, "receive", 1, {}, 3, 640, 1, 0)},
                {{"expect_memory", {{{"address", 0}, {"values", {1, 2, 3, 20, 30}}}}}}),
           chip(2, {ins(12, "send", 1, {1}, 3, 0, 1, 0)},
                {{"memory", {{{"address", 0}, {"values", {10, 20, 30}}}}}})}}});
    for (auto mode : {ExecutionMode::Train, ExecutionMode::Vector}) {
        const auto r = run_config(with_mode(c, mode));
        INFO(r.error);
        REQUIRE(r.ok);
        CHECK(r.stats.at("sys.node0.tsp1").at("memory") ==
              Json::parse("[[0, 1], [320, 2], [640, 3], [960, 20], [1280, 30]]"));
    }
}

namespace {

// Runs `program` (a "program" section) on a node with `exec`, through the API (bulk_checks is not a config field).
tsp::test::RunOutput run_node_program(const Json& program, const tsp::ExecutorConfig& exec) {
    const tsp::MachineConfig m = tsp::test::node_machine();
    tsp::ProgramConfig pc;
    config::Errors errors;
    tsp::program_schema().parse(program, "/program", pc, errors);
    errors.throw_if_any();
    const tsp::TspSystem sys(m, 1);
    tsp::Program p = tsp::resolve(pc, sys, "/program", errors);
    errors.throw_if_any();
    return tsp::test::run_program(m, std::move(p), exec);
}

// Runs `program` in `mode` with bulk checks and without: both must succeed with the same output; returns the
// run with bulk checks.
tsp::test::RunOutput run_bulk_against_single(const Json& program, ExecutionMode mode) {
    tsp::ExecutorConfig bulk;
    bulk.mode = mode;
    tsp::ExecutorConfig single = bulk;
    single.bulk_checks = false;
    auto a = run_node_program(program, bulk);
    const auto b = run_node_program(program, single);
    INFO(a.error << " | " << b.error);
    REQUIRE(a.ok);
    REQUIRE(b.ok);
    CHECK(a.text == b.text);
    return a;
}

}  // namespace

TEST_CASE("A read while a received train lands sees the vectors written before it, with and without bulk checks") {
    // TSP1 receives 8 vectors from TSP0 into slots 0-7 at cycle 473 (each lands when available, about 24 cycles
    // apart) and sends slots 0-7 on to TSP2 at cycle `s` and to TSP3 at s + 30: each read sees TSP0's values in
    // the slots written before it and TSP1's own (101..108) in the rest. With bulk checks, the writes before a
    // read are found from their keys computed directly (TspChip::skip_to_key), the part's state left for the
    // next read; without, every vector is timed in turn. Every read time from before the first write to after
    // the last gives the same stats both ways.
    std::set<std::string> outcomes, later;
    for (std::int64_t s = 440; s <= 700; ++s) {
        const Json program{
            {"tsps",
             {chip(0, {ins(0, "send", 0, {0}, 8)}, {{"memory", {{{"address", 0}, {"values", {1, 2, 3, 4, 5, 6, 7, 8}}}}}}),
              chip(1,
                   {ins(473, "receive", 0, {}, 8, 0, 0, 0), ins(s, "send", 0, {1}, 8, 0, 1, 0),
                    ins(s + 30, "send", 0, {2}, 8, 0, 2, 0)},
                   {{"memory", {{{"address", 0}, {"values", {101, 102, 103, 104, 105, 106, 107, 108}}}}}}),
              chip(2, {ins(s + 473, "receive", 1, {}, 8, 0, 1, 0)}),
              chip(3, {ins(s + 30 + 473, "receive", 1, {}, 8, 0, 2, 0)})}}};
        for (auto mode : {ExecutionMode::Train, ExecutionMode::Vector}) {
            INFO("send at cycle " << s);
            const auto a = run_bulk_against_single(program, mode);
            outcomes.insert(a.stats.at("sys.node0.tsp2").at("memory").dump());
            later.insert(a.stats.at("sys.node0.tsp3").at("memory").dump());
        }
    }
    // All nine splits occur: none of TSP0's values, the first 1, 2, ..., all 8.
    CHECK(outcomes.size() == 9);
    CHECK(later == outcomes);
    CHECK(outcomes.count("[[0,101],[320,102],[640,103],[960,104],[1280,105],[1600,106],[1920,107],[2240,108]]") == 1);
    CHECK(outcomes.count("[[0,1],[320,2],[640,3],[960,4],[1280,5],[1600,6],[1920,7],[2240,108]]") == 1);
    CHECK(outcomes.count("[[0,1],[320,2],[640,3],[960,4],[1280,5],[1600,6],[1920,7],[2240,8]]") == 1);
}

TEST_CASE("A part split by a read then lands in key order with an overlapping part, with and without bulk checks") {
    // TSP1 receives 8 vectors from TSP0 into slots 0-7 at cycle 473 (slot j lands at about 473 + 23.6 j) and 8
    // from TSP2 into slots 4-11 at cycle 556 (slot j at about 461.5 + 23.6 j): in slots 4-7 TSP0's write comes
    // about 12 cycles after TSP2's, so they end with TSP0's values. A send at cycle s, before TSP2's first
    // vector arrives, reads while TSP0's part lands (with bulk checks, skip_to_key leaves the part where its
    // stepping would); after TSP2's part arrives the two overlap and are stepped vector by vector from there,
    // so a part left one vector off would write slots 4-7 before TSP2 does.
    for (std::int64_t s = 474; s <= 550; ++s) {
        const Json program{
            {"tsps",
             {chip(0, {ins(0, "send", 0, {0}, 8)}, {{"memory", {{{"address", 0}, {"values", {1, 2, 3, 4, 5, 6, 7, 8}}}}}}),
              chip(1,
                   {ins(473, "receive", 0, {}, 8, 0, 0, 0), ins(s, "send", 0, {2}, 8, 0, 1, 0),
                    ins(83 + 473, "receive", 1, {}, 8, 1280, 3, 0)}),
              chip(2, {ins(83, "send", 1, {1}, 8, 0, 3, 0)},
                   {{"memory", {{{"address", 0}, {"values", {201, 202, 203, 204, 205, 206, 207, 208}}}}}}),
              chip(3, {ins(s + 473, "receive", 1, {}, 8, 0, 1, 0)})}}};
        for (auto mode : {ExecutionMode::Train, ExecutionMode::Vector}) {
            INFO("send at cycle " << s);
            const auto a = run_bulk_against_single(program, mode);
            CHECK(a.stats.at("sys.node0.tsp1").at("memory").dump() ==
                  "[[0,1],[320,2],[640,3],[960,4],[1280,5],[1600,6],[1920,7],[2240,8],[2560,205],[2880,206],"
                  "[3200,207],[3520,208]]");
        }
    }
}
