#include "loom/config/units.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <span>

namespace loom::config {
namespace {

__extension__ using Int128 = __int128;

struct UnitScale {
    std::string_view suffix;
    std::int64_t scale;  // base units per one of this unit
};

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }

// DIGITS [ "." DIGITS ] UNIT -> whole base units, or nullopt if malformed, not whole, or beyond int64.
// The mantissa is read as an integer with a decimal exponent, so no rounding ever happens.
std::optional<std::int64_t> parse_scaled(std::string_view text, std::span<const UnitScale> units) {
    std::size_t i = 0;
    while (i < text.size() && is_digit(text[i])) ++i;
    const std::string_view whole = text.substr(0, i);
    if (whole.empty()) return std::nullopt;
    std::string_view frac;
    if (i < text.size() && text[i] == '.') {
        const std::size_t begin = ++i;
        while (i < text.size() && is_digit(text[i])) ++i;
        frac = text.substr(begin, i - begin);
        if (frac.empty()) return std::nullopt;
    }
    const std::string_view suffix = text.substr(i);
    std::int64_t scale = 0;
    for (const UnitScale& u : units) {
        if (u.suffix == suffix) scale = u.scale;
    }
    if (scale == 0) return std::nullopt;

    while (!frac.empty() && frac.back() == '0') frac.remove_suffix(1);
    // Bounds keep every product below 2^127: mantissa < 10^25, scale <= 10^13, 10^frac <= 10^36.
    constexpr Int128 kMantissaLimit = static_cast<Int128>(10'000'000'000'000) * 1'000'000'000'000;
    if (frac.size() > 36) return std::nullopt;
    Int128 mantissa = 0;
    auto take = [&](std::string_view digits) {
        for (char c : digits) {
            mantissa = mantissa * 10 + (c - '0');
            if (mantissa >= kMantissaLimit) return false;
        }
        return true;
    };
    if (!take(whole) || !take(frac)) return std::nullopt;
    Int128 pow10 = 1;
    for (std::size_t k = 0; k < frac.size(); ++k) pow10 *= 10;
    const Int128 scaled = mantissa * scale;
    if (scaled % pow10 != 0) return std::nullopt;
    const Int128 value = scaled / pow10;
    if (value > std::numeric_limits<std::int64_t>::max()) return std::nullopt;
    return static_cast<std::int64_t>(value);
}

constexpr std::array<UnitScale, 5> kTimeUnits{{{"ps", 1},
                                               {"ns", 1'000},
                                               {"us", 1'000'000},
                                               {"ms", 1'000'000'000},
                                               {"s", 1'000'000'000'000}}};
constexpr std::array<UnitScale, 10> kByteUnits{{{"B", 1},
                                                {"KiB", 1LL << 10},
                                                {"MiB", 1LL << 20},
                                                {"GiB", 1LL << 30},
                                                {"TiB", 1LL << 40},
                                                {"KB", 1'000},
                                                {"kB", 1'000},
                                                {"MB", 1'000'000},
                                                {"GB", 1'000'000'000},
                                                {"TB", 1'000'000'000'000}}};
constexpr std::array<UnitScale, 6> kRateUnits{{{"bps", 1},
                                               {"Kbps", 1'000},
                                               {"kbps", 1'000},
                                               {"Mbps", 1'000'000},
                                               {"Gbps", 1'000'000'000},
                                               {"Tbps", 1'000'000'000'000}}};
constexpr std::array<UnitScale, 5> kFrequencyUnits{{{"Hz", 1},
                                                    {"kHz", 1'000},
                                                    {"KHz", 1'000},
                                                    {"MHz", 1'000'000},
                                                    {"GHz", 1'000'000'000}}};

}  // namespace

std::optional<Time> parse_duration(std::string_view text) {
    if (auto v = parse_scaled(text, kTimeUnits)) return Time::ps(*v);
    return std::nullopt;
}

std::optional<Bytes> parse_bytes(std::string_view text) {
    if (auto v = parse_scaled(text, kByteUnits)) return Bytes(*v);
    return std::nullopt;
}

std::optional<Bandwidth> parse_bandwidth(std::string_view text) {
    if (auto v = parse_scaled(text, kRateUnits)) return Bandwidth::bps(*v);
    return std::nullopt;
}

std::optional<Frequency> parse_frequency(std::string_view text) {
    if (auto v = parse_scaled(text, kFrequencyUnits)) return Frequency::hz(*v);
    return std::nullopt;
}

}  // namespace loom::config
