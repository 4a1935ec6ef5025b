#pragma once

// Java's Double.toString / Float.toString, which Flink's CAST(FLOAT/DOUBLE AS STRING) uses
// (NumericToStringCastRule: "" + value) and, through BigDecimal.valueOf(double), its CAST to
// DECIMAL. The digits depend on the JVM: up to JDK 18 FloatingDecimal's dtoa (a Steele & White
// digit generator with a symmetric stopping test, which sometimes prints more digits than
// needed), from JDK 19 on the shortest-decimal specification of JDK-4511638 (Giulietti).

#include <cstdint>
#include <optional>

namespace streamfusion::functions {

enum class JavaFloatAlgorithm {
  kFloatingDecimal,  // JDK 17 and 18: sun/jdk.internal.math.FloatingDecimal.dtoa
  kShortest,         // JDK 19 and later: the shortest decimal that rounds back, closest to v
};

// The algorithm the JVM of feature version `java_feature_version` (Runtime.version().feature())
// uses, or nullopt when this library does not reproduce it (unknown, older or newer JVMs).
std::optional<JavaFloatAlgorithm> JavaFloatAlgorithmFor(int java_feature_version);

// A finite, non-zero value's decimal digits as Java computes them: value = 0.d1d2...dn *
// 10^exponent (FloatingDecimal's decExponent convention), 1 <= n <= 20, d1 != 0.
struct JavaDecimalDigits {
  bool negative = false;
  int count = 0;
  int exponent = 0;
  char digits[24] = {};
};

// Digits of a finite non-zero double / float.
JavaDecimalDigits JavaDoubleDigits(double value, JavaFloatAlgorithm algorithm);
JavaDecimalDigits JavaFloatDigits(float value, JavaFloatAlgorithm algorithm);

// Double.toString / Float.toString into `out` (at least 32 bytes); returns the length.
// NaN, Infinity, -Infinity, 0.0 and -0.0 as Java spells them.
int FormatJavaDouble(double value, JavaFloatAlgorithm algorithm, char* out);
int FormatJavaFloat(float value, JavaFloatAlgorithm algorithm, char* out);

}  // namespace streamfusion::functions
