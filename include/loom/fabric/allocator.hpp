// Separable allocators that match requesters to resources once per router cycle: the switch allocator (input
// ports, through one of their virtual channels, to output ports) and the VC allocator (input VCs to output VCs).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace loom::fabric {

enum class AllocatorKind : std::uint8_t {
    SeparableInputFirst,  // round-robin input arbiters, then round-robin output arbiters
    Islip,                // request-grant-accept with round-robin grant and accept pointers
};
std::string_view allocator_name(AllocatorKind kind);  // "separable_input_first" | "islip"

// One allocation round: clear(), request() for every (input, line, output), allocate(), then read the grants.
// Input i asks for output o through its line k (0 <= k < lines): for the switch allocator a line is a VC of the
// input port; for the VC allocator a line is the output VC itself. Each (input, line) is requested at most once
// per round, several lines of an input may name the same output, and an input has at most max_requests lines
// requested per round. The result is a matching: every input gets at most one (line, output), every output at
// most one input. Outcomes never depend on the order of request() calls. Pointers persist across rounds.
//
// SeparableInputFirst, per iteration over the inputs and outputs still unmatched:
//   1. each input picks, among its lines whose output is unmatched, the first line at or after its input
//      pointer (round robin over 0..lines-1);
//   2. each output picks, among the inputs that picked it, the first input at or after its output pointer
//      (round robin over 0..inputs-1);
//   3. for every pair matched (in any iteration) the input pointer moves one past the granted line and the
//      output pointer one past the granted input.
// Islip (McKeown, IEEE/ACM ToN 1999), per iteration over unmatched inputs and outputs:
//   1. request: each input requests every output one of its lines names;
//   2. grant: each output grants the requesting input first at or after its grant pointer;
//   3. accept: each input accepts the granting output first at or after its accept pointer, through its line
//      for that output first at or after its line pointer;
//   4. the grant pointer (one past the accepted input) and the accept pointer (one past the accepted output)
//      move only for acceptances of the first iteration; the line pointer moves one past the line on every
//      acceptance.
//
// Two implementations with identical results: bit masks when inputs and outputs fit in 64 and lines in 32 (every
// switch allocator, and VC allocators of small routers), lists otherwise.
class Allocator {
public:
    // `use_masks` false forces the list implementation (tests compare the two).
    Allocator(AllocatorKind kind, std::int32_t inputs, std::int32_t lines, std::int32_t outputs,
              std::int32_t iterations, std::int32_t max_requests, bool use_masks = true);

    void clear();
    void request(std::int32_t input, std::int32_t line, std::int32_t output) {
        const auto u = static_cast<std::size_t>(input);
        if (masks_) {
            if (line_mask_[u] == 0) active_mask_ |= std::uint64_t{1} << input;
            line_mask_[u] |= std::uint32_t{1} << line;
            line_out_[u * static_cast<std::size_t>(lines_) + static_cast<std::size_t>(line)] = output;
            return;
        }
        auto& n = count_[u];
        if (n == 0) active_.push_back(input);
        const std::size_t at = u * static_cast<std::size_t>(max_requests_) + n;
        req_line_[at] = line;
        req_out_[at] = output;
        ++n;
    }
    // Mask implementation only (uses_masks()): the output of (input, line) for request_lines(), kept across
    // rounds until set again (request() sets it too). For requesters whose lines keep one output for many rounds
    // (a VC holds its output from VC allocation until its tail leaves), so a round need not restate it.
    void set_output(std::int32_t input, std::int32_t line, std::int32_t output) {
        line_out_[static_cast<std::size_t>(input) * static_cast<std::size_t>(lines_) + static_cast<std::size_t>(line)] =
            output;
    }
    // Mask implementation only: request every line set in `lines` (non-zero) of `input`, each for the output
    // last given for it; the same as request() of each of those lines with that output.
    void request_lines(std::int32_t input, std::uint32_t lines) {
        line_mask_[static_cast<std::size_t>(input)] |= lines;
        active_mask_ |= std::uint64_t{1} << input;
    }
    bool empty() const { return masks_ ? active_mask_ == 0 : active_.empty(); }
    void allocate();
    // Mask implementation only: a whole round in one call, for a caller that keeps its requests as masks. Input i
    // in `active` requests the lines set in lines[i] (non-zero), each for the output last given to set_output();
    // the result is the same as clear(), request_lines() for each of them and allocate(). Returns the granted
    // inputs as a mask; line_of() and output_of() hold for those inputs (only) until the next round, and
    // granted() is not filled for the separable allocator.
    std::uint64_t allocate_lines(const std::uint32_t* lines, std::uint64_t active);

    // Inputs granted in the last allocate(), ascending.
    std::span<const std::int32_t> granted() const { return granted_; }
    // The granted line and output of `input` (-1 when it has no grant).
    std::int32_t line_of(std::int32_t input) const { return match_line_[static_cast<std::size_t>(input)]; }
    std::int32_t output_of(std::int32_t input) const { return match_out_[static_cast<std::size_t>(input)]; }

    // Pointer state, for tests. Separable: input pointer over lines, output pointer over inputs. iSLIP: accept
    // pointer (input, over outputs), grant pointer (output, over inputs), line pointer (input, over lines).
    std::int32_t input_pointer(std::int32_t input) const { return in_ptr_[static_cast<std::size_t>(input)]; }
    std::int32_t output_pointer(std::int32_t output) const { return out_ptr_[static_cast<std::size_t>(output)]; }
    std::int32_t line_pointer(std::int32_t input) const { return line_ptr_[static_cast<std::size_t>(input)]; }

    AllocatorKind kind() const { return kind_; }
    std::int32_t inputs() const { return inputs_; }
    std::int32_t outputs() const { return outputs_; }
    bool uses_masks() const { return masks_; }

private:
    void allocate_separable();
    void allocate_islip();
    void allocate_separable_masks(const std::uint32_t* line_mask, std::uint64_t active);
    void allocate_islip_masks();
    void match(std::int32_t input, std::int32_t line, std::int32_t output);

    AllocatorKind kind_;
    std::int32_t inputs_, lines_, outputs_, iterations_, max_requests_;
    bool masks_;
    // Shared state.
    std::vector<std::int32_t> match_line_, match_out_;  // per input, -1 when unmatched
    std::vector<std::int32_t> granted_;
    std::vector<std::int32_t> in_ptr_, out_ptr_, line_ptr_;
    std::vector<std::int32_t> pick_line_;  // per input: the line it picked (separable) or accepted (iSLIP)
    // Mask implementation.
    std::uint64_t active_mask_ = 0;          // inputs with requests
    std::uint64_t granted_mask_ = 0;         // inputs matched in this allocate()
    std::vector<std::uint32_t> line_mask_;   // per input: requested lines
    std::vector<std::int32_t> line_out_;     // per input x line: the output requested
    std::vector<std::uint64_t> out_req_;     // per output: inputs picking / requesting it this iteration
    // List implementation.
    std::vector<std::int32_t> req_line_, req_out_;  // inputs x max_requests
    std::vector<std::uint32_t> count_;              // requests per input this round
    std::vector<std::int32_t> active_;              // inputs with requests, in first-request order
    std::vector<std::int32_t> out_match_;           // per output: matched input or -1
    std::vector<std::int32_t> candidate_;  // per output: best input so far, -1 when none
    std::vector<std::int32_t> accept_;     // per input (iSLIP): best granting output so far, -1 when none
    std::vector<std::int32_t> touched_;    // outputs with a candidate
    std::vector<std::int32_t> granted_now_;  // inputs with a grant this iteration (iSLIP)
};

}  // namespace loom::fabric
