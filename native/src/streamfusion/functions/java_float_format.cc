#include "streamfusion/functions/java_float_format.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

namespace streamfusion::functions {

std::optional<JavaFloatAlgorithm> JavaFloatAlgorithmFor(int java_feature_version) {
  // Verified bit for bit against OpenJDK 17 and Temurin 25 (see java_float_format_test.cc).
  // JDK 18 still has the FloatingDecimal generator; 19 to 25 share the JDK-4511638 code.
  if (java_feature_version == 17 || java_feature_version == 18) {
    return JavaFloatAlgorithm::kFloatingDecimal;
  }
  if (java_feature_version >= 19 && java_feature_version <= 25)
    return JavaFloatAlgorithm::kShortest;
  return std::nullopt;
}

namespace {

// ---------------------------------------------------------------------------------------------
// JDK <= 18: FloatingDecimal's digit generation, reproduced with its arithmetic (32-bit and
// 64-bit wrapping where the JDK uses int/long, exact where it uses its big integers, including
// the different stopping comparisons of the three variants).

// A non-negative integer of up to 48 32-bit limbs (enough for 2^1100 * 10).
class BigNum {
 public:
  explicit BigNum(uint64_t value) {
    limbs_[0] = static_cast<uint32_t>(value);
    limbs_[1] = static_cast<uint32_t>(value >> 32);
    size_ = limbs_[1] != 0 ? 2 : (limbs_[0] != 0 ? 1 : 0);
  }

  void MultiplySmall(uint32_t factor) {
    uint64_t carry = 0;
    for (int i = 0; i < size_; ++i) {
      uint64_t product = static_cast<uint64_t>(limbs_[i]) * factor + carry;
      limbs_[i] = static_cast<uint32_t>(product);
      carry = product >> 32;
    }
    if (carry != 0) limbs_[size_++] = static_cast<uint32_t>(carry);
  }

  void MultiplyPow5(int n) {
    for (; n >= 13; n -= 13) MultiplySmall(1220703125u);  // 5^13
    uint32_t rest = 1;
    for (; n > 0; --n) rest *= 5;
    if (rest != 1) MultiplySmall(rest);
  }

  void ShiftLeft(int bits) {
    if (size_ == 0 || bits == 0) return;
    const int words = bits / 32;
    const int shift = bits % 32;
    uint32_t result[kLimbs + 1] = {};
    for (int i = 0; i < size_; ++i) {
      uint64_t v = static_cast<uint64_t>(limbs_[i]) << shift;
      result[i + words] |= static_cast<uint32_t>(v);
      result[i + words + 1] |= static_cast<uint32_t>(v >> 32);
    }
    size_ += words + 1;
    std::memcpy(limbs_, result, sizeof(uint32_t) * static_cast<size_t>(size_));
    Trim();
  }

  // *this -= other * factor; requires *this >= other * factor.
  void SubtractMultiple(const BigNum& other, uint32_t factor) {
    uint64_t carry = 0;
    int64_t borrow = 0;
    for (int i = 0; i < size_; ++i) {
      uint64_t product =
          (i < other.size_ ? static_cast<uint64_t>(other.limbs_[i]) * factor : 0) + carry;
      carry = product >> 32;
      int64_t d =
          static_cast<int64_t>(limbs_[i]) - static_cast<int64_t>(product & 0xFFFFFFFFu) - borrow;
      borrow = d < 0 ? 1 : 0;
      limbs_[i] = static_cast<uint32_t>(d + (borrow << 32));
    }
    Trim();
  }

  // *this -= other; requires *this >= other.
  void Subtract(const BigNum& other) {
    int64_t borrow = 0;
    for (int i = 0; i < size_; ++i) {
      int64_t d =
          static_cast<int64_t>(limbs_[i]) - (i < other.size_ ? other.limbs_[i] : 0) - borrow;
      borrow = d < 0 ? 1 : 0;
      limbs_[i] = static_cast<uint32_t>(d + (borrow << 32));
    }
    Trim();
  }

  // Replaces *this by *this % divisor and returns the quotient (below 10 here). The quotient is
  // estimated from the leading limbs (never above the true one), then corrected.
  int DivideStep(const BigNum& divisor) {
    const int k = divisor.size_;
    if (size_ < k) return 0;
    unsigned __int128 top = 0;
    uint64_t divisor_top = 0;
    const int low = k >= 3 ? k - 2 : 0;
    for (int i = size_ - 1; i >= low; --i) top = (top << 32) | limbs_[i];
    for (int i = k - 1; i >= low; --i) divisor_top = (divisor_top << 32) | divisor.limbs_[i];
    // With all limbs in view (k <= 2) the division is exact; otherwise +1 bounds the dropped
    // lower limbs of the divisor.
    const uint64_t estimate = static_cast<uint64_t>(
        top / (k >= 3 ? static_cast<unsigned __int128>(divisor_top) + 1 : divisor_top));
    int q = static_cast<int>(estimate);
    if (q > 0) SubtractMultiple(divisor, static_cast<uint32_t>(q));
    while (Compare(*this, divisor) >= 0) {
      Subtract(divisor);
      ++q;
    }
    return q;
  }

  static int Compare(const BigNum& a, const BigNum& b) {
    if (a.size_ != b.size_) return a.size_ < b.size_ ? -1 : 1;
    for (int i = a.size_ - 1; i >= 0; --i) {
      if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] < b.limbs_[i] ? -1 : 1;
    }
    return 0;
  }

  // Compares a + b with c.
  static int CompareSum(const BigNum& a, const BigNum& b, const BigNum& c) {
    BigNum sum(0);
    const int n = std::max(a.size_, b.size_);
    uint64_t carry = 0;
    for (int i = 0; i < n; ++i) {
      uint64_t s = carry + (i < a.size_ ? a.limbs_[i] : 0) + (i < b.size_ ? b.limbs_[i] : 0);
      sum.limbs_[i] = static_cast<uint32_t>(s);
      carry = s >> 32;
    }
    sum.size_ = n;
    if (carry != 0) sum.limbs_[sum.size_++] = static_cast<uint32_t>(carry);
    return Compare(sum, c);
  }

 private:
  static constexpr int kLimbs = 48;
  void Trim() {
    while (size_ > 0 && limbs_[size_ - 1] == 0) --size_;
  }
  uint32_t limbs_[kLimbs + 1];
  int size_;
};

// BigNum's interface over an unsigned 128-bit value, for operands known to stay below 2^125.
class U128 {
 public:
  explicit U128(uint64_t value) : v_(value) {}
  void MultiplySmall(uint32_t factor) { v_ *= factor; }
  void MultiplyPow5(int n) {
    for (; n > 0; --n) v_ *= 5;
  }
  void ShiftLeft(int bits) { v_ <<= bits; }
  int DivideStep(const U128& divisor) {
    const unsigned __int128 q = v_ / divisor.v_;
    v_ -= q * divisor.v_;
    return static_cast<int>(q);
  }
  static int Compare(const U128& a, const U128& b) {
    return a.v_ < b.v_ ? -1 : (a.v_ > b.v_ ? 1 : 0);
  }
  static int CompareSum(const U128& a, const U128& b, const U128& c) {
    const unsigned __int128 sum = a.v_ + b.v_;
    return sum < c.v_ ? -1 : (sum > c.v_ ? 1 : 0);
  }

 private:
  unsigned __int128 v_;
};

// Bit length of 5^i (0 for i = 0), FloatingDecimal's "approximately ceil(log2(5^i))".
int Pow5Bits(int i) {
  if (i == 0) return 0;
  uint64_t p = 1;
  for (int k = 0; k < i; ++k) p *= 5;
  return 64 - std::countl_zero(p);
}
constexpr int kPow5BitsTableSize = 27;

uint64_t Pow5(int i) {
  uint64_t p = 1;
  for (int k = 0; k < i; ++k) p *= 5;
  return p;
}

// floor(log10(2^p)) for 1 < p < 63 (FloatingDecimal's insignificantDigitsForPow2); 0 otherwise.
int InsignificantDigitsForPow2(int p) {
  if (p <= 1 || p >= 63) return 0;
  uint64_t v = uint64_t{1} << p;
  int digits = 0;
  for (; v >= 10; v /= 10) ++digits;
  return digits;
}

// FloatingDecimal.estimateDecExp: floor of a first-order log10 estimate in double arithmetic.
int EstimateDecExp(uint64_t fract_bits, int bin_exp) {
  const uint64_t bits = (uint64_t{1023} << 52) | (fract_bits & ((uint64_t{1} << 52) - 1));
  const double d2 = std::bit_cast<double>(bits);
  // Java evaluates left to right without fused multiply-add.
  volatile double t = (d2 - 1.5) * 0.289529654;
  volatile double u = t + 0.176091259;
  volatile double w = static_cast<double>(bin_exp) * 0.301029995663981;
  const double d = u + w;
  return static_cast<int>(std::floor(d));
}

void StripAndStore(uint64_t value, int exponent_base, JavaDecimalDigits* out) {
  char buffer[24];
  int n = 0;
  while (value != 0) {
    buffer[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
  // buffer holds the digits least significant first; trailing zeros are dropped.
  int start = 0;
  while (start < n && buffer[start] == '0') ++start;
  out->count = n - start;
  for (int i = 0; i < out->count; ++i) out->digits[i] = buffer[n - 1 - i];
  out->exponent = exponent_base + n;
}

// FloatingDecimal.roundup: carry into the digits; all nines become 1 followed by zeros (the
// digit count is kept) with the exponent incremented.
void RoundUp(JavaDecimalDigits* d) {
  int i = d->count - 1;
  while (i > 0 && d->digits[i] == '9') d->digits[i--] = '0';
  if (d->digits[i] == '9') {
    d->digits[0] = '1';
    d->exponent += 1;
    return;
  }
  d->digits[i] = static_cast<char>(d->digits[i] + 1);
}

// One digit-generation run over int (T = int32_t) or long (T = int64_t) values with Java's
// wrapping arithmetic.
template <typename T>
void GenerateDigitsPrimitive(T b, T s, T m, int* dec_exp, JavaDecimalDigits* out, bool* low,
                             bool* high, T* low_digit_difference) {
  using U = std::make_unsigned_t<T>;
  auto mul = [](T x, T y) { return static_cast<T>(static_cast<U>(x) * static_cast<U>(y)); };
  auto add = [](T x, T y) { return static_cast<T>(static_cast<U>(x) + static_cast<U>(y)); };
  const T tens = mul(s, 10);
  int n = 0;
  int q = static_cast<int>(b / s);
  b = mul(10, b % s);
  m = mul(m, 10);
  *low = b < m;
  *high = add(b, m) > tens;
  if (q == 0 && !*high) {
    --*dec_exp;
  } else {
    out->digits[n++] = static_cast<char>('0' + q);
  }
  // Java's format always shows a digit after the point; in E-form that is a second digit.
  if (*dec_exp < -3 || *dec_exp >= 8) *high = *low = false;
  while (!*low && !*high) {
    q = static_cast<int>(b / s);
    b = mul(10, b % s);
    m = mul(m, 10);
    if (m > 0) {
      *low = b < m;
      *high = add(b, m) > tens;
    } else {
      *low = *high = true;
    }
    out->digits[n++] = static_cast<char>('0' + q);
  }
  *low_digit_difference = static_cast<T>((static_cast<U>(b) << 1) - static_cast<U>(tens));
  out->count = n;
}

// The exact variant (FloatingDecimal's big-integer arithmetic, whose stopping test is
// B + M >= 10S rather than the primitive variants' B + M > 10S), over BigNum or, when every
// value stays below 2^125, over unsigned 128-bit integers.
template <typename Num>
void GenerateDigitsExact(uint64_t f, int b5, int b2, int s5, int s2, int m5, int m2, int* dec_exp,
                         JavaDecimalDigits* out, bool* low, bool* high, int* low_digit_difference) {
  Num s(1);
  s.MultiplyPow5(s5);
  s.ShiftLeft(s2);
  Num b(f);
  b.MultiplyPow5(b5);
  b.ShiftLeft(b2);
  Num m(1);
  m.MultiplyPow5(m5);
  m.ShiftLeft(m2);
  Num ten_s = s;
  ten_s.MultiplySmall(10);
  // One step: q = B / S, B = 10 * (B % S), M *= 10.
  auto step = [&]() {
    const int q = b.DivideStep(s);
    b.MultiplySmall(10);
    m.MultiplySmall(10);
    *low = Num::Compare(b, m) < 0;
    *high = Num::CompareSum(b, m, ten_s) >= 0;
    return q;
  };
  int n = 0;
  int q = step();
  if (q == 0 && !*high) {
    --*dec_exp;
  } else {
    out->digits[n++] = static_cast<char>('0' + q);
  }
  if (*dec_exp < -3 || *dec_exp >= 8) *high = *low = false;
  while (!*low && !*high) {
    q = step();
    out->digits[n++] = static_cast<char>('0' + q);
  }
  out->count = n;
  if (*high && *low) {
    Num twice = b;
    twice.ShiftLeft(1);
    *low_digit_difference = Num::Compare(twice, ten_s);
  }
}

void FloatingDecimalDigits(int bin_exp, uint64_t fract_bits, int n_significant_bits,
                           JavaDecimalDigits* out) {
  const int tail_zeros = std::countr_zero(fract_bits);
  const int n_fract_bits = 53 - tail_zeros;
  const int n_tiny_bits = std::max(0, n_fract_bits - bin_exp - 1);
  if (bin_exp <= 62 && bin_exp >= -21 && n_tiny_bits == 0) {
    // An integer below 2^63: its decimal digits, the low ones that the binary precision cannot
    // distinguish rounded away (half up).
    const int insignificant = bin_exp > n_significant_bits
                                  ? InsignificantDigitsForPow2(bin_exp - n_significant_bits - 1)
                                  : 0;
    uint64_t value = bin_exp >= 52 ? fract_bits << (bin_exp - 52) : fract_bits >> (52 - bin_exp);
    if (insignificant != 0) {
      uint64_t pow10 = 1;
      for (int i = 0; i < insignificant; ++i) pow10 *= 10;
      const uint64_t residue = value % pow10;
      value /= pow10;
      if (residue >= pow10 / 2) ++value;
    }
    StripAndStore(value, insignificant, out);
    return;
  }
  int dec_exp = EstimateDecExp(fract_bits, bin_exp);
  const int b5 = std::max(0, -dec_exp);
  int b2 = b5 + n_tiny_bits + bin_exp;
  const int s5 = std::max(0, dec_exp);
  int s2 = s5 + n_tiny_bits;
  const int m5 = b5;
  int m2 = b2 - n_significant_bits;
  const uint64_t f = fract_bits >> tail_zeros;
  b2 -= n_fract_bits - 1;
  const int common2 = std::min(b2, s2);
  b2 -= common2;
  s2 -= common2;
  m2 -= common2;
  // The lower neighbour of a power of two is half as far; FloatingDecimal halves M for it.
  if (n_fract_bits == 1) m2 -= 1;
  if (m2 < 0) {
    b2 -= m2;
    s2 -= m2;
    m2 = 0;
  }
  const int b_bits = n_fract_bits + b2 + (b5 < kPow5BitsTableSize ? Pow5Bits(b5) : b5 * 3);
  const int ten_s_bits = s2 + 1 + (s5 + 1 < kPow5BitsTableSize ? Pow5Bits(s5 + 1) : (s5 + 1) * 3);
  bool low = false;
  bool high = false;
  int low_digit_difference = 0;  // sign only
  if (b_bits < 64 && ten_s_bits < 64) {
    if (b_bits < 32 && ten_s_bits < 32) {
      auto shl = [](int32_t x, int n) {
        return static_cast<int32_t>(static_cast<uint32_t>(x) << n);
      };
      int32_t b =
          shl(static_cast<int32_t>(static_cast<uint32_t>(f) * static_cast<uint32_t>(Pow5(b5))), b2);
      int32_t s = shl(static_cast<int32_t>(Pow5(s5)), s2);
      int32_t m = shl(static_cast<int32_t>(Pow5(m5)), m2);
      int32_t diff = 0;
      GenerateDigitsPrimitive<int32_t>(b, s, m, &dec_exp, out, &low, &high, &diff);
      low_digit_difference = diff > 0 ? 1 : (diff < 0 ? -1 : 0);
    } else {
      auto shl = [](int64_t x, int n) {
        return static_cast<int64_t>(static_cast<uint64_t>(x) << n);
      };
      int64_t b = shl(static_cast<int64_t>(f * Pow5(b5)), b2);
      int64_t s = shl(static_cast<int64_t>(Pow5(s5)), s2);
      int64_t m = shl(static_cast<int64_t>(Pow5(m5)), m2);
      int64_t diff = 0;
      GenerateDigitsPrimitive<int64_t>(b, s, m, &dec_exp, out, &low, &high, &diff);
      low_digit_difference = diff > 0 ? 1 : (diff < 0 ? -1 : 0);
    }
  } else if (b_bits <= 120 && ten_s_bits <= 120) {
    GenerateDigitsExact<U128>(f, b5, b2, s5, s2, m5, m2, &dec_exp, out, &low, &high,
                              &low_digit_difference);
  } else {
    GenerateDigitsExact<BigNum>(f, b5, b2, s5, s2, m5, m2, &dec_exp, out, &low, &high,
                                &low_digit_difference);
  }
  out->exponent = dec_exp + 1;
  if (high) {
    if (low) {
      if (low_digit_difference == 0) {
        if ((out->digits[out->count - 1] & 1) != 0) RoundUp(out);
      } else if (low_digit_difference > 0) {
        RoundUp(out);
      }
    } else {
      RoundUp(out);
    }
  }
}

JavaDecimalDigits FloatingDecimalDouble(double value) {
  const uint64_t bits = std::bit_cast<uint64_t>(std::fabs(value));
  uint64_t fract = bits & ((uint64_t{1} << 52) - 1);
  int bin_exp = static_cast<int>(bits >> 52);
  int n_significant_bits;
  if (bin_exp != 0) {
    fract |= uint64_t{1} << 52;
    n_significant_bits = 53;
  } else {
    const int leading_zeros = std::countl_zero(fract);
    const int shift = leading_zeros - 11;
    fract <<= shift;
    bin_exp = 1 - shift;
    n_significant_bits = 64 - leading_zeros;
  }
  JavaDecimalDigits out;
  FloatingDecimalDigits(bin_exp - 1023, fract, n_significant_bits, &out);
  return out;
}

JavaDecimalDigits FloatingDecimalFloat(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(std::fabs(value));
  uint32_t fract = bits & ((uint32_t{1} << 23) - 1);
  int bin_exp = static_cast<int>(bits >> 23);
  int n_significant_bits;
  if (bin_exp != 0) {
    fract |= uint32_t{1} << 23;
    n_significant_bits = 24;
  } else {
    const int leading_zeros = std::countl_zero(fract);
    const int shift = leading_zeros - 8;
    fract <<= shift;
    bin_exp = 1 - shift;
    n_significant_bits = 32 - leading_zeros;
  }
  JavaDecimalDigits out;
  FloatingDecimalDigits(bin_exp - 127, static_cast<uint64_t>(fract) << 29, n_significant_bits,
                        &out);
  return out;
}

// ---------------------------------------------------------------------------------------------
// JDK >= 19 (Double.toString javadoc): among the decimals that round to v, those of minimal
// length m; if m = 1, those of length 1 or 2; the one closest to v, ties to an even last digit.
// std::to_chars' shortest form is the first rule with the same tie-breaking; the length-2 rule
// is applied on top with correctly rounded two-digit candidates checked by round-tripping.

template <typename T>
T ParseBack(const char* text) {
  if constexpr (std::is_same_v<T, float>) {
    return std::strtof(text, nullptr);
  } else {
    return std::strtod(text, nullptr);
  }
}

// Parses to_chars' scientific output "d[.ddd]e[+-]xx" into digits.
void FromScientific(const char* text, int length, JavaDecimalDigits* out) {
  int i = 0;
  out->count = 0;
  for (; i < length && text[i] != 'e'; ++i) {
    if (text[i] != '.') out->digits[out->count++] = text[i];
  }
  int exponent = std::atoi(text + i + 1);
  while (out->count > 1 && out->digits[out->count - 1] == '0') --out->count;
  out->exponent = exponent + 1;
}

template <typename T>
JavaDecimalDigits ShortestDigits(T value) {
  const T magnitude = std::fabs(value);
  char text[64];
  auto r = std::to_chars(text, text + sizeof(text) - 1, magnitude, std::chars_format::scientific);
  *r.ptr = '\0';
  JavaDecimalDigits out;
  FromScientific(text, static_cast<int>(r.ptr - text), &out);
  if (out.count != 1) return out;
  // Minimal length 1: the closest decimal of length <= 2 that still rounds to the value.
  r = std::to_chars(text, text + sizeof(text) - 1, magnitude, std::chars_format::scientific, 1);
  *r.ptr = '\0';
  JavaDecimalDigits two;
  FromScientific(text, static_cast<int>(r.ptr - text), &two);
  const T back = ParseBack<T>(text);
  if (back == magnitude) return two;
  // The nearest two-digit decimal rounds elsewhere: take its neighbour on the other side of v.
  int value2 = (two.digits[0] - '0') * 10 + (two.count > 1 ? two.digits[1] - '0' : 0);
  int exponent = two.exponent;  // value = value2 / 100 * 10^exponent
  value2 += back > magnitude ? -1 : 1;
  if (value2 == 100) {
    value2 = 10;
    ++exponent;
  } else if (value2 == 9) {
    value2 = 99;
    --exponent;
  }
  JavaDecimalDigits other;
  other.digits[0] = static_cast<char>('0' + value2 / 10);
  other.digits[1] = static_cast<char>('0' + value2 % 10);
  other.count = value2 % 10 == 0 ? 1 : 2;
  other.exponent = exponent;
  return other;
}

int FormatDigits(const JavaDecimalDigits& d, char* out) {
  // FloatingDecimal.getChars; the JDK 19 layout is the same: plain for 10^-3 <= |v| < 10^7,
  // otherwise d.ddd E n, at least one digit after the point in both.
  int i = 0;
  if (d.negative) out[i++] = '-';
  const int e = d.exponent;
  const int n = d.count;
  if (e > 0 && e < 8) {
    const int integer_digits = std::min(n, e);
    std::memcpy(out + i, d.digits, static_cast<size_t>(integer_digits));
    i += integer_digits;
    if (integer_digits < e) {
      std::memset(out + i, '0', static_cast<size_t>(e - integer_digits));
      i += e - integer_digits;
      out[i++] = '.';
      out[i++] = '0';
    } else {
      out[i++] = '.';
      if (integer_digits < n) {
        std::memcpy(out + i, d.digits + integer_digits, static_cast<size_t>(n - integer_digits));
        i += n - integer_digits;
      } else {
        out[i++] = '0';
      }
    }
  } else if (e <= 0 && e > -3) {
    out[i++] = '0';
    out[i++] = '.';
    std::memset(out + i, '0', static_cast<size_t>(-e));
    i += -e;
    std::memcpy(out + i, d.digits, static_cast<size_t>(n));
    i += n;
  } else {
    out[i++] = d.digits[0];
    out[i++] = '.';
    if (n > 1) {
      std::memcpy(out + i, d.digits + 1, static_cast<size_t>(n - 1));
      i += n - 1;
    } else {
      out[i++] = '0';
    }
    out[i++] = 'E';
    int exponent = e - 1;
    if (exponent < 0) {
      out[i++] = '-';
      exponent = -exponent;
    }
    auto r = std::to_chars(out + i, out + i + 8, exponent);
    i = static_cast<int>(r.ptr - out);
  }
  return i;
}

template <typename T>
int FormatSpecial(T value, char* out) {
  const char* text = std::isnan(value)                             ? "NaN"
                     : value == std::numeric_limits<T>::infinity() ? "Infinity"
                     : value < 0 && std::isinf(value)              ? "-Infinity"
                     : std::signbit(value)                         ? "-0.0"
                                                                   : "0.0";
  const size_t n = std::strlen(text);
  std::memcpy(out, text, n);
  return static_cast<int>(n);
}

}  // namespace

JavaDecimalDigits JavaDoubleDigits(double value, JavaFloatAlgorithm algorithm) {
  JavaDecimalDigits d = algorithm == JavaFloatAlgorithm::kFloatingDecimal
                            ? FloatingDecimalDouble(value)
                            : ShortestDigits(value);
  d.negative = std::signbit(value);
  return d;
}

JavaDecimalDigits JavaFloatDigits(float value, JavaFloatAlgorithm algorithm) {
  JavaDecimalDigits d = algorithm == JavaFloatAlgorithm::kFloatingDecimal
                            ? FloatingDecimalFloat(value)
                            : ShortestDigits(value);
  d.negative = std::signbit(value);
  return d;
}

int FormatJavaDouble(double value, JavaFloatAlgorithm algorithm, char* out) {
  if (!std::isfinite(value) || value == 0) return FormatSpecial(value, out);
  return FormatDigits(JavaDoubleDigits(value, algorithm), out);
}

int FormatJavaFloat(float value, JavaFloatAlgorithm algorithm, char* out) {
  if (!std::isfinite(value) || value == 0) return FormatSpecial(value, out);
  return FormatDigits(JavaFloatDigits(value, algorithm), out);
}

}  // namespace streamfusion::functions
