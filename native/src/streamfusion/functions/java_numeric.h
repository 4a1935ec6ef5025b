#pragma once

// Java primitive arithmetic and casts, as Flink's generated code executes them on the JVM.

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace streamfusion::functions {

// Java's (To) cast of a primitive `value` (JLS 5.1.2 / 5.1.3): integral narrowing wraps,
// floating -> int/long saturates (NaN -> 0), floating -> byte/short goes through int first.
template <typename To, typename From>
inline To JavaCast(From value) {
  if constexpr (std::is_same_v<To, bool>) {
    return value != 0;
  } else if constexpr (std::is_same_v<From, bool>) {
    return static_cast<To>(value ? 1 : 0);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    using Wide = std::conditional_t<sizeof(To) == 8, int64_t, int32_t>;
    Wide wide;
    if (std::isnan(value)) {
      wide = 0;
    } else if (value >= static_cast<From>(std::numeric_limits<Wide>::max())) {
      wide = std::numeric_limits<Wide>::max();
    } else if (value <= static_cast<From>(std::numeric_limits<Wide>::min())) {
      wide = std::numeric_limits<Wide>::min();
    } else {
      wide = static_cast<Wide>(value);
    }
    return static_cast<To>(wide);
  } else {
    // Integral narrowing wraps (C++20 defines it as modulo 2^n, like Java); widening to
    // floating rounds to nearest like Java.
    return static_cast<To>(value);
  }
}

// Java's wrapping +, -, * on int / long.
template <typename T>
inline T JavaAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <typename T>
inline T JavaSubtract(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}
template <typename T>
inline T JavaMultiply(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}
template <typename T>
inline T JavaNegate(T a) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(U{0} - static_cast<U>(a));
  } else {
    return -a;
  }
}

// Java's / and % for a non-zero integral divisor (MIN / -1 wraps to MIN, MIN % -1 is 0);
// for floating point IEEE division and fmod (Java's % on double).
template <typename T>
inline T JavaDivide(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == -1) return JavaNegate(a);
    return a / b;
  } else {
    return a / b;
  }
}
template <typename T>
inline T JavaRemainder(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == -1) return 0;
    return a % b;
  } else {
    return std::fmod(a, b);
  }
}

// Double.compare / Float.compare: a total order where -0.0 < 0.0 and NaN is greatest.
inline int JavaDoubleCompare(double a, double b) {
  if (a < b) return -1;
  if (a > b) return 1;
  int64_t x, y;
  if (std::isnan(a)) a = std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(b)) b = std::numeric_limits<double>::quiet_NaN();
  __builtin_memcpy(&x, &a, 8);
  __builtin_memcpy(&y, &b, 8);
  return x == y ? 0 : (x < y ? -1 : 1);
}

}  // namespace streamfusion::functions
