#include "loom/fabric/allocator.hpp"

#include <algorithm>
#include <bit>

#include "loom/base/assert.hpp"
#include "round_robin.hpp"

namespace loom::fabric {

std::string_view allocator_name(AllocatorKind kind) {
    return kind == AllocatorKind::Islip ? "islip" : "separable_input_first";
}

Allocator::Allocator(AllocatorKind kind, std::int32_t inputs, std::int32_t lines, std::int32_t outputs,
                     std::int32_t iterations, std::int32_t max_requests, bool use_masks)
    : kind_(kind), inputs_(inputs), lines_(lines), outputs_(outputs), iterations_(iterations),
      max_requests_(max_requests), masks_(use_masks && inputs <= 64 && outputs <= 64 && lines <= 32) {
    LOOM_ASSERT(inputs > 0 && lines > 0 && outputs > 0 && iterations > 0 && max_requests > 0,
                "Allocator: sizes must be positive");
    const auto n = static_cast<std::size_t>(inputs);
    const auto m = static_cast<std::size_t>(outputs);
    match_line_.assign(n, -1);
    match_out_.assign(n, -1);
    in_ptr_.assign(n, 0);
    line_ptr_.assign(n, 0);
    out_ptr_.assign(m, 0);
    pick_line_.assign(n, -1);
    granted_.reserve(n);
    if (masks_) {
        line_mask_.assign(n, 0);
        line_out_.assign(n * static_cast<std::size_t>(lines), 0);
        out_req_.assign(m, 0);
        return;
    }
    req_line_.assign(n * static_cast<std::size_t>(max_requests), 0);
    req_out_.assign(n * static_cast<std::size_t>(max_requests), 0);
    count_.assign(n, 0);
    out_match_.assign(m, -1);
    candidate_.assign(m, -1);
    accept_.assign(n, -1);
    active_.reserve(n);
    touched_.reserve(m);
}

void Allocator::clear() {
    for (std::int32_t i : granted_) {
        match_line_[static_cast<std::size_t>(i)] = -1;
        if (!masks_) out_match_[static_cast<std::size_t>(match_out_[static_cast<std::size_t>(i)])] = -1;
        match_out_[static_cast<std::size_t>(i)] = -1;
    }
    granted_.clear();
    if (masks_) {
        for (std::uint64_t a = active_mask_; a != 0; a &= a - 1) line_mask_[static_cast<std::size_t>(std::countr_zero(a))] = 0;
        active_mask_ = 0;
        return;
    }
    for (std::int32_t i : active_) count_[static_cast<std::size_t>(i)] = 0;
    active_.clear();
}

void Allocator::match(std::int32_t input, std::int32_t line, std::int32_t output) {
    match_line_[static_cast<std::size_t>(input)] = line;
    match_out_[static_cast<std::size_t>(input)] = output;
    if (masks_) {
        granted_mask_ |= std::uint64_t{1} << input;  // granted_ is built in ascending order from the mask
        return;
    }
    out_match_[static_cast<std::size_t>(output)] = input;
    granted_.push_back(input);
}

void Allocator::allocate() {
    if (empty()) return;
    if (masks_) {
        granted_mask_ = 0;
        if (kind_ == AllocatorKind::Islip) {
            allocate_islip_masks();
        } else {
            allocate_separable_masks(line_mask_.data(), active_mask_);
        }
        for (std::uint64_t g = granted_mask_; g != 0; g &= g - 1)
            granted_.push_back(static_cast<std::int32_t>(std::countr_zero(g)));
        return;
    }
    if (kind_ == AllocatorKind::Islip) {
        allocate_islip();
    } else {
        allocate_separable();
    }
    std::sort(granted_.begin(), granted_.end());
}

std::uint64_t Allocator::allocate_lines(const std::uint32_t* lines, std::uint64_t active) {
    LOOM_DEBUG_ASSERT(masks_, "Allocator::allocate_lines needs the mask implementation");
    if (kind_ == AllocatorKind::Islip) {
        clear();
        for (std::uint64_t a = active; a != 0; a &= a - 1) {
            const auto i = static_cast<std::int32_t>(std::countr_zero(a));
            request_lines(i, lines[static_cast<std::size_t>(i)]);
        }
        allocate();
        return active == 0 ? 0 : granted_mask_;
    }
    // Separable: the matches of earlier rounds need no clearing (only granted inputs are read) and granted_ stays
    // empty, so clear() has nothing to undo.
    granted_mask_ = 0;
    if (active != 0) allocate_separable_masks(lines, active);
    return granted_mask_;
}

void Allocator::allocate_separable_masks(const std::uint32_t* line_mask, std::uint64_t active) {
    std::uint64_t free_in = active;
    std::uint64_t free_out = outputs_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << outputs_) - 1;
    const std::size_t stride = static_cast<std::size_t>(lines_);
    for (std::int32_t iter = 0; iter < iterations_ && free_in != 0; ++iter) {
        std::uint64_t touched = 0;
        for (std::uint64_t a = free_in; a != 0; a &= a - 1) {
            const auto i = static_cast<std::int32_t>(std::countr_zero(a));
            const auto u = static_cast<std::size_t>(i);
            const std::int32_t* outs = line_out_.data() + u * stride;
            // Lines whose output is still free (all are in the first iteration), then the first at or after the
            // input pointer.
            std::uint32_t lines = line_mask[u];
            if (iter > 0) {
                for (std::uint32_t l = lines; l != 0; l &= l - 1) {
                    const auto k = std::countr_zero(l);
                    if (!((free_out >> outs[k]) & 1)) lines &= ~(std::uint32_t{1} << k);
                }
                if (lines == 0) continue;
            }
            const std::int32_t k = first_from(lines, in_ptr_[u]);
            pick_line_[u] = k;
            const std::int32_t o = outs[k];
            out_req_[static_cast<std::size_t>(o)] |= std::uint64_t{1} << i;
            touched |= std::uint64_t{1} << o;
        }
        if (touched == 0) break;
        for (std::uint64_t t = touched; t != 0; t &= t - 1) {
            const auto o = static_cast<std::int32_t>(std::countr_zero(t));
            auto& req = out_req_[static_cast<std::size_t>(o)];
            const std::int32_t i = first_from(req, out_ptr_[static_cast<std::size_t>(o)]);
            req = 0;
            const std::int32_t line = pick_line_[static_cast<std::size_t>(i)];
            match(i, line, o);
            free_in &= ~(std::uint64_t{1} << i);
            free_out &= ~(std::uint64_t{1} << o);
            in_ptr_[static_cast<std::size_t>(i)] = line + 1 == lines_ ? 0 : line + 1;
            out_ptr_[static_cast<std::size_t>(o)] = i + 1 == inputs_ ? 0 : i + 1;
        }
    }
}

void Allocator::allocate_islip_masks() {
    std::uint64_t free_in = active_mask_;
    std::uint64_t free_out = outputs_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << outputs_) - 1;
    const std::size_t stride = static_cast<std::size_t>(lines_);
    std::uint64_t grants[64];  // per input: the outputs granting it
    for (std::int32_t iter = 0; iter < iterations_ && free_in != 0; ++iter) {
        // Request: each free input asks every free output one of its lines names.
        std::uint64_t touched = 0;
        std::uint64_t requests[64];
        for (std::uint64_t a = free_in; a != 0; a &= a - 1) {
            const auto i = static_cast<std::int32_t>(std::countr_zero(a));
            const auto u = static_cast<std::size_t>(i);
            const std::int32_t* outs = line_out_.data() + u * stride;
            for (std::uint32_t l = line_mask_[u]; l != 0; l &= l - 1) {
                const std::int32_t o = outs[std::countr_zero(l)];
                if (!((free_out >> o) & 1)) continue;
                if (!((touched >> o) & 1)) {
                    touched |= std::uint64_t{1} << o;
                    requests[o] = 0;
                }
                requests[o] |= std::uint64_t{1} << i;
            }
        }
        if (touched == 0) break;
        // Grant: each output the requesting input first at or after its grant pointer.
        std::uint64_t granted_inputs = 0;
        for (std::uint64_t t = touched; t != 0; t &= t - 1) {
            const auto o = static_cast<std::int32_t>(std::countr_zero(t));
            const std::int32_t i = first_from(requests[o], out_ptr_[static_cast<std::size_t>(o)]);
            if (!((granted_inputs >> i) & 1)) {
                granted_inputs |= std::uint64_t{1} << i;
                grants[static_cast<std::size_t>(i)] = 0;
            }
            grants[static_cast<std::size_t>(i)] |= std::uint64_t{1} << o;
        }
        // Accept: each input the granting output first at or after its accept pointer, through its line for that
        // output first at or after its line pointer.
        for (std::uint64_t g = granted_inputs; g != 0; g &= g - 1) {
            const auto i = static_cast<std::int32_t>(std::countr_zero(g));
            const auto u = static_cast<std::size_t>(i);
            const std::int32_t o = first_from(grants[u], in_ptr_[u]);
            const std::int32_t* outs = line_out_.data() + u * stride;
            std::uint32_t lines = 0;
            for (std::uint32_t l = line_mask_[u]; l != 0; l &= l - 1)
                if (outs[std::countr_zero(l)] == o) lines |= std::uint32_t{1} << std::countr_zero(l);
            const std::int32_t line = first_from(lines, line_ptr_[u]);
            match(i, line, o);
            free_in &= ~(std::uint64_t{1} << i);
            free_out &= ~(std::uint64_t{1} << o);
            line_ptr_[u] = line + 1 == lines_ ? 0 : line + 1;
            if (iter == 0) {
                out_ptr_[static_cast<std::size_t>(o)] = i + 1 == inputs_ ? 0 : i + 1;
                in_ptr_[u] = o + 1 == outputs_ ? 0 : o + 1;
            }
        }
    }
}

namespace {
// Distance from pointer `ptr` to `x` going round 0..n-1: the round-robin priority (0 = highest).
inline std::int32_t rr(std::int32_t x, std::int32_t ptr, std::int32_t n) { return x >= ptr ? x - ptr : x - ptr + n; }
}  // namespace

void Allocator::allocate_separable() {
    const std::size_t stride = static_cast<std::size_t>(max_requests_);
    for (std::int32_t iter = 0; iter < iterations_; ++iter) {
        touched_.clear();
        // Input arbitration: the first requested line at or after the input pointer whose output is free.
        for (std::int32_t i : active_) {
            const auto u = static_cast<std::size_t>(i);
            if (match_out_[u] >= 0) continue;
            const std::int32_t ptr = in_ptr_[u];
            std::int32_t best_line = -1, best_out = -1, best_pri = lines_;
            for (std::size_t r = u * stride, e = r + count_[u]; r < e; ++r) {
                const std::int32_t o = req_out_[r];
                if (out_match_[static_cast<std::size_t>(o)] >= 0) continue;
                const std::int32_t pri = rr(req_line_[r], ptr, lines_);
                if (pri < best_pri) {
                    best_pri = pri;
                    best_line = req_line_[r];
                    best_out = o;
                }
            }
            if (best_line < 0) continue;
            pick_line_[u] = best_line;
            // Output arbitration, folded in: keep the input first at or after the output pointer.
            auto& cand = candidate_[static_cast<std::size_t>(best_out)];
            if (cand < 0) {
                cand = i;
                touched_.push_back(best_out);
            } else {
                const std::int32_t optr = out_ptr_[static_cast<std::size_t>(best_out)];
                if (rr(i, optr, inputs_) < rr(cand, optr, inputs_)) cand = i;
            }
        }
        if (touched_.empty()) break;
        for (std::int32_t o : touched_) {
            auto& cand = candidate_[static_cast<std::size_t>(o)];
            const std::int32_t i = cand;
            cand = -1;
            const std::int32_t line = pick_line_[static_cast<std::size_t>(i)];
            match(i, line, o);
            in_ptr_[static_cast<std::size_t>(i)] = line + 1 == lines_ ? 0 : line + 1;
            out_ptr_[static_cast<std::size_t>(o)] = i + 1 == inputs_ ? 0 : i + 1;
        }
    }
}

void Allocator::allocate_islip() {
    const std::size_t stride = static_cast<std::size_t>(max_requests_);
    for (std::int32_t iter = 0; iter < iterations_; ++iter) {
        touched_.clear();
        // Request + grant: every unmatched output keeps the requesting input first at or after its grant pointer.
        for (std::int32_t i : active_) {
            const auto u = static_cast<std::size_t>(i);
            if (match_out_[u] >= 0) continue;
            for (std::size_t r = u * stride, e = r + count_[u]; r < e; ++r) {
                const std::int32_t o = req_out_[r];
                const auto uo = static_cast<std::size_t>(o);
                if (out_match_[uo] >= 0) continue;
                auto& cand = candidate_[uo];
                if (cand < 0) {
                    cand = i;
                    touched_.push_back(o);
                } else if (cand != i && rr(i, out_ptr_[uo], inputs_) < rr(cand, out_ptr_[uo], inputs_)) {
                    cand = i;
                }
            }
        }
        if (touched_.empty()) break;
        // Accept: every input keeps the granting output first at or after its accept pointer.
        granted_now_.clear();
        for (std::int32_t o : touched_) {
            auto& cand = candidate_[static_cast<std::size_t>(o)];
            const std::int32_t i = cand;
            cand = -1;
            auto& acc = accept_[static_cast<std::size_t>(i)];
            if (acc < 0) {
                acc = o;
                granted_now_.push_back(i);
            } else {
                const std::int32_t aptr = in_ptr_[static_cast<std::size_t>(i)];
                if (rr(o, aptr, outputs_) < rr(acc, aptr, outputs_)) acc = o;
            }
        }
        for (std::int32_t i : granted_now_) {
            const auto u = static_cast<std::size_t>(i);
            const std::int32_t o = accept_[u];
            accept_[u] = -1;
            // The input's line for o first at or after its line pointer.
            std::int32_t line = -1, best_pri = lines_;
            for (std::size_t r = u * stride, e = r + count_[u]; r < e; ++r) {
                if (req_out_[r] != o) continue;
                const std::int32_t pri = rr(req_line_[r], line_ptr_[u], lines_);
                if (pri < best_pri) {
                    best_pri = pri;
                    line = req_line_[r];
                }
            }
            match(i, line, o);
            line_ptr_[u] = line + 1 == lines_ ? 0 : line + 1;
            if (iter == 0) {
                out_ptr_[static_cast<std::size_t>(o)] = i + 1 == inputs_ ? 0 : i + 1;
                in_ptr_[u] = o + 1 == outputs_ ? 0 : o + 1;
            }
        }
    }
}

}  // namespace loom::fabric
