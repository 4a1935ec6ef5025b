#pragma once

// Flink's DECIMAL arithmetic (DecimalDataUtils / DecimalData) on unscaled 128-bit values.
// A DECIMAL(p, s) value is `unscaled * 10^-s` with |unscaled| < 10^p. Results follow
// DecimalDataUtils.fromBigDecimal: round HALF_UP to the target scale, NULL (false return)
// when the rounded value needs more than the target precision.

#include <cstdint>
#include <string>

#include "streamfusion/common/status.h"

namespace streamfusion::functions {

using int128_t = __int128;

inline constexpr int kMaxDecimalPrecision = 38;

// 10^n for 0 <= n <= 38.
int128_t Pow10(int n);

// |value| < 10^precision.
bool FitsPrecision(int128_t value, int precision);

// Rescales HALF_UP from `from_scale` to `to_scale` and checks `precision`
// (DecimalDataUtils.castToDecimal). False when the result does not fit.
bool RescaleDecimal(int128_t value, int from_scale, int to_scale, int precision, int128_t* out);

// DecimalDataUtils.add / subtract / multiply: exact, then HALF_UP to (precision, scale).
bool DecimalAdd(int128_t a, int a_scale, int128_t b, int b_scale, int precision, int scale,
                int128_t* out);
bool DecimalSubtract(int128_t a, int a_scale, int128_t b, int b_scale, int precision, int scale,
                     int128_t* out);
bool DecimalMultiply(int128_t a, int a_scale, int128_t b, int b_scale, int precision, int scale,
                     int128_t* out);

enum class DecimalDivideResult {
  kOk,
  kOverflow,
  kDivisionByZero,
  kDivisionUndefined,
  kDivisionImpossible
};

// DecimalDataUtils.divide: BigDecimal.divide(divisor, MathContext(38, HALF_UP)), then HALF_UP to
// `scale`.
DecimalDivideResult DecimalDivide(int128_t a, int a_scale, int128_t b, int b_scale, int precision,
                                  int scale, int128_t* out);

// DecimalDataUtils.mod: BigDecimal.remainder(divisor, MathContext(38, HALF_UP)) (sign of the
// dividend), then HALF_UP to `scale`.
DecimalDivideResult DecimalRemainder(int128_t a, int a_scale, int128_t b, int b_scale,
                                     int precision, int scale, int128_t* out);

// Message of Java's ArithmeticException for a failed division result.
const char* DecimalDivideMessage(DecimalDivideResult result);

// DecimalDataUtils.doubleValue: compact decimals (precision <= 18) divide the unscaled long by
// 10^scale in double arithmetic; wider ones use BigDecimal.doubleValue (correctly rounded).
double DecimalToDouble(int128_t value, int precision, int scale);

// DecimalDataUtils.castToIntegral: truncate toward zero, then BigDecimal.longValue (low 64 bits).
int64_t DecimalToLong(int128_t value, int scale);

// Compares two decimal values by value, like BigDecimal.compareTo.
int DecimalCompare(int128_t a, int a_scale, int128_t b, int b_scale);

// DecimalData.toString: BigDecimal.toPlainString of the value.
std::string DecimalToString(int128_t value, int scale);

// Decodes a Literal's decimal_unscaled (BigInteger.toByteArray: big-endian two's complement).
Result<int128_t> DecimalFromBigEndian(const std::string& bytes);

}  // namespace streamfusion::functions
