#include <catch2/catch.hpp>

#include <string>

#include "loom/sched/schedule.hpp"

using loom::Time;
using loom::sched::Op;
using loom::sched::Schedule;

TEST_CASE("Instruction ops have the names traces and messages use") {
    CHECK(std::string(loom::sched::op_name(Op::Send)) == "send");
    CHECK(std::string(loom::sched::op_name(Op::Forward)) == "forward");
    CHECK(std::string(loom::sched::op_name(Op::Receive)) == "receive");
    CHECK(std::string(loom::sched::op_name(Op::Reduce)) == "reduce");
}

TEST_CASE("Efficiency is the lower bound over the makespan and 1 for an empty schedule") {
    Schedule s;
    CHECK(s.efficiency() == 1.0);
    s.makespan = Time::ps(400);
    s.lower_bound = Time::ps(300);
    CHECK(s.efficiency() == Approx(0.75));
}

TEST_CASE("Trains start issue, forward or reduce cycles after the issue and a storing instruction sends none") {
    const loom::topo::ChipConfig chip;
    const loom::ClockDomain clock = chip.clock();
    loom::sched::Instruction ins;
    ins.cycle = 1'000;
    ins.out_ports = 1;
    ins.op = loom::sched::Op::Send;
    CHECK(loom::sched::issue_time(clock, ins) == clock.edge(1'000));
    CHECK(*loom::sched::train_start(clock, ins, chip) == clock.edge(1'000 + chip.issue_cycles));
    ins.op = loom::sched::Op::Forward;
    CHECK(*loom::sched::train_start(clock, ins, chip) == clock.edge(1'000 + chip.forward_cycles));
    ins.op = loom::sched::Op::Reduce;
    CHECK(*loom::sched::train_start(clock, ins, chip) == clock.edge(1'000 + chip.reduce_cycles));
    ins.out_ports = 0;
    CHECK_FALSE(loom::sched::train_start(clock, ins, chip).has_value());
    ins.op = loom::sched::Op::Receive;
    CHECK_FALSE(loom::sched::train_start(clock, ins, chip).has_value());
}

TEST_CASE("A vector is available crossing cycles after the first core edge at or after its arrival") {
    loom::topo::ChipConfig chip;
    chip.crossing_cycles = 2;
    const loom::ClockDomain clock = chip.clock();
    const loom::Time e = clock.edge(50);
    CHECK(loom::sched::available_at(clock, e, chip) == clock.edge(52));
    CHECK(loom::sched::available_at(clock, e + loom::Time::ps(1), chip) == clock.edge(53));
}

TEST_CASE("Vector i's slot is the issue plus the serialization of the i - 1 vectors before it") {
    loom::LinkTiming t;
    t.rate = loom::Bandwidth::bps(100'000'000'000);
    const loom::Time issue = loom::Time::ps(5'000);
    CHECK(loom::sched::forward_slot(issue, t, 1) == issue);
    CHECK(loom::sched::forward_slot(issue, t, 3) == issue + t.serialization(2));
}

TEST_CASE("Instruction validity lists every fault in order, with the port it names") {
    using loom::sched::InstructionFault;
    loom::sched::Instruction ins;
    ins.op = loom::sched::Op::Receive;
    ins.cycle = -1;
    ins.count = 0;
    ins.in_port = 4;
    ins.out_ports = 0b101;
    std::vector<loom::sched::InstructionProblem> out;
    loom::sched::validate_instruction(ins, 0b0011, out);
    REQUIRE(out.size() == 5);
    CHECK(out[0].fault == InstructionFault::NegativeCycle);
    CHECK(out[1].fault == InstructionFault::NoVectors);
    CHECK((out[2].fault == InstructionFault::InPortNotWired && out[2].port == 4));
    CHECK((out[3].fault == InstructionFault::OutPortNotWired && out[3].port == 2));
    CHECK(out[4].fault == InstructionFault::ReceiveSends);
    CHECK(loom::sched::describe(out[2]) == "in_port 4 is not wired");
    out.clear();
    ins = {};
    ins.out_ports = 1;
    loom::sched::validate_instruction(ins, 0b1, out);
    CHECK(out.empty());
    ins.out_ports = 0;
    loom::sched::validate_instruction(ins, 0b1, out);
    REQUIRE(out.size() == 1);
    CHECK(out[0].fault == InstructionFault::SendsNowhere);
}
