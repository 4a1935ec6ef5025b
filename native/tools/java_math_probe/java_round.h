#pragma once

// Rounding of doubles and floats the way Flink's SqlFunctionUtils.sround does it: through
// BigDecimal.valueOf(double), i.e. the decimal digits of Double.toString.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <type_traits>

namespace streamfusion::functions {

// The significant decimal digits of a double: |value| = 0.d[0]d[1]...d[count-1] * 10^exponent.
struct DecimalDigits {
  char d[32];
  int count = 0;
  int exponent = 0;
};

// The digits of BigDecimal.valueOf(value) (Double.toString: the shortest digits that round-trip;
// see the ROUND note in math_functions.cc), without trailing zeros. `value` must be finite and
// non-zero.
inline DecimalDigits DoubleDigits(double value) {
  char buf[40];
  const auto res =
      std::to_chars(buf, buf + sizeof(buf), std::fabs(value), std::chars_format::scientific);
  DecimalDigits out;
  const char* p = buf;
  for (; p < res.ptr && *p != 'e'; ++p) {
    if (*p != '.') out.d[out.count++] = *p;
  }
  while (out.count > 1 && out.d[out.count - 1] == '0') --out.count;
  // p points at 'e', followed by a sign and at least two exponent digits.
  int exponent = 0;
  std::from_chars(p + 2, res.ptr, exponent);
  out.exponent = (p[1] == '-' ? -exponent : exponent) + 1;
  return out;
}

// SqlFunctionUtils.sround(double, int) / sround(float, int): BigDecimal.valueOf(value)
// .movePointRight(places).setScale(0, HALF_UP).movePointLeft(places), then doubleValue() /
// floatValue() (both correctly rounded). -0.0 and values rounding to zero give +0.0 (BigDecimal
// has no negative zero). `value` must be finite (BigDecimal.valueOf throws on NaN and infinity).
template <typename T>
T JavaRound(T value, int places) {
  static_assert(std::is_floating_point_v<T>);
  const double x = static_cast<double>(value);
  if (x == 0) return T{0};
  const DecimalDigits digits = DoubleDigits(x);
  const int64_t keep = int64_t{digits.exponent} + places;  // digits left of the cut
  if (keep >= digits.count) return value;                  // nothing to round away
  if (keep < 0 || (keep == 0 && digits.d[0] < '5')) return T{0};
  // The kept digits after a spare leading '0' that takes a carry, then "e<exponent>"; the
  // magnitude is parsed and the sign applied (exact).
  char text[64];
  int n = 0;
  text[n++] = '0';
  for (int64_t i = 0; i < keep; ++i) text[n++] = digits.d[i];
  if (digits.d[keep] >= '5') {  // HALF_UP
    int i = n - 1;
    while (text[i] == '9') text[i--] = '0';
    ++text[i];
  }
  text[n++] = 'e';
  const int64_t exponent = int64_t{digits.exponent} - keep;
  n +=
      static_cast<int>(std::to_chars(text + n, text + sizeof(text) - 1, exponent).ptr - (text + n));
  text[n] = '\0';
  T magnitude;
  if constexpr (std::is_same_v<T, float>) {
    magnitude = std::strtof(text, nullptr);
  } else {
    magnitude = std::strtod(text, nullptr);
  }
  return x < 0 ? -magnitude : magnitude;
}

}  // namespace streamfusion::functions
