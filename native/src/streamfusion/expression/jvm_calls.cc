#include "streamfusion/expression/jvm_calls.h"

#include <atomic>

namespace streamfusion::expression {
namespace {
std::atomic<JvmMathFn> g_jvm_math{nullptr};
std::atomic<JvmFormatFn> g_jvm_format{nullptr};
std::atomic<JvmIntegerFormatFn> g_jvm_integer_format{nullptr};
std::atomic<JvmParseTimestampsFn> g_jvm_parse_timestamps{nullptr};
std::atomic<JvmLegacyFormatFn> g_jvm_legacy_format{nullptr};
std::atomic<JvmFlinkParseFn> g_jvm_flink_parse{nullptr};
}  // namespace

void SetJvmMath(JvmMathFn fn) {
  g_jvm_math.store(fn, std::memory_order_release);
}

JvmMathFn GetJvmMath() {
  return g_jvm_math.load(std::memory_order_acquire);
}

void SetJvmFormat(JvmFormatFn fn) {
  g_jvm_format.store(fn, std::memory_order_release);
}

JvmFormatFn GetJvmFormat() {
  return g_jvm_format.load(std::memory_order_acquire);
}

void SetJvmIntegerFormat(JvmIntegerFormatFn fn) {
  g_jvm_integer_format.store(fn, std::memory_order_release);
}

JvmIntegerFormatFn GetJvmIntegerFormat() {
  return g_jvm_integer_format.load(std::memory_order_acquire);
}

void SetJvmParseTimestamps(JvmParseTimestampsFn fn) {
  g_jvm_parse_timestamps.store(fn, std::memory_order_release);
}

JvmParseTimestampsFn GetJvmParseTimestamps() {
  return g_jvm_parse_timestamps.load(std::memory_order_acquire);
}

void SetJvmLegacyFormat(JvmLegacyFormatFn fn) {
  g_jvm_legacy_format.store(fn, std::memory_order_release);
}

JvmLegacyFormatFn GetJvmLegacyFormat() {
  return g_jvm_legacy_format.load(std::memory_order_acquire);
}

void SetJvmFlinkParse(JvmFlinkParseFn fn) {
  g_jvm_flink_parse.store(fn, std::memory_order_release);
}

JvmFlinkParseFn GetJvmFlinkParse() {
  return g_jvm_flink_parse.load(std::memory_order_acquire);
}

Status FlinkParseError(FlinkStringParse kind, std::string_view text, int32_t precision,
                       Status native_error) {
  JvmFlinkParseFn fn = GetJvmFlinkParse();
  if (fn == nullptr) return native_error;
  return fn(kind, text, precision);
}

}  // namespace streamfusion::expression
