// Strong units for simulated quantities: Time (integer picoseconds), Cycles, Bytes, Bandwidth (bits/s),
// Frequency (Hz). Integers only, so that arithmetic on the time path is exact and reproducible.
#pragma once

#include <cstdint>
#include <compare>
#include <limits>
#include <optional>
#include <string>

namespace loom {

// Simulated time or duration in integer picoseconds. 2^63 ps is about 106 days of simulated time.
class Time {
public:
    constexpr Time() = default;
    static constexpr Time ps(std::int64_t v) { return Time(v); }
    static constexpr Time ns(std::int64_t v) { return Time(v * 1'000); }
    static constexpr Time us(std::int64_t v) { return Time(v * 1'000'000); }
    static constexpr Time ms(std::int64_t v) { return Time(v * 1'000'000'000); }
    static constexpr Time s(std::int64_t v) { return Time(v * 1'000'000'000'000); }
    static constexpr Time zero() { return Time(0); }
    static constexpr Time max() { return Time(std::numeric_limits<std::int64_t>::max()); }

    constexpr std::int64_t count() const { return v_; }  // picoseconds
    constexpr double to_ns() const { return static_cast<double>(v_) / 1e3; }
    constexpr double to_us() const { return static_cast<double>(v_) / 1e6; }
    constexpr double to_s() const { return static_cast<double>(v_) / 1e12; }

    constexpr Time operator+(Time o) const { return Time(v_ + o.v_); }
    constexpr Time operator-(Time o) const { return Time(v_ - o.v_); }
    constexpr Time operator*(std::int64_t k) const { return Time(v_ * k); }
    constexpr std::int64_t operator/(Time o) const { return v_ / o.v_; }
    constexpr Time operator/(std::int64_t k) const { return Time(v_ / k); }
    constexpr Time operator%(Time o) const { return Time(v_ % o.v_); }
    constexpr Time& operator+=(Time o) { v_ += o.v_; return *this; }
    constexpr Time& operator-=(Time o) { v_ -= o.v_; return *this; }
    constexpr auto operator<=>(const Time&) const = default;

private:
    constexpr explicit Time(std::int64_t v) : v_(v) {}
    std::int64_t v_ = 0;
};

// A count of clock cycles of some clock domain (which one is the context's business).
class Cycles {
public:
    constexpr Cycles() = default;
    constexpr explicit Cycles(std::int64_t v) : v_(v) {}
    constexpr std::int64_t count() const { return v_; }
    constexpr Cycles operator+(Cycles o) const { return Cycles(v_ + o.v_); }
    constexpr Cycles operator-(Cycles o) const { return Cycles(v_ - o.v_); }
    constexpr Cycles& operator+=(Cycles o) { v_ += o.v_; return *this; }
    constexpr auto operator<=>(const Cycles&) const = default;

private:
    std::int64_t v_ = 0;
};

// A size in bytes.
class Bytes {
public:
    constexpr Bytes() = default;
    constexpr explicit Bytes(std::int64_t v) : v_(v) {}
    constexpr std::int64_t count() const { return v_; }
    constexpr std::int64_t bits() const { return v_ * 8; }
    constexpr Bytes operator+(Bytes o) const { return Bytes(v_ + o.v_); }
    constexpr Bytes operator-(Bytes o) const { return Bytes(v_ - o.v_); }
    constexpr Bytes operator*(std::int64_t k) const { return Bytes(v_ * k); }
    constexpr Bytes& operator+=(Bytes o) { v_ += o.v_; return *this; }
    constexpr auto operator<=>(const Bytes&) const = default;

private:
    std::int64_t v_ = 0;
};

// A data rate in bits per second (integer: 25.78125 Gbps is exactly 25'781'250'000 bit/s).
class Bandwidth {
public:
    constexpr Bandwidth() = default;
    static constexpr Bandwidth bps(std::int64_t v) { return Bandwidth(v); }
    static constexpr Bandwidth gbps(std::int64_t v) { return Bandwidth(v * 1'000'000'000); }
    constexpr std::int64_t bits_per_s() const { return v_; }
    constexpr double bytes_per_s() const { return static_cast<double>(v_) / 8.0; }
    constexpr Bandwidth operator*(std::int64_t k) const { return Bandwidth(v_ * k); }
    constexpr Bandwidth operator+(Bandwidth o) const { return Bandwidth(v_ + o.v_); }
    constexpr auto operator<=>(const Bandwidth&) const = default;

private:
    constexpr explicit Bandwidth(std::int64_t v) : v_(v) {}
    std::int64_t v_ = 0;
};

// A clock frequency in integer hertz.
class Frequency {
public:
    constexpr Frequency() = default;
    static constexpr Frequency hz(std::int64_t v) { return Frequency(v); }
    static constexpr Frequency mhz(std::int64_t v) { return Frequency(v * 1'000'000); }
    static constexpr Frequency ghz(std::int64_t v) { return Frequency(v * 1'000'000'000); }
    constexpr std::int64_t hertz() const { return v_; }
    constexpr auto operator<=>(const Frequency&) const = default;

private:
    constexpr explicit Frequency(std::int64_t v) : v_(v) {}
    std::int64_t v_ = 0;
};

// Human-readable renderings that parse back with config's unit parser ("722ns", "25Gbps", "220MiB", "900MHz").
// Each picks the largest unit that represents the value exactly.
std::string to_string(Time t);
std::string to_string(Bytes b);
std::string to_string(Bandwidth b);
std::string to_string(Frequency f);

// The largest time or duration a config, trace or flag may give: 10^15 ps (1,000 s of simulated time). Sums of
// up to 9,000 such values still fit in a Time, so a model may add a few inputs without overflow checks; where a
// sum has no such bound (a chain of dependencies), use checked_add.
inline constexpr Time kMaxInputTime = Time::s(1000);

// a + b, or nullopt if it does not fit in a Time (signed overflow would be undefined behaviour).
constexpr std::optional<Time> checked_add(Time a, Time b) {
    std::int64_t r = 0;
    if (__builtin_add_overflow(a.count(), b.count(), &r)) return std::nullopt;
    return Time::ps(r);
}
// a + b, clamped to Time::max() (or the most negative Time): for bounds and "never" times.
constexpr Time saturating_add(Time a, Time b) {
    if (auto r = checked_add(a, b)) return *r;
    return b > Time::zero() ? Time::max() : Time::ps(std::numeric_limits<std::int64_t>::min());
}

namespace literals {
constexpr Time operator""_ps(unsigned long long v) { return Time::ps(static_cast<std::int64_t>(v)); }
constexpr Time operator""_ns(unsigned long long v) { return Time::ns(static_cast<std::int64_t>(v)); }
constexpr Time operator""_us(unsigned long long v) { return Time::us(static_cast<std::int64_t>(v)); }
constexpr Time operator""_ms(unsigned long long v) { return Time::ms(static_cast<std::int64_t>(v)); }
constexpr Time operator""_s(unsigned long long v) { return Time::s(static_cast<std::int64_t>(v)); }
constexpr Bytes operator""_B(unsigned long long v) { return Bytes(static_cast<std::int64_t>(v)); }
constexpr Bytes operator""_KiB(unsigned long long v) { return Bytes(static_cast<std::int64_t>(v) << 10); }
constexpr Bytes operator""_MiB(unsigned long long v) { return Bytes(static_cast<std::int64_t>(v) << 20); }
constexpr Bandwidth operator""_Gbps(unsigned long long v) { return Bandwidth::gbps(static_cast<std::int64_t>(v)); }
constexpr Frequency operator""_MHz(unsigned long long v) { return Frequency::mhz(static_cast<std::int64_t>(v)); }
}  // namespace literals

}  // namespace loom
