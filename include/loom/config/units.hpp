// Unit strings in configs ("722ns", "220MiB", "25.78125Gbps", "900MHz"), parsed with exact decimal arithmetic:
// a value is accepted only if it is a whole number of the base unit (ps, bytes, bit/s, Hz) that fits in int64.
#pragma once

#include <optional>
#include <string_view>

#include "loom/base/units.hpp"

namespace loom::config {

// Syntax shared by all four: DIGITS [ "." DIGITS ] UNIT, nothing before or after (no sign, no spaces).
// Decimals are fine when the result is whole: "1.5ns" = 1500 ps, "0.1ps" is rejected.
// Every string loom::to_string writes parses back to the same value.

// ps, ns, us, ms, s.
std::optional<Time> parse_duration(std::string_view text);
// B; binary KiB, MiB, GiB, TiB (powers of 1024); decimal KB (also kB), MB, GB, TB (powers of 1000).
std::optional<Bytes> parse_bytes(std::string_view text);
// bps, Kbps (also kbps), Mbps, Gbps, Tbps, all decimal: "25.78125Gbps" is exactly 25'781'250'000 bit/s.
std::optional<Bandwidth> parse_bandwidth(std::string_view text);
// Hz, kHz (also KHz), MHz, GHz.
std::optional<Frequency> parse_frequency(std::string_view text);

// What each kind looks like, as error messages say it ("expected a duration like \"722ns\", got 5").
inline constexpr std::string_view kDurationForm = "a duration like \"722ns\"";
inline constexpr std::string_view kSizeForm = "a size like \"220MiB\"";
inline constexpr std::string_view kRateForm = "a rate like \"25Gbps\"";
inline constexpr std::string_view kFrequencyForm = "a frequency like \"900MHz\"";

}  // namespace loom::config
