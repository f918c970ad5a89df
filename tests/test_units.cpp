// Unit tests of the human-unit parsers (core/units.h): every suffix, exact decimal
// conversion, and the error messages for bad, negative and unit-less input.
#include <gtest/gtest.h>

#include <string>

#include "core/units.h"

namespace rocesim {
namespace test_units {
namespace {

// Expects `fn(text)` to throw a UnitError whose message contains `needle`.
template <typename Fn>
void ExpectUnitError(Fn fn, const std::string& text, const std::string& needle) {
  try {
    fn(text);
    ADD_FAILURE() << "no error for \"" << text << "\"";
  } catch (const UnitError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "message for \"" << text << "\": " << e.what();
  }
}

TEST(ParseTime, AllUnits) {
  EXPECT_EQ(ParseTime("10ps"), 10);
  EXPECT_EQ(ParseTime("100ns"), 100 * kNanosecond);
  EXPECT_EQ(ParseTime("1us"), kMicrosecond);
  EXPECT_EQ(ParseTime("1\u00b5s"), kMicrosecond);
  EXPECT_EQ(ParseTime("1.5 ms"), 1'500 * kMicrosecond);
  EXPECT_EQ(ParseTime("2s"), 2 * kSecond);
  EXPECT_EQ(ParseTime("  3us  "), 3 * kMicrosecond);
}

TEST(ParseTime, ExactDecimals) {
  EXPECT_EQ(ParseTime("0.001ms"), 1'000'000);
  EXPECT_EQ(ParseTime("1000ns"), ParseTime("1us"));
  EXPECT_EQ(ParseTime("0.1us"), 100'000);
  EXPECT_EQ(ParseTime("2.005s"), 2'005'000'000'000);
  EXPECT_EQ(ParseTime(".5ns"), 500);
  EXPECT_EQ(ParseTime("5.ns"), 5000);
  EXPECT_EQ(ParseTime("1.000000000000000000000000000000ps"), 1);
  EXPECT_EQ(ParseTime("0.000000000001s"), 1);
}

TEST(ParseTime, BareZero) {
  EXPECT_EQ(ParseTime("0"), 0);
  EXPECT_EQ(ParseTime("0.0"), 0);
  EXPECT_EQ(ParseTime("0us"), 0);
}

TEST(ParseTime, Errors) {
  ExpectUnitError(ParseTime, "5", "a unit is required");
  ExpectUnitError(ParseTime, "5", R"(expected a time like "1us" or "2.5ms", got "5")");
  ExpectUnitError(ParseTime, "-1us", "negative");
  ExpectUnitError(ParseTime, "abc", R"(got "abc")");
  ExpectUnitError(ParseTime, "", "expected a time");
  ExpectUnitError(ParseTime, "1 fortnight", "unknown unit");
  ExpectUnitError(ParseTime, "1MS", "unknown unit");
  ExpectUnitError(ParseTime, "0.5ps", "not a whole number of picoseconds");
  ExpectUnitError(ParseTime, "1.2.3us", "unknown unit");
  ExpectUnitError(ParseTime, "10000000s", "out of range");
  ExpectUnitError(ParseTime, "99999999999999999999999999999999ps", "too large");
}

TEST(ParseRate, AllSuffixes) {
  EXPECT_EQ(ParseRate("100Gbps"), 100'000'000'000);
  EXPECT_EQ(ParseRate("100Gb/s"), 100'000'000'000);
  EXPECT_EQ(ParseRate("100G"), 100'000'000'000);
  EXPECT_EQ(ParseRate("40Gbps"), 40'000'000'000);
  EXPECT_EQ(ParseRate("10Mbps"), 10'000'000);
  EXPECT_EQ(ParseRate("20Mb/s"), 20'000'000);
  EXPECT_EQ(ParseRate("1Tbps"), 1'000'000'000'000);
  EXPECT_EQ(ParseRate("500Kbps"), 500'000);
  EXPECT_EQ(ParseRate("500kbps"), 500'000);
  EXPECT_EQ(ParseRate("1000bps"), 1000);
  EXPECT_EQ(ParseRate("25 Gbit/s"), 25'000'000'000);
  EXPECT_EQ(ParseRate("2.5Gbps"), 2'500'000'000);
}

TEST(ParseRate, Errors) {
  ExpectUnitError(ParseRate, "0Gbps", "must be greater than 0");
  ExpectUnitError(ParseRate, "-100Gbps", "negative");
  ExpectUnitError(ParseRate, "100", "a unit is required");
  ExpectUnitError(ParseRate, "100GBps", "unknown unit");
  ExpectUnitError(ParseRate, "fast", R"(expected a rate like "100Gbps")");
  ExpectUnitError(ParseRate, "0.5bps", "not a whole number");
}

TEST(ParseSize, DecimalAndBinary) {
  EXPECT_EQ(ParseSize("1000B"), 1000);
  EXPECT_EQ(ParseSize("5KB"), 5000);
  EXPECT_EQ(ParseSize("5kB"), 5000);
  EXPECT_EQ(ParseSize("32MB"), 32'000'000);
  EXPECT_EQ(ParseSize("2GB"), 2'000'000'000);
  EXPECT_EQ(ParseSize("1TB"), 1'000'000'000'000);
  EXPECT_EQ(ParseSize("4KiB"), 4096);
  EXPECT_EQ(ParseSize("1MiB"), 1 << 20);
  EXPECT_EQ(ParseSize("1GiB"), 1 << 30);
  EXPECT_EQ(ParseSize("1TiB"), int64_t{1} << 40);
  EXPECT_EQ(ParseSize("1.5KB"), 1500);
  EXPECT_EQ(ParseSize("0.5KiB"), 512);
  EXPECT_EQ(ParseSize("1 MB"), 1'000'000);
}

TEST(ParseSize, BareBytes) {
  EXPECT_EQ(ParseSize("62"), 62);
  EXPECT_EQ(ParseSize("0"), 0);
}

TEST(ParseSize, Errors) {
  ExpectUnitError(ParseSize, "1.5B", "not a whole number of bytes");
  ExpectUnitError(ParseSize, "1.0001KB", "not a whole number of bytes");
  ExpectUnitError(ParseSize, "-1KB", "negative");
  ExpectUnitError(ParseSize, "abc", R"(expected a size like "200KB" or "4KiB", got "abc")");
  ExpectUnitError(ParseSize, "5kb", "unknown unit");
  ExpectUnitError(ParseSize, "5 bytes", "unknown unit");
  ExpectUnitError(ParseSize, "100000000TB", "out of range");
}

TEST(ParseFraction, Forms) {
  EXPECT_DOUBLE_EQ(ParseFraction("1/16"), 0.0625);
  EXPECT_DOUBLE_EQ(ParseFraction("0.0625"), 0.0625);
  EXPECT_DOUBLE_EQ(ParseFraction("6.25%"), 0.0625);
  EXPECT_DOUBLE_EQ(ParseFraction("1%"), 0.01);
  EXPECT_DOUBLE_EQ(ParseFraction("1 / 8"), 0.125);
  EXPECT_DOUBLE_EQ(ParseFraction("2"), 2.0);
  EXPECT_DOUBLE_EQ(ParseFraction("0"), 0.0);
}

TEST(ParseFraction, Errors) {
  ExpectUnitError(ParseFraction, "-0.5", "negative");
  ExpectUnitError(ParseFraction, "1/-2", "negative");
  ExpectUnitError(ParseFraction, "1/0", "division by zero");
  ExpectUnitError(ParseFraction, "half", R"(expected a fraction like "1/16")");
  ExpectUnitError(ParseFraction, "1/", "expected a fraction");
  ExpectUnitError(ParseFraction, "5%%", "expected a fraction");
  ExpectUnitError(ParseFraction, "", "expected a fraction");
}

}  // namespace
}  // namespace test_units
}  // namespace rocesim
