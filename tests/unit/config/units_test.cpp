#include <catch2/catch.hpp>

#include "loom/config/units.hpp"

using namespace loom::literals;
using loom::Bandwidth;
using loom::Bytes;
using loom::Frequency;
using loom::Time;
using loom::config::parse_bandwidth;
using loom::config::parse_bytes;
using loom::config::parse_duration;
using loom::config::parse_frequency;

TEST_CASE("Durations parse in every unit to integer picoseconds") {
    CHECK(parse_duration("722ns") == 722_ns);
    CHECK(parse_duration("5ps") == 5_ps);
    CHECK(parse_duration("3us") == 3_us);
    CHECK(parse_duration("2ms") == 2_ms);
    CHECK(parse_duration("1s") == 1_s);
    CHECK(parse_duration("0ns") == Time::zero());
}

TEST_CASE("Decimal durations are accepted only when they are whole picoseconds") {
    CHECK(parse_duration("1.5ns") == 1'500_ps);
    CHECK(parse_duration("0.001ns") == 1_ps);
    CHECK(parse_duration("2.500us") == 2'500_ns);
    CHECK_FALSE(parse_duration("0.1ps"));
    CHECK_FALSE(parse_duration("1.0005ns"));
}

TEST_CASE("Malformed unit strings are rejected") {
    for (const char* bad : {"", "ns", "722", "722 ns", " 722ns", "722ns ", "-5ns", "+5ns", "1.ns", ".5ns", "1e3ns",
                            "722NS", "722nsx", "7x22ns", "1..5ns"}) {
        INFO(bad);
        CHECK_FALSE(parse_duration(bad));
    }
    CHECK_FALSE(parse_bytes("-1B"));
    CHECK_FALSE(parse_bandwidth("25gbps"));
    CHECK_FALSE(parse_frequency("900mhz"));
}

TEST_CASE("Values beyond int64 in the base unit are rejected as overflow") {
    CHECK(parse_duration("9223372036854775807ps") == Time::max());
    CHECK_FALSE(parse_duration("9223372036854775808ps"));
    CHECK(parse_duration("9223372s") == Time::s(9'223'372));
    CHECK_FALSE(parse_duration("9223373s"));
    CHECK_FALSE(parse_duration("99999999999999999999999999999999999999999s"));
    CHECK_FALSE(parse_bytes("9000000TiB"));
    CHECK_FALSE(parse_bandwidth("10000000Tbps"));
}

TEST_CASE("Sizes parse binary and decimal units") {
    CHECK(parse_bytes("320B") == Bytes(320));
    CHECK(parse_bytes("220MiB") == 220_MiB);
    CHECK(parse_bytes("1KiB") == Bytes(1024));
    CHECK(parse_bytes("1.5KiB") == Bytes(1536));
    CHECK(parse_bytes("2GiB") == Bytes(2LL << 30));
    CHECK(parse_bytes("1TiB") == Bytes(1LL << 40));
    CHECK(parse_bytes("1KB") == Bytes(1'000));
    CHECK(parse_bytes("1kB") == Bytes(1'000));
    CHECK(parse_bytes("3MB") == Bytes(3'000'000));
    CHECK(parse_bytes("1GB") == Bytes(1'000'000'000));
    CHECK(parse_bytes("2TB") == Bytes(2'000'000'000'000));
    CHECK_FALSE(parse_bytes("0.5B"));
    CHECK_FALSE(parse_bytes("320"));
}

TEST_CASE("Rates parse exactly without floating point") {
    CHECK(parse_bandwidth("25.78125Gbps") == Bandwidth::bps(25'781'250'000));
    CHECK(parse_bandwidth("25Gbps") == 25_Gbps);
    CHECK(parse_bandwidth("100Mbps") == Bandwidth::bps(100'000'000));
    CHECK(parse_bandwidth("800Kbps") == Bandwidth::bps(800'000));
    CHECK(parse_bandwidth("800kbps") == Bandwidth::bps(800'000));
    CHECK(parse_bandwidth("10bps") == Bandwidth::bps(10));
    CHECK(parse_bandwidth("1.6Tbps") == Bandwidth::bps(1'600'000'000'000));
    // 0.1 has no exact binary representation; decimal parsing keeps it exact.
    CHECK(parse_bandwidth("0.1Gbps") == Bandwidth::bps(100'000'000));
    CHECK(parse_bandwidth("25781.25Mbps") == Bandwidth::bps(25'781'250'000));
    CHECK_FALSE(parse_bandwidth("0.5bps"));
}

TEST_CASE("Frequencies parse to integer hertz") {
    CHECK(parse_frequency("900MHz") == 900_MHz);
    CHECK(parse_frequency("1.5GHz") == Frequency::hz(1'500'000'000));
    CHECK(parse_frequency("1000Hz") == Frequency::hz(1'000));
    CHECK(parse_frequency("32kHz") == Frequency::hz(32'000));
    CHECK_FALSE(parse_frequency("0.5Hz"));
}

TEST_CASE("Every unit string written by to_string parses back to the same value") {
    for (Time t : {722_ns, 1'500_ps, Time::zero(), 3_s, Time::max()}) CHECK(parse_duration(loom::to_string(t)) == t);
    for (Bytes b : {220_MiB, Bytes(328), Bytes(0), Bytes(3LL << 30)}) CHECK(parse_bytes(loom::to_string(b)) == b);
    for (Bandwidth b : {25_Gbps, Bandwidth::bps(25'781'250'000), Bandwidth::bps(7), Bandwidth::bps(123'456'789'012)}) {
        CHECK(parse_bandwidth(loom::to_string(b)) == b);
    }
    for (Frequency f : {900_MHz, Frequency::hz(1), Frequency::hz(1'500'000'000)}) {
        CHECK(parse_frequency(loom::to_string(f)) == f);
    }
}
