#include "streamfusion/functions/decimal.h"

#include <cstdlib>

#include "arrow/util/decimal.h"

namespace streamfusion::functions {

namespace {

using Wide = arrow::Decimal256;

Wide ToWide(int128_t v) {
  return Wide(arrow::BasicDecimal128(static_cast<int64_t>(v >> 64), static_cast<uint64_t>(v)));
}

// Converts back; the caller guarantees |v| < 10^38.
int128_t FromWide(const Wide& v) {
  auto words = v.little_endian_array();
  return static_cast<int128_t>((static_cast<unsigned __int128>(words[1]) << 64) | words[0]);
}

Wide WidePow10(int n) {
  return Wide(Wide::GetScaleMultiplier(n));
}

bool WideFits(const Wide& v, int precision) {
  return Wide::Abs(v) < WidePow10(precision);
}

// Divides a non-negative `v` by 10^n rounding HALF_UP; n may exceed 76 (then the result is 0).
Wide WideDivPow10HalfUp(const Wide& v, int n) {
  if (n <= 0) return v;
  if (n > 76) return Wide(0);
  Wide q, r;
  (void)v.BasicDecimal256::Divide(WidePow10(n), &q, &r);
  // r >= 10^n / 2  <=>  2r >= 10^n
  if (r + r >= WidePow10(n)) q += Wide(1);
  return q;
}

// Rounds the exact value `v * 10^-v_scale` HALF_UP to `scale` and checks `precision`.
bool FinishWide(Wide v, int v_scale, int precision, int scale, int128_t* out) {
  bool negative = v.IsNegative();
  if (negative) v.Negate();
  if (v_scale > scale) {
    v = WideDivPow10HalfUp(v, v_scale - scale);
  } else if (v_scale < scale) {
    int up = scale - v_scale;
    // v < 10^76; scaling up by 10^up must stay below 10^precision to be kept at all.
    if (up > kMaxDecimalPrecision || !(v < WidePow10(kMaxDecimalPrecision + 1 - up))) {
      return false;
    }
    v *= WidePow10(up);
  }
  if (!WideFits(v, precision)) return false;
  int128_t r = FromWide(v);
  *out = negative ? -r : r;
  return true;
}

int DigitCount(const Wide& non_negative) {
  int digits = 1;
  while (digits <= 76 && !(non_negative < WidePow10(digits))) ++digits;
  return digits;
}

}  // namespace

int128_t Pow10(int n) {
  static const auto table = [] {
    struct Table {
      int128_t v[kMaxDecimalPrecision + 1];
    } t;
    t.v[0] = 1;
    for (int i = 1; i <= kMaxDecimalPrecision; ++i) t.v[i] = t.v[i - 1] * 10;
    return t;
  }();
  return table.v[n];
}

bool FitsPrecision(int128_t value, int precision) {
  int128_t limit = Pow10(precision);
  return value < limit && value > -limit;
}

bool RescaleDecimal(int128_t value, int from_scale, int to_scale, int precision, int128_t* out) {
  if (from_scale == to_scale) {
    if (!FitsPrecision(value, precision)) return false;
    *out = value;
    return true;
  }
  if (to_scale > from_scale) {
    int128_t r;
    if (to_scale - from_scale > kMaxDecimalPrecision ||
        __builtin_mul_overflow(value, Pow10(to_scale - from_scale), &r) ||
        !FitsPrecision(r, precision)) {
      return false;
    }
    *out = r;
    return true;
  }
  int down = from_scale - to_scale;
  if (down > kMaxDecimalPrecision) {
    *out = 0;
    return true;
  }
  int128_t divisor = Pow10(down);
  int128_t q = value / divisor;
  int128_t rem = value % divisor;
  if (rem < 0) rem = -rem;
  if (rem >= divisor - rem) q += value < 0 ? -1 : 1;
  if (!FitsPrecision(q, precision)) return false;
  *out = q;
  return true;
}

bool DecimalAdd(int128_t a, int a_scale, int128_t b, int b_scale, int precision, int scale,
                int128_t* out) {
  if (a_scale == b_scale) {
    int128_t sum;
    if (!__builtin_add_overflow(a, b, &sum))
      return RescaleDecimal(sum, a_scale, scale, precision, out);
  }
  int common = a_scale > b_scale ? a_scale : b_scale;
  Wide sum =
      ToWide(a).IncreaseScaleBy(common - a_scale) + ToWide(b).IncreaseScaleBy(common - b_scale);
  return FinishWide(sum, common, precision, scale, out);
}

bool DecimalSubtract(int128_t a, int a_scale, int128_t b, int b_scale, int precision, int scale,
                     int128_t* out) {
  return DecimalAdd(a, a_scale, -b, b_scale, precision, scale, out);
}

bool DecimalMultiply(int128_t a, int a_scale, int128_t b, int b_scale, int precision, int scale,
                     int128_t* out) {
  int128_t product;
  if (!__builtin_mul_overflow(a, b, &product)) {
    return RescaleDecimal(product, a_scale + b_scale, scale, precision, out);
  }
  return FinishWide(ToWide(a) * ToWide(b), a_scale + b_scale, precision, scale, out);
}

DecimalDivideResult DecimalDivide(int128_t a, int a_scale, int128_t b, int b_scale, int precision,
                                  int scale, int128_t* out) {
  if (b == 0) {
    return a == 0 ? DecimalDivideResult::kDivisionUndefined : DecimalDivideResult::kDivisionByZero;
  }
  if (a == 0) {
    *out = 0;
    return DecimalDivideResult::kOk;
  }
  constexpr int kDigits = 38;  // DecimalDataUtils.MC_DIVIDE = MathContext(38, HALF_UP)
  bool negative = (a < 0) != (b < 0);
  Wide abs_a = Wide::Abs(ToWide(a));
  Wide abs_b = Wide::Abs(ToWide(b));
  // Find k so that N = |a| * 10^k / |b| (unscaled quotient) has exactly kDigits integer digits.
  int k = kDigits - (DigitCount(abs_a) - DigitCount(abs_b)) - 1;
  Wide q, r, den;
  for (int attempt = 0; attempt < 3; ++attempt) {
    Wide num = abs_a;
    den = abs_b;
    if (k >= 0) {
      num = abs_a * WidePow10(k);
    } else {
      den = abs_b * WidePow10(-k);
    }
    (void)num.BasicDecimal256::Divide(den, &q, &r);
    if (q < WidePow10(kDigits - 1)) {
      ++k;
    } else if (!(q < WidePow10(kDigits))) {
      --k;
    } else {
      break;
    }
  }
  if (r + r >= den) q += Wide(1);
  // The rounded quotient is q * 10^-(k + b_scale - a_scale) ... expressed at scale e.
  int e = k - b_scale + a_scale;
  if (negative) q.Negate();
  int128_t result;
  if (e > scale + 40) {
    *out = 0;
    return DecimalDivideResult::kOk;
  }
  if (e < scale && scale - e > kMaxDecimalPrecision) return DecimalDivideResult::kOverflow;
  if (!FinishWide(q, e, precision, scale, &result)) return DecimalDivideResult::kOverflow;
  *out = result;
  return DecimalDivideResult::kOk;
}

DecimalDivideResult DecimalRemainder(int128_t a, int a_scale, int128_t b, int b_scale,
                                     int precision, int scale, int128_t* out) {
  if (b == 0) {
    return a == 0 ? DecimalDivideResult::kDivisionUndefined : DecimalDivideResult::kDivisionByZero;
  }
  int common = a_scale > b_scale ? a_scale : b_scale;
  Wide wa = ToWide(a).IncreaseScaleBy(common - a_scale);
  Wide wb = ToWide(b).IncreaseScaleBy(common - b_scale);
  Wide q, r;
  (void)wa.BasicDecimal256::Divide(wb, &q, &r);  // truncating; r has the dividend's sign
  // BigDecimal.divideToIntegralValue(divisor, mc) fails when the integral quotient needs more
  // than mc.precision digits.
  if (!(Wide::Abs(q) < WidePow10(38))) return DecimalDivideResult::kDivisionImpossible;
  int128_t result;
  if (!FinishWide(r, common, precision, scale, &result)) return DecimalDivideResult::kOverflow;
  *out = result;
  return DecimalDivideResult::kOk;
}

const char* DecimalDivideMessage(DecimalDivideResult result) {
  switch (result) {
    case DecimalDivideResult::kDivisionByZero: return "Division by zero";
    case DecimalDivideResult::kDivisionUndefined: return "Division undefined";
    case DecimalDivideResult::kDivisionImpossible: return "Division impossible";
    default: return "";
  }
}

double DecimalToDouble(int128_t value, int precision, int scale) {
  if (precision <= 18) {
    static const double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8, 1e9,
                                    1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
    return static_cast<double>(static_cast<int64_t>(value)) / kPow10[scale];
  }
  // BigDecimal.doubleValue is correctly rounded; so is strtod on the exact decimal string.
  std::string text =
      arrow::Decimal128(static_cast<int64_t>(value >> 64), static_cast<uint64_t>(value))
          .ToIntegerString();
  text += "e-" + std::to_string(scale);
  return std::strtod(text.c_str(), nullptr);
}

int64_t DecimalToLong(int128_t value, int scale) {
  int128_t integral = value / Pow10(scale);
  return static_cast<int64_t>(static_cast<uint64_t>(static_cast<unsigned __int128>(integral)));
}

int DecimalCompare(int128_t a, int a_scale, int128_t b, int b_scale) {
  if (a_scale != b_scale) {
    int diff = a_scale > b_scale ? a_scale - b_scale : b_scale - a_scale;
    int128_t scaled;
    int128_t& lower = a_scale < b_scale ? a : b;
    if (__builtin_mul_overflow(lower, Pow10(diff), &scaled)) {
      Wide wa = ToWide(a).IncreaseScaleBy(a_scale < b_scale ? diff : 0);
      Wide wb = ToWide(b).IncreaseScaleBy(b_scale < a_scale ? diff : 0);
      return wa < wb ? -1 : (wb < wa ? 1 : 0);
    }
    lower = scaled;
  }
  return a < b ? -1 : (a > b ? 1 : 0);
}

std::string DecimalToString(int128_t value, int scale) {
  bool negative = value < 0;
  unsigned __int128 magnitude =
      negative ? static_cast<unsigned __int128>(0) - static_cast<unsigned __int128>(value)
               : static_cast<unsigned __int128>(value);
  char digits[48];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + static_cast<int>(magnitude % 10));
    magnitude /= 10;
  } while (magnitude != 0);
  std::string out;
  if (negative) out.push_back('-');
  if (n <= scale) {
    out += "0.";
    out.append(static_cast<size_t>(scale - n), '0');
    for (int i = n - 1; i >= 0; --i) out.push_back(digits[i]);
  } else {
    for (int i = n - 1; i >= 0; --i) {
      out.push_back(digits[i]);
      if (i == scale && scale > 0) out.push_back('.');
    }
  }
  return out;
}

Result<int128_t> DecimalFromBigEndian(const std::string& bytes) {
  if (bytes.empty() || bytes.size() > 16) {
    return InternalError("DECIMAL literal has ", bytes.size(), " unscaled bytes");
  }
  unsigned __int128 v =
      (static_cast<uint8_t>(bytes[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
  for (char c : bytes) v = (v << 8) | static_cast<uint8_t>(c);
  return static_cast<int128_t>(v);
}

}  // namespace streamfusion::functions
