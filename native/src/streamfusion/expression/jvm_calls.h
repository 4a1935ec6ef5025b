#pragma once

// What the engine asks of the JVM that runs the job, where Java's own library defines the result:
// java.lang.Math's transcendental functions and the JVM locale's date-time texts. The JNI library
// installs both when it is loaded; without a JVM (C++ tests) they are absent and the functions
// that need them are refused.
//
// java.lang.Math:
//
// Flink's generated code calls java.lang.Math for SIN, COS, TAN, COT, EXP, LN, LOG, LOG10, LOG2,
// POWER, ASIN, ACOS, ATAN, ATAN2, SINH, COSH and TANH. HotSpot computes sin, cos, tan, exp, log,
// log10 and pow with CPU-specific intrinsic stubs and the others with fdlibm (StrictMath); glibc
// differs from both in the last ulp for 0.01% to 22% of inputs (native/tools/java_math_probe),
// and which stub runs depends on the JVM and the CPU. So the engine does not reproduce them: a
// batch's operands go to the same JVM in one call (io.streamfusion.runtime.callbacks.JvmMath),
// whose results are those of Flink's code by construction, and the island stays native around them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "streamfusion/common/status.h"

namespace streamfusion::expression {

// The functions, numbered as in JvmMath.java.
enum class JvmMathOp : int32_t {
  kSin = 0,
  kCos = 1,
  kTan = 2,
  kCot = 3,  // 1.0d / Math.tan(x)                 (SqlFunctionUtils.cot)
  kExp = 4,
  kLn = 5,  // Math.log(x)                        (LN, LOG(x))
  kLog10 = 6,
  kLog2 = 7,     // Math.log(x) / Math.log(2)          (SqlFunctionUtils.log2)
  kLogBase = 8,  // Math.log(x) / Math.log(base); a = base, b = x (SqlFunctionUtils.log)
  kPow = 9,      // Math.pow(a, b)
  kAsin = 10,
  kAcos = 11,
  kAtan = 12,
  kAtan2 = 13,  // Math.atan2(a = y, b = x)
  kSinh = 14,
  kCosh = 15,
  kTanh = 16,
};

// Computes out[i] = op(a[i]) or op(a[i], b[i]) for i < n in the JVM (`b` is null for the
// one-operand functions). Must be called on a thread that is inside a JNI call.
using JvmMathFn = Status (*)(JvmMathOp op, const double* a, const double* b, int64_t n,
                             double* out);

// Installed by the JNI library when it is loaded (tests may install their own); null when the
// engine runs without a JVM, and then these functions are refused.
void SetJvmMath(JvmMathFn fn);
JvmMathFn GetJvmMath();

// Formats each sample local date-time (epoch day, nano of day) with
// DateTimeFormatter.ofPattern(pattern) in the JVM's default locale, as Flink's DATE_FORMAT does
// (io.streamfusion.runtime.callbacks.JvmText). An invalid pattern is an error status.
using JvmFormatFn = Result<std::vector<std::string>> (*)(
    std::string_view pattern, const std::vector<std::pair<int64_t, int64_t>>& samples);

void SetJvmFormat(JvmFormatFn fn);
JvmFormatFn GetJvmFormat();

// Formats each local time (epoch millis read in UTC) with new SimpleDateFormat(pattern) in UTC,
// in the JVM's default locale, as FROM_UNIXTIME and DATE_FORMAT of a string do (JvmText).
using JvmLegacyFormatFn = Result<std::vector<std::string>> (*)(
    std::string_view pattern, const std::vector<int64_t>& local_millis);

void SetJvmLegacyFormat(JvmLegacyFormatFn fn);
JvmLegacyFormatFn GetJvmLegacyFormat();

// The integer NumberFormat that new SimpleDateFormat(pattern) parses numbers with (the JVM's
// default FORMAT locale): its zero digit, minus sign, exponent separator, infinity, NaN, positive
// and negative prefixes and suffixes, and pattern, one per line.
using JvmIntegerFormatFn = Result<std::string> (*)();

void SetJvmIntegerFormat(JvmIntegerFormatFn fn);
JvmIntegerFormatFn GetJvmIntegerFormat();

// TO_TIMESTAMP(text, pattern) as Flink computes it, DateTimeUtils.parseTimestampData(text,
// pattern) with the generated code's catch-all (io.streamfusion.runtime.callbacks.JvmText), for the
// texts the native parser leaves to the JVM (the java.sql fallback normalizes in the JVM's
// default time zone): each text's epoch millis, or nullopt for NULL. Texts and pattern are
// Flink STRING bytes. Must be called on a thread that is inside a JNI call.
using JvmParseTimestampsFn = Status (*)(std::string_view pattern,
                                        const std::vector<std::string_view>& texts,
                                        std::vector<std::optional<int64_t>>* out);

void SetJvmParseTimestamps(JvmParseTimestampsFn fn);
JvmParseTimestampsFn GetJvmParseTimestamps();

// Flink's own parsing of a string CAST (BinaryStringDataUtil.toTimestamp, toDate, toTime), run in
// the JVM for a text the native parser refuses, so that the query fails with the exception
// Flink throws for it, its class and message whole: returns a user error whose message is that
// exception's toString() (NativeException.of then throws that very exception, which the JVM
// side kept; a TRY_CAST makes it NULL), or an internal error when Flink's parse succeeds where the
// native one failed. Errors only: the per-row path is native. Must be called on a thread that is
// inside a JNI call.
enum class FlinkStringParse : int32_t { kTimestamp = 0, kDate = 1, kTime = 2 };

using JvmFlinkParseFn = Status (*)(FlinkStringParse kind, std::string_view text, int32_t precision);

void SetJvmFlinkParse(JvmFlinkParseFn fn);
JvmFlinkParseFn GetJvmFlinkParse();

// The error of a string CAST that the native parser refused: Flink's own exception through the
// JVM when one runs the engine, else `native_error` (C++ tests).
Status FlinkParseError(FlinkStringParse kind, std::string_view text, int32_t precision,
                       Status native_error);

}  // namespace streamfusion::expression
