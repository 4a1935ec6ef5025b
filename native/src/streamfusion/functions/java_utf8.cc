#include "streamfusion/functions/java_utf8.h"

namespace streamfusion::functions {

namespace {

constexpr uint16_t kReplacement = 0xFFFD;
constexpr int32_t kMaxLength = 2147483647;

bool IsContinuation(uint8_t b) {
  return (b & 0xC0) == 0x80;
}

// A second byte that cannot follow lead `b1` in a well-formed 3-byte sequence as the JDK checks
// it (overlong E0 80..9F, or not a continuation byte; the surrogate range is checked after
// decoding).
bool Malformed3Second(uint8_t b1, uint8_t b2) {
  return (b1 == 0xE0 && (b2 & 0xE0) == 0x80) || !IsContinuation(b2);
}

// A second byte that cannot follow lead `b1` (F0..F4) in a well-formed 4-byte sequence.
bool Malformed4Second(uint8_t b1, uint8_t b2) {
  return (b1 == 0xF0 && (b2 < 0x90 || b2 > 0xBF)) || (b1 == 0xF4 && (b2 & 0xF0) != 0x80) ||
         !IsContinuation(b2);
}

}  // namespace

// The JDK's decoder replaces, with one U+FFFD each: a byte that cannot start a sequence; a lead
// byte followed by an impossible second byte (the lead alone); a sequence cut short by an
// impossible later byte (the bytes before it); a complete 3-byte sequence that encodes a
// surrogate (all three bytes); and a sequence truncated by the end of the input (all of it).
void DecodeJavaUtf8(std::string_view bytes, std::vector<uint16_t>* out) {
  const auto* src = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t n = bytes.size();
  size_t i = 0;
  while (i < n) {
    const uint8_t b1 = src[i++];
    if (b1 < 0x80) {
      out->push_back(b1);
    } else if (b1 >= 0xC2 && b1 <= 0xDF) {
      if (i < n && IsContinuation(src[i])) {
        out->push_back(static_cast<uint16_t>(((b1 & 0x1F) << 6) | (src[i] & 0x3F)));
        ++i;
      } else {
        out->push_back(kReplacement);
        if (i >= n) break;
      }
    } else if (b1 >= 0xE0 && b1 <= 0xEF) {
      if (i + 1 < n) {
        const uint8_t b2 = src[i];
        const uint8_t b3 = src[i + 1];
        if (Malformed3Second(b1, b2) || !IsContinuation(b3)) {
          out->push_back(kReplacement);
          i += Malformed3Second(b1, b2) ? 0 : 1;
        } else {
          const auto c =
              static_cast<uint16_t>(((b1 & 0x0F) << 12) | ((b2 & 0x3F) << 6) | (b3 & 0x3F));
          out->push_back(c >= 0xD800 && c <= 0xDFFF ? kReplacement : c);
          i += 2;
        }
        continue;
      }
      out->push_back(kReplacement);
      if (i < n && Malformed3Second(b1, src[i])) continue;
      break;
    } else if (b1 >= 0xF0 && b1 <= 0xF7) {
      if (i + 2 < n) {
        const uint8_t b2 = src[i];
        const uint8_t b3 = src[i + 1];
        const uint8_t b4 = src[i + 2];
        const uint32_t cp =
            ((b1 & 0x07u) << 18) | ((b2 & 0x3Fu) << 12) | ((b3 & 0x3Fu) << 6) | (b4 & 0x3Fu);
        if (!IsContinuation(b2) || !IsContinuation(b3) || !IsContinuation(b4) || cp < 0x10000 ||
            cp > 0x10FFFF) {
          out->push_back(kReplacement);
          // Bytes consumed by the replacement: the lead alone when the second byte cannot
          // follow it, else up to the first byte that is not a continuation.
          if (b1 > 0xF4 || Malformed4Second(b1, b2)) {
          } else if (!IsContinuation(b3)) {
            i += 1;
          } else {
            i += 2;
          }
        } else {
          const uint32_t v = cp - 0x10000;
          out->push_back(static_cast<uint16_t>(0xD800 + (v >> 10)));
          out->push_back(static_cast<uint16_t>(0xDC00 + (v & 0x3FF)));
          i += 3;
        }
        continue;
      }
      out->push_back(kReplacement);
      if (b1 > 0xF4 || (i < n && Malformed4Second(b1, src[i]))) continue;
      ++i;
      if (i < n && !IsContinuation(src[i])) continue;
      break;
    } else {
      out->push_back(kReplacement);
    }
  }
}

void EncodeJavaUtf8(const uint16_t* units, size_t count, std::string* out) {
  for (size_t i = 0; i < count; ++i) {
    const uint16_t c = units[i];
    if (c < 0x80) {
      out->push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (c >> 6)));
      out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c >= 0xD800 && c <= 0xDFFF) {
      if (c <= 0xDBFF && i + 1 < count && units[i + 1] >= 0xDC00 && units[i + 1] <= 0xDFFF) {
        const uint32_t cp = 0x10000 + ((static_cast<uint32_t>(c) - 0xD800) << 10) +
                            (static_cast<uint32_t>(units[i + 1]) - 0xDC00);
        out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        ++i;
      } else {
        out->push_back('?');
      }
    } else {
      out->push_back(static_cast<char>(0xE0 | (c >> 12)));
      out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
}

void BinaryToJavaString(std::string_view bytes, int32_t length, bool pad,
                        std::vector<uint16_t>* units, std::string* out) {
  units->clear();
  out->clear();
  DecodeJavaUtf8(bytes, units);
  if (length < kMaxLength) {
    const size_t target = static_cast<size_t>(length);
    if (units->size() > target) {
      units->resize(target);
    } else if (pad) {
      units->resize(target, u' ');
    }
  }
  EncodeJavaUtf8(units->data(), units->size(), out);
}

}  // namespace streamfusion::functions
