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
