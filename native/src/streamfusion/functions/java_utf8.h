#pragma once

// Java's view of bytes as text, for Flink's BinaryToStringCastRule: new String(bytes, UTF_8)
// (malformed input replaced by U+FFFD the way the JDK's UTF-8 decoder does), String.length()
// and substring() in UTF-16 code units, and the UTF-8 encoding back (StringUtf8Utils, like
// String.getBytes: an unpaired surrogate becomes '?').

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace streamfusion::functions {

// new String(bytes, StandardCharsets.UTF_8) as UTF-16 code units, appended to `out`.
void DecodeJavaUtf8(std::string_view bytes, std::vector<uint16_t>* out);

// String.getBytes(UTF_8) of UTF-16 code units, appended to `out`.
void EncodeJavaUtf8(const uint16_t* units, size_t count, std::string* out);

// BinaryToStringCastRule's value: decode, then (when `length` is below VarCharType.MAX_LENGTH)
// keep the first `length` UTF-16 units, or for CHAR (`pad`) append spaces up to `length` units;
// encode. `units` is scratch space.
void BinaryToJavaString(std::string_view bytes, int32_t length, bool pad,
                        std::vector<uint16_t>* units, std::string* out);

}  // namespace streamfusion::functions
