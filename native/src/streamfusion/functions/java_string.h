#pragma once

// Flink STRING bytes as the Java String that Flink's Java code sees. BinaryStringData.toString()
// decodes its UTF-8 bytes with StringUtf8Utils.decodeUTF8: well-formed UTF-8 decodes as is, and
// anything else goes through the JDK's `new String(bytes, UTF_8)`, which replaces each malformed
// sequence by U+FFFD. Functions that run java.util.regex on toString() (REGEXP_EXTRACT, complex
// LIKE, ...) therefore see that replaced text, and what they return is re-encoded from it.

#include <cstdint>
#include <string>
#include <string_view>

namespace streamfusion::functions {

// Appends the UTF-8 encoding of `cp` (a code point, or a lone surrogate as 3 bytes).
void AppendUtf8(uint32_t cp, std::string* out);

// True when `bytes` is well-formed UTF-8 (no overlong forms, surrogates or code points beyond
// U+10FFFF): exactly the input StringUtf8Utils.decodeUTF8Strict accepts.
bool IsWellFormedUtf8(std::string_view bytes);

// The UTF-8 encoding of the Java String that BinaryStringData.toString() makes of `bytes`
// (JDK 17 replacement rules for malformed input). Written to `out` (cleared first).
void DecodeAsJavaString(std::string_view bytes, std::string* out);

// `bytes` if well-formed, else its Java decoding in `scratch`: the text java.util.regex sees.
inline std::string_view JavaText(std::string_view bytes, std::string* scratch) {
  if (IsWellFormedUtf8(bytes)) return bytes;
  DecodeAsJavaString(bytes, scratch);
  return *scratch;
}

// The number of UTF-16 code units (Java chars) of well-formed UTF-8 `text`.
int64_t Utf16Length(std::string_view text);

// StringUtf8Utils.decodeUTF8Strict into UTF-16 units (Java chars); false on malformed UTF-8.
bool DecodeUtf16(std::string_view text, std::u16string* out);

// Character.digit(c, 10) for one UTF-16 unit: ASCII digits and the BMP's other Unicode decimal
// digits (JDK 17), -1 for anything else.
int JavaDigit(char16_t c);

}  // namespace streamfusion::functions
