// Compares the native math implementations against java.lang.Math results recorded by
// JavaMathProbe: for each function, counts results whose bits differ (NaN payload differences
// are counted apart) and the largest difference in ulps.
//
//   c++ -O2 -std=c++20 -I native/src math_ulp_compare.cc <native math sources> -o compare
//   ./compare DIR

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "java_round.h"

namespace {

double FromBits(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
uint64_t Bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
// Distance in ulps between two finite doubles of the same sign class (ordered integer mapping).
int64_t Ordered(uint64_t b) {
  return (b >> 63) ? -static_cast<int64_t>(b & 0x7fffffffffffffffULL) : static_cast<int64_t>(b);
}

struct Stats {
  uint64_t total = 0, differ = 0, nan_payload = 0;
  int64_t max_ulp = 0;
  uint64_t example_in = 0, example_in2 = 0, example_java = 0, example_native = 0;
};

void Report(const char* name, const Stats& s) {
  std::printf("%-8s n=%llu differ=%llu (%.4f%%) nan_payload_only=%llu max_ulp=%lld", name,
              static_cast<unsigned long long>(s.total), static_cast<unsigned long long>(s.differ),
              s.total ? 100.0 * static_cast<double>(s.differ) / static_cast<double>(s.total) : 0.0,
              static_cast<unsigned long long>(s.nan_payload), static_cast<long long>(s.max_ulp));
  if (s.differ) {
    std::printf("  e.g. f(%.17g, %.17g) java=%.17g native=%.17g", FromBits(s.example_in),
                FromBits(s.example_in2), FromBits(s.example_java), FromBits(s.example_native));
  }
  std::printf("\n");
}

void Account(Stats& s, uint64_t in, uint64_t in2, uint64_t java, double native) {
  ++s.total;
  const uint64_t nb = Bits(native);
  if (nb == java) return;
  if (std::isnan(native) && std::isnan(FromBits(java))) {
    ++s.nan_payload;
    return;
  }
  ++s.differ;
  int64_t ulp = Ordered(nb) - Ordered(java);
  if (ulp < 0) ulp = -ulp;
  if (ulp > s.max_ulp) s.max_ulp = ulp;
  if (s.differ == 1) {
    s.example_in = in;
    s.example_in2 = in2;
    s.example_java = java;
    s.example_native = nb;
  }
}

bool Unary(const std::string& dir, const char* name, double (*f)(double)) {
  FILE* file = std::fopen((dir + "/" + name + ".bin").c_str(), "rb");
  if (!file) return false;
  Stats s;
  uint64_t rec[2];
  while (std::fread(rec, sizeof rec, 1, file) == 1)
    Account(s, rec[0], 0, rec[1], f(FromBits(rec[0])));
  std::fclose(file);
  Report(name, s);
  return true;
}

bool Binary(const std::string& dir, const char* name, double (*f)(double, double)) {
  FILE* file = std::fopen((dir + "/" + name + ".bin").c_str(), "rb");
  if (!file) return false;
  Stats s;
  uint64_t rec[3];
  while (std::fread(rec, sizeof rec, 1, file) == 1) {
    Account(s, rec[0], rec[1], rec[2], f(FromBits(rec[0]), FromBits(rec[1])));
  }
  std::fclose(file);
  Report(name, s);
  return true;
}

// Records (input bits, places, result bits) of FlinkRoundProbe; `f(bits, places)` gives the
// native result bits.
template <typename F>
bool WithPlaces(const std::string& dir, const char* name, F f) {
  FILE* file = std::fopen((dir + "/" + name + ".bin").c_str(), "rb");
  if (!file) return false;
  Stats s;
  uint64_t rec[3];
  while (std::fread(rec, sizeof rec, 1, file) == 1) {
    ++s.total;
    const uint64_t got = f(rec[0], static_cast<int>(static_cast<int64_t>(rec[1])));
    if (got != rec[2]) {
      if (std::getenv("VERBOSE") != nullptr) {
        std::printf("%s %016llx %lld %016llx %016llx\n", name,
                    static_cast<unsigned long long>(rec[0]), static_cast<long long>(rec[1]),
                    static_cast<unsigned long long>(rec[2]), static_cast<unsigned long long>(got));
      }
      if (++s.differ == 1) {
        s.example_in = rec[0];
        s.example_in2 = rec[1];
        s.example_java = rec[2];
        s.example_native = got;
      }
    }
  }
  std::fclose(file);
  std::printf("%-13s n=%llu differ=%llu", name, static_cast<unsigned long long>(s.total),
              static_cast<unsigned long long>(s.differ));
  if (s.differ) {
    std::printf("  e.g. bits %016llx places %lld java %016llx native %016llx",
                static_cast<unsigned long long>(s.example_in),
                static_cast<long long>(s.example_in2),
                static_cast<unsigned long long>(s.example_java),
                static_cast<unsigned long long>(s.example_native));
  }
  std::printf("\n");
  return true;
}

// Math.pow(x, 0.5) as Flink's SQRT computes it: sqrt, except pow's special cases.
double PowHalf(double x) {
  if (x == 0) return 0.0;                                             // pow(-0.0, 0.5) is +0.0
  if (std::isinf(x)) return std::numeric_limits<double>::infinity();  // pow(-inf, 0.5) is +inf
  return std::sqrt(x);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string dir = argv[1];
  Unary(dir, "sin", [](double x) { return std::sin(x); });
  Unary(dir, "cos", [](double x) { return std::cos(x); });
  Unary(dir, "tan", [](double x) { return std::tan(x); });
  Unary(dir, "cot", [](double x) { return 1.0 / std::tan(x); });
  Unary(dir, "exp", [](double x) { return std::exp(x); });
  Unary(dir, "log", [](double x) { return std::log(x); });
  Unary(dir, "log10", [](double x) { return std::log10(x); });
  Unary(dir, "log2", [](double x) { return std::log(x) / std::log(2.0); });
  Unary(dir, "sqrt", [](double x) { return std::sqrt(x); });
  Unary(dir, "asin", [](double x) { return std::asin(x); });
  Unary(dir, "acos", [](double x) { return std::acos(x); });
  Unary(dir, "atan", [](double x) { return std::atan(x); });
  Unary(dir, "sinh", [](double x) { return std::sinh(x); });
  Unary(dir, "cosh", [](double x) { return std::cosh(x); });
  Unary(dir, "tanh", [](double x) { return std::tanh(x); });
  Unary(dir, "degrees", [](double x) { return x * 57.29577951308232; });
  Unary(dir, "radians", [](double x) { return x * 0.017453292519943295; });
  Binary(dir, "pow", [](double x, double y) { return std::pow(x, y); });
  Binary(dir, "atan2", [](double x, double y) { return std::atan2(x, y); });
  Binary(dir, "logb", [](double b, double x) { return std::log(x) / std::log(b); });
  using streamfusion::functions::JavaRound;
  WithPlaces(dir, "sround_double",
             [](uint64_t in, int places) { return Bits(JavaRound(FromBits(in), places)); });
  // FlinkRoundProbe writes float bits as a sign-extended int: compare the low 32 bits.
  WithPlaces(dir, "sround_float", [](uint64_t in, int places) -> uint64_t {
    float f;
    uint32_t b = static_cast<uint32_t>(in);
    std::memcpy(&f, &b, 4);
    float r = JavaRound(f, places);
    int32_t rb;
    std::memcpy(&rb, &r, 4);
    return static_cast<uint64_t>(static_cast<int64_t>(rb));
  });
  WithPlaces(dir, "pow_half", [](uint64_t in, int) { return Bits(PowHalf(FromBits(in))); });
  WithPlaces(dir, "pow_two", [](uint64_t in, int) {
    const double x = FromBits(in);
    return Bits(x * x);
  });
  return 0;
}
