#pragma once

// java.lang.String's case mapping on UTF-8 text, for UPPER and LOWER of text that
// BinaryStringData does not map byte by byte, plus the code point helpers the string functions
// use. Input is well-formed UTF-8 (functions/java_string.h makes it so, as toString() does).

#include <cstdint>
#include <string>
#include <string_view>

#include "streamfusion/common/status.h"

namespace streamfusion::functions {

// Code point at `*pos` of well-formed UTF-8, advancing `*pos`.
inline uint32_t NextCodePoint(std::string_view s, size_t* pos) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data()) + *pos;
  const uint8_t b = p[0];
  if (b < 0x80) {
    *pos += 1;
    return b;
  }
  if (b < 0xE0) {
    *pos += 2;
    return ((b & 0x1Fu) << 6) | (p[1] & 0x3Fu);
  }
  if (b < 0xF0) {
    *pos += 3;
    return ((b & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
  }
  *pos += 4;
  return ((b & 0x07u) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu);
}

// Appends the UTF-8 of code point `cp` (< 0x110000, not a surrogate).
void AppendCodePoint(uint32_t cp, std::string* out);

// String.toUpperCase() / toLowerCase() of well-formed UTF-8 for a default locale other than
// tr, az and lt (full Unicode mappings of the JDK the tables were generated with, including
// one-to-many mappings such as U+00DF -> "SS"). toLowerCase maps GREEK CAPITAL LETTER SIGMA to
// its final form by ConditionalSpecialCasing's rule, which depends on the JDK's word
// boundaries; contexts outside the ones reproduced here are a UserError saying so.
void AppendJavaUpperCase(std::string_view well_formed, std::string* out);
Status AppendJavaLowerCase(std::string_view well_formed, std::string* out);

}  // namespace streamfusion::functions
