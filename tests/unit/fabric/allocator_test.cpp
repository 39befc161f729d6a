#include <catch2/catch.hpp>

#include <vector>

#include "loom/base/rng.hpp"
#include "loom/fabric/allocator.hpp"

using namespace loom::fabric;

namespace {

// One round of a 3x3 allocator where every input requests every output (line k names output k).
std::vector<int> full_round(Allocator& a) {
    a.clear();
    for (int i = 0; i < 3; ++i)
        for (int o = 0; o < 3; ++o) a.request(i, o, o);
    a.allocate();
    std::vector<int> out(3, -1);
    for (int i : a.granted()) out[static_cast<std::size_t>(i)] = a.output_of(i);
    return out;
}

}  // namespace

TEST_CASE("Separable input-first round robin desynchronizes a full 3x3 request matrix in three cycles") {
    Allocator a(AllocatorKind::SeparableInputFirst, 3, 3, 3, 1, 3);
    // Cycle 1: every input picks output 0; output 0 takes input 0.
    CHECK(full_round(a) == std::vector<int>{0, -1, -1});
    CHECK(a.input_pointer(0) == 1);
    CHECK(a.output_pointer(0) == 1);
    CHECK(a.input_pointer(1) == 0);
    // Cycle 2: input 0 moved on to output 1; inputs 1 and 2 both pick output 0, whose pointer favours input 1.
    CHECK(full_round(a) == std::vector<int>{1, 0, -1});
    CHECK(a.input_pointer(0) == 2);
    CHECK(a.input_pointer(1) == 1);
    CHECK(a.output_pointer(0) == 2);
    CHECK(a.output_pointer(1) == 1);
    // Cycle 3: the input pointers now differ: a perfect matching.
    CHECK(full_round(a) == std::vector<int>{2, 1, 0});
    CHECK(a.output_pointer(0) == 0);
    CHECK(a.output_pointer(1) == 2);
    CHECK(a.output_pointer(2) == 1);
    // Cycle 4: and it stays perfect.
    CHECK(full_round(a) == std::vector<int>{0, 2, 1});
}

TEST_CASE("A second separable iteration matches inputs that lost the first one") {
    Allocator a(AllocatorKind::SeparableInputFirst, 3, 3, 3, 2, 3);
    // Iteration 1 grants (0,0); iteration 2: inputs 1 and 2 pick the first free output (1); input 1 wins.
    CHECK(full_round(a) == std::vector<int>{0, 1, -1});
    CHECK(a.input_pointer(1) == 2);
    CHECK(a.output_pointer(1) == 2);
}

TEST_CASE("iSLIP moves grant and accept pointers only on first-iteration acceptances") {
    Allocator a(AllocatorKind::Islip, 3, 3, 3, 1, 3);
    // Cycle 1: every output grants input 0, which accepts output 0.
    CHECK(full_round(a) == std::vector<int>{0, -1, -1});
    CHECK(a.output_pointer(0) == 1);  // grant pointer of output 0
    CHECK(a.output_pointer(1) == 0);  // output 1's grant was not accepted: unchanged
    CHECK(a.input_pointer(0) == 1);   // accept pointer of input 0
    // Cycle 2: output 0 grants input 1; outputs 1 and 2 grant input 0, which accepts output 1.
    CHECK(full_round(a) == std::vector<int>{1, 0, -1});
    // Cycle 3: a perfect matching.
    CHECK(full_round(a) == std::vector<int>{2, 1, 0});

    Allocator b(AllocatorKind::Islip, 3, 3, 3, 3, 3);
    // With three iterations the first cycle already matches everything (later iterations move no pointer).
    CHECK(full_round(b) == std::vector<int>{0, 1, 2});
    CHECK(b.output_pointer(1) == 0);
    CHECK(b.output_pointer(0) == 1);
}

TEST_CASE("A switch allocator grants one virtual channel per input port and never double-books an output") {
    // 2 input ports with 2 VCs (lines) each, 3 output ports.
    Allocator a(AllocatorKind::SeparableInputFirst, 2, 2, 3, 1, 2);
    a.clear();
    a.request(0, 0, 1);
    a.request(0, 1, 2);
    a.request(1, 1, 1);
    a.allocate();
    // Input 0 picks its line 0 (output 1); input 1 its line 1 (output 1): output 1 takes input 0.
    REQUIRE(a.granted().size() == 1);
    CHECK(a.line_of(0) == 0);
    CHECK(a.output_of(0) == 1);
    CHECK(a.line_of(1) == -1);
    // Next round: input 0's pointer moved past line 0, so it tries line 1 (output 2); input 1 gets output 1.
    a.clear();
    a.request(0, 0, 1);
    a.request(0, 1, 2);
    a.request(1, 1, 1);
    a.allocate();
    CHECK(a.granted().size() == 2);
    CHECK(a.output_of(0) == 2);
    CHECK(a.line_of(1) == 1);
    CHECK(a.output_of(1) == 1);
    CHECK(allocator_name(AllocatorKind::Islip) == "islip");
}

TEST_CASE("The bit-mask and list allocators give the same grants and pointers on random requests") {
    for (AllocatorKind kind : {AllocatorKind::SeparableInputFirst, AllocatorKind::Islip}) {
        for (int iterations : {1, 2, 3}) {
            Allocator fast(kind, 12, 4, 10, iterations, 4, true);
            Allocator slow(kind, 12, 4, 10, iterations, 4, false);
            REQUIRE(fast.uses_masks());
            REQUIRE_FALSE(slow.uses_masks());
            loom::Rng rng(static_cast<std::uint64_t>(iterations));
            for (int round = 0; round < 500; ++round) {
                fast.clear();
                slow.clear();
                for (int i = 0; i < 12; ++i)
                    for (int k = 0; k < 4; ++k)
                        if (rng.bernoulli(0.4)) {
                            const auto o = static_cast<int>(rng.uniform(10));
                            fast.request(i, k, o);
                            slow.request(i, k, o);
                        }
                fast.allocate();
                slow.allocate();
                REQUIRE(std::vector<int>(fast.granted().begin(), fast.granted().end()) ==
                        std::vector<int>(slow.granted().begin(), slow.granted().end()));
                for (int i = 0; i < 12; ++i) {
                    REQUIRE(fast.line_of(i) == slow.line_of(i));
                    REQUIRE(fast.output_of(i) == slow.output_of(i));
                    REQUIRE(fast.input_pointer(i) == slow.input_pointer(i));
                    REQUIRE(fast.line_pointer(i) == slow.line_pointer(i));
                }
                for (int o = 0; o < 10; ++o) REQUIRE(fast.output_pointer(o) == slow.output_pointer(o));
            }
        }
    }
}
