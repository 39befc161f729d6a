#include "loom/base/units.hpp"

#include <array>
#include <cstdlib>

#include <fmt/format.h>

namespace loom {
namespace {

struct UnitStep {
    std::int64_t scale;
    const char* suffix;
};

// Largest unit that divides the value exactly; the first entry (scale 1) always does.
template <std::size_t N>
std::string exact(std::int64_t v, const std::array<UnitStep, N>& steps) {
    for (std::size_t i = N; i-- > 0;) {
        if (v != 0 && v % steps[i].scale == 0) return fmt::format("{}{}", v / steps[i].scale, steps[i].suffix);
    }
    return fmt::format("{}{}", v, steps[0].suffix);
}

}  // namespace

std::string to_string(Time t) {
    static constexpr std::array<UnitStep, 5> steps{{{1, "ps"},
                                                    {1'000, "ns"},
                                                    {1'000'000, "us"},
                                                    {1'000'000'000, "ms"},
                                                    {1'000'000'000'000, "s"}}};
    return exact(t.count(), steps);
}

std::string to_string(Bytes b) {
    static constexpr std::array<UnitStep, 4> steps{{{1, "B"}, {1LL << 10, "KiB"}, {1LL << 20, "MiB"}, {1LL << 30, "GiB"}}};
    return exact(b.count(), steps);
}

std::string to_string(Bandwidth b) {
    // Decimal, with fractional Gbps written out exactly (25.78125Gbps) when that is shorter.
    const std::int64_t v = b.bits_per_s();
    static constexpr std::array<UnitStep, 4> steps{{{1, "bps"}, {1'000, "Kbps"}, {1'000'000, "Mbps"}, {1'000'000'000, "Gbps"}}};
    if (v >= 1'000'000'000 && v % 1'000'000'000 != 0) {
        std::string frac = fmt::format("{:09d}", v % 1'000'000'000);
        while (!frac.empty() && frac.back() == '0') frac.pop_back();
        return fmt::format("{}.{}Gbps", v / 1'000'000'000, frac);
    }
    return exact(v, steps);
}

std::string to_string(Frequency f) {
    static constexpr std::array<UnitStep, 4> steps{{{1, "Hz"}, {1'000, "kHz"}, {1'000'000, "MHz"}, {1'000'000'000, "GHz"}}};
    return exact(f.hertz(), steps);
}

}  // namespace loom
