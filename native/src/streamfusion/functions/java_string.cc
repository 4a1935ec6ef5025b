#include "streamfusion/functions/java_string.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace streamfusion::functions {
namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

bool IsContinuation(uint8_t b) {
  return (b & 0xC0) == 0x80;
}

// The JDK's malformed-input checks (java.lang.String's UTF-8 decoder, JDK 17).
bool IsMalformed3(uint8_t b1, uint8_t b2, uint8_t b3) {
  return (b1 == 0xE0 && (b2 & 0xE0) == 0x80) || !IsContinuation(b2) || !IsContinuation(b3);
}
bool IsMalformed3Of2(uint8_t b1, uint8_t b2) {
  return (b1 == 0xE0 && (b2 & 0xE0) == 0x80) || !IsContinuation(b2);
}
bool IsMalformed4Of2(uint8_t b1, uint8_t b2) {
  return (b1 == 0xF0 && (b2 < 0x90 || b2 > 0xBF)) || (b1 == 0xF4 && (b2 & 0xF0) != 0x80) ||
         !IsContinuation(b2);
}
// How many bytes a malformed 3- or 4-byte sequence starting at `p` spans.
size_t Malformed3Length(const uint8_t* p) {
  return ((p[0] == 0xE0 && (p[1] & 0xE0) == 0x80) || !IsContinuation(p[1])) ? 1 : 2;
}
size_t Malformed4Length(const uint8_t* p) {
  const uint8_t b1 = p[0], b2 = p[1];
  if (b1 > 0xF4 || (b1 == 0xF0 && (b2 < 0x90 || b2 > 0xBF)) ||
      (b1 == 0xF4 && (b2 & 0xF0) != 0x80) || !IsContinuation(b2)) {
    return 1;
  }
  return IsContinuation(p[2]) ? 3 : 2;
}

}  // namespace

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool IsWellFormedUtf8(std::string_view bytes) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const auto* end = p + bytes.size();
  while (p < end) {
    // ASCII runs eight bytes at a time.
    while (end - p >= 8) {
      uint64_t word;
      std::memcpy(&word, p, 8);
      if (word & 0x8080808080808080ULL) break;
      p += 8;
    }
    if (p == end) break;
    const uint8_t b1 = *p;
    if (b1 < 0x80) {
      ++p;
    } else if (b1 >= 0xC2 && b1 <= 0xDF) {
      if (end - p < 2 || !IsContinuation(p[1])) return false;
      p += 2;
    } else if (b1 >= 0xE0 && b1 <= 0xEF) {
      if (end - p < 3 || !IsContinuation(p[1]) || !IsContinuation(p[2])) return false;
      if (b1 == 0xE0 && p[1] < 0xA0) return false;   // overlong
      if (b1 == 0xED && p[1] >= 0xA0) return false;  // surrogate
      p += 3;
    } else if (b1 >= 0xF0 && b1 <= 0xF4) {
      if (end - p < 4 || !IsContinuation(p[1]) || !IsContinuation(p[2]) || !IsContinuation(p[3])) {
        return false;
      }
      if (b1 == 0xF0 && p[1] < 0x90) return false;   // overlong
      if (b1 == 0xF4 && p[1] >= 0x90) return false;  // beyond U+10FFFF
      p += 4;
    } else {
      return false;
    }
  }
  return true;
}

void DecodeAsJavaString(std::string_view bytes, std::string* out) {
  out->clear();
  out->reserve(bytes.size() + 8);
  const auto* src = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t sl = bytes.size();
  size_t sp = 0;
  while (sp < sl) {
    const uint8_t b1 = src[sp++];
    if (b1 < 0x80) {
      out->push_back(static_cast<char>(b1));
    } else if ((b1 >> 5) == 0x6 && (b1 & 0x1E) != 0) {
      if (sp < sl) {
        const uint8_t b2 = src[sp++];
        if (!IsContinuation(b2)) {
          out->append(kReplacement);
          --sp;
        } else {
          AppendUtf8(((b1 & 0x1F) << 6) | (b2 & 0x3F), out);
        }
        continue;
      }
      out->append(kReplacement);
      break;
    } else if ((b1 >> 4) == 0xE) {
      if (sp + 1 < sl) {
        const uint8_t b2 = src[sp++];
        const uint8_t b3 = src[sp++];
        if (IsMalformed3(b1, b2, b3)) {
          out->append(kReplacement);
          sp -= 3;
          sp += Malformed3Length(src + sp);
        } else {
          const uint32_t c = ((b1 & 0x0F) << 12) | ((b2 & 0x3F) << 6) | (b3 & 0x3F);
          if (c >= 0xD800 && c <= 0xDFFF) {
            out->append(kReplacement);
          } else {
            AppendUtf8(c, out);
          }
        }
        continue;
      }
      if (sp < sl && IsMalformed3Of2(b1, src[sp])) {
        out->append(kReplacement);
        continue;
      }
      out->append(kReplacement);
      break;
    } else if ((b1 >> 3) == 0x1E) {
      if (sp + 2 < sl) {
        const uint8_t b2 = src[sp++];
        const uint8_t b3 = src[sp++];
        const uint8_t b4 = src[sp++];
        const uint32_t uc =
            ((b1 & 0x07) << 18) | ((b2 & 0x3F) << 12) | ((b3 & 0x3F) << 6) | (b4 & 0x3F);
        if (!IsContinuation(b2) || !IsContinuation(b3) || !IsContinuation(b4) || uc < 0x10000 ||
            uc > 0x10FFFF) {
          out->append(kReplacement);
          sp -= 4;
          sp += Malformed4Length(src + sp);
        } else {
          AppendUtf8(uc, out);
        }
        continue;
      }
      if (b1 > 0xF4 || (sp < sl && IsMalformed4Of2(b1, src[sp]))) {
        out->append(kReplacement);
        continue;
      }
      ++sp;
      out->append(kReplacement);
      if (sp < sl && !IsContinuation(src[sp])) continue;
      break;
    } else {
      out->append(kReplacement);
    }
  }
}

int64_t Utf16Length(std::string_view text) {
  int64_t units = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80) units += c >= 0xF0 ? 2 : 1;
  }
  return units;
}

// Zero code points of the BMP's decimal digit runs (Unicode Nd, ten consecutive code points
// each): the non-ASCII chars Java's Character.digit(c, 10) accepts, as BigDecimal does. Checked
// against Character.isDigit of the JDK 17 that runs Flink.
constexpr std::array<char16_t, 36> kUnicodeDigitZeros = {
    0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6, 0x0D66,
    0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10};

// Character.digit(c, 10) for one UTF-16 unit.
int JavaDigit(char16_t c) {
  if (c >= u'0' && c <= u'9') return c - u'0';
  auto it = std::upper_bound(kUnicodeDigitZeros.begin(), kUnicodeDigitZeros.end(), c);
  if (it == kUnicodeDigitZeros.begin()) return -1;
  const char16_t zero = *(it - 1);
  return c - zero < 10 ? c - zero : -1;
}

// StringUtf8Utils.decodeUTF8Strict into UTF-16 units; false on malformed UTF-8.
bool DecodeUtf16(std::string_view text, std::u16string* out) {
  out->clear();
  size_t i = 0;
  while (i < text.size()) {
    const uint8_t lead = static_cast<uint8_t>(text[i]);
    uint32_t code;
    size_t length;
    if (lead < 0x80) {
      code = lead;
      length = 1;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
      code = lead & 0x1F;
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      code = lead & 0x0F;
      length = 3;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      code = lead & 0x07;
      length = 4;
    } else {
      return false;
    }
    if (i + length > text.size()) return false;
    for (size_t k = 1; k < length; ++k) {
      const uint8_t next = static_cast<uint8_t>(text[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3F);
    }
    if ((length == 3 && (code < 0x800 || (code >= 0xD800 && code <= 0xDFFF))) ||
        (length == 4 && (code < 0x10000 || code > 0x10FFFF))) {
      return false;
    }
    if (code >= 0x10000) {
      out->push_back(static_cast<char16_t>(0xD800 + ((code - 0x10000) >> 10)));
      out->push_back(static_cast<char16_t>(0xDC00 + ((code - 0x10000) & 0x3FF)));
    } else {
      out->push_back(static_cast<char16_t>(code));
    }
    i += length;
  }
  return true;
}

}  // namespace streamfusion::functions
