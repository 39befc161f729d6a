// libFuzzer target: the sweep reader. Arbitrary bytes are read as a sweep file over a fixed small base config,
// checked and, when small enough, expanded into every point (each assignment applied as --set applies it).
// Bad input must end in a loom::Error; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "loom/base/error.hpp"
#include "loom/config/document.hpp"
#include "loom/config/sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using loom::config::Json;
    static const Json base = Json::parse(R"({"model": "phold", "seed": 1, "end_time": "20us",
        "phold": {"lps": 64, "population": 4, "lookahead": "10ns", "mean_delay": "100ns"},
        "list": [1, 2, {"x": [3]}]})");
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const Json doc = loom::config::parse_json_text(text, "fuzz.sweep.json");
        const loom::config::SweepSpec spec = loom::config::make_sweep(doc, "fuzz.sweep.json", base);
        // Expansion is linear in the points: a fixed cap keeps each input fast.
        if (loom::config::point_count(spec) <= 256) {
            for (const auto& p : loom::config::expand(spec)) (void)loom::config::canonical_hash(p.config);
        }
    } catch (const loom::Error&) {
        // bad input, reported as such
    }
    return 0;
}
